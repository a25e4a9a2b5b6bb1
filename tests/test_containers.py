"""Headings and line markers inside containers (quotes, list items) at small budgets.

A heading nested in a quote or an item is no section's: no breadcrumb carries it, and the audit
does not count it with the block after it. When that block fits a chunk of its own but not
beside the heading, the block stays whole (guarantee 2) and the heading closes its chunk. And
a quote's ``>`` or an item's marker stays with its line: a seam falls at the line's start.
"""

from __future__ import annotations

import pytest

import mdchunk
from tests.audit import audit_markdown

HTML = "<table><tr><td>cell</td></tr></table>"


def _spans(source: str, max_tokens: int, counter) -> list[tuple[int, int]]:
    """The chunks' spans, after checking that each chunk fits and the audit finds nothing."""
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=0,
                                    doc_id="g.md")
    spans = [(c.start, c.end) for c in chunks]
    report = audit_markdown(source, spans, [c.token_count for c in chunks], counter,
                            max_tokens)
    assert report.over_budget == report.cut == report.uncovered == report.inline_cut == []
    return spans


def _texts(source: str, spans: list[tuple[int, int]]) -> list[str]:
    return [source[a:b] for a, b in spans]


@pytest.mark.parametrize("source,budget,block", [
    (f"alpha.\n\n> # alpha\n>\n> {HTML}\n", 16, f"> {HTML}"),
    ("alpha.\n\n> # alpha\n>\n> | a | b |\n> |---|---|\n> | 1 | 2 |\n", 24,
     "> | a | b |\n> |---|---|\n> | 1 | 2 |"),
    (f"alpha.\n\n- # alpha\n\n  {HTML}\n", 16, f"  {HTML}"),
], ids=["html-in-quote", "table-in-quote", "html-in-item"])
def test_a_block_after_a_nested_heading_stays_whole(source: str, budget: int, block: str,
                                                    counter) -> None:
    heading = source.split("\n\n", 1)[1].split("\n", maxsplit=1)[0]
    texts = _texts(source, _spans(source, budget, counter))
    assert texts[-1] == block, "the block fits a chunk of its own: it is not cut"
    assert texts[-2].startswith(heading) and block not in texts[-2]


def test_a_block_that_fits_beside_a_nested_heading_keeps_it_company(counter) -> None:
    source = f"alpha.\n\n> # alpha\n>\n> {HTML}\n"
    assert _texts(source, _spans(source, 32, counter)) == [source.rstrip("\n")]


def test_after_a_quoted_paragraph_the_block_was_already_whole(counter) -> None:
    source = f"alpha.\n\n> alpha beta gamma\n>\n> {HTML}\n"
    assert _texts(source, _spans(source, 16, counter)) == [
        "alpha.\n\n> alpha beta gamma\n>", f"> {HTML}"]


LEAD = "alpha beta gamma delta alpha beta gamma delta the of to a alpha."
WORDS = ("alpha beta gamma delta alpha beta gamma delta the of to alpha beta gamma delta alpha "
         "beta gamma delta")


@pytest.mark.parametrize("marker", [">", "-"])
def test_a_line_marker_stays_with_its_line(marker: str, counter) -> None:
    """The quote or item is cut by words after the paragraph before it: its marker starts the
    chunk that its first words start, not the end of the one before."""
    source = f"{LEAD}\n\n{marker} {WORDS}\n"
    texts = _texts(source, _spans(source, 16, counter))
    assert texts[0] == LEAD, "not the marker alone after it"
    assert texts[1].startswith(f"{marker} alpha beta")
    assert not any(text.rstrip().endswith(marker) for text in texts)
    assert " ".join(t.removeprefix(f"{marker} ") for t in texts[1:]) == WORDS


def test_a_quote_marker_stays_with_its_line_inside_a_quote(counter) -> None:
    lines = ["alpha beta gamma delta the of", "to alpha beta gamma delta alpha", "beta gamma"]
    source = f"{LEAD}\n\n" + "".join(f"> {line}\n" for line in lines)
    assert _texts(source, _spans(source, 16, counter)) == [
        LEAD, "> alpha beta gamma delta the of\n> to alpha beta gamma delta alpha", "> beta gamma"]
