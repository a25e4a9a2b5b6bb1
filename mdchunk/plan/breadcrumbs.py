"""Breadcrumbs: the heading path an embedder sees before a chunk's text (``A > B > C``), in at
most a sixteenth of the budget (:data:`CRUMB_SHARE`; a Q&A question, half:
:data:`QUESTION_SHARE`): the middle headings go first (``A > … > C``), then the outermost. It
yields to a block that fits only without it, down to nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..formats.blocks import Block
from ..tokens import SpanCounts, TokenCounter

__all__ = ["CRUMB_SHARE", "QUESTION_SHARE", "Breadcrumbs", "breadcrumb", "crumb_titles"]

_ELLIPSIS = "…"
#: A breadcrumb takes at most this fraction of the budget (chosen on the retrieval bench:
#: past a few headings, the path dilutes what the text says more than it tells where it sits).
CRUMB_SHARE = 16
#: A Q&A pair's question is no path but what its answer answers: the pieces of a pair split
#: inside its answer repeat it in up to half the budget.
QUESTION_SHARE = 2


def crumb_titles(path: Sequence[Block]) -> tuple[str, ...]:
    """The titles of ``path`` 's headings a breadcrumb (and a chunk's ``headings``) shows: a
    heading the page shows no text for (one made only of markup that renders to nothing, such
    as a site's shortcode it does not know) has no crumb, rather than an empty one after a
    ``>``."""
    return tuple(h.title for h in path if h.title)


def breadcrumb(titles: Sequence[str], counter: TokenCounter, limit: int) -> str:
    """``"A > B > C\\n\\n"`` in at most ``limit`` tokens: the headings between the outermost
    (the page, or its title) and the innermost go first (``A > … > C``), then the outermost.

    >>> from mdchunk.tokens import TokenCounter
    >>> chars = TokenCounter("chars", len)
    >>> breadcrumb(["Guide", "Install", "Linux"], chars, 20)
    'Guide > … > Linux\\n\\n'
    >>> breadcrumb(["Guide", "Install", "Linux"], chars, 16)
    '… > Linux\\n\\n'
    """
    return _shortened(titles, counter.count, limit)


def _shortened(titles: Sequence[str], count: Callable[[str], int], limit: int) -> str:
    """:func:`breadcrumb`, counting with ``count``: each text it tries is counted once (a
    breadcrumb that fits at once is counted once, not once per way of shortening it)."""
    parts = list(titles)
    if not parts:
        return ""
    text = " > ".join(parts) + "\n\n"
    tokens = count(text)
    while tokens > limit and len(parts) > 2:
        parts.pop(1)
        text = f"{parts[0]} > {_ELLIPSIS} > " + " > ".join(parts[1:]) + "\n\n"
        tokens = count(text)
    while tokens > limit and len(parts) > 1:
        parts.pop(0)
        text = f"{_ELLIPSIS} > " + " > ".join(parts) + "\n\n"
        tokens = count(text)
    if tokens > limit:  # one heading alone is too long: keep its end
        title = parts[0]
        keep = len(title)
        while keep > 0 and count(f"{_ELLIPSIS}{title[-keep:]}\n\n") > limit:
            keep = keep * 3 // 4 if keep > 8 else keep - 1
        text = f"{_ELLIPSIS}{title[len(title) - keep:]}\n\n" if keep else ""
    return text


class Breadcrumbs:
    """The breadcrumbs of one document's chunks, each built and counted once."""

    def __init__(self, counts: SpanCounts, max_tokens: int) -> None:
        self.counts = counts
        self.max_tokens = max_tokens
        self._texts: dict[tuple[tuple[str, ...], int], str] = {}

    def limit(self, path: Sequence[Block]) -> int:
        """The most a breadcrumb of ``path`` may take: a sixteenth of the budget, or half of
        it for a Q&A pair's question (:data:`QUESTION_SHARE`)."""
        question = bool(path) and path[-1].kind == "question"
        return self.max_tokens // (QUESTION_SHARE if question else CRUMB_SHARE)

    def text(self, path: Sequence[Block], start: int, room: int | None = None) -> str:
        """Breadcrumb of the headings in ``path`` that lie before ``start`` (not in the text),
        in at most ``room`` tokens when a block needs the rest of the chunk (guarantee 2)."""
        limit = self.limit(path)
        limit = limit if room is None else max(0, min(limit, room))
        return self._text(crumb_titles([h for h in path if h.start < start]), limit)

    def tokens(self, path: Sequence[Block], start: int, room: int | None = None) -> int:
        return self.counts.count_small(self.text(path, start, room))

    def longest_tokens(self, path: Sequence[Block]) -> int:
        """Tokens of the breadcrumb of all of ``path``: what any chunk under it may carry."""
        return self.counts.count_small(self._text(crumb_titles(path), self.limit(path)))

    def _text(self, titles: tuple[str, ...], limit: int) -> str:
        key = (titles, limit)
        text = self._texts.get(key)
        if text is None:
            # counted through the document's cache of small texts: the count of the one it
            # keeps is then known to :meth:`tokens`
            text = self._texts[key] = _shortened(titles, self.counts.count_small, limit)
        return text
