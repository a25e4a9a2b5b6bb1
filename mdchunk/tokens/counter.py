"""The one view of a tokenizer the chunker needs: ``count``, and ``prefix_within`` (the
last-resort cut).

Whatever the user names — a tiktoken encoding, a Hugging Face tokenizer, any ``str -> int``
callable — is wrapped in a :class:`TokenCounter` by :mod:`mdchunk.tokens.resolve`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .prefixes import PrefixCounts

__all__ = ["PretokenEnds", "TokenCounter"]

#: ``(text, pos, endpos) -> ends``: where the pre-tokenizer's *pretokens* of ``text[pos:endpos]``
#: end, scanned from ``pos`` (see :attr:`TokenCounter.pretoken_ends`).
PretokenEnds = Callable[[str, int, int], Iterator[int]]


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
    #: Where each token of a text ends (UTF-8 byte offsets from its start), where the tokenizer
    #: can tell; raises UnicodeEncodeError on lone surrogates. Lets a text encoded once be
    #: counted in parts: a whole document between any two joints (see
    #: :class:`mdchunk.tokens.spans.SpanCounts`).
    token_ends: Callable[[str], Sequence[int]] | None = None
    #: ``(text, pos, endpos) -> ends``: where the pre-tokenizer's *pretokens* (the regex matches
    #: a BPE tokenizer encodes one by one) of ``text[pos:endpos]`` end, scanned from ``pos``.
    #: Tokens never cross a pretoken, so counts add up at every pretoken end; the span counts
    #: use this to count a span that starts or ends a word away from a joint they have already
    #: counted (see :meth:`mdchunk.tokens.spans.SpanCounts.count_span`).
    pretoken_ends: PretokenEnds | None = None

    def prefix_within(self, text: str, max_tokens: int, start: int = 0, end: int | None = None
                      ) -> int:
        """Length of the longest prefix of ``text[start:end]`` that has at most ``max_tokens``
        tokens.

        Used only to cut a single word or CJK run that alone exceeds the budget: a binary search
        over character positions, within a window that doubles until it holds more than
        ``max_tokens`` tokens. Only the window is ever copied or counted, so cutting a 5 MB line
        into parts costs time linear in its length. Counts are not monotonic in the prefix's
        length, so the result rests on each probe's exact count: where the tokenizer allows,
        the probes are read off one encoding of the window (:mod:`.prefixes`), not encoded.

        >>> TokenCounter("chars", len).prefix_within("abcdef", 4)
        4
        >>> TokenCounter("chars", len).prefix_within("abcdef", 2, start=3)
        2
        """
        end = len(text) if end is None else end
        count_prefix, hi = self._search_window(text, max_tokens, start, end)
        lo = 0
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count_prefix(mid) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _search_window(self, text: str, max_tokens: int, start: int, end: int
                       ) -> tuple[Callable[[int], int], int]:
        """The window from ``start`` that :meth:`prefix_within` searches, as ``n -> tokens of
        its first n characters`` and its length: ``8 * max_tokens`` characters, doubled until
        it holds more than ``max_tokens`` tokens or reaches ``end``."""
        window = 8 * max(1, max_tokens)
        while window < end - start:
            count_prefix = self._prefix_counts(text[start:start + window])
            if count_prefix(window) > max_tokens:
                return count_prefix, window
            window *= 2
        return self._prefix_counts(text[start:end]), end - start

    def _prefix_counts(self, window: str) -> Callable[[int], int]:
        """``n -> count(window[:n])``: from one encoding of the window where the tokenizer
        tells where its tokens end and is checked to split prefixes as :mod:`.prefixes` argues
        (cl100k_base, line-additive), and the text has no lone surrogate; else by encoding
        each prefix."""
        if self.line_additive and self.token_ends is not None:
            try:
                return PrefixCounts(window, self.token_ends(window), self.count)
            except UnicodeEncodeError:
                pass
        count = self.count
        return lambda n: count(window[:n])
