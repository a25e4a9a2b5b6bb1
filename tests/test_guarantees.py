"""The contract's guarantees as properties over every fixture and every real runbook.

Each check comes from ``tests/audit.py``, which re-derives structure from the source and
never looks at how the chunker decided; the same checks judge peers in ``bench/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mdchunk
from mdchunk.formats import parse_markdown, parse_plain_text
from mdchunk.text import document_text
from tests.audit import (
    as_read,
    audit_markdown,
    embed_text_problems,
    headings_only,
    overlap_problems,
    shared_top_sections,
    uncovered,
)

from .conftest import (
    CHROMA,
    CORPORA,
    REQUIRE_CORPORA,
    corpus_files,
    embedded_text,
    fixture_files,
    site_corpus_mdx,
    site_of,
    with_corpus,
)

BUDGETS = [(512, 64), (256, 32), (128, 16), (48, 8)]
QUESTION_LINE = re.compile(r"(?i)(?:^|(?<=[\r\n]))[ \t]*((?:question|q|问题|问)[ \t]*[:：])")
FIXTURE_MARKDOWN = fixture_files(".md", ".mdx")
CORPUS_MARKDOWN = with_corpus([*corpus_files(), *site_corpus_mdx()], CORPORA)


def _ids(paths: list) -> list[str]:
    return [getattr(p, "name", "absent") for p in paths]


def assert_markdown_guarantees(source: str, chunks: list[mdchunk.Chunk], counter,
                               max_tokens: int, overlap_tokens: int,
                               headings: bool = True, site: str = "plain") -> None:
    """Every guarantee for one document's flat chunks; ``headings=False`` skips guarantee 3's
    headings-only check (for budgets below 48, where the budget wins); ``site`` is the one
    the chunks were made for (what its markup shows in ``embed_text``)."""
    spans = [(c.start, c.end) for c in chunks]
    for c in chunks:  # verbatim slices, exact counts, honest embed text and lines
        assert c.text == source[c.start:c.end]
        assert c.embed_text.endswith(embedded_text(source, c, site))
        assert c.token_count == counter.count(c.embed_text)
        assert c.section_path == " > ".join(c.headings)
        assert c.line_start == source.count("\n", 0, c.start) + 1 or "\r" in source
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert spans == sorted(spans)
    source, spans = as_read(source, spans)  # structure is that of the text after hygiene
    report = audit_markdown(source, spans, [c.token_count for c in chunks], counter, max_tokens,
                            site=site)
    assert report.over_budget == [], "guarantee 1: over budget"
    assert report.cut == [], "guarantee 2: an atomic block that fits was cut"
    assert report.headings_only == [] or not headings, "guarantee 3: a chunk of headings alone"
    assert report.shared_top == [], "guarantee 3: two top-level sections in one chunk"
    assert report.uncovered == [], "guarantee 4: text no chunk covers"
    assert report.inline_cut == [], "a boundary inside a link, code span or emphasis that fits"
    assert embed_text_problems(source, [(a, b, c.embed_text) for (a, b), c in zip(spans, chunks)],
                               site) == []
    blocks = parse_markdown(source).blocks
    assert overlap_problems(source, blocks, spans, counter, overlap_tokens) == [], "guarantee 5"


def check_file(path: Path, max_tokens: int, overlap: int, counter, site: str = "plain") -> None:
    source = document_text(path)
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap,
                                    doc_id=path.name, site=site)
    assert chunks, "a non-empty document gives chunks"
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap, site=site)


@pytest.mark.parametrize("max_tokens,overlap", BUDGETS)
@pytest.mark.parametrize("path", FIXTURE_MARKDOWN, ids=_ids(FIXTURE_MARKDOWN))
def test_markdown_guarantees(path: Path, max_tokens: int, overlap: int, counter) -> None:
    check_file(path, max_tokens, overlap, counter)


@pytest.mark.parametrize("max_tokens,overlap", BUDGETS)
@pytest.mark.parametrize("path", CORPUS_MARKDOWN, ids=_ids(CORPUS_MARKDOWN))
def test_markdown_guarantees_on_the_runbook_corpora(path: Path, max_tokens: int, overlap: int,
                                                    counter) -> None:
    """The runbooks and the documentation sites (issue 32), each page read for its site."""
    check_file(path, max_tokens, overlap, counter, site_of(path))


def test_the_corpora_are_there() -> None:
    """Where the corpora are required (CI), the structure checks must really run over them."""
    if not REQUIRE_CORPORA:
        pytest.skip("MDCHUNK_REQUIRE_CORPORA is not set (CI sets it)")
    assert len(corpus_files()) >= 100, f"expected the runbook corpora at {CORPORA}"
    assert len(list(CHROMA.glob("*.md"))) >= 5, f"expected Chroma's corpora at {CHROMA}"


@pytest.mark.parametrize("max_tokens,overlap", [(256, 32), (64, 8)])
@pytest.mark.parametrize("path", fixture_files(".txt"), ids=_ids(fixture_files(".txt")))
def test_text_and_qa_guarantees(path: Path, max_tokens: int, overlap: int, counter) -> None:
    source = document_text(path)
    chunks = mdchunk.chunk_file(path, max_tokens=max_tokens, overlap_tokens=overlap)
    spans = [(c.start, c.end) for c in chunks]
    assert all(c.text == source[c.start:c.end] for c in chunks)
    assert all(c.token_count == counter.count(c.embed_text) <= max_tokens for c in chunks)
    body_start = assert_file_body_covered(path, source, spans)
    assert (chunks[0].metadata.get("qa_preamble") or "") == source[:body_start].strip()
    assert not [c for c in chunks if set(c.kinds) <= {"heading", "question"}]


def assert_file_body_covered(path: Path, source: str, spans: list[tuple[int, int]]) -> int:
    """Guarantee 4 for a plain-text or Q&A fixture: the text as read (after hygiene) is covered
    from where its body starts, which it returns: a Q&A file's text before its first question
    is metadata, as front matter is."""
    first = QUESTION_LINE.search(source) if ".qa." in path.name else None
    body_start = first.start(1) if first else 0
    read, [(body, _), *read_spans] = as_read(source, [(body_start, body_start), *spans])
    assert uncovered(read, read_spans, body) == []
    return body_start


CHROMA_TEXTS = with_corpus(sorted(CHROMA.glob("*.md")) if CHROMA.is_dir() else [], CHROMA)


@pytest.mark.parametrize("max_tokens,overlap", BUDGETS[:3])
@pytest.mark.parametrize("path", CHROMA_TEXTS, ids=_ids(CHROMA_TEXTS))
def test_text_guarantees_on_the_chroma_corpora(path: Path, max_tokens: int, overlap: int,
                                               counter) -> None:
    """chunk_text over Chroma's plain-text corpora (up to 0.7 MB each, MDCHUNK_CHROMA): the
    contract's guarantees, structure judged on the plain-text reader's blocks of the text as
    read (after hygiene)."""
    source = document_text(path)
    chunks = mdchunk.chunk_text(source, max_tokens=max_tokens, overlap_tokens=overlap,
                                doc_id=path.name)
    assert chunks
    for c in chunks:
        assert c.text == source[c.start:c.end]
        assert c.token_count == counter.count(c.embed_text) <= max_tokens
        assert c.line_start == source.count("\n", 0, c.start) + 1 or "\r" in source
        assert c.section_path == " > ".join(c.headings)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    read, spans = as_read(source, [(c.start, c.end) for c in chunks])
    assert spans == sorted(spans)
    blocks = parse_plain_text(read).blocks
    assert uncovered(read, spans) == [], "guarantee 4"
    assert headings_only(blocks, spans) == [], "guarantee 3"
    assert shared_top_sections(blocks, spans) == [], "guarantee 3: top-level sections apart"
    assert overlap_problems(read, blocks, spans, counter, overlap) == [], "guarantee 5"
    again = mdchunk.chunk_text(source, max_tokens=max_tokens, overlap_tokens=overlap,
                               doc_id=path.name)
    assert [c.id for c in again] == [c.id for c in chunks], "guarantee 7"


@pytest.mark.parametrize("path", fixture_files(".md", ".txt"), ids=_ids(fixture_files(".md", ".txt")))
def test_determinism(path: Path) -> None:
    """Guarantee 7: same input and config, same output — across fresh chunkers too."""
    first = [c.to_dict() for c in mdchunk.chunk_file(path, max_tokens=200, overlap_tokens=20)]
    config = mdchunk.ChunkerConfig(max_tokens=200, overlap_tokens=20)
    second = [c.to_dict() for c in mdchunk.Chunker(config).chunk_file(path)]
    assert first == second


# Random documents built from real block shapes: the guarantees must hold for any mix.
_WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "服务", "重启", "日志", "e.g.", "v1.2", "3.14", "the", "a", "of", "to",
                          "`x. y`", "完成。`ratio`", "``a`b?``", "`"])
_sentence = st.tuples(st.lists(_WORDS, min_size=1, max_size=25),
                      st.sampled_from([".", "。", "!", "？", ""])).map(lambda t: " ".join(t[0]) + t[1])
_paragraph = st.lists(_sentence, min_size=1, max_size=12).map(" ".join)
_heading = st.tuples(st.integers(1, 4), st.lists(_WORDS, min_size=1, max_size=4)).map(
    lambda t: "#" * t[0] + " " + " ".join(t[1]))
_code = st.lists(_sentence, min_size=1, max_size=30).map(
    lambda lines: "```bash\n# " + "\n".join(lines) + "\n```")
_list = st.lists(_sentence, min_size=1, max_size=15).map(
    lambda items: "\n".join(f"- {item}" for item in items))
_table = st.lists(st.tuples(_WORDS, _WORDS), min_size=1, max_size=20).map(
    lambda rows: "| a | b |\n|---|---|\n" + "\n".join(f"| {x} | {y} |" for x, y in rows))
_quote = _paragraph.map(lambda p: "> " + p)
_block = st.one_of(_heading, _paragraph, _code, _list, _table, _quote)
_document = st.lists(_block, min_size=1, max_size=25).map("\n\n".join)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=_document, max_tokens=st.sampled_from([32, 64, 160]),
       newline=st.sampled_from(["\n", "\r\n"]))
def test_guarantees_on_generated_documents(source: str, max_tokens: int, newline: str,
                                           counter) -> None:
    source = source.replace("\n", newline)
    overlap = max_tokens // 8
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap)
    assert_generated_guarantees(source, chunks, counter, max_tokens, overlap)


def assert_generated_guarantees(source: str, chunks: list[mdchunk.Chunk], counter,
                                max_tokens: int, overlap: int) -> None:
    """Guarantees 1-5 of a generated document's chunks, judged by the audit alone."""
    spans = [(c.start, c.end) for c in chunks]
    report = audit_markdown(source, spans, [c.token_count for c in chunks], counter, max_tokens)
    assert report.over_budget == [] and report.cut == [] and report.uncovered == []
    assert report.shared_top == []
    assert headings_only(parse_markdown(source).blocks, spans) == []
    assert overlap_problems(source, parse_markdown(source).blocks, spans, counter, overlap) == []
    assert all(c.text == source[c.start:c.end] for c in chunks)


def _block_tokens(md, source: str) -> list[tuple]:
    return [(t.type, t.map, t.markup, t.info) for t in md.parse(source, {})]


@pytest.mark.parametrize("path", [*FIXTURE_MARKDOWN, *CORPUS_MARKDOWN],
                         ids=_ids([*FIXTURE_MARKDOWN, *CORPUS_MARKDOWN]))
def test_parsing_without_unused_rules_gives_the_same_tokens(path: Path) -> None:
    source = document_text(path)
    _assert_same_tokens_without_unused_rules(source)


def _assert_same_tokens_without_unused_rules(source: str) -> None:
    """For each site, the parser without the rules ``source`` cannot use gives the tokens of
    the parser with every rule that site turns on."""
    from mdchunk.formats.markdown_it_parser import block_parser, other_sites_rules, unused_rules

    for site in ("plain", "mkdocs"):
        off = other_sites_rules(site)
        assert _block_tokens(block_parser(unused_rules(source, site)), source) == _block_tokens(
            block_parser(off), source), site


_plugin_block = st.sampled_from([
    "$$\na^2\n$$", "!!! note\n    body", "??? tip Title\n    body", "::: warning\ntext\n:::",
    "text[^1]\n\n[^1]: note", "Term\n: definition", "Term\n~ definition", "> Term\n> : def",
    "- Term\n\n  : def", "a: b\n:c", "~~~\ncode\n~~~", "::: :: :", "Term\r: def", "Term\r\n  ~ def",
    '=== "Tab"\n    body', '===! "A"\n\n    a\n\n=== "B"\n    b', '- x\n\n    ===+ "T"\n        y'])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(blocks=st.lists(st.one_of(_block, _plugin_block), min_size=1, max_size=8))
def test_parsing_without_unused_rules_on_generated_documents(blocks: list[str]) -> None:
    source = "\n\n".join(blocks)
    _assert_same_tokens_without_unused_rules(source)


#: Found by ``make test-long`` (issue 30's session) and not yet fixed: at the smallest budget a
#: table's repeated header leaves a row too little room, and an inline construct in it is cut
#: although it alone fits. The chunker repeats a header that takes at most half the budget
#: less the breadcrumb; the audit's room for an inline construct does not count the header.
#: Which side should give (drop the repetition, or widen the audit's room) is undecided.
_KNOWN_INLINE_CUTS_IN_REPEATED_HEADER_TABLES = [
    ("alpha.\n\n!!! note\n    | alpha |\n    |---|\n    | [link](http://x.y/z) |\n", 16),
    ("alpha.\n\n| alpha |\n|:--|\n| ` | alpha alpha alpha 完成。`kubectl` |\n\n", 16),
]


@pytest.mark.xfail(strict=True, reason="known: an inline construct cut in a row under a "
                                       "repeated table header at budget 16")
@pytest.mark.parametrize("source, budget", _KNOWN_INLINE_CUTS_IN_REPEATED_HEADER_TABLES)
def test_no_inline_construct_is_cut_under_a_repeated_table_header(source: str, budget: int,
                                                                   counter) -> None:
    chunks = mdchunk.chunk_markdown(source, max_tokens=budget, overlap_tokens=0, doc_id="g.md")
    assert_markdown_guarantees(source, chunks, counter, budget, 0, headings=False)
