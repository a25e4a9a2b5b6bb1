"""Where a document's chunks cut its blocks, and at which seam: what ``chunk --stats`` counts
and ``inspect`` flags. A block is *split* when no single chunk holds all of it (a paragraph
repeated as overlap is not split); split blocks are named by what they were cut between
(``table rows``, ``code lines``…), from the seams table of :mod:`mdchunk.formats.kinds`."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from ..chunks import Chunk
from ..formats import Block
from ..formats.kinds import HEADING_KINDS, kind

__all__ = ["Split", "chunk_flags", "split_blocks"]


@dataclass(frozen=True, slots=True)
class Split:
    """A block no single chunk holds whole."""

    kind: str
    #: What it was cut between: ``table rows``, ``code lines``, ``list items``, ``prose sentences``…
    seam: str
    start: int
    end: int


def split_blocks(source: str, blocks: Sequence[Block], chunks: Sequence[Chunk]) -> list[Split]:
    """Every block (at any depth) that no chunk of ``chunks`` (one level, in order) holds
    whole, outermost first; inside a block that one chunk holds nothing is split."""
    starts = [c.start for c in chunks]
    reach = list(accumulate((c.end for c in chunks), max))
    out: list[Split] = []

    def held(block: Block) -> bool:
        text = source[block.start:block.end]
        start = block.start + len(text) - len(text.lstrip())
        end = block.start + len(text.rstrip())
        i = bisect.bisect_right(starts, start) - 1
        return start >= end or (i >= 0 and reach[i] >= end)

    def walk(level: Sequence[Block]) -> None:
        for block in level:
            if held(block):
                continue
            row = kind(block.kind)
            if not row.structural and block.kind not in HEADING_KINDS:
                out.append(Split(block.kind, _seam_words(block), block.start, block.end))
            walk(block.children)

    walk(blocks)
    return out


def _seam_words(block: Block) -> str:
    """What a split block was cut between, in the words ``--stats`` prints."""
    name = "prose" if block.kind == "paragraph" else block.kind
    if block.children:
        part = block.children[0].kind
        unit = {"item": "items", "row": "rows"}.get(part, "blocks")
    else:
        unit = kind(block.kind).seam
    return f"{name} {unit}"


def chunk_flags(chunks: Sequence[Chunk], splits: Sequence[Split]) -> list[list[str]]:
    """For each chunk, ``split <kind>`` for every split block it holds part of, and
    ``oversized`` when the chunker kept a block larger than the budget whole."""
    starts = [c.start for c in chunks]
    flags: list[list[str]] = [["oversized"] if c.oversized else [] for c in chunks]
    for split in splits:
        last = bisect.bisect_left(starts, split.end)
        for i in range(last - 1, -1, -1):
            if chunks[i].end <= split.start:
                break
            word = f"split {split.kind}"
            if word not in flags[i]:
                flags[i].append(word)
    return flags
