"""Drafts: a planned chunk's span, breadcrumb, ``embed_text`` and exact token count.

The budget counts ``embed_text`` (breadcrumb, repeated header or fence, then the text), exactly,
from the span counts of :mod:`mdchunk.tokens.spans`, which encode each stretch of the source once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..formats.blocks import Block
from ..formats.kinds import HEADING_KINDS
from ..tokens import SpanCounts
from ..tokens.spans import TEXT_AHEAD
from .breadcrumbs import Breadcrumbs

__all__ = ["Draft", "Drafter"]


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

    @property
    def is_headings_only(self) -> bool:
        return set(self.kinds) <= HEADING_KINDS


class Drafter:
    """Assembles drafts and weighs them against the budget."""

    def __init__(self, counts: SpanCounts, crumbs: Breadcrumbs, max_tokens: int) -> None:
        self.counts = counts
        self.crumbs = crumbs
        self.max_tokens = max_tokens

    def draft(self, start: int, end: int, path: Sequence[Block], kinds: Sequence[str],
              prefix: str = "", oversized: bool = False) -> Draft:
        """Assemble a draft and count its ``embed_text`` exactly."""
        counts = self.counts
        source = counts.source
        head = self.crumbs.text(path, start) + (prefix + "\n" if prefix else "")
        embed_text = head + source[start:end]
        if not head:
            tokens = counts.count_span(start, end)
        elif counts.counter.line_additive and TEXT_AHEAD.match(source, start, end):
            tokens = counts.count_small(head) + counts.count_span(start, end)  # head ends with "\n"
        else:
            tokens = counts.counter.count(embed_text)
        return Draft(start, end, tuple(path), prefix, tuple(kinds), embed_text, tokens, oversized)

    def fits(self, draft: Draft) -> bool:
        return draft.token_count <= self.max_tokens
