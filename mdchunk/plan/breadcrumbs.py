"""Breadcrumbs: the heading path an embedder sees before a chunk's text (``A > B > C``).

A breadcrumb never takes more than a quarter of the budget: it is shortened from the outermost
heading (``… > B > C``), and a single heading too long for that keeps its end. It yields to a
block that fits the budget only without it: shortened the same way, to nothing if need be.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..formats.blocks import Block
from ..tokens import SpanCounts, TokenCounter

__all__ = ["Breadcrumbs", "breadcrumb"]

_ELLIPSIS = "…"


def breadcrumb(titles: Sequence[str], counter: TokenCounter, limit: int) -> str:
    """``"A > B > C\\n\\n"`` in at most ``limit`` tokens, shortened from the outermost heading.

    >>> from mdchunk.tokens import TokenCounter
    >>> breadcrumb(["Guide", "Install", "Linux"], TokenCounter("chars", len), 16)
    '… > Linux\\n\\n'
    """
    parts = list(titles)
    if not parts:
        return ""
    text = " > ".join(parts) + "\n\n"
    while counter.count(text) > limit and len(parts) > 1:
        parts.pop(0)
        text = f"{_ELLIPSIS} > " + " > ".join(parts) + "\n\n"
    if counter.count(text) > limit:  # one heading alone is too long: keep its end
        title = parts[0]
        keep = len(title)
        while keep > 0 and counter.count(f"{_ELLIPSIS}{title[-keep:]}\n\n") > limit:
            keep = keep * 3 // 4 if keep > 8 else keep - 1
        text = f"{_ELLIPSIS}{title[len(title) - keep:]}\n\n" if keep else ""
    return text


class Breadcrumbs:
    """The breadcrumbs of one document's chunks, each built and counted once."""

    def __init__(self, counts: SpanCounts, max_tokens: int) -> None:
        self.counts = counts
        self.limit = max_tokens // 4
        self._texts: dict[tuple[tuple[str, ...], int], str] = {}

    def text(self, path: Sequence[Block], start: int, room: int | None = None) -> str:
        """Breadcrumb of the headings in ``path`` that lie before ``start`` (not in the text),
        in at most ``room`` tokens when a block needs the rest of the chunk (guarantee 2)."""
        limit = self.limit if room is None else max(0, min(self.limit, room))
        return self._text(tuple(h.title for h in path if h.start < start), limit)

    def tokens(self, path: Sequence[Block], start: int, room: int | None = None) -> int:
        return self.counts.count_small(self.text(path, start, room))

    def longest_tokens(self, path: Sequence[Block]) -> int:
        """Tokens of the breadcrumb of all of ``path``: what any chunk under it may carry."""
        return self.counts.count_small(self._text(tuple(h.title for h in path), self.limit))

    def _text(self, titles: tuple[str, ...], limit: int) -> str:
        key = (titles, limit)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = breadcrumb(titles, self.counts.counter, limit)
        return text
