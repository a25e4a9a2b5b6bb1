"""Drafts: a planned chunk's span, breadcrumb, ``embed_text`` and exact token count (the budget
counts ``embed_text``, from the span counts of :mod:`mdchunk.tokens.spans`)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from ..formats.blocks import Block, Rewrite
from ..formats.kinds import HEADING_KINDS
from ..tokens import SpanCounts
from ..tokens.spans import TEXT_AHEAD
from .breadcrumbs import Breadcrumbs
from .visible import clipped, count_visible, visible_text

__all__ = ["Draft", "Drafter", "Tiling"]


@dataclass(frozen=True, slots=True)
class Draft:
    """A planned chunk: a span of the source and everything derived from where it sits."""

    start: int
    end: int
    path: tuple[Block, ...]
    prefix: str
    kinds: tuple[str, ...]
    embed_text: str
    token_count: int
    oversized: bool = False
    #: Characters of ``embed_text`` the breadcrumb takes (its head): a line of context goes
    #: there, between the breadcrumb and the text (:mod:`mdchunk.chunks.context`).
    crumb: int = 0

    @property
    def is_headings_only(self) -> bool:
        return set(self.kinds) <= HEADING_KINDS


@dataclass(frozen=True, slots=True)
class Tiling:
    """Spans that tile the source (blanks and front matter included), for a hierarchy's first
    level: its chunks, concatenated, are the source."""

    source: str
    #: Where the first text begins: a draft starting there starts the source.
    first_text: int

    @classmethod
    def of(cls, source: str) -> Tiling:
        return cls(source, len(source) - len(source.lstrip()))

    def span(self, start: int, end: int) -> tuple[int, int]:
        """``[start, end)`` stretched over the blanks around it: the line breaks after it (and
        the whole tail at the end), the indentation before it (and everything at the start), so
        that two neighbouring drafts meet."""
        source = self.source
        after = end
        while after < len(source) and source[after].isspace():
            after += 1
        if after == len(source):
            end = after
        else:
            line_break = max(source.rfind("\n", end, after), source.rfind("\r", end, after))
            end = line_break + 1 if line_break >= 0 else end
        if start <= self.first_text:
            return 0, end
        while source[start - 1] in " \t":
            start -= 1
        return start, end


class Drafter:
    """Assembles drafts and weighs them against the budget."""

    def __init__(self, counts: SpanCounts, crumbs: Breadcrumbs, max_tokens: int,
                 tiling: Tiling | None = None, hidden: Sequence[Rewrite] = ()) -> None:
        self.counts = counts
        self.crumbs = crumbs
        self.max_tokens = max_tokens
        self.tiling = tiling
        #: Spans ``embed_text`` shows differently: heading id markup, and HTML comments unless
        #: the config keeps them, left out; generator markup as its page shows it
        #: (:meth:`~mdchunk.formats.blocks.Document.hidden`).
        self.hidden = tuple(hidden)
        self._hidden_starts = [a for a, _, _ in self.hidden]

    def draft(self, start: int, end: int, path: Sequence[Block], kinds: Sequence[str],
              prefix: str = "", oversized: bool = False, crumb_room: int | None = None
              ) -> Draft:
        """Assemble a draft and count its ``embed_text`` exactly; ``crumb_room`` caps its
        breadcrumb (see :class:`~mdchunk.plan.breadcrumbs.Breadcrumbs`)."""
        if self.tiling is not None:
            start, end = self.tiling.span(start, end)
        # a draft of headings that lead a section (empty sections' headings, cut apart from the
        # section they lead) lies before that section's heading: its path stops above it
        path = [heading for heading in path if heading.start < end]
        counts = self.counts
        source = counts.source
        crumb = self.crumbs.text(path, start, crumb_room)
        head = crumb + (prefix + "\n" if prefix else "")
        hidden = self._hidden_in(start, end)
        if hidden:  # what no site shows is not what the model reads either
            if counts.counter.line_additive:  # head ends with "\n", the text with a line of text
                text, tokens = count_visible(counts, start, end, hidden)
                tokens += counts.count_small(head) if head else 0
            else:
                text = self._visible(start, end, hidden)
                tokens = counts.counter.count(head + text)
            return Draft(start, end, tuple(path), prefix, tuple(kinds), head + text, tokens,
                         oversized, len(crumb))
        embed_text = head + source[start:end]
        if not head:
            tokens = counts.count_span(start, end)
        elif counts.counter.line_additive and TEXT_AHEAD.match(source, start, end):
            tokens = counts.count_small(head) + counts.count_span(start, end)  # head ends with "\n"
        else:
            tokens = counts.counter.count(embed_text)
        return Draft(start, end, tuple(path), prefix, tuple(kinds), embed_text, tokens, oversized,
                     len(crumb))

    def visible_tokens(self, start: int, end: int) -> int | None:
        """Tokens of what ``embed_text`` keeps of ``source[start:end]`` when hidden spans lie
        inside it (a comment in a quote), else ``None``: the raw span's count is its cost."""
        hidden = self._hidden_in(start, end)
        if not hidden:
            return None
        return count_visible(self.counts, start, end, hidden)[1]

    def shows_text(self, start: int, end: int) -> bool:
        """Does ``embed_text`` keep any text of ``source[start:end]`` (not front matter, a
        comment, or markup alone)?"""
        hidden = self._hidden_in(start, end)
        if not hidden:
            return bool(self.counts.source[start:end].strip())
        return bool(self._visible(start, end, hidden))

    def _visible(self, start: int, end: int, hidden: Sequence[Rewrite]) -> str:
        return visible_text(self.counts.source, start, end, hidden)

    def _hidden_in(self, start: int, end: int) -> list[Rewrite]:
        """The rewritten spans inside ``[start, end)``, clipped to it (see :func:`clipped`)."""
        if not self.hidden:
            return []
        i = max(0, bisect_right(self._hidden_starts, start) - 1)
        j = bisect_left(self._hidden_starts, end)  # none after it: linear in a page of ids
        return clipped(self.hidden[i:j], start, end)

    def fits(self, draft: Draft) -> bool:
        return draft.token_count <= self.max_tokens
