"""Tab groups are structure (issue #26): a ``tabs`` block cut only between its tabs, a tab that
fits never cut, and every chunk of a tab naming it (its label leads the chunk,
``metadata["tab"]``)."""

from __future__ import annotations

import pytest

import mdchunk
from mdchunk.formats import parse_markdown
from mdchunk.formats.site_markup import render_markup

from .test_guarantees import assert_markdown_guarantees


def _docusaurus(*tabs: tuple[str, str]) -> str:
    items = "".join(f'<TabItem value="{value}" label="{label}">\n\n{body}\n\n</TabItem>\n'
                    for (label, body), value in zip(tabs, "abcdefgh"))
    return ("import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n"
            "## Install\n\nPick your system.\n\n<Tabs>\n" + items + "</Tabs>\n\n"
            "Then start the service.\n")


def _hugo(*tabs: tuple[str, str]) -> str:
    items = "".join(f'{{{{% tab name="{label}" %}}}}\n{body}\n{{{{% /tab %}}}}\n'
                    for label, body in tabs)
    return ("## Restart\n\nPick a way.\n\n{{< tabs name=\"ways\" >}}\n" + items
            + "{{< /tabs >}}\n\nThen check the pods.\n")


def _mkdocs(*tabs: tuple[str, str]) -> str:
    """MkDocs Material content tabs: each body indented four columns under its marker."""
    items = "".join(f'=== "{label}"\n\n' + "".join(f"    {line}\n" if line else "\n"
                                                   for line in body.split("\n")) + "\n"
                    for label, body in tabs)
    return "## Install\n\nPick your system.\n\n" + items + "Then start the service.\n"


SHORT = (("Linux", "Run `apt install relay` as root."),
         ("macOS", "Run `brew install relay` in a terminal."))
LONG_BODY = " ".join(f"Step {n} of the install copies the file number {n} into place."
                     for n in range(1, 13))
CODE_BODY = "Install it:\n\n```bash\n" + "".join(f"cp file{n} /opt/relay/\n"
                                                 for n in range(1, 16)) + "```"
PAGES = {"docusaurus": _docusaurus, "hugo": _hugo, "mkdocs": _mkdocs}


def _chunks(source: str, site: str, max_tokens: int, overlap: int = 0) -> list[mdchunk.Chunk]:
    return mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap,
                                  site=site, doc_id="page.md")


def _check(source: str, chunks: list[mdchunk.Chunk], counter, max_tokens: int, site: str,
           overlap: int = 0) -> None:
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap, site=site)


@pytest.mark.parametrize("site", sorted(PAGES))
def test_the_group_is_a_tabs_block_of_tab_children(site: str) -> None:
    source = PAGES[site](*SHORT)
    doc = render_markup(parse_markdown(source, site), site)
    groups = [b for b in doc.blocks if b.kind == "tabs"]
    assert len(groups) == 1
    tabs = groups[0].children
    assert [t.kind for t in tabs] == ["tab", "tab"]
    assert [t.title for t in tabs] == ["Linux", "macOS"]
    assert [t.prefix for t in tabs] == ["Linux", "macOS"]
    # the tabs tile the group: the first from its opening tag, the last to its closing one
    assert tabs[0].start == groups[0].start and tabs[-1].end == groups[0].end
    assert source[tabs[1].start:].lstrip().startswith(("<TabItem", "{{% tab", '=== "'))


@pytest.mark.parametrize("site", sorted(PAGES))
def test_a_group_that_fits_stays_whole(site: str, counter) -> None:
    source = PAGES[site](*SHORT)
    doc = render_markup(parse_markdown(source, site), site)
    group = next(b for b in doc.blocks if b.kind == "tabs")
    chunks = _chunks(source, site, 64)
    holding = [c for c in chunks if c.start < group.end and c.end > group.start]
    assert len(holding) == 1
    chunk = holding[0]
    assert chunk.start <= group.start and group.end <= chunk.end
    assert chunk.metadata["tabs"] == ["Linux", "macOS"] and "tab" not in chunk.metadata
    assert "tabs" in chunk.kinds and "tab" not in chunk.kinds
    _check(source, chunks, counter, 64, site)


@pytest.mark.parametrize("site", sorted(PAGES))
def test_a_group_that_does_not_fit_is_cut_between_tabs(site: str, counter) -> None:
    tabs = (("Linux", LONG_BODY[:230]), ("macOS", LONG_BODY[:230].replace("install", "setup")))
    source = PAGES[site](*tabs)
    doc = render_markup(parse_markdown(source, site), site)
    group = next(b for b in doc.blocks if b.kind == "tabs")
    first, second = group.children
    max_tokens = 80
    chunks = _chunks(source, site, max_tokens)
    inside = [c for c in chunks if c.start < group.end and c.end > group.start]
    assert len(inside) >= 2  # the group does not fit one chunk
    # each tab fits alone, so each is one chunk's, whole
    for tab in (first, second):
        holding = [c for c in inside if c.start < tab.end and c.end > tab.start]
        assert len(holding) == 1 and holding[0].start <= tab.start and tab.end <= holding[0].end
        assert holding[0].metadata["tab"] == tab.title
        shown = holding[0].embed_text
        assert shown.index(tab.title + "\n") < shown.index("Step 1 of the")  # the tag's label
    _check(source, chunks, counter, max_tokens, site)


@pytest.mark.parametrize("body", [LONG_BODY, CODE_BODY], ids=["prose", "code"])
@pytest.mark.parametrize("site", sorted(PAGES))
def test_a_long_tab_cut_inside_names_its_label_in_every_part(site: str, body: str,
                                                            counter) -> None:
    source = PAGES[site](("Linux", body), ("macOS", "Run `brew install relay`."))
    doc = render_markup(parse_markdown(source, site), site)
    group = next(b for b in doc.blocks if b.kind == "tabs")
    first = group.children[0]
    for max_tokens in (48, 64):
        chunks = _chunks(source, site, max_tokens)
        parts = [c for c in chunks if c.start < first.end and c.end > first.start]
        assert len(parts) >= 2
        for part in parts:
            assert part.metadata.get("tab") == "Linux" or "Linux" in part.metadata["tabs"]
            # after the breadcrumb, the text leads with the label: the tag's own rendering in
            # the first part, the repeated prefix in every other
            lead = part.embed_text.split("\n\n", 1)[1] if part.embed_text.startswith(
                ("…", "Install", "## ", "Restart")) else part.embed_text
            if part.start > first.start:
                assert lead.startswith("Linux\n"), part.embed_text
            else:
                assert "Linux" in lead
        if body is CODE_BODY:  # a code part repeats the label, then the fence
            later = [p for p in parts if p.start > first.start and "cp file" in p.text
                     and not p.text.lstrip().startswith("```")]
            assert later and all(p.embed_text.split("\n\n", 1)[1].startswith("Linux\n```bash\n")
                                 for p in later)
        _check(source, chunks, counter, max_tokens, site)


def test_a_group_with_a_heading_inside_stays_blocks() -> None:
    source = ("<Tabs>\n<TabItem value=\"a\" label=\"A\">\n\n## Inside\n\nText.\n\n</TabItem>\n"
              "</Tabs>\n")
    doc = render_markup(parse_markdown(source), "docusaurus")
    assert "tabs" not in [b.kind for b in doc.blocks]


def test_the_fixture_keeps_its_labels(counter) -> None:
    """The tab cut in two at 128 tokens (issue #26) now fits whole; at 48 every chunk of a tab
    names it."""
    from .conftest import FIXTURES

    path = FIXTURES / "docusaurus-tabs-install.mdx"
    source = path.read_text(encoding="utf-8")
    doc = render_markup(parse_markdown(source), "docusaurus")
    group = next(b for b in doc.blocks if b.kind == "tabs")
    chunks = _chunks(source, "docusaurus", 128, 16)
    assert sum(1 for c in chunks if c.start <= group.start and group.end <= c.end) == 1
    _check(source, chunks, counter, 128, "docusaurus", 16)
    for max_tokens in (40, 48, 64):
        chunks = _chunks(source, "docusaurus", max_tokens, 8)
        for chunk in chunks:
            labels = [t.title for t in group.children
                      if chunk.start < t.end and chunk.end > t.start]
            if len(labels) == 1:
                assert chunk.metadata["tab"] == labels[0]
                assert labels[0] in chunk.embed_text
            elif labels:
                assert chunk.metadata["tabs"] == labels
        _check(source, chunks, counter, max_tokens, "docusaurus", 8)


HIERARCHY_LEVELS = [(96, 90), (96, 80), (128, 100), (200, 64), (64, 48), (300, 96, 40),
                    (400, 120, 48)]


@pytest.mark.parametrize("levels", HIERARCHY_LEVELS, ids=str)
@pytest.mark.parametrize("site", sorted(PAGES))
def test_every_level_of_a_hierarchy_names_the_tab(site: str, levels: tuple[int, ...],
                                                  counter) -> None:
    """A finer level packs inside the coarser one's chunks, which may have cut a tab: a leaf
    that starts inside it repeats its label, and only its own (never a neighbour tab's)."""
    from .test_hierarchy import assert_hierarchy

    source = PAGES[site](("Linux", LONG_BODY + "\n\n" + CODE_BODY),
                         ("macOS", "Run brew. " + LONG_BODY.replace("install", "setup")[:300]),
                         ("BSD", "Run pkg."))
    doc = render_markup(parse_markdown(source, site), site)
    group = next(b for b in doc.blocks if b.kind == "tabs")
    chunks = mdchunk.chunk_hierarchy(source, levels=list(levels), overlap_tokens=0,
                                     doc_id="page.md", site=site)
    for chunk in chunks:
        labels = [t.title for t in group.children if chunk.start < t.end and chunk.end > t.start]
        if len(labels) == 1:
            assert chunk.metadata["tab"] == labels[0]
        elif labels:
            assert chunk.metadata["tabs"] == labels
        for tab in group.children:  # a label shows once, and only in a chunk of its tab
            shown = chunk.embed_text.count(tab.title + "\n")
            assert shown == (1 if tab.title in labels else 0), chunk.embed_text
    assert_hierarchy(source, chunks, levels, counter, site=site)
