"""The one view of a tokenizer the chunker needs: ``count``, and ``prefix_within`` (the
last-resort cut); :mod:`mdchunk.tokens.resolve` wraps whatever the user names in it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["TokenCounter"]


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """Counts tokens of a string; the only view of a tokenizer the chunker needs."""

    name: str
    count: Callable[[str], int]
    #: ``count(a + b) == count(a) + count(b)`` whenever ``a`` ends with a line break and the
    #: first line of ``b`` has text on it (after any indentation), or ``a`` ends with a non-blank
    #: character and ``b`` starts with a space or tab: true of cl100k_base, whose pre-tokenizer
    #: ends a pretoken at every line break that text follows, and starts one at the blank before
    #: a word. The packer then counts each block once and sums, instead of re-encoding chunks.
    line_additive: bool = False

    def prefix_within(self, text: str, max_tokens: int, start: int = 0, end: int | None = None
                      ) -> int:
        """Length of the longest prefix of ``text[start:end]`` that has at most ``max_tokens``
        tokens, to cut a single word or CJK run that alone exceeds the budget: a binary search
        within a window that doubles until it holds more than ``max_tokens`` tokens, so cutting a
        5 MB line costs time linear in its length.

        >>> TokenCounter("chars", len).prefix_within("abcdef", 4)
        4
        >>> TokenCounter("chars", len).prefix_within("abcdef", 2, start=3)
        2"""
        end = len(text) if end is None else end
        window = self._search_window(text, max_tokens, start, end)
        lo, hi = 0, len(window)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count(window[:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _search_window(self, text: str, max_tokens: int, start: int, end: int) -> str:
        """The window from ``start`` that :meth:`prefix_within` searches: ``8 * max_tokens``
        characters, doubled until it holds more than ``max_tokens`` tokens or reaches ``end``."""
        size = 8 * max(1, max_tokens)
        while size < end - start:
            window = text[start:start + size]
            if self.count(window) > max_tokens:
                return window
            size *= 2
        return text[start:end]
