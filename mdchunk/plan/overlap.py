"""Overlap (guarantee 5): a chunk may start with whole trailing sentences of the previous chunk's
prose (of one top-level paragraph, never code or table lines), within ``overlap_tokens`` and the
budget."""

from __future__ import annotations

from bisect import bisect_left

from ..text import SentenceIndex
from ..tokens import SpanCounts

__all__ = ["overlap_before"]


def overlap_before(paragraph: tuple[int, int], end: int, floor: int, budget: int,
                   counts: SpanCounts, sentences: SentenceIndex) -> tuple[int, int] | None:
    """``(start, tokens)`` of the longest run of sentences of ``paragraph`` that ends at ``end``
    (where the previous chunk ends), starts at or after ``floor`` (where it starts) and costs at
    most ``budget`` tokens; ``None`` when the previous chunk stopped mid-sentence or no sentence
    fits."""
    starts, ends = sentences.bounds(*paragraph)
    if end not in ends:
        return None  # the previous chunk stopped mid-sentence: no whole sentence to repeat
    chosen: tuple[int, int] | None = None
    for start in reversed(starts[:bisect_left(starts, end)]):
        if start < floor:
            break
        counts.joint_before(start)  # the blank before the sentence: its stretch is counted once
        tokens = counts.count_span(start, end)
        if tokens > budget:
            break
        chosen = (start, tokens)
    return chosen
