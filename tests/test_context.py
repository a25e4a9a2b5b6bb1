"""A line of context in a leaf's ``embed_text`` (issue 31): from the document itself
(``doc_context``: the page's title and description, the lead-in of the list or code block a
leaf starts inside) or from a caller's ``enrich`` callable (cached by content hash). Either is
counted in the budget, never in ``text``, and changes no span: every guarantee holds."""

from __future__ import annotations

from pathlib import Path

import pytest

import mdchunk
from mdchunk import ChunkerConfig
from mdchunk.chunks import EnrichCache, Enricher
from mdchunk.text import document_text

from .conftest import fixture_files
from .test_guarantees import assert_markdown_guarantees

PAGE = """---
title: Disk alerts
description: What to do when a node's disk fills up.
---
# Disk full

The alert fires at 90%.

## Free space

To free space on the node, run these in order:

""" + "".join(f"- step {i}: remove the old {word} files from the data folder and check again\n"
              for i, word in enumerate(["log", "core", "cache", "tmp", "backup", "spool"] * 6))

BUDGETS = [32, 48, 64, 128, 256, 512, 1024]
FIXTURES = fixture_files(".md")[:6]


class Fake:
    """A fake model: one line naming the leaf's first word, and how often it was asked."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, document: str, leaf: str) -> str:
        self.calls += 1
        return f"About {leaf.split(maxsplit=1)[0]} in a page of {len(document)} characters.\nIGNORED"


def test_a_leaf_inside_a_list_gets_its_lead_in_and_the_page_description(counter) -> None:
    plain = mdchunk.chunk_markdown(PAGE, max_tokens=512, overlap_tokens=0)
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=512, overlap_tokens=0, doc_context=True)
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in plain]
    inside = [c for c in chunks if c.text.startswith("- step") and c.index > 0]
    assert inside, "the list is cut"
    for chunk in inside:
        assert "To free space on the node, run these in order:" in chunk.embed_text
        assert "What to do when a node's disk fills up." in chunk.embed_text
        assert "To free space" not in chunk.text  # context is for the embedder only
        assert chunk.embed_text.startswith("Disk full > Free space\n\n")  # after the crumb
        assert chunk.token_count == counter.count(chunk.embed_text) <= 512
    # the title is no heading of the page: it is said too; a leaf whose text holds the
    # lead-in is not told it again
    first = chunks[0]
    assert "Disk alerts" in first.embed_text
    assert first.embed_text.count("To free space on the node") <= 1
    # off by default, and the ids of a config without it stay put
    assert ChunkerConfig().doc_context is False
    assert ChunkerConfig(doc_context=True).fingerprint != ChunkerConfig().fingerprint
    assert [c.id for c in plain] == [c.id for c in mdchunk.chunk_markdown(
        PAGE, max_tokens=512, overlap_tokens=0, doc_context=False)]


def test_doc_context_is_checked() -> None:
    with pytest.raises(mdchunk.ConfigError, match="doc_context"):
        ChunkerConfig(doc_context="yes")  # type: ignore[arg-type]


def test_enrich_writes_one_line_after_the_breadcrumb_never_in_text(counter) -> None:
    fake = Fake()
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=256, overlap_tokens=0, enrich=fake)
    plain = mdchunk.chunk_markdown(PAGE, max_tokens=256, overlap_tokens=0)
    assert fake.calls == len(chunks) == len(plain) > 2
    whole = 0
    for chunk, bare in zip(chunks, plain, strict=True):
        line = f"About {chunk.text.split()[0]} in a page of {len(PAGE)} characters."
        assert bare.embed_text.endswith(bare.text)  # a breadcrumb (or none), then the text
        crumb_end = len(bare.embed_text) - len(bare.text)
        head, rest = chunk.embed_text[:crumb_end], chunk.embed_text[crumb_end:]
        assert head == bare.embed_text[:crumb_end]  # the breadcrumb first, as without it
        shown, _, after = rest.partition("\n\n")
        assert after == bare.embed_text[crumb_end:]  # then the line, then what was there
        assert shown == line or (shown.endswith("…") and line.startswith(shown[:-1]))
        whole += shown == line
        assert "IGNORED" not in chunk.embed_text  # the first line only
        assert line not in chunk.text  # never in the text
        assert chunk.token_count == counter.count(chunk.embed_text) <= 256
    assert whole  # where there is room, the line whole


def test_enrich_is_asked_once_per_document_and_leaf(tmp_path: Path) -> None:
    fake = Fake()
    enricher = Enricher(fake)
    chunker = mdchunk.Chunker(ChunkerConfig(max_tokens=128, overlap_tokens=0), enrich=enricher)
    first = chunker.chunk(PAGE, doc_id="a.md")
    asked = fake.calls
    assert asked == len({(c.start, c.end) for c in first})
    again = chunker.chunk(PAGE, doc_id="b.md")  # same text elsewhere: nothing asked again
    assert fake.calls == asked
    assert [c.embed_text for c in again] == [c.embed_text for c in first]
    changed = chunker.chunk(PAGE + "\nOne more line.\n", doc_id="a.md")  # another document
    assert fake.calls == asked + len(changed)
    # on disk, a later run (a new process, a re-index) asks nothing already answered
    path = tmp_path / "enrich.sqlite"
    disk = Enricher(fake, EnrichCache(path))
    mdchunk.chunk_markdown(PAGE, max_tokens=128, overlap_tokens=0, enrich=disk)
    disk.cache.close()
    before = fake.calls
    later = Enricher(fake, EnrichCache(path))
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=128, overlap_tokens=0, enrich=later)
    assert fake.calls == before and later.calls == 0
    assert [c.embed_text for c in chunks] == [c.embed_text for c in first]
    later.cache.close()


def test_an_enrich_answer_that_is_no_text_is_refused() -> None:
    with pytest.raises(TypeError, match="not a line of text"):
        mdchunk.chunk_markdown(PAGE, max_tokens=128, enrich=lambda d, t: None)  # type: ignore


def test_a_long_line_is_cut_to_the_room_left_or_left_out(counter) -> None:
    def chatty(document: str, leaf: str) -> str:
        return "context " * 400

    for budget in BUDGETS:
        chunks = mdchunk.chunk_markdown(PAGE, max_tokens=budget, overlap_tokens=0, enrich=chatty,
                                        doc_context=True)
        plain = mdchunk.chunk_markdown(PAGE, max_tokens=budget, overlap_tokens=0)
        assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in plain]
        for chunk in chunks:
            assert chunk.token_count == counter.count(chunk.embed_text) <= budget
            assert chunk.embed_text.count("context") <= budget // 8 + 1


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_the_guarantees_hold_with_context_and_enrich(path: Path, budget: int, counter) -> None:
    source = document_text(path)
    overlap = min(budget // 8, 64)
    chunks = mdchunk.chunk_markdown(source, max_tokens=budget, overlap_tokens=overlap,
                                    doc_id=path.name, doc_context=True, enrich=Fake())
    assert_markdown_guarantees(source, chunks, counter, budget, overlap, headings=budget >= 48)
    plain = mdchunk.chunk_markdown(source, max_tokens=budget, overlap_tokens=overlap,
                                   doc_id=path.name)
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in plain]


def test_a_hierarchy_enriches_its_leaves_only() -> None:
    fake = Fake()
    chunks = mdchunk.chunk_hierarchy(PAGE, levels=(512, 128), overlap_tokens=0, enrich=fake)
    leaves = [c for c in chunks if c.level == 2]
    assert fake.calls == len(leaves)
    assert any("About " in c.embed_text for c in leaves)  # where a leaf leaves room
    assert not any("About " in c.embed_text for c in chunks if c.level == 1)
