"""Token ends kept from one encoding of a stretch: a part of it is then counted without
encoding it again, wherever tokens end at both of the part's edges (:mod:`.spans` says where
that gives the part's own count)."""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["Kept", "KeptEncodings"]

#: Measuring where a character sits in a non-ASCII stretch (its UTF-8 offset) may take at
#: most this many characters per character counted: far cheaper than encoding them (a
#: character of cl100k costs ~1,000 instructions to encode, ~3 to measure), and never
#: quadratic on a huge block cut into many parts.
_MEASURE_PER_CHARACTER = 64


@dataclass(frozen=True, slots=True)
class Kept:
    """One encoding kept: ``source[start:stop]``, where each token ends (UTF-8 bytes from
    ``start``), and whether it is ASCII (offsets are then character counts). A non-ASCII one
    also keeps the places whose UTF-8 offsets were measured (``anchors``, ascending, and their
    offsets): a place is measured from the last anchor before it, not from ``start``, so a page
    kept whole answers for a line deep inside it as cheaply as for its first."""

    start: int
    stop: int
    ends: Sequence[int]
    ascii: bool
    anchors: list[int] = field(default_factory=list)
    anchor_offsets: list[int] = field(default_factory=list)

    def tokens_before(self, offset: int) -> int | None:
        """How many tokens end at or before byte ``offset``, when one ends exactly there (or
        ``offset`` is 0); else ``None``."""
        return self.tokens_at([offset])[0]

    def tokens_at(self, offsets: Iterable[int]) -> list[int | None]:
        """:meth:`tokens_before` of each of ``offsets``, in one loop: a block cut into a
        thousand lines asks it at each line's start."""
        ends = self.ends
        found: list[int | None] = []
        for offset in offsets:
            upto = bisect_right(ends, offset)
            found.append(upto if offset == 0 or (upto and ends[upto - 1] == offset) else None)
        return found


class KeptEncodings:
    """The kept encodings of one source, found by the span they hold."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._by_start: dict[int, Kept] = {}
        self._starts: list[int] = []

    def keep(self, start: int, stop: int, ends: Sequence[int]) -> Kept:
        """Keep an encoding of ``source[start:stop]``; of two from one start, the longer."""
        kept = Kept(start, stop, ends, self.source[start:stop].isascii())
        known = self._by_start.get(start)
        if known is None:
            insort(self._starts, start)
        if known is None or known.stop < stop:
            self._by_start[start] = kept
        return kept

    def around(self, start: int, end: int) -> Kept | None:
        """The kept encoding that holds ``[start, end)``, if any: the one that starts last at or
        before ``start``, else the first, which may hold a page whole (kept encodings never
        overlap but for one inside another)."""
        i = bisect_right(self._starts, start) - 1
        if i < 0:
            return None
        kept = self._by_start[self._starts[i]]
        if end <= kept.stop:
            return kept
        outer = self._by_start[self._starts[0]]
        return outer if end <= outer.stop else None

    def offset(self, kept: Kept, pos: int, counted: int) -> int | None:
        """The UTF-8 offset of ``pos`` in ``kept``; ``None`` when measuring it from the last
        anchor before it would take more than :data:`_MEASURE_PER_CHARACTER` characters per
        character of the ``counted`` part."""
        if kept.ascii:
            return pos - kept.start
        i = bisect_right(kept.anchors, pos) - 1
        anchor, offset = (kept.anchors[i], kept.anchor_offsets[i]) if i >= 0 else (kept.start, 0)
        if pos - anchor > _MEASURE_PER_CHARACTER * max(1, counted):
            return None
        return self.offsets(kept, anchor, offset, [pos])[0]

    def anchor(self, kept: Kept, points: Sequence[int], offsets: Sequence[int]) -> None:
        """Keep the measured UTF-8 ``offsets`` of ``points`` (ascending) as anchors of ``kept``:
        those after its last anchor, so that the anchors stay ascending however often a page's
        blocks are registered."""
        if kept.ascii:
            return
        last = kept.anchors[-1] if kept.anchors else kept.start
        for point, offset in zip(points, offsets):
            if point > last:
                kept.anchors.append(point)
                kept.anchor_offsets.append(offset)

    def length(self, kept: Kept, start: int, end: int) -> int:
        """UTF-8 bytes of ``source[start:end]``, a span of ``kept``."""
        return self.offsets(kept, start, 0, [end])[0]

    def offsets(self, kept: Kept, start: int, offset: int, points: Sequence[int]) -> list[int]:
        """The UTF-8 offset in ``kept`` of each of ``points`` (ascending, from ``start``, whose
        offset is ``offset``), measured in one loop."""
        if kept.ascii:
            return [offset + point - start for point in points]
        source, found = self.source, []
        for point in points:
            offset += len(source[start:point].encode("utf-8", "surrogatepass"))
            found.append(offset)
            start = point
        return found
