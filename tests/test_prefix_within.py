"""The last-resort cut, ``TokenCounter.prefix_within``: the prefix it gives fits the budget, one
character more does not (or the text ends there), and it encodes only a window a few times the
budget, however long the word."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.tokens import TokenCounter, get_counter

from .test_grammar import profile

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
    return get_counter("cl100k_base")


def _assert_the_longest_that_fits(counter: TokenCounter, text: str, max_tokens: int, start: int,
                                  end: int) -> None:
    """The cut's prefix fits ``max_tokens``, and the binary search saw one character more not
    fit, unless the cut is the whole text or the whole window searched."""
    cut = counter.prefix_within(text, max_tokens, start, end)
    assert 0 <= cut <= end - start
    if cut:
        assert counter.count(text[start:start + cut]) <= max_tokens
    if cut < end - start and counter.count(text[start:end]) > max_tokens:
        searched = 8 * max(1, max_tokens)  # the window doubles until it holds too many tokens
        while searched < end - start and counter.count(text[start:start + searched]) <= max_tokens:
            searched *= 2
        if cut < min(searched, end - start):
            assert counter.count(text[start:start + cut + 1]) > max_tokens


@profile(300)
@given(text=_huge, max_tokens=st.integers(1, 600), data=st.data())
def test_the_cut_is_the_longest_prefix_that_fits(text: str, max_tokens: int,
                                                 data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    _assert_the_longest_that_fits(_cl100k(), text, max_tokens, start, end)


@pytest.mark.parametrize("text", ["ab\ud800" * 200, "服务\udfff" * 300, "x " * 900 + "\ud800"])
def test_lone_surrogates_are_cut_like_any_text(text: str) -> None:
    for max_tokens in (1, 7, 64, 300):
        _assert_the_longest_that_fits(_cl100k(), text, max_tokens, 0, len(text))


def test_a_huge_word_is_cut_by_encoding_a_window_only() -> None:
    """A 200,000-character base64 word cut at 100 tokens: every probe and window encoded
    together are a few times the window (800 characters doubled once or twice), not the word."""
    counter = _cl100k()
    encoded: list[int] = []

    def count(text: str) -> int:
        encoded.append(len(text))
        return counter.count(text)

    word = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg" * 2000
    cut = replace(counter, count=count).prefix_within(word, 100)
    assert counter.count(word[:cut]) <= 100 < counter.count(word[:cut + 1])
    assert sum(encoded) < 20 * 800, encoded
