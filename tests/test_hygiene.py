"""Text hygiene (issue 15): what is cleaned, what is kept, and where offsets point.

Chunks are planned on the cleaned text; ``text``, ``start`` and ``end`` still refer to the string
the caller passed (``text == source[start:end]``), while ``embed_text``, headings and token
counts are those of the cleaned text. ``clean=False`` turns hygiene off.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

import mdchunk
from mdchunk.text import clean_text
from tests.audit import as_read, uncovered

from .conftest import embedded_text

DIRT = ["\ufeff", "\u200b", "\u2060", "\u00ad", "\u200c", "\x00", "\x07", "\x1b", "\x7f",
        "\x9b", "\ud800", "\udfff", "\ue000", "\U000f0001"]
#: What must never reach embed_text with hygiene on (ZWNJ may, inside Persian or Hindi).
NEVER = set(DIRT) - {"\u200c"}


def test_each_kind_of_dirt_is_removed() -> None:
    for ch in DIRT:
        assert clean_text(f"pass{ch}word").text == "password", repr(ch)


def test_tab_newline_and_carriage_return_are_kept() -> None:
    assert clean_text("a\tb\r\nc\rd\ne").text == "a\tb\r\nc\rd\ne"
    assert not clean_text("a\tb\r\nc\rd\ne").changed


def test_form_feed_vertical_tab_and_nel_separate_words() -> None:
    assert clean_text("page one\x0cpage\x0btwo\x85three").text == "page one page two three"


def test_text_is_put_in_nfc() -> None:
    assert clean_text("cafe\u0301 \u1100\u1161\u11a8").text == "caf\u00e9 \uac01"


def test_zwnj_is_kept_where_a_script_needs_it() -> None:
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # می‌خواهم, "I want"
    hindi = "\u0915\u094d\u200c\u0937"
    assert clean_text(persian).text == persian
    assert clean_text(hindi).text == hindi
    assert clean_text("Latin\u200cword").text == "Latinword"
    assert clean_text("\ufeff\u200cword").text == "word"  # a BOM is no letter of those scripts


def test_offsets_point_into_the_string_passed_in() -> None:
    source = "\ufeff# Guide\n\nPass\u200bword reset\x07 steps.\n\n# Next\n\nMore\u00ad text.\n"
    chunks = mdchunk.chunk_markdown(source, max_tokens=16, overlap_tokens=0, min_tokens=0)
    assert [c.text for c in chunks] == [source[c.start:c.end] for c in chunks]
    assert chunks[0].text.startswith("\ufeff# Guide")  # verbatim: the BOM is in text
    assert chunks[0].embed_text.endswith("# Guide\n\nPassword reset steps.")
    assert chunks[-1].headings == ["Next"]
    assert chunks[-1].embed_text.endswith("More text.")
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 3), (5, 7)]


def test_clean_false_reads_the_text_as_it_is() -> None:
    source = "Pass\u200bword reset.\n"
    [dirty] = mdchunk.chunk_text(source, clean=False)
    [clean] = mdchunk.chunk_text(source)
    assert dirty.embed_text == source.strip() and clean.embed_text == "Password reset."
    assert dirty.text == clean.text == source.strip()
    assert dirty.id != clean.id  # the setting is part of the config's fingerprint


def test_hygiene_leaves_clean_text_and_its_ids_alone() -> None:
    """On by default and hashed only when off: ids made before hygiene existed stay put."""
    assert mdchunk.ChunkerConfig().fingerprint == mdchunk.ChunkerConfig(clean=True).fingerprint
    assert mdchunk.ChunkerConfig(clean=False).fingerprint != mdchunk.ChunkerConfig().fingerprint
    source = "# T\n\nSome text. More text.\n"
    on, off = mdchunk.chunk_markdown(source), mdchunk.chunk_markdown(source, clean=False)
    assert [(c.text, c.start, c.end, c.embed_text) for c in on] == \
        [(c.text, c.start, c.end, c.embed_text) for c in off]


def test_a_config_refuses_a_clean_that_is_not_a_bool() -> None:
    try:
        mdchunk.ChunkerConfig(clean="yes")  # type: ignore[arg-type]
    except mdchunk.ConfigError as exc:
        assert "clean='yes'" in str(exc)
    else:
        raise AssertionError("clean='yes' was accepted")


def test_a_document_of_invisible_characters_has_no_chunks() -> None:
    assert mdchunk.chunk_text("\u200b\ufeff\n\x00\n") == []
    assert mdchunk.chunk_text("\u200b\ufeff\n\x00\n", clean=False) != []


_WORDS = st.sampled_from(["alpha", "beta", "服务", "重启", "日志", "cafe\u0301", "e.g.", "1.",
                          "第一章", "# Title", "question:", "answer:", "- item", "```"])
_PIECES = st.one_of(_WORDS, st.sampled_from([" ", " ", "\n", "\n\n", "\r\n", "\r", "\t", *DIRT]))
dirty_documents = st.lists(_PIECES, min_size=1, max_size=120).map("".join)


@settings(max_examples=150, deadline=None)
@given(source=dirty_documents, budget=st.sampled_from([(16, 0), (32, 4), (128, 16)]),
       entry=st.sampled_from(["markdown", "text", "hierarchy"]))
def test_dirty_text_keeps_verbatim_offsets_and_clean_embed_text(source: str, budget, entry,
                                                                 counter) -> None:
    """For any mix of words, line endings and dirt: ``text == source[start:end]`` of the string
    passed in, ``embed_text`` holds none of the removed characters and is in NFC, the budget
    holds, and every character that survives hygiene is covered."""
    max_tokens, overlap = budget
    if entry == "hierarchy":
        chunks = mdchunk.chunk_hierarchy(source, levels=(max_tokens * 4, max_tokens),
                                         overlap_tokens=overlap)
        blank = not clean_text(source).text.strip()  # blank after hygiene: no chunks at all
        assert "".join(c.text for c in chunks if c.level == 1) == ("" if blank else source)
        leaves = [c for c in chunks if c.level == 2]
    else:
        function = mdchunk.chunk_markdown if entry == "markdown" else mdchunk.chunk_text
        leaves = chunks = function(source, max_tokens=max_tokens, overlap_tokens=overlap)
    for c in chunks:
        assert c.text == source[c.start:c.end]
        assert not NEVER & set(c.embed_text), repr(c.embed_text)
        assert unicodedata.is_normalized("NFC", c.embed_text)
        assert c.token_count == counter.count(c.embed_text)
        assert c.line_start == source[:c.start].count("\n") + 1 or "\r" in source
    assert all(c.token_count <= max_tokens for c in leaves)
    read, spans = as_read(source, [(c.start, c.end) for c in leaves])
    assert uncovered(read, spans) == []
    for c, (a, b) in zip(leaves, spans):  # Markdown leaves HTML comments out of embed_text
        assert c.embed_text.endswith(embedded_text(source, c) if entry != "text"
                                     else read[a:b])


def test_separators_made_spaces_keep_the_text_verbatim() -> None:
    """Form feed, vertical tab and NEL become spaces in place (no position moves): the chunk's
    text is still the caller's string, with them, and only embed_text has the spaces."""
    source = "# Notes\n\nthird\x85fourth\x0bfifth\x0csixth.\n"
    [chunk] = mdchunk.chunk_markdown(source)
    assert chunk.text == source[chunk.start:chunk.end] == source.rstrip("\n")
    assert chunk.embed_text.endswith("third fourth fifth sixth.")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.one_of(
    st.characters(min_codepoint=0, max_codepoint=0x7F),
    st.sampled_from("\ufeff\u200b\u2060\u00ad\u200c\u200d\x85\xa0é日\ue000\U000f0000\U0010fffd"
                    "\ud800\udfff\x9f\x80"),
    st.characters())))
def test_the_quick_test_for_removed_characters_is_the_full_search(text: str) -> None:
    """Hygiene looks for removed characters among the non-ASCII and control characters only:
    it finds one exactly when a search of the whole text does."""
    from mdchunk.text.clean import _REMOVED, _may_remove

    assert _may_remove(text) == (_REMOVED.search(text) is not None)
