"""The additivity the packer's exact counts rely on: cl100k counts add up at line and word
joints, and SpanCounts counts any span near them exactly."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace
from itertools import accumulate
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.tokens import get_counter

from .conftest import CORPORA, corpus_files, site_corpus_mdx, with_corpus
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


@profile(200)
@given(text=_pieces, lead=st.sampled_from([" ", "  ", "\t "]))
def test_parts_after_a_leading_blank_are_primed_from_the_block_s_one_encoding(text: str,
                                                                                lead: str) -> None:
    """A paragraph that starts with a blank (a page opening with a space) is cut into parts that
    start after it: their counts come from the ends the block's encoding kept, not from a second
    encoding of the whole paragraph, and they are exact."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = lead + text.strip() + "\n"
    counts = SpanCounts(text, counter, long_text=16)
    counts.use_blocks([Block("paragraph", 0, len(text) - 1)])
    counts.estimate(0, len(text) - 1)  # the block's stretch, encoded once, keeps its ends
    joints = [j for p in range(len(lead) + 1, len(text) - 1) if text[p - 1] == " "
              and (j := counts.joint_before(p)) is not None]
    kept = counts._kept.around(len(lead), len(text) - 1) is not None
    encoded: list[str] = []
    token_ends = counter.token_ends
    assert token_ends is not None

    def spied(part: str) -> Sequence[int]:
        encoded.append(part)
        return token_ends(part)

    counts.counter = replace(counter, token_ends=spied)
    counts.prime(sorted(set(joints)), len(lead), len(text) - 1)
    if kept and joints:
        assert not encoded, "the kept ends were used"
    for a, b in zip(sorted({len(lead), *joints}), [*sorted(set(joints)), len(text) - 1]):
        assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)


@profile(300)
@given(text=_pieces, data=st.data())
def test_parts_of_a_kept_encoding_are_read_off_it_exactly(text: str, data) -> None:
    """A block encoded once keeps its token ends; a stretch inside it between joints (an item
    of a list, a run of lines, a sentence) is then counted from them without encoding it, and
    a part primed from it (a nested item cut into sentences) too: always the exact count."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = text + "\n"
    counts = SpanCounts(text, counter, long_text=8)
    counts.use_blocks([Block("list", 0, len(text) - 1)])
    counts.estimate(0, len(text) - 1)  # the block, encoded once: long enough to keep its ends
    words = [p for p in range(1, len(text)) if text[p] in " \t" and not text[p - 1].isspace()]
    for joint in data.draw(st.lists(st.sampled_from(words), max_size=6)) if words else []:
        counts.add_joint(joint)
    edges = sorted({0, len(text) - 1, *counts._joints,
                    *[p for p in range(1, len(text)) if counts.is_joint(p)]})
    a = data.draw(st.sampled_from(edges))
    b = data.draw(st.sampled_from([e for e in edges if e > a] or [len(text)]))
    assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)
    inner = [j for j in counts._joints if a < j < b]
    if inner:  # a part of the block (an item) cut at joints inside it
        counts.prime(inner, a, b)
        for x, y in zip([a, *inner], [*inner, b]):
            assert counts.count_span(x, y) == counter.count(text[x:y]), (x, y)


@pytest.mark.parametrize("last", ["word", "42", "1234", "服务", "é", "ǅ", "Ⅻ", "½", "it's", "x\u0301",
                                  "x.", "🙂", "(x)", "a\u3000b", "服务。", "重启）。", "a.)", "`x`.",
                                  "1.", "x\n。", "x . .", "x\u3000。", "==" * 20, "x" + "=" * 40])
@pytest.mark.parametrize("blank", ["\n\n", "  \n\n", "\n \n", "\r\n\r\n", "\t\n\n"])
def test_a_span_ending_on_a_word_before_a_blank_line_is_counted_exactly(last: str, blank: str
                                                                       ) -> None:
    """A block's span stops before the blank line that leads to the next one: counted from
    that joint, less what the blanks (and a word's end they may join) add. After a letter or
    digit (titlecase, letter-like numerals and fractions included) the blanks are a pretoken of
    their own; after a combining mark, punctuation or an emoji the last pretoken is found from
    just after the last letter or digit (on CJK lines with no space), else from the last
    blank."""
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = f"Lead text and {last}{blank}Next line here.\n"
    counts = SpanCounts(text, counter, long_text=1024)
    y = text.index(blank)
    counts.add_joint(y + len(blank))
    counts.count_span(0, len(text))
    assert counts.count_span(0, y) == counter.count(text[:y])
    assert counts.count_span(5, y) == counter.count(text[5:y])


@profile(400)
@given(text=_pieces, data=st.data())
def test_spans_near_joints_are_counted_exactly(text: str, data) -> None:
    """Spans that start a word after a joint or end before the blank that leads to one are
    counted from the joints plus a correction (SpanCounts.count_span): always the exact count."""
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    counts = SpanCounts(text, counter, long_text=16)  # long stretches keep their token ends
    lines = [p for p in range(1, len(text)) if counts.is_joint(p)]
    words = [p for p in range(1, len(text)) if text[p] in " \t" and not text[p - 1].isspace()]
    for joint in [*lines, *(data.draw(st.lists(st.sampled_from(words), max_size=6)) if words else [])]:
        counts.add_joint(joint)
    ends = [y for y in range(1, len(text) + 1) if not text[y - 1].isspace()] or [len(text)]
    before = [y for y in ends for c in counts._joints if c > y and not text[y:c].strip()]
    for _ in range(6):
        y = data.draw(st.sampled_from(before) if before and data.draw(st.booleans())
                      else st.sampled_from(ends))
        near = [c + d for c in counts._joints for d in (1, 2, 3) if c + d < y]
        x = data.draw(st.sampled_from(near) if near and data.draw(st.booleans())
                      else st.integers(0, y - 1))
        assert counts.count_span(x, y) == counter.count(text[x:y]), (x, y)
    counts.prime(counts._joints, 0, len(text))  # counts taken from one encoding agree too
    for _ in range(4):
        y = data.draw(st.sampled_from(ends))
        x = data.draw(st.sampled_from([0, *[c for c in counts._joints if c < y]]))
        assert counts.count_span(x, y) == counter.count(text[x:y]), (x, y)



@profile(300)
@given(text=_pieces)
def test_counts_and_token_ends_through_tiktoken_s_core_are_tiktoken_s(text: str) -> None:
    """Counts call tiktoken's Rust core directly, and token ends come from one table of byte
    lengths summed in C: both agree with tiktoken's own ``encode_ordinary`` and with each
    token's bytes, over generated text (CJK, blanks, CRLF, emoji)."""
    counter = get_counter("cl100k_base")
    _assert_tiktoken_s(counter, text)


@profile(300)
@given(text=_pieces)
def test_token_ends_from_tiktoken_s_buffer_and_from_its_list_agree(text: str) -> None:
    """Token ends summed by numpy over tiktoken's buffer of ids (where numpy is installed) and
    by itemgetter over the list of ids (where it is not) are the same, special tokens' text
    read as ordinary text by both; the counter takes the buffer's where it can."""
    numpy = pytest.importorskip("numpy")
    from mdchunk.tokens import encodings

    encoding = _tiktoken_encoding()
    core = encoding._core_bpe
    from_buffer = encodings._ends_from_buffer(encoding, core.encode_to_tiktoken_buffer)
    from_list = encodings._ends_from_list(encoding, core.encode_ordinary)
    assert list(from_buffer(text)) == list(from_list(text))
    assert numpy is not None and get_counter("cl100k_base").token_ends.__qualname__ == \
        from_buffer.__qualname__


@functools.cache
def _tiktoken_encoding():
    """cl100k_base as tiktoken itself encodes (its wrapper, not the core the counter calls)."""
    import tiktoken

    from mdchunk.tokens import encodings

    if encodings._is_cached("cl100k_base"):
        return tiktoken.get_encoding("cl100k_base")
    return encodings._load_offline_encoding("cl100k_base")


def _assert_tiktoken_s(counter, text: str) -> None:
    encoding = _tiktoken_encoding()
    tokens = encoding.encode_ordinary(text)
    assert counter.count(text) == len(tokens)
    assert counter.token_ends is not None
    lengths = [len(encoding.decode_single_token_bytes(t)) for t in tokens]
    assert list(counter.token_ends(text)) == list(accumulate(lengths))


def _spied(counts, calls: list[str]):  # type: ignore[no-untyped-def]
    """``counts`` with a counter that records every text it encodes, for either call."""
    counter = counts.counter
    assert counter.token_ends is not None
    token_ends = counter.token_ends

    def count(text: str) -> int:
        calls.append(text)
        return counter.count(text)

    def ends(text: str) -> Sequence[int]:
        calls.append(text)
        return token_ends(text)

    counts.counter = replace(counter, count=count, token_ends=ends)
    return counts


def _page_of(paragraphs: list[str]):  # type: ignore[no-untyped-def]
    """A page of ``paragraphs`` (a blank line between), its blocks registered with span counts
    that record every text they encode: the page, where each paragraph starts, its blocks,
    the counts and the texts encoded."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    text = "\n\n".join(paragraphs) + "\n"
    starts = list(accumulate([0, *[len(p) + 2 for p in paragraphs[:-1]]]))
    blocks = [Block("paragraph", a, a + len(p)) for a, p in zip(starts, paragraphs)]
    calls: list[str] = []
    counts = _spied(SpanCounts(text, get_counter("cl100k_base"), long_text=3 * 256), calls)
    counts.use_blocks(blocks)
    return text, starts, blocks, counts, calls


@profile(200)
@given(paragraphs=st.lists(_pieces.map(str.strip).filter(bool), min_size=1, max_size=5))
def test_every_block_is_encoded_before_packing_asks_and_never_again(paragraphs: list[str]
                                                                    ) -> None:
    """use_blocks counts each stretch between the blocks' joints before packing asks (off one
    encoding of the page, or one loop): every block's estimate is then known, exact, and asks
    the tokenizer nothing more."""
    counter = get_counter("cl100k_base")
    text, starts, blocks, counts, calls = _page_of(paragraphs)
    assert "".join(calls) == text[:blocks[-1].end], "each character encoded once, in order"
    calls.clear()
    following = [*starts[1:], blocks[-1].end]
    for block, end in zip(blocks, following):
        expected = counter.count(text[block.start:end]) + (end == block.end)
        assert counts.estimate(block.start, block.end) == expected
    assert calls == []


@profile(200)
@given(paragraphs=st.lists(_pieces.map(str.strip).filter(bool), min_size=2, max_size=6),
       data=st.data())
def test_a_page_s_stretches_are_read_off_its_one_encoding(paragraphs: list[str], data) -> None:
    """use_blocks encodes the page once, keeps its token ends, and reads every stretch between
    its joints off them (one call to the tokenizer, not one a stretch); a later span between
    joints, or between sentence joints registered while packing, deep in a page of CJK text,
    is read off that encoding from the nearest measured joint: always the exact count."""
    counter = get_counter("cl100k_base")
    text, _, blocks, counts, calls = _page_of(paragraphs)
    joints = counts._joints
    if joints:
        assert calls == [text[:blocks[-1].end]], "one encoding of the page"
    calls.clear()
    edges = [0, *joints, blocks[-1].end]
    for a, b in zip(edges, edges[1:]):
        assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)
    words = [p for p in range(1, len(text)) if text[p] == " " and not text[p - 1].isspace()]
    inner = sorted(set(data.draw(st.lists(st.sampled_from(words), max_size=6)) if words else []))
    for block in blocks:
        found = [j for j in counts.joints_before([(block.start, p) for p in inner
                                                  if block.start < p < block.end])
                 if j is not None]
        counts.prime(found, block.start, block.end)
        for a, b in zip([block.start, *found], [*found, block.end]):
            assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)


def test_a_place_deep_in_a_kept_page_is_measured_from_the_joint_before_it() -> None:
    """The UTF-8 offset of a place in a non-ASCII encoding kept whole is measured from the last
    anchor before it (a joint measured when the page was read off), so it is found however far
    the place is from the page's start; the encoding around a span inside another kept one is
    still found when the inner one ends before the span does."""
    from mdchunk.tokens.kept import KeptEncodings

    line = "消息队列在高峰期出现大量堆积时需要先扩容消费者。\n"
    source = line * 400
    kept_encodings = KeptEncodings(source)
    page = kept_encodings.keep(0, len(source), [len(source.encode())])
    starts = [i * len(line) for i in range(1, 400)]
    kept_encodings.anchor(page, starts, kept_encodings.offsets(page, 0, 0, starts))
    kept_encodings.anchor(page, starts, kept_encodings.offsets(page, 0, 0, starts))  # again
    assert page.anchors == starts, "kept once, ascending"
    deep = 399 * len(line) + 5
    assert kept_encodings.offset(page, deep, 3) == len(source[:deep].encode())
    inner = kept_encodings.keep(2 * len(line), 3 * len(line), [len(line.encode())])
    assert kept_encodings.around(2 * len(line) + 1, 2 * len(line) + 4) is inner
    assert kept_encodings.around(2 * len(line) + 1, 5 * len(line)) is page


def test_a_chinese_paragraph_long_in_bytes_keeps_its_token_ends() -> None:
    """Whether a stretch is long enough to keep its token ends is asked in UTF-8 bytes: 300
    Chinese characters (fewer than the 768 characters of a 256-token budget's threshold, but
    more tokens than the budget) keep them, and the sentences they are cut into are read off
    them instead of being encoded again; 300 ASCII characters do not."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    sentence = "消息队列在高峰期出现大量堆积时需要先扩容消费者再检查磁盘。"  # 30 characters
    for text, kept in ((" ".join([sentence] * 10) + "\n", True), ("word " * 60 + "\n", False)):
        calls: list[str] = []
        counts = _spied(SpanCounts(text, counter, long_text=3 * 256), calls)
        counts.use_blocks([Block("paragraph", 0, len(text) - 1)])
        assert (counts._kept.around(0, len(text) - 1) is not None) is kept
        calls.clear()
        joints = [j for p in range(1, len(text) - 1) if text[p] == " "
                  and (j := counts.joint_before(p)) is not None]
        counts.prime(joints, 0, len(text) - 1)
        for a, b in zip([0, *joints], [*joints, len(text) - 1]):
            assert counts.count_span(a, b) == counter.count(text[a:b])
        if kept:
            assert calls == [], "the sentences were read off the paragraph's one encoding"


def test_a_source_with_a_lone_surrogate_is_counted_exactly() -> None:
    """Token ends refuse a text with a lone surrogate (tiktoken mends it, which shifts byte
    offsets): span counts then encode each stretch and stay exact."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = "Intro line one.\nSecond \ud800 line here.\n\nThird block, 服务 🙂.\n"
    counts = SpanCounts(text, counter, long_text=4)
    counts.use_blocks([Block("paragraph", 0, 38), Block("paragraph", 40, len(text) - 1)])
    for p in range(1, len(text)):
        if text[p] == " " and not text[p - 1].isspace():
            counts.add_joint(p)
    edges = [0, *counts._joints, len(text)]
    counts.prime([j for j in counts._joints if 0 < j < 38], 0, 38)
    for a in edges:
        for b in edges:
            if a < b:
                assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)


@pytest.mark.parametrize("path", with_corpus([*corpus_files(), *site_corpus_mdx()], CORPORA))
def test_counts_and_token_ends_are_tiktoken_s_on_the_corpora(path: Path) -> None:
    """The same over every page of the shared corpora (runbooks and documentation sites)."""
    _assert_tiktoken_s(get_counter("cl100k_base"), path.read_text(encoding="utf-8-sig"))
