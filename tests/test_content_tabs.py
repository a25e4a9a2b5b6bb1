"""MkDocs Material content tabs (issue #26): ``=== "Label"`` with an indented body is a ``tab``
of a ``tabs`` block on a ``site="mkdocs"`` page, and ordinary Markdown on any other."""

from __future__ import annotations

import pytest

import mdchunk
from mdchunk.formats import Block, parse_markdown
from mdchunk.formats.site_markup import render_markup

from .test_guarantees import assert_markdown_guarantees

PAGE = '''# Backups

Pick your database.

=== "PostgreSQL"

    Dump it first:

    ```bash
    pg_dump orders > orders.sql
    ```

===+ "MySQL"
    - stop the writers
    - run `mysqldump orders`

Keep the dump for a week.

===! "Linux"

    Copy it to `/srv/dumps`.

===! "Windows"

    Copy it to `D:\\dumps`.

=== "macOS"

    Copy it to `~/dumps`.
'''


def _read(source: str, site: str = "mkdocs") -> tuple[Block, ...]:
    return render_markup(parse_markdown(source, site), site).blocks


def _groups(blocks: tuple[Block, ...]) -> list[list[str]]:
    return [[t.title for t in b.children] for b in blocks if b.kind == "tabs"]


def test_tabs_are_groups_of_tabs_on_an_mkdocs_page() -> None:
    blocks = _read(PAGE)
    # consecutive tabs are one group; a paragraph between them, or ``===!``, starts another
    assert _groups(blocks) == [["PostgreSQL", "MySQL"], ["Linux"], ["Windows", "macOS"]]
    first = next(b for b in blocks if b.kind == "tabs")
    pg, my = first.children
    assert [t.prefix for t in first.children] == ["PostgreSQL", "MySQL"]
    assert PAGE[pg.start:].startswith('=== "PostgreSQL"') and PAGE[my.start:].startswith("===+")
    assert PAGE[pg.start:pg.end].rstrip().endswith("```")  # the body, not the blank after it
    assert [c.kind for c in pg.children] == ["paragraph", "code"]  # a fence in a tab is one
    assert [c.kind for c in my.children] == ["list"]
    assert first.end == my.end


def test_without_site_mkdocs_they_stay_plain_markdown() -> None:
    """A paragraph and an indented code block, as CommonMark reads them: no chunk of any
    other site changes."""
    source = '=== "PostgreSQL"\n\n    Dump it first.\n\n=== "MySQL"\n\n    Stop the writers.\n'
    for site in ("plain", "docusaurus", "hugo"):
        blocks = _read(source, site)
        assert [b.kind for b in blocks] == ["paragraph", "code", "paragraph", "code"]
        assert parse_markdown(source, site) == parse_markdown(source)
    assert [b.kind for b in _read(source)] == ["tabs"]


def test_a_marker_needs_a_quoted_label_at_the_block_s_own_indentation() -> None:
    for source in ['=== PostgreSQL\n\n    body\n', '    === "A"\n\n    body\n',
                   '===x "A"\n\n    body\n', 'Title\n===\n']:
        assert "tabs" not in [b.kind for b in _read(source)], source


def test_a_tab_interrupts_a_paragraph_as_in_python_markdown() -> None:
    blocks = _read('Some text.\n=== "A"\n    Body.\n')
    assert [b.kind for b in blocks] == ["paragraph", "tabs"]


def test_the_marker_shows_its_label_in_embed_text() -> None:
    chunks = mdchunk.chunk_markdown('=== "`pip` install"\n\n    Run it.\n', site="mkdocs",
                                    max_tokens=64, overlap_tokens=0)
    assert chunks[0].embed_text == "pip install\n\n    Run it."
    assert chunks[0].metadata["tab"] == "pip install"
    assert chunks[0].kinds == ["tabs"]


def test_the_fixture_has_tabs_only_on_an_mkdocs_page() -> None:
    from .conftest import FIXTURES

    source = (FIXTURES / "mkdocs-content-tabs.md").read_text(encoding="utf-8")
    assert "tabs" in [b.kind for b in parse_markdown(source, "mkdocs").blocks]
    assert "tabs" not in [b.kind for b in parse_markdown(source).blocks]


def test_a_setext_heading_is_no_content_tab() -> None:
    """``===`` underlines are everywhere: only a marker with a quoted label is a tab."""
    source = "Title\n=====\n\nText.\n"
    assert parse_markdown(source, "mkdocs") == parse_markdown(source, "plain")


@pytest.mark.parametrize("max_tokens,overlap", [(32, 0), (48, 8), (64, 8), (128, 16),
                                                (256, 32), (1024, 64)])
def test_guarantees_on_the_page(max_tokens: int, overlap: int, counter) -> None:
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=max_tokens, overlap_tokens=overlap,
                                    site="mkdocs", doc_id="page.md")
    assert_markdown_guarantees(PAGE, chunks, counter, max_tokens, overlap,
                               headings=max_tokens >= 48, site="mkdocs")
    tabs = [t for b in _read(PAGE) if b.kind == "tabs" for t in b.children]
    for chunk in chunks:
        labels = [t.title for t in tabs if chunk.start < t.end and chunk.end > t.start]
        if len(labels) == 1:
            assert chunk.metadata["tab"] == labels[0]
            assert labels[0] in chunk.embed_text
        elif labels:
            assert chunk.metadata["tabs"] == labels
        else:
            assert "tab" not in chunk.metadata and "tabs" not in chunk.metadata
