"""Exact token counts of any span of a document, the document encoded once.

Encoding every candidate chunk would tokenize a document several times over. With a tokenizer
whose counts add up at *joints* — line starts with text on them, and the blank before a word
(cl100k_base, property-tested) — the page is encoded once, each stretch between two joints is
read off that encoding (or, without token ends, encoded once) and a span sums the stretches it
covers. A span that starts a word after a joint, or stops at the blank before one,
is corrected with the tokenizer's own pretokens around that word. Any other
tokenizer simply has no joints: each span is encoded as it is, and counts stay exact.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterator, Sequence

from ..formats.blocks import Block
from .counter import PretokenEnds, TokenCounter
from .kept import Kept, KeptEncodings
from .prefixes import last_cut

__all__ = ["TEXT_AHEAD", "SpanCounts"]

#: How far from a joint a span may start and still be counted from it (a space, a quote).
_NEAR = 8
_SPACE = re.compile(r"\s")
#: How far back from a span's end a pretoken's end is looked for (:meth:`_pretoken_start`).
_NEAR_WORD = 32
_BLANKS = re.compile(r"[ \t]*")
#: Blanks, then text, on the same line.
TEXT_AHEAD = re.compile(r"[^\S\r\n]*\S")


def _first_shared(a: Iterator[int], b: Iterator[int], source: str) -> int | None:
    """The first value two ascending iterators of pretoken ends share that follows text, not a
    blank: a text ending in blanks is split differently alone (``\\s++$``) than inside another."""
    x, y = next(a, None), next(b, None)
    while x is not None and y is not None:
        if x == y and not source[x - 1].isspace():
            return x
        if x <= y:
            x = next(a, None)
        else:
            y = next(b, None)
    return None


class SpanCounts:
    """Exact token counts of spans of ``source``, from stretches between registered joints."""

    def __init__(self, source: str, counter: TokenCounter, long_text: int) -> None:
        self.source = source
        self.counter = counter
        #: UTF-8 bytes from which a stretch is likely to be cut into parts later (see
        #: _encode_stretch, :meth:`_is_long`).
        self.long_text = long_text
        self._segments: dict[tuple[int, int], int] = {}
        self._estimates: dict[tuple[int, int], int] = {}
        self._next_start: dict[tuple[int, int], int] = {}
        self._joints: list[int] = []
        self._joint_set: set[int] = set()
        self._small: dict[str, int] = {}
        #: Encodings kept with their token ends (long blocks likely to be cut into parts): a
        #: part between joints is then counted from them (:meth:`prime`, :meth:`_read_off`).
        self._kept = KeptEncodings(source)
        #: Corrections found for a span start or end, by position: ``(joint, shared pretoken end,
        #: delta)`` and ``(joint after, joint before, delta)`` (see :meth:`count_span`).
        self._start_fixes: dict[int, tuple[int, int, int]] = {}
        self._end_fixes: dict[int, tuple[int, int, int]] = {}
        #: :meth:`_ending_delta` by the text from a pretoken's start to the joint, and the
        #: span's end in it.
        self._ending_deltas: dict[tuple[str, int], int] = {}
        self._pretoken_ends = counter.pretoken_ends if counter.line_additive else None

    def use_blocks(self, blocks: Sequence[Block]) -> None:
        """Register the document's top-level blocks: their starts are where exact counts may be
        summed (line-additive tokenizers), and each block is planned with the blank after it."""
        starts = [b.start for b in blocks]
        following = [*starts[1:], blocks[-1].end] if blocks else []
        self._next_start.update(zip([(b.start, b.end) for b in blocks], following))
        if self.counter.line_additive:
            self._joint_set.update(filter(self.is_joint, starts))
            self._joints = sorted(self._joint_set)
            if blocks:
                self._encode_ahead(blocks[0].start, blocks[-1].end)

    def _encode_ahead(self, start: int, end: int) -> None:
        """Count every stretch between the joints of ``[start, end)`` before packing asks for
        them (a block and the blank after it, each once): read off one encoding of the whole
        (:meth:`_read_all_off`), else encoded in one loop, not one at a time between the
        packer's own steps (the tokenizer's code and tables stay in the processor's caches from
        one to the next: 5% fewer instruction-cache misses on RocketMQ's pages)."""
        joints = self._joints
        bounds = [start, *joints[bisect_right(joints, start):bisect_left(joints, end)], end]
        if len(bounds) > 2 and self._read_all_off(bounds):
            return
        segments, source, count = self._segments, self.source, self.counter.count
        for a, b in zip(bounds, bounds[1:]):
            segments[(a, b)] = (self._encode_stretch(a, b) if self._is_long(a, b)
                                else count(source[a:b]))

    def _read_all_off(self, bounds: list[int]) -> bool:
        """Count every stretch between ``bounds`` (a page's joints, with its first block's start
        and its last block's end) off one encoding of the page, kept with its token ends and
        primed at its joints (:meth:`prime`): one call to the tokenizer instead of one per
        stretch, each of which cost ~2 µs more than its characters (RocketMQ: 2,700 a pass).
        ``False`` where there are no token ends (lone surrogates, another tokenizer's counts):
        the stretches are then counted one by one."""
        if self.counter.token_ends is None:
            return False
        start, end = bounds[0], bounds[-1]
        kept = self._kept.around(start, end)
        if (kept is None or kept.start != start) and self._encode_kept(start, end) is None:
            return False
        self.prime(bounds[1:-1], start, end)
        return True

    def add_joint(self, pos: int) -> None:
        self._add_joints([pos])

    def _add_joints(self, found: Sequence[int]) -> None:
        """Register ``found`` (ascending): in one slice where no registered joint lies among
        them (the lines of one block), else one by one."""
        new = [pos for pos in found if pos not in self._joint_set]
        if not new:
            return
        self._joint_set.update(new)
        joints = self._joints
        at = bisect_left(joints, new[0])
        if at == bisect_left(joints, new[-1]):
            joints[at:at] = new
        else:
            for pos in new:
                insort(joints, pos)

    def joint_before(self, start: int, after: int = 0) -> int | None:
        """Register and return the joint in the blank before ``start`` (text ends at ``after`` or
        later), if that blank holds one: before the spaces of "word. Next" (they go with the word
        after them), or at a line start with text on it."""
        return self.joints_before([(after, start)])[0]

    def joints_before(self, bounds: Sequence[tuple[int, int]]) -> list[int | None]:
        """:meth:`joint_before` of each ``(after, start)`` (ascending), registered together: a
        block cut into a thousand lines has a joint before each, and a call and an insertion
        apiece was a tenth of the packing of a page of HTML tables."""
        if not self.counter.line_additive:
            return [None] * len(bounds)
        source = self.source
        found: list[int | None] = []
        for after, text in bounds:
            start = text
            while start > after and source[start - 1] in " \t":
                start -= 1  # back over the blank before the text
            if start == 0:
                found.append(None)
            elif source[start] in " \t" and not source[start - 1].isspace():
                found.append(start)  # "word. Next": the space goes with the word after it
            else:
                found.append(start if self.is_joint(start) else None)
        self._add_joints([pos for pos in found if pos is not None])
        return found

    def is_joint(self, pos: int) -> bool:
        """A line start with text on its line: where a line-additive tokenizer's counts add up."""
        source = self.source
        return (0 < pos < len(source) and source[pos - 1] in "\r\n"
                and bool(TEXT_AHEAD.match(source, pos)))

    def count_span(self, start: int, end: int) -> int:
        """Exact tokens of ``source[start:end]``.

        With a line-additive tokenizer, the sum over the stretches between registered joints, each
        encoded once however many chunks contain it. A span that starts a word after a joint (a
        sentence after the space that ends the one before) or stops at the blank before one (a
        block without the blank line after it) is counted from those joints and corrected by the
        tokenizer's pretokens around that word: two tiny counts instead of the stretch again.
        """
        known = self._segments.get((start, end))
        if known is not None:
            return known
        fix = 0
        pretoken_ends = self._pretoken_ends
        if pretoken_ends is not None and start < end:
            if start not in self._joint_set:
                head = self._start_fix(start, end, pretoken_ends)
                if head is not None:
                    start, fix = head
            if end not in self._joint_set:
                tail = self._end_fix(start, end, pretoken_ends)
                if tail is not None:
                    end, delta = tail
                    fix += delta
        return self._sum_stretches(start, end) + fix

    def _sum_stretches(self, start: int, end: int) -> int:
        joints = self._joints
        i, j = bisect_right(joints, start), bisect_left(joints, end)
        if i == j:  # one stretch: most blocks lie between two joints
            return self._stretch(start, end)
        total, pos = 0, start
        for joint in (*joints[i:j], end):
            total += self._stretch(pos, joint)
            pos = joint
        return total

    def _stretch(self, start: int, end: int) -> int:
        """Tokens of the stretch ``source[start:end]``, encoded on first use."""
        tokens = self._segments.get((start, end))
        if tokens is None:
            tokens = self._segments[(start, end)] = self._encode_stretch(start, end)
        return tokens

    def _encode_stretch(self, start: int, end: int) -> int:
        """Count a stretch never counted before: read off an encoding kept of a block around it,
        else encoded. One long enough to be cut into parts later keeps where its tokens end,
        so that its parts are counted without encoding it again."""
        known = self._read_off(start, end)
        if known is not None:
            return known
        if self.counter.token_ends is None or not self._is_long(start, end):
            return self.counter.count(self.source[start:end])
        kept = self._encode_kept(start, end)
        if kept is None:  # lone surrogates: no byte offsets to trust
            return self.counter.count(self.source[start:end])
        return len(kept.ends)

    def _is_long(self, start: int, end: int) -> bool:
        """Whether ``source[start:end]`` holds :attr:`long_text` UTF-8 bytes or more: bytes, not
        characters, because a token of Chinese holds one or two characters where one of English
        holds four (a paragraph of 400 Chinese characters outgrows a 256-token budget, and was
        encoded whole, then again in the parts it was cut into). Measured only where its
        characters alone cannot tell (up to four bytes each)."""
        chars, long_text = end - start, self.long_text
        if chars >= long_text or chars * 4 < long_text:
            return chars >= long_text
        text = self.source[start:end]
        return not text.isascii() and len(text.encode("utf-8", "surrogatepass")) >= long_text

    def _encode_kept(self, start: int, end: int) -> Kept | None:
        """Encode ``source[start:end]`` and keep where its tokens end; ``None`` on lone
        surrogates."""
        try:
            return self._kept.keep(start, end, self._ends_of_tokens(start, end))
        except UnicodeEncodeError:
            return None

    def _read_off(self, start: int, end: int) -> int | None:
        """Tokens of ``source[start:end]`` read off a kept encoding that holds it, when each of
        its edges is an edge of that encoding or a joint, and a token ends there: the counts of
        a line-additive tokenizer add up at joints, so the tokens between are its own."""
        if not self.counter.line_additive:
            return None
        kept = self._kept.around(start, end)
        if kept is None or not (self._is_edge(kept, start) and self._is_edge(kept, end)):
            return None
        offset = self._kept.offset(kept, start, end - start)
        if offset is None:
            return None
        first = kept.tokens_before(offset)
        last = kept.tokens_before(offset + self._kept.length(kept, start, end))
        return None if first is None or last is None else last - first

    def _is_edge(self, kept: Kept, pos: int) -> bool:
        """May a stretch read off ``kept`` start or end at ``pos``: an edge of it, or a joint."""
        return pos in (kept.start, kept.stop) or pos in self._joint_set or self.is_joint(pos)

    def _ends_of_tokens(self, start: int, end: int) -> Sequence[int]:
        """UTF-8 byte offset (from ``start``) where each token of ``source[start:end]`` ends;
        raises UnicodeEncodeError on lone surrogates."""
        assert self.counter.token_ends is not None
        return self.counter.token_ends(self.source[start:end])

    def _start_fix(self, x: int, y: int, pretoken_ends: PretokenEnds
                   ) -> tuple[int, int] | None:
        """``(c, delta)`` with ``count(x, y) == count(c, y) + delta``, ``c`` the joint just before
        ``x``: both texts are split into the same pretokens from the first pretoken end they
        share."""
        if not self._ends_on_text(y):
            return None
        known = self._start_fixes.get(x)  # exact whatever joints come later: kept
        if known is not None:
            c, known_shared, delta = known
            return (c, delta) if known_shared <= y else None
        joints = self._joints
        i = bisect_right(joints, x) - 1
        if i < 0 or joints[i] == x or x - joints[i] > _NEAR:
            return None
        c = joints[i]
        c1 = joints[i + 1] if i + 1 < len(joints) else len(self.source)
        if (x, min(c1, y)) in self._segments:
            return None  # counted as it is already
        shared = _first_shared(pretoken_ends(self.source, c, c1),
                               pretoken_ends(self.source, x, c1), self.source)
        if shared is None:
            return None
        delta = self.count_small(self.source[x:shared]) - self.count_small(self.source[c:shared])
        self._start_fixes[x] = (c, shared, delta)
        return (c, delta) if shared <= y else None

    def _end_fix(self, lo: int, y: int, pretoken_ends: PretokenEnds) -> tuple[int, int] | None:
        """``(c1, delta)`` with ``count(lo, y) == count(lo, c1) + delta``, where only blanks lie
        between ``y`` and the joint ``c1`` after it: the last word's pretokens are counted twice,
        with and without those blanks."""
        known = self._end_fixes.get(y)  # exact whatever joints come later: kept
        if known is not None:
            c1, stretch, delta = known
            return (c1, delta) if stretch >= lo else None
        source, joints = self.source, self._joints
        k = bisect_left(joints, y)
        if k == len(joints) or joints[k] == y or k == 0 or joints[k - 1] < lo:
            return None
        c1, stretch = joints[k], joints[k - 1]  # ``stretch``: the joint that starts y's stretch
        if (max(lo, stretch), y) in self._segments:
            return None  # counted as it is already
        if source[y:c1].strip() or not self._ends_on_text(y):
            return None
        start = self._pretoken_start(stretch, y)
        if start is None:
            return None
        ending = (source[start:c1], y - start)
        found = self._ending_deltas.get(ending)
        if found is None:
            found = self._ending_deltas[ending] = self._ending_delta(start, y, c1, pretoken_ends)
        self._end_fixes[y] = (c1, stretch, found)
        return c1, found

    def _ending_delta(self, start: int, y: int, c1: int, pretoken_ends: PretokenEnds) -> int:
        """``count(x, y) - count(x, c1)`` for any ``x`` before ``start``, a pretoken's start: the
        pretokens of ``source[start:c1]`` that end by ``y`` are shared, the last one counted with
        and without the blanks after it. A function of that text and ``y``'s place in it alone,
        so kept by them (:attr:`_ending_deltas`): blocks that end alike (a fence, ``</td>``, a
        full stop) are pretokenized once."""
        source = self.source
        pretoken = start
        for pretoken_end in pretoken_ends(source, start, c1):
            if pretoken_end > y:
                break
            pretoken = pretoken_end
        return self.count_small(source[pretoken:y]) - self.count_small(source[pretoken:c1])

    def _pretoken_start(self, stretch: int, y: int) -> int | None:
        """A place in ``[stretch, y]`` where a pretoken surely starts, close before ``y``: right
        after the last letter or digit (cl100k ends a pretoken there whatever follows), found
        within :data:`_NEAR_WORD` characters; else the start of the word ``y`` ends (after the
        last space, tab or line break), when only those blanks can end a word before it; else
        ``None``. Pretokenizing from there, not from the stretch's start, keeps a correction
        a few characters long on a line of CJK text with no space in it."""
        source = self.source
        near = max(stretch, y - _NEAR_WORD)
        cut = last_cut(source, near, y)  # after the last letter or digit: a blank follows it
        if cut is not None:
            return cut
        if near == stretch:
            return stretch  # the stretch starts at a joint: a pretoken starts there
        word = max(source.rfind(" ", stretch, y), source.rfind("\t", stretch, y),
                   source.rfind("\n", stretch, y), source.rfind("\r", stretch, y))
        if word < 0:
            return stretch
        if source[word] in "\r\n":
            return word + 1  # a line with text on it starts a pretoken
        # else: the last blank before a word starts a pretoken (cl100k: " word", "\tword", " (")
        return None if _SPACE.search(source, word + 1, y) else word  # other kinds of blank

    def _ends_on_text(self, y: int) -> bool:
        """A span ending on a non-blank character (or at the end) is split into the same
        pretokens as any longer text it starts: no trailing blank can be read as the end of the
        text."""
        return y == len(self.source) or not self.source[y - 1].isspace()

    def count_small(self, text: str) -> int:
        """Tokens of a short text met again and again (a word, a breadcrumb, a fence)."""
        tokens = self._small.get(text)
        if tokens is None:
            tokens = self._small[text] = self.counter.count(text)
        return tokens

    def prime(self, joints: Sequence[int], start: int, end: int) -> None:
        """Record the count of each stretch between ``joints`` (all inside ``[start, end)``, all
        registered) from one encoding: one kept of a block that holds them (a long block's; a
        list's serves its items' sentences), else a new one, kept in turn. A paragraph cut
        into sentences is never encoded per sentence. The joints' UTF-8 offsets stay with the
        encoding as its anchors (:meth:`KeptEncodings.anchor`)."""
        if self.counter.token_ends is None or not joints:
            return
        following = self._next_start.get((start, end), end)
        kept, first, offset = self._kept.around(start, following), start, None
        if kept is not None:  # parts that start after a blank: it was encoded from before it
            first = kept.start if _BLANKS.fullmatch(self.source, kept.start, start) else start
            offset = self._kept.offset(kept, first, end - start)
        if kept is None or offset is None:
            kept, following, first, offset = self._encode_kept(start, end), end, start, 0
            if kept is None:
                return  # lone surrogates: the parts are encoded alone
        last = kept.stop if self._next_start.get((first, end)) == kept.stop else following
        before = kept.tokens_before(offset)
        exact = before is not None and self._is_edge(kept, first)
        taken, pos = before or 0, first
        points = [*joints, last]
        offsets = self._kept.offsets(kept, first, offset, points)
        self._kept.anchor(kept, points, offsets)  # a later part deep in it is measured from here
        for joint, upto in zip(points, kept.tokens_at(offsets)):
            if upto is None:
                return  # a token crosses the joint after all: leave these to be encoded alone
            # the joints are registered, so edges: the set answers for them without a call (1%
            # of chunking RocketMQ's tables); the end may be an edge some other way
            if exact and (joint in self._joint_set or self._is_edge(kept, joint)):
                self._segments[(pos, joint)] = upto - taken
            taken, pos, exact = upto, joint, True

    def estimate(self, start: int, end: int) -> int:
        """Planning cost of ``source[start:end]`` in a chunk: a top-level block with the blank
        after it (exactly what it adds when another block follows), else the text plus one.
        Kept: a section's blocks are weighed again by every level that plans them."""
        span = (start, end)
        tokens = self._estimates.get(span)
        if tokens is None:
            following = self._next_start.get(span)
            if following is not None and following > end:
                tokens = self.count_span(start, following)
            else:
                tokens = self.count_span(start, end) + 1
            self._estimates[span] = tokens
        return tokens
