"""What ``embed_text`` shows of a span that holds hidden markup, and its exact count.

Such a text (comments, heading ids and front matter left out, generator markup as the page
shows it) is no slice of the source, yet most of it stands in the source as it is: with a
line-additive tokenizer, each run of lines found unchanged is counted from the span counts, and
only the lines that markup changed are encoded again."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from ..formats.blocks import Block, Document, Rewrite, rewrite_spans
from ..formats.kinds import kind
from ..text.inline import image_destinations
from ..tokens import SpanCounts
from ..tokens.spans import BEFORE_TEXT_LINE

__all__ = ["clipped", "count_visible", "page_hidden", "visible_text"]

#: Blank lines a left-out comment leaves behind, collapsed to one.
_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def page_hidden(doc: Document, comments: bool) -> tuple[Rewrite, ...]:
    """What ``embed_text`` shows differently of ``doc`` (:meth:`Document.hidden`, with its
    comments left out when ``comments``), and the destination of each image of its prose: the
    page shows the image, never its address, whose tokens can leave a long heading no room
    for the image under it but a cut inside it."""
    return doc.hidden(comments, _images(doc.source, doc.blocks))


def _images(source: str, blocks: Sequence[Block]) -> list[tuple[int, int]]:
    """The destinations of the images in the inline text (paragraphs, headings, rows, terms)
    of ``blocks`` and their descendants, in order."""
    out: list[tuple[int, int]] = []
    for block in blocks:
        if block.children:
            out += _images(source, block.children)
        elif kind(block.kind).inline and source.find("![", block.start, block.end) >= 0:
            out += image_destinations(source, block.start, block.end)
    return out


def clipped(rewrites: Sequence[Rewrite], start: int, end: int) -> list[Rewrite]:
    """The part of each of ``rewrites`` inside ``[start, end)``; one whose start lies before
    ``start`` shows nothing there (its text is shown where the markup begins)."""
    return [(max(a, start), min(b, end), text if a >= start else "")
            for a, b, text in rewrites if b > start and a < end]


def visible_text(source: str, start: int, end: int, rewrites: Sequence[Rewrite]) -> str:
    """``source[start:end]`` as ``embed_text`` shows it: ``rewrites`` (within it) applied, the
    blank lines markup leaves behind collapsed to one, blanks at the ends stripped."""
    return _BLANK_LINES.sub("\n\n", rewrite_spans(source, start, end, rewrites)).strip()


def count_visible(counts: SpanCounts, start: int, end: int, rewrites: Sequence[Rewrite]
                  ) -> tuple[str, int]:
    """:func:`visible_text` of ``[start, end)`` and its exact token count: the sum over its runs
    of lines, each run that stands as it is in the source counted by ``counts``."""
    source, counter = counts.source, counts.counter
    raw = rewrite_spans(source, start, end, rewrites)
    collapsed = _BLANK_LINES.sub("\n\n", raw)
    text = collapsed.strip()
    if not counter.line_additive or not text:
        return text, counter.count(text)
    origins = _Origins(raw, start, end, rewrites, len(collapsed) - len(collapsed.lstrip()))
    cuts = [m.start() + 1 for m in BEFORE_TEXT_LINE.finditer(text)]
    starts, ends = [0, *cuts], [*cuts, len(text)]
    total = 0
    same: tuple[int, int] | None = None  # the run of lines as they are in the source, so far
    changed: int | None = None  # where the run of lines markup changed starts in ``text``
    i = 0
    while i < len(starts):
        a, at = starts[i], origins.source_of(starts[i])
        b, i = _lines_as_they_are(source, text, at, starts, ends, i, origins)
        if at is not None and b > a:
            if changed is not None:
                total += counter.count(text[changed:a])
                changed = None
            if same is not None and same[1] == at:
                same = (same[0], at + b - a)
                continue
            if same is not None:
                total += counts.count_span(*same)
            same = (at, at + b - a)
        else:
            if same is not None:
                total += counts.count_span(*same)
                same = None
            changed = a if changed is None else changed
    if same is not None:
        total += counts.count_span(*same)
    if changed is not None:
        total += counter.count(text[changed:])
    return text, total


def _lines_as_they_are(source: str, text: str, at: int | None, starts: list[int],
                       ends: list[int], i: int, origins: _Origins) -> tuple[int, int]:
    """``(b, next)``: the lines from the ``i``-th on that stand as they are in the source from
    ``at`` end at ``text[b]`` (``b`` is the line's start when not even it does), and the next
    line to look at. The lines that lie within one stretch of the source's own text are
    checked in one comparison, not one each: markup touches few lines of a page."""
    a = starts[i]
    if at is None:
        return a, i + 1
    j = max(i, bisect_right(ends, origins.linear_end(a)) - 1)  # the last line inside it
    if j > i and source.startswith(text[a:ends[j]], at):
        return ends[j], j + 1
    return (ends[i] if source.startswith(text[a:ends[i]], at) else a), i + 1


class _Origins:
    """Where a character of a visible text stands in the source, if it is the source's own (not
    text that markup put there): undoes the strip, the collapsed blank lines and the rewrites,
    by offsets. A guess for :func:`count_visible`, which checks that the text is really there."""

    def __init__(self, raw: str, start: int, end: int, rewrites: Sequence[Rewrite], lead: int
                 ) -> None:
        self.lead = lead
        # the source's own stretches of the rewritten text: offset there, offset in the source
        self._raw_starts: list[int] = []
        self._source_starts: list[int] = []
        self._lengths: list[int] = []
        at_raw, at_source = 0, start
        for a, b, text in (*rewrites, (end, end, "")):
            self._raw_starts.append(at_raw)
            self._source_starts.append(at_source)
            self._lengths.append(a - at_source)
            at_raw += a - at_source + len(text)
            at_source = b
        # where each collapsed run of blank lines ends, and the characters taken out so far
        self._collapsed_ends: list[int] = []
        self._taken: list[int] = []
        taken = 0
        for match in _BLANK_LINES.finditer(raw):
            taken += match.end() - match.start() - 2
            self._collapsed_ends.append(match.end() - taken)
            self._taken.append(taken)

    def linear_end(self, at: int) -> int:
        """Where the stretch of the source's own text that holds the visible text's character
        ``at`` ends, in the visible text: up to there, its characters are the source's, one to
        one (a collapsed run of blank lines, or text markup put there, ends it)."""
        at += self.lead
        k = bisect_right(self._collapsed_ends, at) - 1
        taken = self._taken[k] if k >= 0 else 0
        g = bisect_right(self._raw_starts, at + taken) - 1
        if g < 0:
            return at - self.lead
        end = self._raw_starts[g] + self._lengths[g] - taken
        if k + 1 < len(self._collapsed_ends):  # the next run: its two line breaks are kept
            end = min(end, self._collapsed_ends[k + 1] - 2)
        return end - self.lead

    def source_of(self, at: int) -> int | None:
        """The source offset of the visible text's character at ``at``; ``None`` inside text
        that markup put there."""
        at += self.lead
        k = bisect_right(self._collapsed_ends, at) - 1
        raw = at + (self._taken[k] if k >= 0 else 0)
        g = bisect_right(self._raw_starts, raw) - 1
        if g < 0 or raw >= self._raw_starts[g] + self._lengths[g]:
            return None
        return self._source_starts[g] + raw - self._raw_starts[g]
