"""``mdchunk chunk --stats``: what a run produced, per level, against each level's budget."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..chunks import Chunk
from ..config import ChunkerConfig
from .anatomy import split_blocks

if TYPE_CHECKING:
    from ..chunks.reading import Reading

__all__ = ["RunStats", "percentile"]


def percentile(values: Sequence[int], share: float) -> int:
    """Nearest-rank percentile of sorted ``values``.

    >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)
    10
    """
    return values[max(0, math.ceil(share * len(values)) - 1)]


@dataclass(slots=True)
class RunStats:
    """Counts gathered file by file as a run goes."""

    config: ChunkerConfig
    files: int = 0
    tokens: dict[int, list[int]] = field(default_factory=dict)
    splits: dict[int, Counter[str]] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)

    def budget(self, level: int) -> int:
        levels = self.config.levels
        return levels[level - 1] if levels else self.config.max_tokens

    def add(self, chunks: Sequence[Chunk], reading: Reading | None) -> None:
        """One file's chunks, every level; ``reading`` is the document as the chunker read it
        (``None`` when it can no longer be read: its splits are not counted)."""
        self.files += 1
        blocks = reading.source_blocks() if chunks and reading is not None else None
        for level in sorted({c.level for c in chunks}):
            mine = [c for c in chunks if c.level == level]
            self.tokens.setdefault(level, []).extend(c.token_count for c in mine)
            tally = self.splits.setdefault(level, Counter())
            if reading is not None and blocks is not None:
                tally.update(s.seam for s in split_blocks(reading.source, blocks, mine))

    def lines(self) -> list[str]:
        """The summary, one fact a line."""
        out = [f"files: {self.files} chunked, {len(self.failed)} failed"]
        for level in sorted(self.tokens):
            counts = sorted(self.tokens[level])
            budget = self.budget(level)
            over = sum(n > budget for n in counts)
            out.append(f"level {level}: {len(counts)} chunks, budget {budget}")
            if counts:
                out.append(f"  tokens: min {counts[0]}, median {statistics.median(counts):g}, "
                           f"p95 {percentile(counts, 0.95)}, max {counts[-1]} "
                           f"({max(counts) / budget:.0%} of the budget; {over} over it)")
            tally = self.splits.get(level, Counter())
            reasons = ", ".join(f"{seam} {n}" for seam, n in sorted(tally.items(),
                                                                   key=lambda kv: (-kv[1], kv[0])))
            out.append(f"  split blocks: {sum(tally.values())}" + (f" ({reasons})" if reasons
                                                                   else ""))
        out += [f"failed: {message}" for message in self.failed]
        return out
