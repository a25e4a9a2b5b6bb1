"""The fast reader (markdown-it-pyrs) reads every document it takes exactly as the reference
(markdown-it-py with mdchunk's plugins) does: the same Document, block tree and all (issue #13:
a document of many tiny sections chunks at the speed of ordinary Markdown).

Compared on the grammar's documents (as generated, and with what the fast reader leaves to the
reference written away, so that it reads every one), every fixture and the corpora.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, note

import mdchunk
from mdchunk.formats import parse_markdown
from mdchunk.formats.markdown import parse_markdown_it
from mdchunk.formats.markdown_rs import _rust_parser, may_read, read_fast
from mdchunk.text import read_document

from .conftest import CORPORA, corpus_files, fixture_files, with_corpus
from .pathological import document
from .test_grammar import markdown_documents, profile

needs_rust = pytest.mark.skipif(_rust_parser() is None, reason="markdown-it-pyrs not installed")

#: What sends a document to the reference, written away: tables, definitions, link references,
#: footnotes, quotes and math become plain text, ``~`` fences backtick fences, and lone
#: surrogates (the Rust parser takes UTF-8 only) question marks.
_AWAY = {"|": "/", "~": "`", ":": ";", "[^": "[", "<!--": "<!- ", "$$": "$", "!!!": "!",
         "???": "?", "\t": " ", ">": "»"}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _readable(source: str) -> str:
    for old, new in _AWAY.items():
        source = source.replace(old, new)
    return _SURROGATE.sub("?", source).lstrip("-")


def assert_same_reading(source: str) -> bool:
    """Both readers give the same Document when the fast one reads ``source``; whether it did."""
    fast = read_fast(source)
    if fast is None:
        return False
    reference = parse_markdown_it(source)
    for mine, theirs in zip(fast.blocks, reference.blocks):
        assert mine == theirs
    assert fast == reference
    return True


@needs_rust
@profile(150)
@given(source=markdown_documents())
def test_both_readers_agree_on_grammar_documents(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@profile(300)
@given(source=markdown_documents().map(_readable))
def test_both_readers_agree_where_the_fast_one_reads(source: str) -> None:
    assert assert_same_reading(source), "the fast reader reads what is written away"


@needs_rust
@pytest.mark.parametrize("path", fixture_files(".md"), ids=lambda p: p.name)
def test_both_readers_agree_on_fixtures(path) -> None:
    assert_same_reading(read_document(path))


@needs_rust
@pytest.mark.parametrize("path", with_corpus(corpus_files(), CORPORA),
                         ids=lambda p: getattr(p, "name", "absent"))
def test_both_readers_agree_on_the_corpora(path) -> None:
    assert_same_reading(read_document(path))


@needs_rust
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_tiny_sections_are_read_fast(newline: str) -> None:
    source = document("tiny sections", 3000, newline)
    assert assert_same_reading(source)


@needs_rust
@pytest.mark.parametrize("source", [
    "a | b\n--|--\n1 | 2\n", "<!-- note -->\n\ntext\n", "---\ntitle: x\n---\n\ntext\n",
    "Term\n: definition\n", "text[^1]\n\n[^1]: note\n", "$$\nx\n$$\n", "!!! note\n    body\n",
    "::: tip\nbody\n:::\n", "[a]: http://x\n\n# [a]\n", "\ttabbed\n", "~~~\ncode\n~~~\n",
])
def test_what_the_fast_reader_leaves_to_the_reference(source: str) -> None:
    assert read_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


#: Lists nested ``depth`` deep: markers on one line, or one item a line, each indented more.
_NESTED = {
    "markers": lambda depth: "- " * depth + "x\n\nmore\n",
    "ordered": lambda depth: "1. " * depth + "x\n\nmore\n",
    "indented": lambda depth: "".join("  " * i + "- item\n" for i in range(depth)) + "\nmore\n",
}


@needs_rust
@pytest.mark.parametrize("style", _NESTED)
def test_nesting_past_markdown_it_py_s_limit_is_left_to_it(style: str) -> None:
    """markdown-it-py stops at 20 open tokens (maxNesting), the Rust parser reads on (and
    overflows its stack some 100,000 levels down): deep lists go to the reference, shallower
    ones are read alike."""
    read = [assert_same_reading(_NESTED[style](depth)) for depth in range(1, 41)]
    assert read[:7] == [True] * 7 and not any(read[9:])
    assert not may_read(document("nested lists", 20_000))


def test_without_the_rust_parser_the_reference_reads_everything(monkeypatch) -> None:
    from mdchunk.formats import markdown_rs

    monkeypatch.setattr(markdown_rs, "_rust_parser", lambda: None)
    source = document("tiny sections", 300)
    assert read_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


@needs_rust
def test_chunks_are_the_same_whichever_reader_reads(monkeypatch) -> None:
    from mdchunk.formats import markdown_rs

    source = document("tiny sections", 3000) + "```bash\nrun it\n```\n\n1. one\n2. two\n"
    fast = [c.to_dict() for c in mdchunk.chunk_markdown(source, max_tokens=32, overlap_tokens=4)]
    monkeypatch.setattr(markdown_rs, "read_fast", lambda source, site="plain": None)
    reference = mdchunk.chunk_markdown(source, max_tokens=32, overlap_tokens=4)
    assert fast == [c.to_dict() for c in reference]
    assert len(fast) > 50
