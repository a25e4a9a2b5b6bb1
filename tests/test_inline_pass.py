"""A document with footnotes is read from its block parse and one inline pass, as the full
parser reads it (issue 32: the reference reader parsed such a page twice, block structure
included, and a tenth of the Hugo corpus's reading went to the second parse).

``inline_pass`` over :func:`block_parser`'s tokens and env gives the full parser's tokens and
env, footnotes referenced or not, inline, in containers, beside headings and tables; compared
over the grammar's documents with footnotes added, on every site, and on every fixture.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mdchunk.formats.markdown import parse_markdown
from mdchunk.formats.markdown_it_parser import (
    block_parser,
    full_parser,
    inline_pass,
    unused_rules,
)

from .conftest import fixture_files
from .test_grammar import markdown_documents, profile

SITES = ["plain", "docusaurus", "hugo", "mkdocs"]


def assert_as_the_full_parse(source: str, site: str) -> bool:
    """``inline_pass`` gives the full parse's tokens and env; whether the block parse found a
    footnote's definition (the reader takes that path then)."""
    env: dict[str, Any] = {}
    tokens = block_parser(unused_rules(source, site)).parse(source, env)
    defined = "footnotes" in env
    full_env: dict[str, Any] = {}
    full = full_parser(site).parse(source, full_env)
    assert inline_pass(source, tokens, env, site) == full
    assert env == full_env
    return defined


#: Footnotes: referenced, not, twice, inline, inside a quote and a list item, in a heading,
#: in a code span (no reference), defined before use, with a task list beside them.
FOOTNOTES = [
    "Text.[^1]\n\n[^1]: The note.", "[^a]: Defined, never used.", "Twice[^x] and[^x].\n\n[^x]: X.",
    "Inline^[a note] here.", "> Quoted.[^q]\n>\n> [^q]: In the quote.",
    "- Item.[^i]\n\n  [^i]: In the item.", "# Heading[^h]\n\n[^h]: H.", "`[^c]`\n\n[^c]: C.",
    "[^b]: First.\n\nUsed after.[^b]", "- [ ] task[^t]\n- [x] done\n\n[^t]: T.",
    "| a[^1] |\n| --- |\n| b |\n\n[^1]: In a table.", "*em[^e]*\n\n[^e]: E.",
]
_FOOTNOTES = st.sampled_from(FOOTNOTES)


@profile(200)
@given(source=markdown_documents(), notes=st.lists(_FOOTNOTES, min_size=1, max_size=3),
       site=st.sampled_from(SITES))
@example(source="", notes=["Text.[^1]\n\n[^1]: The note."], site="plain")
def test_inline_pass_is_the_full_parse(source: str, notes: list[str], site: str) -> None:
    assert_as_the_full_parse("\n\n".join([source, *notes]) + "\n", site)


@pytest.mark.parametrize("note", FOOTNOTES)
def test_a_defined_footnote_takes_the_inline_pass(note: str) -> None:
    assert assert_as_the_full_parse(f"# Page\n\n{note}\n", "plain") == ("]: " in note)


@pytest.mark.parametrize("path", fixture_files(".md"), ids=lambda p: p.name)
def test_every_fixture(path) -> None:  # type: ignore[no-untyped-def]
    source = path.read_text(encoding="utf-8-sig")
    for site in SITES:
        assert_as_the_full_parse(source, site)


def test_a_page_with_footnotes_keeps_them_as_blocks() -> None:
    source = "# Page\n\nText.[^1]\n\n[^1]: The note.\n\n[^2]: Never used.\n"
    kinds = [block.kind for block in parse_markdown(source).blocks]
    # a footnote nothing references is dropped by markdown-it, shown by no page: a gap of
    # the page's metadata, as a link's definition is
    assert kinds == ["heading", "paragraph", "footnote", "link_definitions"]
