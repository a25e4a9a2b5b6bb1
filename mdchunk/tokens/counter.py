"""The one view of a tokenizer the chunker needs: ``count``, and ``prefix_within`` (the
last-resort cut).

Whatever the user names — a tiktoken encoding, a Hugging Face tokenizer, any ``str -> int``
callable — is wrapped in a :class:`TokenCounter` by :mod:`mdchunk.tokens.resolve`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

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
        into parts costs time linear in its length.

        >>> TokenCounter("chars", len).prefix_within("abcdef", 4)
        4
        >>> TokenCounter("chars", len).prefix_within("abcdef", 2, start=3)
        2
        """
        end = len(text) if end is None else end
        length = end - start
        window = 8 * max(1, max_tokens)
        while window < length and self.count(text[start:start + window]) <= max_tokens:
            window *= 2
        lo, hi = 0, min(window, length)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count(text[start:start + mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return lo
