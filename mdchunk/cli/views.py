"""What ``mdchunk inspect`` shows, computed once for the terminal and the HTML page alike: the
source as runs of text each owned by the chunks that hold it (two owners: overlap), the chunks
with their flags, and the histogram of their sizes against the budget."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..chunks import Chunk
from ..formats import Block
from .anatomy import chunk_flags, split_blocks

__all__ = ["Bar", "Inspection", "Run", "histogram", "inspect_chunks", "runs"]


@dataclass(frozen=True, slots=True)
class Run:
    """A stretch of the source, and the positions (in the level's chunk list) of the chunks
    that hold it: none (blank lines between chunks, front matter), one, or two and more (overlap).
    ``opens`` are the chunks that start where this run starts."""

    start: int
    end: int
    owners: tuple[int, ...]
    opens: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Bar:
    """One bin of the histogram: chunks of ``low <= tokens <= high``."""

    low: int
    high: int
    count: int
    over: bool


@dataclass(frozen=True, slots=True)
class Inspection:
    """One level's chunks of one file, ready to show."""

    path: Path
    source: str
    chunks: list[Chunk]
    budget: int
    flags: list[list[str]]
    #: The document's top-level blocks as the chunker read them, spans of ``source``: the
    #: flags say which of them no chunk holds whole.
    blocks: tuple[Block, ...] = ()

    @property
    def title(self) -> str:
        return f"{self.path} — {len(self.chunks)} chunks, budget {self.budget}"

    def overlap(self, i: int) -> tuple[int, int] | None:
        """The span chunk ``i`` shares with the chunk before it, if any."""
        if i == 0:
            return None
        start, end = self.chunks[i].start, min(self.chunks[i - 1].end, self.chunks[i].end)
        return (start, end) if start < end else None


def inspect_chunks(path: Path, source: str, blocks: tuple[Block, ...], chunks: list[Chunk],
                   budget: int) -> Inspection:
    """``chunks`` (one level, in order) of ``source`` read from ``path``, with their flags
    against ``blocks``, the document's blocks as the chunker read them."""
    splits = split_blocks(source, blocks, chunks)
    return Inspection(path, source, chunks, budget, chunk_flags(chunks, splits), blocks)


def runs(source: str, chunks: Sequence[Chunk]) -> Iterator[Run]:
    """The source cut at every chunk start and end, each run with its owners, in order.

    >>> from mdchunk import chunk_markdown
    >>> text = "# A\\n\\nOne. Two.\\n"
    >>> [(r.owners, text[r.start:r.end]) for r in runs(text, chunk_markdown(text))]
    [((0,), '# A\\n\\nOne. Two.'), ((), '\\n')]
    """
    cuts = sorted({0, len(source), *(p for c in chunks for p in (c.start, c.end))})
    by_start: dict[int, list[int]] = {}
    for i, c in enumerate(chunks):
        by_start.setdefault(c.start, []).append(i)
    active: list[int] = []
    for a, b in zip(cuts, cuts[1:]):
        active = [i for i in active if chunks[i].end > a]
        opens = tuple(i for i in by_start.get(a, ()) if chunks[i].end > a)
        active += opens
        yield Run(a, b, tuple(active), opens)
    # a chunk of no text (never made by the chunker) would open nowhere: nothing is lost


def histogram(counts: Sequence[int], budget: int, bins: int = 20) -> list[Bar]:
    """Chunk sizes in ``bins`` bins from 0 to the budget (the budget is the last one's top),
    and bins of the same width on past it when a chunk is larger, marked ``over``.

    >>> [(b.low, b.high, b.count, b.over) for b in histogram([1, 5, 9, 10, 12], 10, bins=2)]
    [(0, 5, 2, False), (6, 10, 2, False), (11, 15, 1, True)]
    """
    bins = max(1, min(bins, budget))
    top = max([budget, *counts])
    edges = [budget * k // bins for k in range(1, bins + 1)]
    while edges[-1] < top:
        edges.append(edges[-1] + budget // bins)
    tally = [0] * len(edges)
    for n in counts:
        tally[bisect.bisect_left(edges, n)] += 1
    return [Bar(edges[k - 1] + 1 if k else 0, high, tally[k], high > budget)
            for k, high in enumerate(edges)]
