"""Issue 43, clean results: a hit's matching lines and a chunk's breadcrumb show only what the
page shows: no front matter (``1:---``, ``2:title: LimitRange``), no HTML comment of a
translated page (``<!-- overview -->``), no empty crumb for a heading made of markup that
renders to nothing (``## {{% heading "prerequisites" %}}`` gave ``Page > ``)."""

from __future__ import annotations

import dataclasses

import mdchunk
from mdchunk.cli.output import matching_lines, preview
from mdchunk.formats.blocks import LineIndex
from mdchunk.index.highlights import query_terms, term_matches
from mdchunk.index.rows import leaf_hit
from mdchunk.index.store import SearchHit
from mdchunk.index.units import leaf_units, unit_spans

PAGE = """---
title: LimitRange
content_type: concept
weight: 10
---

<!-- overview -->

A LimitRange is a policy to constrain the resource allocations (limits and requests) of
each Pod or Container in a namespace.

<!--
A LimitRange is a policy to constrain resource allocations (translated from the English page).
-->

## {{% heading "prerequisites" %}}

You need a Kubernetes cluster and kubectl configured to talk to it.

## Apply a LimitRange

Run kubectl apply with the LimitRange manifest.
"""


def page_hit(text: str = PAGE, start: int = 0) -> SearchHit:
    """A leaf hit of ``text`` lying at ``start`` in its page (0: it opens the page)."""
    return leaf_hit(1.0, {"id": "leaf", "doc_id": "lr.md", "path": "lr.md", "title": "",
                          "section_path": "LimitRange", "line_start": 1,
                          "line_end": LineIndex.of(text).line_of(len(text) - 1),
                          "text": text, "level": 3, "parent_id": None, "start": start,
                          "end": start + len(text)})


def matched_lines(hit: SearchHit, query: str) -> list[str]:
    found = term_matches(hit, query_terms(query))
    return [hit.text[m.start:m.end] for m in found]


def test_no_match_in_the_front_matter_or_a_comment() -> None:
    hit = page_hit()
    lines = matched_lines(hit, "LimitRange")
    assert lines and all("title:" not in line and "<!--" not in line and "translated" not in line
                         for line in lines), lines
    assert lines[0].startswith("A LimitRange is a policy")
    assert matched_lines(hit, "overview concept weight") == []  # words only those lines hold
    shown = [str(line) for line in matching_lines(dataclasses.replace(
        hit, matches=term_matches(hit, query_terms("LimitRange"))))]
    assert not any(line.startswith(("1:", "2:", "3:", "4:", "5:", "7:")) for line in shown)


def test_a_leaf_inside_the_page_keeps_a_thematic_break_that_looks_like_front_matter() -> None:
    """Only a leaf that opens its page can hold front matter: elsewhere ``---`` is a rule."""
    text = "---\n\nThe rule above ends the quota section.\n---\n"
    assert unit_spans(text, page_start=True) == []  # at a page's start, all front matter
    inside = page_hit(text, start=500)
    assert matched_lines(inside, "quota section") == ["The rule above ends the quota section."]


def test_units_leave_out_front_matter_and_comments() -> None:
    units = leaf_units(PAGE, page_start=True)
    assert units[0].startswith("A LimitRange is a policy")
    assert not any("title:" in u or "overview" in u or "translated" in u for u in units)
    # the same lines inside a page are text (a rule, a setext heading's underline)
    assert any("title: LimitRange" in u for u in leaf_units(PAGE))


def test_the_preview_starts_where_the_page_shows_text() -> None:
    assert preview(page_hit()).startswith("A LimitRange is a policy")
    # the same text inside a page opens with a rule, which the page shows
    assert preview(page_hit(start=500)).startswith("--- title: LimitRange")


def test_a_heading_that_renders_to_nothing_gives_no_empty_crumb() -> None:
    for chunks in (mdchunk.chunk_markdown(PAGE, max_tokens=48, overlap_tokens=0, site="hugo",
                                          doc_id="lr.md"),
                   mdchunk.chunk_hierarchy(PAGE, levels=(512, 48), overlap_tokens=0,
                                           site="hugo", doc_id="lr.md")):
        cluster = [c for c in chunks if "You need a Kubernetes cluster" in c.text]
        assert cluster, chunks
        for chunk in chunks:
            assert "" not in chunk.headings, chunk.headings
            assert not chunk.section_path.endswith(">") and " >  > " not in chunk.section_path
            assert " > \n" not in chunk.embed_text and not chunk.embed_text.startswith(" > ")
        assert all(c.headings[0] == "LimitRange" for c in cluster)
