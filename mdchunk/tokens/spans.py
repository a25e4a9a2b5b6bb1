"""Exact token counts of any span of a document, each stretch of it encoded once.

With a tokenizer whose counts add up at *joints* (:attr:`~.counter.TokenCounter.line_additive`:
line starts with text on them, and the blank before a word; cl100k_base, property-tested), a
span's count is the sum of the counts of the stretches between the joints it covers, each
encoded once and kept. The joints are the starts of blocks, of the lines of a block long enough
to be cut, and of the parts a block is cut into. Any other tokenizer has no joints: each span is
encoded once and kept."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Sequence

from ..formats.blocks import Block
from .counter import TokenCounter

__all__ = ["BEFORE_TEXT_LINE", "TEXT_AHEAD", "SpanCounts"]

#: Blanks, then text, on the same line.
TEXT_AHEAD = re.compile(r"[^\S\r\n]*\S")
#: Characters up to which a stretch is counted by its text (:meth:`SpanCounts.count_small`).
_SHORT = 32
#: A line break before a line with text on it: the line's start is a joint (where a
#: line-additive tokenizer's counts add up).
BEFORE_TEXT_LINE = re.compile(r"[\r\n](?=[^\S\r\n]*\S)")


class SpanCounts:
    """Exact token counts of spans of ``source``, from stretches between registered joints."""

    def __init__(self, source: str, counter: TokenCounter, long_block: int) -> None:
        self.source = source
        self.counter = counter
        #: Characters from which a block may well be cut into parts (the chunker gives three
        #: times the budget): its lines are counted apart from the start. Lower, more blocks
        #: that fit are encoded a line at a time (a call each); higher, more cut blocks are
        #: encoded whole, then in parts.
        self.long_block = long_block
        #: Counts of the stretches encoded so far (a span, for a tokenizer without joints).
        self._stretches: dict[tuple[int, int], int] = {}
        self._estimates: dict[tuple[int, int], int] = {}
        #: A top-level block's span -> where the next one starts (its planning cost's end).
        self._next_start: dict[tuple[int, int], int] = {}
        self._joints: list[int] = []
        self._joint_set: set[int] = set()
        self._small: dict[str, int] = {}

    def use_blocks(self, blocks: Sequence[Block]) -> None:
        """Register the document's top-level blocks: their starts, and the line starts of a long
        block, are where exact counts may be summed (line-additive tokenizers), and each block
        is planned with the blank after it."""
        starts = [b.start for b in blocks]
        following = [*starts[1:], blocks[-1].end] if blocks else []
        self._next_start.update(zip([(b.start, b.end) for b in blocks], following))
        if not self.counter.line_additive:
            return
        joints: list[int] = []
        for block in blocks:
            if self.is_joint(block.start):
                joints.append(block.start)
            if block.end - block.start >= self.long_block:
                joints += [m.end() for m in BEFORE_TEXT_LINE.finditer(
                    self.source, block.start, block.end)]
        self._add_joints(joints)

    def _add_joints(self, found: Iterable[int]) -> None:
        """Register ``found`` (ascending)."""
        joints, known = self._joints, self._joint_set
        for pos in found:
            if pos not in known:
                known.add(pos)
                if joints and pos < joints[-1]:
                    insort(joints, pos)
                else:
                    joints.append(pos)

    def joint_before(self, start: int, after: int = 0) -> int | None:
        """Register and return the joint in the blank before ``start`` (text ends at ``after`` or
        later), if that blank holds one: before the spaces of "word. Next" (they go with the word
        after them), or at a line start with text on it."""
        return self.joints_before([(after, start)])[0]

    def joints_before(self, bounds: Sequence[tuple[int, int]]) -> list[int | None]:
        """:meth:`joint_before` of each ``(after, start)`` (ascending), registered together."""
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
        """Exact tokens of ``source[start:end]``: with a line-additive tokenizer, the sum over
        the stretches between the registered joints inside it, each encoded once."""
        known = self._stretches.get((start, end))
        if known is not None:
            return known
        if not self.counter.line_additive:
            return self._encode(start, end)
        joints = self._joints
        total, pos = 0, start
        for joint in joints[bisect_right(joints, start):bisect_left(joints, end)]:
            known = self._stretches.get((pos, joint))
            total += self._encode(pos, joint) if known is None else known
            pos = joint
        if end in self._joint_set:  # ends where the next stretch starts: a stretch itself
            known = self._stretches.get((pos, end))
            return total + (self._encode(pos, end) if known is None else known)
        return total + self._last_stretch(pos, end)

    def _encode(self, start: int, end: int) -> int:
        """Tokens of ``source[start:end]``, kept; a short text is kept by its text too: the
        words of a paragraph cut between words, a table's cells, repeat."""
        text = self.source[start:end]
        tokens = self._stretches[(start, end)] = (
            self.count_small(text) if end - start <= _SHORT else self.counter.count(text))
        return tokens

    def _last_stretch(self, start: int, end: int) -> int:
        """Tokens of the stretch ``source[start:end]`` that ends a span, which stops before the
        blanks that lead to the next joint: when the stretch to that joint is counted already,
        only what follows the last joint before the span's last word is encoded, with and without
        the blanks."""
        known = self._stretches.get((start, end))
        if known is not None:
            return known
        source, joints = self.source, self._joints
        at = bisect_left(joints, end)
        following = joints[at] if at < len(joints) else None
        whole = self._stretches.get((start, following)) if following is not None else None
        if whole is None or following is None or source[end:following].strip():
            return self._encode(start, end)
        joint = self._last_joint(start, end)
        if joint is None:
            return self._encode(start, end)
        tokens = whole - self.count_small(source[joint:following]) \
            + self.count_small(source[joint:end])
        self._stretches[(start, end)] = tokens
        return tokens

    def _last_joint(self, start: int, end: int) -> int | None:
        """The last joint inside ``(start, end)`` with text after it before ``end``: the blank
        before the last word of the last line (after text), else that line's start."""
        source = self.source
        line = max(source.rfind("\n", start, end), source.rfind("\r", start, end)) + 1
        blank = max(source.rfind(" ", line, end), source.rfind("\t", line, end))
        if blank > start:
            while blank > line and source[blank - 1] in " \t":
                blank -= 1  # to the start of the run of blanks
            if blank > start and not source[blank - 1].isspace() \
                    and TEXT_AHEAD.match(source, blank, end):
                return blank
        if line > start and TEXT_AHEAD.match(source, line, end):
            return line
        return None

    def count_small(self, text: str) -> int:
        """Tokens of a short text met again and again (a word, a breadcrumb, a fence)."""
        tokens = self._small.get(text)
        if tokens is None:
            tokens = self._small[text] = self.counter.count(text)
        return tokens

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
