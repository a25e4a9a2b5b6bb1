"""The additivity the packer's exact counts rely on: cl100k counts add up at line and word
joints, and SpanCounts counts any span near them exactly."""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from itertools import accumulate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.tokens import get_counter

from .test_grammar import profile

_pieces = st.lists(st.sampled_from(
    ["word", "Word", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", ".", ",", "。", "，", "服务", "重启",
     "3.14", "42", "/", "-", "|", "`", "```", "#", "'s", "“", "”", "(", ")", "é", "🙂", "x" * 30,
     "\u3000", "\xa0", "\f", "\u200b", "\x1c", "e\u0301", ".\n", " .", "-->", "    ",
     "<|endoftext|>"]),
    min_size=1, max_size=60).map("".join)


@profile(200)
@given(text=_pieces)
def test_line_index_finds_every_line_start(text: str) -> None:
    from mdchunk.formats import LineIndex

    expected = [0, *[m.end() for m in re.finditer(r"\r\n?|\n", text)]]
    assert list(LineIndex.of(text).starts) == expected
    assert list(LineIndex.of(text.replace("\r", "")).starts) == [
        0, *[m.end() for m in re.finditer(r"\n", text.replace("\r", ""))]]


def _line_has_text(text: str, p: int) -> bool:
    line = re.split(r"\r|\n", text[p:], maxsplit=1)[0]
    return bool(line.strip())


@profile(400)
@given(text=_pieces, data=st.data())
def test_cl100k_counts_add_up_at_the_joints_the_packer_uses(text: str, data) -> None:
    counter = get_counter("cl100k_base")
    assert counter.line_additive
    joints = [p for p in range(1, len(text))
              if (text[p - 1] in "\r\n" and _line_has_text(text, p))
              or (text[p] in " \t" and not text[p - 1].isspace())]
    if joints:
        p = data.draw(st.sampled_from(joints))
        assert counter.count(text) == counter.count(text[:p]) + counter.count(text[p:])
    head = data.draw(st.sampled_from(["A > B\n\n", "… > 服务\n\n| a | b |\n|---|---|\n", "```bash\n"]))
    if _line_has_text(text, 0):
        assert counter.count(head + text) == counter.count(head) + counter.count(text)


def _word_joints(text: str) -> list[int]:
    """The blanks before a word, after text: joints of the second kind."""
    return [p for p in range(1, len(text)) if text[p] in " \t" and not text[p - 1].isspace()]


@profile(300)
@given(text=_pieces, lead=st.sampled_from(["", " ", "  ", "\t "]), data=st.data())
def test_spans_between_registered_joints_are_counted_exactly(text: str, lead: str, data) -> None:
    """A block registered, parts of it (items, sentences, lines) registered at the joints
    before them, and any span between two of those edges counted: the sum of its stretches,
    always the exact count (a block that opens with a blank, a page opening with a space,
    included)."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = lead + text + "\n"
    counts = SpanCounts(text, counter, long_block=8)
    counts.use_blocks([Block("list", 0, len(text) - 1)])
    counts.estimate(0, len(text) - 1)
    words = _word_joints(text)
    for joint in data.draw(st.lists(st.sampled_from(words), max_size=6)) if words else []:
        assert counts.joint_before(joint) == joint
    edges = sorted({0, len(text) - 1, *counts._joints,
                    *[p for p in range(1, len(text)) if counts.is_joint(p)]})
    for _ in range(4):
        a = data.draw(st.sampled_from(edges))
        b = data.draw(st.sampled_from([e for e in edges if e > a] or [len(text)]))
        assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)


@pytest.mark.parametrize("last", ["word", "42", "1234", "服务", "é", "ǅ", "Ⅻ", "½", "it's", "x\u0301",
                                  "x.", "🙂", "(x)", "a\u3000b", "服务。", "重启）。", "a.)", "`x`.",
                                  "1.", "x\n。", "x . .", "x\u3000。", "==" * 20, "x" + "=" * 40])
@pytest.mark.parametrize("blank", ["\n\n", "  \n\n", "\n \n", "\r\n\r\n", "\t\n\n"])
@pytest.mark.parametrize("lead", ["", "A first line\n", "  indented\r\n"])
def test_a_span_ending_on_a_word_before_a_blank_line_is_counted_exactly(last: str, blank: str,
                                                                       lead: str) -> None:
    """A block's span stops before the blank line that leads to the next one: counted from the
    stretch to that joint, its last line encoded with and without the blanks (which may join
    the punctuation before them), exactly."""
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = f"{lead}Lead text and {last}{blank}Next line here.\n"
    counts = SpanCounts(text, counter, long_block=8)
    y = text.index(blank)
    counts.joint_before(y + len(blank))
    counts.count_span(0, len(text))
    assert counts.count_span(0, y) == counter.count(text[:y])
    assert counts.count_span(5, y) == counter.count(text[5:y])


@profile(400)
@given(text=_pieces, data=st.data())
def test_spans_near_joints_are_counted_exactly(text: str, data) -> None:
    """Spans that start a word after a joint or end before the blank that leads to one,
    asked before and after the stretches around them are counted: always the exact count."""
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    counts = SpanCounts(text, counter, long_block=8)
    lines = [p for p in range(1, len(text)) if counts.is_joint(p)]
    words = _word_joints(text)
    for joint in [*lines, *(data.draw(st.lists(st.sampled_from(words), max_size=6)) if words else [])]:
        counts.joint_before(joint)
    ends = [y for y in range(1, len(text) + 1) if not text[y - 1].isspace()] or [len(text)]
    before = [y for y in ends for c in counts._joints if c > y and not text[y:c].strip()]
    for _ in range(6):
        if data.draw(st.booleans()):  # the stretches up to the joints counted first
            counts.count_span(0, len(text))
        y = data.draw(st.sampled_from(before) if before and data.draw(st.booleans())
                      else st.sampled_from(ends))
        near = [c + d for c in counts._joints for d in (1, 2, 3) if c + d < y]
        x = data.draw(st.sampled_from(near) if near and data.draw(st.booleans())
                      else st.integers(0, y - 1))
        assert counts.count_span(x, y) == counter.count(text[x:y]), (x, y)


@functools.cache
def _tiktoken_encoding():
    """cl100k_base as tiktoken itself loads it."""
    import tiktoken

    from mdchunk.tokens import encodings

    if encodings._is_cached("cl100k_base"):
        return tiktoken.get_encoding("cl100k_base")
    return encodings._load_offline_encoding("cl100k_base")


@profile(300)
@given(text=_pieces)
def test_counts_are_tiktoken_s_ordinary_encoding(text: str) -> None:
    """A count is the length of tiktoken's public ``encode_ordinary`` (special tokens' text
    read as ordinary text, a lone surrogate mended as tiktoken mends it)."""
    assert get_counter("cl100k_base").count(text) == len(
        _tiktoken_encoding().encode_ordinary(text))


def _page_of(paragraphs: list[str], long_block: int):  # type: ignore[no-untyped-def]
    """A page of ``paragraphs`` (a blank line between), its blocks registered with span counts
    that record every text they encode: the page, where each paragraph starts, its blocks,
    the counts and the texts encoded."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    text = "\n\n".join(paragraphs) + "\n"
    starts = list(accumulate([0, *[len(p) + 2 for p in paragraphs[:-1]]]))
    blocks = [Block("paragraph", a, a + len(p)) for a, p in zip(starts, paragraphs)]
    calls: list[str] = []
    counter = get_counter("cl100k_base")

    def count(part: str) -> int:
        calls.append(part)
        return counter.count(part)

    counts = SpanCounts(text, replace(counter, count=count), long_block)
    counts.use_blocks(blocks)
    return text, starts, blocks, counts, calls


_PARAGRAPHS = st.lists(st.lists(_pieces.map(str.strip).filter(bool), min_size=1, max_size=3)
                       .map("\n".join), min_size=1, max_size=5)


@profile(200)
@given(paragraphs=_PARAGRAPHS, long_block=st.sampled_from([8, 10**6]))
def test_each_block_is_encoded_once_and_its_span_from_its_last_line(paragraphs: list[str],
                                                                    long_block: int) -> None:
    """Every block's estimate (the block with the blank after it) encodes its stretch once (a
    long block's lines one by one, a short text once a page) and is exact; its span without that blank is then exact too,
    from the same stretch and the end of its last line encoded with and without the blank, not
    the block again."""
    counter = get_counter("cl100k_base")
    text, starts, blocks, counts, calls = _page_of(paragraphs, long_block)
    following = [*starts[1:], blocks[-1].end]
    for block, end in zip(blocks, following):
        expected = counter.count(text[block.start:end]) + (end == block.end)
        assert counts.estimate(block.start, block.end) == expected
        assert counts.estimate(block.start, block.end) == expected
    pos = 0  # each character encoded once at most, in order (a short text met again is known)
    for part in calls:
        pos = text.index(part, pos) + len(part)
    short = [part for part in calls if len(part) <= 32]
    assert pos <= blocks[-1].end and len(set(short)) == len(short)
    calls.clear()
    for block, end in zip(blocks, following):
        assert counts.count_span(block.start, block.end) == counter.count(
            text[block.start:block.end])
        last_line = max(text.rfind("\n", block.start, block.end),
                        text.rfind("\r", block.start, block.end)) + 1
        if block.start < last_line < end and counts.is_joint(last_line) and end > block.end:
            assert all(part in text[last_line:end] for part in calls), calls
        calls.clear()


def test_a_source_with_a_lone_surrogate_is_counted_exactly() -> None:
    """tiktoken mends a lone surrogate (U+FFFD) in any stretch it encodes: the sums stay
    exact."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = "Intro line one.\nSecond \ud800 line here.\n\nThird block, 服务 🙂.\n"
    counts = SpanCounts(text, counter, long_block=8)
    counts.use_blocks([Block("paragraph", 0, 38), Block("paragraph", 40, len(text) - 1)])
    for p in _word_joints(text):
        counts.joint_before(p)
    edges = [0, *counts._joints, len(text)]
    for a in edges:
        for b in edges:
            if a < b:
                assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)
