"""Tab groups inside lists and quotes, and tabs whose bodies hold headings (issue #26): the
label still leads every chunk of a tab, no heading ends a chunk without its body, and every
guarantee holds."""

from __future__ import annotations

import re

import pytest

import mdchunk
from mdchunk.formats import Block, parse_markdown
from mdchunk.formats.site_markup import render_markup
from mdchunk.formats.tabs import tab_spans

from .test_guarantees import assert_markdown_guarantees
from .test_tabs import CODE_BODY, LONG_BODY, PAGES


def _in_list(page: str) -> str:
    """The page's group in the second item of a list (indented three columns)."""
    head, group, tail = _split(page)
    inner = "".join(f"   {line}" if line.strip() else line
                    for line in group.splitlines(keepends=True))
    return head + "1. Download the package.\n2. Install it:\n\n" + inner + "\n" + tail


def _in_quote(page: str) -> str:
    head, group, tail = _split(page)
    quoted = "".join(f"> {line}" if line.strip() else ">\n"
                     for line in group.splitlines(keepends=True))
    return head + quoted + "\n" + tail


def _split(page: str) -> tuple[str, str, str]:
    """The page before its group, the group, and the page after it."""
    start = page.index("Pick ")
    start = page.index("\n\n", start) + 2
    end = page.index("\nThen ")
    return page[:start], page[start:end].rstrip("\n") + "\n", page[end + 1:]


WRAPS = {"list": _in_list, "quote": _in_quote}
TABS = (("Linux", LONG_BODY + "\n\n" + CODE_BODY), ("macOS", "Run `brew install relay`."))


def _tabs(source: str, site: str) -> list[tuple[int, int, str]]:
    return tab_spans(render_markup(parse_markdown(source, site), site).blocks)


def _check_labels(source: str, chunks: list[mdchunk.Chunk],
                  tabs: list[tuple[int, int, str]]) -> None:
    for chunk in chunks:
        labels = [label for a, b, label in tabs if chunk.start < b and chunk.end > a]
        if len(labels) == 1:
            assert chunk.metadata["tab"] == labels[0]
            assert labels[0] in chunk.embed_text, chunk.embed_text
        elif labels:
            assert chunk.metadata["tabs"] == labels
        for a, b, label in tabs:  # a chunk that starts inside a tab leads with its label
            if a < chunk.start < b:
                body = chunk.embed_text.split("\n\n", 1)[-1] if chunk.headings else \
                    chunk.embed_text
                assert body.startswith(label + "\n"), chunk.embed_text


@pytest.mark.parametrize("max_tokens", [40, 48, 64, 96, 128, 256, 1024])
@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("site", sorted(PAGES))
def test_a_group_in_a_list_or_quote_is_a_group(site: str, wrap: str, max_tokens: int,
                                               counter) -> None:
    source = WRAPS[wrap](PAGES[site](*TABS))
    tabs = _tabs(source, site)
    assert [label for _, _, label in tabs] == ["Linux", "macOS"]
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=0,
                                    site=site, doc_id="page.md")
    assert_markdown_guarantees(source, chunks, counter, max_tokens, 0, site=site)
    _check_labels(source, chunks, tabs)
    (a, b, _), = [t for t in tabs if t[2] == "macOS"]  # the short tab fits: never cut
    assert sum(c.start <= a and b <= c.end for c in chunks) == 1


HEADED = ('## Install\n\nPick your system.\n\n=== "Linux"\n\n    Read this first.\n\n'
          "    ### Packages\n\n" + "".join(f"    {line}\n" if line else "\n"
                                          for line in LONG_BODY.split("\n"))
          + '\n    ### Service\n\n    Start it with `systemctl start relay`.\n\n'
          '=== "macOS"\n\n    ### Homebrew\n\n    Run `brew install relay`.\n\nThen start it.\n')
_HEADING_LINE = re.compile(r"[ \t]*#{1,6}[ \t]")


def _nested_headings(blocks: tuple[Block, ...]) -> list[Block]:
    return [c for b in blocks for c in (_nested_headings(b.children) if b.children else ())
            ] + [c for b in blocks if b.kind == "tab" for c in b.children if c.kind == "heading"]


@pytest.mark.parametrize("max_tokens,overlap", [(32, 0), (40, 0), (48, 8), (56, 8), (64, 8),
                                                (80, 8), (96, 16), (128, 16), (256, 32)])
def test_a_heading_in_a_tab_travels_with_its_body(max_tokens: int, overlap: int,
                                                  counter) -> None:
    """pymdownx renders a tab's headings inside the tab: they are blocks of it, not sections
    (the group is one block), and none ends a chunk while its body starts the next."""
    doc = render_markup(parse_markdown(HEADED, "mkdocs"), "mkdocs")
    inner = _nested_headings(doc.blocks)
    assert [h.title for h in inner] == ["Packages", "Service", "Homebrew"]
    chunks = mdchunk.chunk_markdown(HEADED, max_tokens=max_tokens, overlap_tokens=overlap,
                                    site="mkdocs", doc_id="page.md")
    assert_markdown_guarantees(HEADED, chunks, counter, max_tokens, overlap,
                               headings=max_tokens >= 48, site="mkdocs")
    _check_labels(HEADED, chunks, tab_spans(doc.blocks))
    for chunk in chunks:
        lines = [line for line in chunk.text.splitlines() if line.strip()]
        assert not _HEADING_LINE.match(lines[-1]), chunk.text  # a heading never ends a chunk
        assert chunk.headings == ["Install"]  # a tab's heading is no section of the page
