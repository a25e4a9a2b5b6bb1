r"""Exact token counts of the prefixes of one window, from one encoding of it: the probes of
:meth:`mdchunk.tokens.counter.TokenCounter.prefix_within`'s binary search, which had encoded
up to the whole window a dozen times per cut.

A prefix ``window[:n]`` is counted as the window's tokens before a *cut* ``P <= n`` (read off
the window's token ends) plus the tokens of ``window[P:n]``, encoded alone: a few characters
wherever letters or digits meet other characters. ``P`` is a pretoken end of the window that
follows a non-blank character (or the window's start): in cl100k_base, right after a letter
that no letter follows (or a digit no digit follows), whatever came before it: no pretoken
holds a letter and a non-letter after it, or a digit and a non-digit after it. It is found by
searching back from ``n``, not by splitting the window into pretokens from its start (the
regex module costs as much per character as encoding it).

Why the prefix is split into the window's pretokens up to ``P``: cl100k_base's pattern's eight
alternatives are ``'(?i:[sdmt]|ll|ve|re)``, ``[^\r\n\p{L}\p{N}]?+\p{L}++``, ``\p{N}{1,3}+``,
`` ?[^\s\p{L}\p{N}]++[\r\n]*+``, ``\s++$``, ``\s*[\r\n]``, ``\s+(?!\S)`` and ``\s``:

1. It has no look-behind, and ``$`` is its only anchor: the pretoken found at a place depends
   on the text from there on, never before it; every character is in some pretoken, so a text
   is split, left to right, into pretokens that meet end to start.
2. A pretoken of the first four alternatives (every pretoken that ends on a non-blank
   character is one: the last four take blanks only) is decided by its own characters and the
   one after it. Each loop in them is possessive and stops at the first character it cannot
   take; the contraction alternative reads a third character only after a letter, and fails
   then only where the letters alternative takes that letter, ending at the third character
   or later. Where the text ends right after the pretoken, no loop takes the end either, and
   none of the four tests for ``$``: the same pretoken.
3. A pretoken of the last four is decided by the run of blanks it starts and the character
   after that run (``\s++$``, ``\s*[\r\n]`` and ``\s+(?!\S)`` each read the whole run).

Before ``P`` the window and its prefix ``window[:n]`` hold the same characters, and the prefix
holds the one at ``P`` too unless it ends there. By 2, each pretoken of the first four
alternatives is the same in both (the one ending at ``P`` included); by 3, so is each one of
the last four, whose run of blanks ends before ``P`` (the character before ``P`` is no blank).
From ``P`` on, by 1, the prefix is split as ``window[P:n]`` alone is, and no token crosses a
pretoken end: ``count(window[:n]) == tokens of the window before P + count(window[P:n])``.
A pretoken end after a blank would not do: the prefix may end in that run of blanks, which
``\s++$`` then takes whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import regex

from .kept import Kept

__all__ = ["PrefixCounts", "last_cut"]

#: The character before a cut, searched backwards: a letter before a non-letter, or a digit
#: before a non-digit (``\p{L}``, ``\p{N}``: cl100k_base's classes; the lookahead wants a
#: character, so a search that stops at ``n + 1`` finds no cut past ``n``).
_BEFORE_CUT = regex.compile(r"(?r)\p{L}(?=\P{L})|\p{N}(?=\P{N})")


def last_cut(text: str, start: int, end: int) -> int | None:
    """The last place in ``(start, end]`` right after a letter that no letter follows or a digit
    that no digit follows (the character at ``end`` counts as what follows): cl100k_base ends a
    pretoken there, whatever came before (see the module's docstring); ``None`` where there is
    none."""
    before = _BEFORE_CUT.search(text, start, end + 1)
    return None if before is None else int(before.end())


class PrefixCounts:
    """``count(window[:n])`` for any ``n``, exact, from the window's token ends and a cut (see
    the module's docstring) found near ``n``."""

    def __init__(self, window: str, ends: Sequence[int], count: Callable[[str], int]) -> None:
        self.window = window
        self._encoded = Kept(0, len(window), ends, window.isascii())
        self._count = count

    def __call__(self, n: int) -> int:
        """Tokens of ``window[:n]``; the window's own count costs nothing more (the doubling
        windows of ``prefix_within`` are each counted whole once)."""
        window = self.window
        if n == len(window):
            return len(self._encoded.ends)
        cut = last_cut(window, 0, n) or 0
        tokens = self._encoded.tokens_before(self._offset(cut))
        if tokens is None:  # no token ends at the cut: never seen, but stay exact
            return self._count(window[:n])
        return tokens + self._count(window[cut:n])

    def _offset(self, pos: int) -> int:
        """The UTF-8 offset of character ``pos`` of the window."""
        if self._encoded.ascii:
            return pos
        return len(self.window[:pos].encode("utf-8"))
