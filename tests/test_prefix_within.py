"""The last-resort cut, ``TokenCounter.prefix_within``: its probes, read off one encoding of
the window (:mod:`mdchunk.tokens.prefixes`), are each the prefix's own count, so it cuts
exactly where the binary search that encoded every probe cut."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.tokens import TokenCounter, get_counter
from mdchunk.tokens.prefixes import PrefixCounts

from .conftest import CORPORA, corpus_files, site_corpus_mdx, with_corpus
from .test_grammar import profile


def _encoding_every_probe(count: Callable[[str], int], text: str, max_tokens: int, start: int,
                          end: int) -> int:
    """``prefix_within`` as it was before the probes were read off one encoding: each probe
    encoded whole."""
    length = end - start
    window = 8 * max(1, max_tokens)
    while window < length and count(text[start:start + window]) <= max_tokens:
        window *= 2
    lo, hi = 0, min(window, length)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[start:start + mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return lo


_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_CJK = "服务重启日志检查磁盘已满テスト한국어。，、「」"
_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_BLANKS = [" ", "  ", "\t", "\n", "\r\n", "\r", "\n\n", " \n", "\u3000", "\xa0", "\x1c", "\x85",
           "\u2028", "\f", "\v"]
_ODD = ["🙂", "👩‍👩‍👧‍👦", "🇺🇳", "e\u0301", "a\u0308\u0301", "\u0301", "'s", "'ll", "'VE", "'Re",
        "'", "ſ", "\u212a", "\u200b", "<|endoftext|>", "https://mermaid.live/edit#pako:",
        "data:image/png;base64,", "?a=1&b=2#x", "%20", "İ", "ß"]
#: Pieces of the huge "words" the last-resort cut meets: base64 runs, URLs, CJK runs with no
#: space, digits, punctuation runs, emoji, combining marks, and blanks inside.
_piece = st.one_of(
    st.text(alphabet=_BASE64, min_size=1, max_size=300),
    st.text(alphabet=_CJK, min_size=1, max_size=120),
    st.text(alphabet="0123456789", min_size=1, max_size=40),
    st.text(alphabet=_PUNCTUATION, min_size=1, max_size=30),
    st.sampled_from(_BLANKS), st.sampled_from(_ODD),
    st.sampled_from(["-" * 40, "=" * 80, " " * 60, "\n" * 30, "ab" * 50, "the " * 40]),
)
#: Some pieces repeated: long windows, and windows that double (many characters a token).
_huge = st.lists(st.tuples(_piece, st.integers(1, 12)), min_size=1, max_size=12).map(
    lambda pieces: "".join(piece * times for piece, times in pieces))


def _cl100k() -> TokenCounter:
    counter = get_counter("cl100k_base")
    assert counter.line_additive and counter.token_ends is not None
    return counter


@profile(300)
@given(text=_huge, data=st.data())
def test_each_probe_is_the_prefix_s_own_count(text: str, data: st.DataObject) -> None:
    counter = _cl100k()
    assert counter.token_ends is not None
    prefixes = PrefixCounts(text, counter.token_ends(text), counter.count)
    for n in data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=12)):
        assert prefixes(n) == counter.count(text[:n]), n


@profile(300)
@given(text=_huge, max_tokens=st.integers(1, 600), data=st.data())
def test_the_cut_is_where_encoding_every_probe_cut(text: str, max_tokens: int,
                                                   data: st.DataObject) -> None:
    counter = _cl100k()
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    expected = _encoding_every_probe(counter.count, text, max_tokens, start, end)
    assert counter.prefix_within(text, max_tokens, start, end) == expected


@pytest.mark.parametrize("text", ["ab\ud800" * 200, "服务\udfff" * 300, "x " * 900 + "\ud800"])
def test_lone_surrogates_are_cut_by_encoding_every_probe(text: str) -> None:
    counter = _cl100k()
    for max_tokens in (1, 7, 64, 300):
        assert counter.prefix_within(text, max_tokens) == _encoding_every_probe(
            counter.count, text, max_tokens, 0, len(text))


def test_prefixes_ending_in_blanks_count_as_themselves() -> None:
    """``"a  "`` ends in two blanks as a prefix (``\\s++$``: one pretoken) but in one plus the
    blank before ``b`` inside the window: each prefix counts as itself all the same."""
    counter = _cl100k()
    assert counter.token_ends is not None
    for text in ("a   b", "x\n\n\ny", "word \t\u3000 next", "。 \n 服务"):
        prefixes = PrefixCounts(text, counter.token_ends(text), counter.count)
        assert [prefixes(n) for n in range(len(text) + 1)] == [
            counter.count(text[:n]) for n in range(len(text) + 1)]


def test_probes_of_a_base64_word_encode_a_few_characters_each() -> None:
    """The window is encoded once; each probe encodes only what follows its cut."""
    counter = _cl100k()
    encoded: list[int] = []

    def count(text: str) -> int:
        encoded.append(len(text))
        return counter.count(text)

    word = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg" * 20
    spied = replace(counter, count=count)
    assert spied.prefix_within(word, 100) == _encoding_every_probe(counter.count, word, 100, 0,
                                                                   len(word))
    assert len(encoded) >= 8 and sum(encoded) < 100, encoded


_LONG_WORD = re.compile(r"\S{48,}")


@pytest.mark.parametrize("path", with_corpus([*corpus_files(), *site_corpus_mdx()], CORPORA))
def test_cuts_of_the_corpora_s_long_words_are_unchanged(path: Path) -> None:
    """Every word of 48 characters or more on every corpus page (base64 in URLs, CJK lines,
    rules of dashes), cut from several starts with budgets from 1 to 600 tokens."""
    counter = _cl100k()
    text = path.read_text(encoding="utf-8-sig")
    for word in _LONG_WORD.finditer(text):
        a, b = word.span()
        for start in (a, a + 1, (a + b) // 2, b - 20):
            for max_tokens in (1, 3, 16, 100, 600):
                end = min(len(text), b + 8)  # a few characters past the word, as a piece ends
                assert counter.prefix_within(text, max_tokens, start, end) == \
                    _encoding_every_probe(counter.count, text, max_tokens, start, end), \
                    (a, start, max_tokens)
