"""The fast reader's front matter token is the one mdit-py-plugins' ``front_matter`` rule makes
(issue 32: it is built without running markdown-it-py's block parser, which cost about 40% of
the fast reader's time on a Hugo page).

Two references: the rule as the fast reader used to run it (markdown-it-py's block parser on
the lines up to the first that may close the front matter, that line's closing required: the
same documents split off, the same token) and the rule over the whole document (the token the
reference reader builds its Document from). Compared over generated front matter (dash counts,
what follows the dashes, trailing spaces and tabs, indentation by spaces and tabs, ``...``,
``---`` inside values, CRLF, CR, NUL, unclosed, empty), every fixture and every corpus page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it.token import Token

from mdchunk.formats import LineIndex
from mdchunk.formats.front_matter_token import split_front_matter
from mdchunk.formats.markdown_it_parser import block_parser

from .conftest import CORPORA, corpus_files, fixture_files, site_corpus_mdx
from .test_grammar import profile

#: The fast reader's test before: a line of dashes or ``...``, spaces and tabs around it.
_MAY_CLOSE = re.compile(r"\n[ \t]*(?:-{3,}|\.{3})[ \t]*(?=\n|\Z)")


def by_the_rule(source: str) -> tuple[int, Token] | None:
    """What the fast reader did before: markdown-it-py's block parser (the rule) on the lines up
    to the first that may close the front matter; the split only when it closes there."""
    text = re.sub(r"\r\n?", "\n", source)
    end = _MAY_CLOSE.search(text)
    if not source.startswith("---") or end is None:
        return None
    lines = text.count("\n", 0, end.start()) + 2
    body_start = LineIndex.of(source).offset(lines)
    tokens = block_parser().parse(source[:body_start])
    if len(tokens) != 1 or tokens[0].type != "front_matter" or tokens[0].map != [0, lines]:
        return None
    return body_start, tokens[0]


def rule_over_the_document(source: str) -> Token | None:
    """The front matter token of the reference's parse of all of ``source``."""
    tokens = block_parser().parse(source)
    return tokens[0] if tokens and tokens[0].type == "front_matter" else None


def assert_the_rules_token(source: str) -> bool:
    """``split_front_matter`` agrees with both references; whether it split ``source``."""
    split = split_front_matter(source)
    assert split == by_the_rule(source)
    if split is None:
        return False
    body_start, token = split
    assert token == rule_over_the_document(source)
    assert token.map is not None and body_start == LineIndex.of(source).offset(token.map[1])
    return True


#: Lines near the rule's edges: closing dashes (fewer, as many, more; indented by spaces and
#: tabs up to and past a code block's; trailing blanks or text), ``...`` (alone, indented,
#: longer, trailed), values holding dashes, blank lines, NUL, characters other than a space
#: or a tab that Python calls white space.
_LINES = st.sampled_from([
    "title: x", "", " ", "\t", "---", "----", "-----", "--", "--- ", "---\t", "--- x", "---x",
    " ---", "  ---", "   ---", "    ---", "\t---", " \t---", "   \t---", "...", "... ", "...\t",
    " ...", "....", "...x", "\t...", "a: ---", "- ---", "> ---", "# h", "a: \0", "\x0c---",
    "---\x0c", "\u2028", "\xa0---", "key: |", "  - item", "é: ü",
])
_BREAKS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"])
_OPENINGS = st.builds(str.__add__, st.sampled_from(["---", "----", "-----", "------"]),
                      st.sampled_from(["", "", " ", "\t", "yaml", " x", "\r"]))


@st.composite
def front_matters(draw: st.DrawFn) -> str:
    """An opening line, lines drawn from :data:`_LINES` or written at random from the
    characters that matter, each with its own line break (the last may have none), and text
    after."""
    lines = draw(st.lists(st.one_of(_LINES, st.text(" \t-.:a\0\r", max_size=6)), max_size=8))
    parts = [draw(_OPENINGS)]
    for line in lines:
        parts += [draw(_BREAKS), line]
    if draw(st.booleans()):
        parts.append(draw(_BREAKS))
    parts.append(draw(st.sampled_from(["", "text\n", "\n# H\n", "---\n", "- ---\n"])))
    return "".join(parts)


@profile(1000)
@given(source=front_matters())
@example(source="---\n---")
@example(source="---\r\n...")
@example(source="---\n\0\n---\n")
@example(source="----\na\n---\nb\n----\n")
def test_the_token_is_the_rules(source: str) -> None:
    assert_the_rules_token(source)


@pytest.mark.parametrize("source", [
    "---\ntitle: x\n---\nbody\n", "---\n---\n", "----\na: 1\n-----\n", "---\na: 1\n...\n",
    "---\na: 1\n...  \n", "---\na: 1\n  ---\n", "---\r\ntitle: x\r\n---\r\n",
    "---\rtitle: x\r---\r", "---yaml\na: 1\n---\n", "---\n\n# h\n---", "---\na\0b\n---\n",
])
def test_front_matter_pages_write_is_split_off(source: str) -> None:
    assert assert_the_rules_token(source)


@pytest.mark.parametrize("source", [
    "---\na: 1\n", "-----\na: 1\n---\n", "---\na: 1\n    ---\n---\n", "---\na: 1\n ...\n---\n",
    "---\na: 1\n\t---\n", "---", "--\na\n--\n", "text\n---\n",
])
def test_front_matter_the_first_closing_line_may_not_close_is_not(source: str) -> None:
    assert not assert_the_rules_token(source)


def _pages() -> list[Path]:
    return [*fixture_files(".md", ".mdx", ".markdown"), *corpus_files(), *site_corpus_mdx()]


def test_every_fixture_and_corpus_page() -> None:
    pages = _pages()
    split = sum(assert_the_rules_token(path.read_text(encoding="utf-8-sig")) for path in pages)
    if CORPORA.is_dir():
        assert split >= 100  # the site corpora's pages nearly all have front matter
