"""Pages with footnote definitions read fast (:mod:`mdchunk.formats.fast_footnotes`): the same
Document as markdown-it-py's reading, or left to it; never another (issue 32).

Generated pages hold definitions referenced, unreferenced and referenced twice, inline
footnotes, definitions in lists, quotes and containers, with continuation lines and nested
blocks, labels of odd characters, and references where markdown-it-py's inline rules do not
read them (code spans, link destinations, autolinks, HTML, math, escaped brackets) or do
(emphasis, link text, tables, headings, list items, other definitions).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from mdchunk.formats.markdown import parse_markdown_it
from mdchunk.formats.markdown_rs import _rust_parser, parse_fast
from mdchunk.formats.sites.generators import SITES
from mdchunk.text import document_text

from .conftest import CORPORA, corpus_files, fixture_files, with_corpus
from .test_grammar import profile

needs_rust = pytest.mark.skipif(_rust_parser() is None, reason="markdown-it-pyrs not installed")

#: Labels as pages write them, and labels of odd characters.
_USUAL_LABELS = st.sampled_from(["1", "2", "3", "note", "a-b", "x_y", "internal", "type"])
_ODD_LABELS = st.one_of(
    st.sampled_from(["Ü", "*", "`", "a\\", "<b>", "$", "a[b", "^", "é1", "a\tb", "a(b)", "[",
                     "!", "~", "_x_", "&amp;", "a:b", "a^b", "[^x"]),
    st.text(st.characters(blacklist_characters=" \n\r]", blacklist_categories=("Cs",)),
            min_size=1, max_size=4),
)


def _references(label: str, odd: bool) -> st.SearchStrategy[str]:
    """``[^label]`` where markdown-it-py's inline rules read it, and (``odd``) where they may
    not."""
    ref = f"[^{label}]"
    usual = [ref, f"text{ref}", f"*em {ref}*", f"[link {ref}](/u)", f"**{ref}**", f"{ref}{ref}",
             f"`a` {ref} `b`", f"~~{ref}~~", f"{ref}, and more", f"^[inline {ref}]",
             "^[an inline note]"]
    return st.sampled_from(usual + ([
        f"`{ref}`", f"[t]({ref})", f"<http://x/{ref}>", f"<span title='{ref}'>", f"${ref}$",
        f"\\{ref}", f"{ref}[r]", f"{ref}(/u)", f"![alt {ref}](/i.png)", f"^[{ref}",
        f"[{ref}]", "^[a [nested] note]", f"<!-- {ref} -->", f"{ref}:", f"a {ref}: b",
        f"`x\n{ref}\n`", f"[{ref}][r]", f"[^{label}\n]",
    ] if odd else []))


_USUAL_FIRST = [" A note.", " Note with `code` and [a link](/u).", " note [^1] inside",
                " *emphasis*", ""]
_ODD_FIRST = [" ", "  ", "   ", "    ", "\t", "  - item", " > quoted", " # heading", " ```",
              " | a | b |", " 1. one", "    code", " <div>", " [r]: /url", " [^2]: nested"]
_USUAL_REST = ["    continued", "", "    - item", "    more [^1]", "    second paragraph",
               "        code", "    ```", "lazy line", "    <!-- a comment -->",
               "    ## Sub {#sub}", "    | a | b |\n    |---|---|\n    | c | d |"]
_ODD_REST = ["    > quote", "    | a | b |", "    |---|---|", "    # heading", "  two spaces",
             "    [r]: /url", "    <div>", "    [^2]: nested", "\tcontinued", "[^2]: right after",
             "---", "==="]


@st.composite
def _definition(draw: st.DrawFn, label: str, odd: bool) -> str:
    """A definition of ``label``: its first line's content, then continuation lines."""
    first = draw(st.sampled_from(_USUAL_FIRST + (_ODD_FIRST if odd else [])))
    rest = draw(st.lists(st.sampled_from(_USUAL_REST + (_ODD_REST if odd else [])),
                         max_size=4))
    return "\n".join([f"[^{label}]:{first}", *rest])


_USUAL_BLOCKS = ["Para {ref} end.", "# Heading {ref}", "- item {ref}\n- two",
                 "| a | b |\n|---|---|\n| {ref} | c |", "Line one\nline {ref} two",
                 "[r]: /url\n\nsee [r] {ref}", "1. one {ref}\n2. two", "- a\n  - b {ref}",
                 "```\n{ref}\n```", "> quoted {ref}", "    code {ref}", "Setext {ref}\n---",
                 "## Heading", "> a\n> b {ref}", "<!-- a comment {ref} -->",
                 "<div>\n<!-- {ref} -->\n</div>", "<!-- c -->\n\nPara {ref}", "- a\n  b {ref}\n\n  c {ref}"]
_ODD_BLOCKS = ["```\n{ref}\n[^{label}]: in a fence\n```", "- item\n\n  [^{label}]: in an item",
               "> [^{label}]: in a quote", "::: note\n[^{label}]: in a container\n:::",
               "  [^{label}]: indented", "<div>\n{ref}\n</div>", "term\n: definition {ref}",
               "<!--\n[^{label}]: in a comment\n-->", "- item {ref}\n[^{label}]: after it",
               "<pre>\n\n[^{label}]: in pre\n</pre>", "[^{label}]:x\n=====",
               "text <!-- c --> {ref}", "# [link] {ref}"]


@st.composite
def _block(draw: st.DrawFn, labels: list[str], odd: bool) -> str:
    label = draw(st.sampled_from(labels))
    ref = draw(_references(label, odd))
    shape = draw(st.sampled_from(_USUAL_BLOCKS + (_ODD_BLOCKS if odd else [])))
    return shape.format(ref=ref, label=label)


@st.composite
def _footnoted_pages(draw: st.DrawFn, odd: bool = False) -> str:
    """A page of blocks and footnote definitions, in any order: of the shapes pages write
    (the fast reader reads most), or (``odd``) of any shape."""
    labels = draw(st.lists(_ODD_LABELS if odd else _USUAL_LABELS, min_size=1, max_size=3,
                           unique=True))
    parts = draw(st.lists(_block(labels, odd), min_size=1, max_size=6))
    defined = labels + (draw(st.lists(st.sampled_from(labels), max_size=1)) if odd else [])
    parts += [draw(_definition(label, odd)) for label in defined]
    order = draw(st.permutations(parts))
    separators = draw(st.lists(st.sampled_from(["\n\n"] * 4 + ["\n", "\n\n\n"]),
                               min_size=len(order), max_size=len(order)))
    front = draw(st.sampled_from(["", "", "---\ntitle: Notes\n---\n"]))
    page = front + "".join(part + sep for part, sep in zip(order, separators, strict=True))
    return page.replace("\n", draw(st.sampled_from(["\n", "\n", "\n", "\r\n"])))


def assert_fast_or_refused(source: str, site: str = "plain") -> bool:
    """The fast reader gives markdown-it-py's Document for ``source`` or none; whether it
    read it."""
    fast = parse_fast(source, site)
    if fast is None:
        return False
    reference = parse_markdown_it(source, site)
    for mine, theirs in zip(fast.blocks, reference.blocks, strict=False):
        assert mine == theirs
    assert fast == reference
    return True


@needs_rust
@profile(400)
@given(source=_footnoted_pages())
def test_footnoted_pages_read_fast_are_read_alike(source: str) -> None:
    note(f"read fast: {assert_fast_or_refused(source)}")


@needs_rust
@profile(400)
@given(source=_footnoted_pages(odd=True))
def test_odd_footnoted_pages_are_read_alike_or_left_to_the_reference(source: str) -> None:
    note(f"read fast: {assert_fast_or_refused(source)}")


@needs_rust
@pytest.mark.parametrize("source", [
    "text[^1]\n\n[^1]: note\n",
    "a reference [^1] to no definition\n",
    "an inline note ^[with a reference [^1]] and ^[one without]\n\n[^1]: note\n",
    "[^1]: defined, referenced nowhere\n",
    "---\ntitle: x\n---\ntext[^1]\n\n[^1]: after front matter\n",
    "text[^1]\r\n\r\n[^1]: CRLF\r\n    continued\r\n",
    "Intro[^a] and[^b].\n\n[^a]: First.\n[^b]: Second, `code` [link][r].\n\n[r]: /url\n",
    "1. Log it for 3 releases[^1]\n2. Then warn\n\n[^1]: For example.\n",
    "| a | b[^t] |\n|---|---|\n| c | d |\n\n[^t]: In a table.\n",
    "unreferenced\n\n[^1]: dropped\n    with a second line\n\n    and a paragraph\n",
    "text[^1] again[^1]\n\n[^1]: twice\n\n    - a list\n    - in it\n\n        code\n",
    "`[^1]` and <http://x/[^1]>\n\n[^1]: not referenced\n",
    "see [^2]\n\n[^1]: refers [^2]\n\n[^2]: referenced from an unreferenced one\n",
    # the reference reads footnotes in the order of their first references, and records the
    # comments and heading ids in them in that order
    "a[^2] b[^1]\n\n[^1]: one\n\n    <!-- c1 -->\n\n[^2]: two\n\n    <!-- c2 -->\n",
    "a[^2] b[^1]\n\n[^1]: one\n\n    ## H1 {#h1}\n\n[^2]: two\n\n    ## H2 {#h2}\n",
])
def test_usual_footnotes_are_read_fast(source: str) -> None:
    assert assert_fast_or_refused(source)


@needs_rust
@pytest.mark.parametrize("source", [
    "text[^1]\n[^1]: interrupts the paragraph\n",  # the Rust rule interrupts only a note's
    "- item[^1]\n\n  [^1]: in a list item\n",
    "> quote[^1]\n>\n> [^1]: in a quote\n",
    "text[^1]\n\n[^1]:    four spaces after the colon\n",
    "text[^1]\n\n[^1]: one\n\n[^1]: defined twice\n",
    "text[^1]\n\n  [^1]: indented\n",
    "::: note\ntext[^1]\n:::\n\n[^1]: beside a container\n",
    "```\n[^1]: in a fence\n```\n\ntext [^1]\n",
    # the reader finds an HTML block's comments by the content the Rust parser gives it
    "text[^1]\n\n<!-- a [^1] -->\n\n[^1]: x\n",
    "text[^1]\n\n<div>\n<!-- a [^1] -->\n</div>\n\n[^1]: x\n",
    "text[^1]\n\n<!-- an inline note ^[x] -->\n\n[^1]: x\n",
])
def test_footnotes_the_parsers_may_read_apart_are_left_to_the_reference(source: str) -> None:
    assert parse_fast(source) is None


def _footnoted(paths: list[Path]) -> list[Path]:
    return [path for path in paths if "[^" in path.read_text(errors="replace")]


@needs_rust
@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("path", _footnoted(fixture_files(".md")), ids=lambda p: p.name)
def test_fixtures_with_footnotes_on_every_site(path: Path, site: str) -> None:
    assert_fast_or_refused(document_text(path), site)


@needs_rust
@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("path", with_corpus(_footnoted(corpus_files()), CORPORA),
                         ids=lambda p: getattr(p, "name", "absent"))
def test_corpus_pages_with_footnotes_on_every_site(path: Path, site: str) -> None:
    assert_fast_or_refused(document_text(path), site)


@needs_rust
def test_most_hugo_pages_with_footnotes_are_read_fast() -> None:
    pages = _footnoted(sorted((CORPORA / "hugo-docs").rglob("*.md")))
    if not pages:
        pytest.skip("the Hugo corpus is absent")
    read = [path.name for path in pages if assert_fast_or_refused(document_text(path), "hugo")]
    assert len(read) >= 5, read
