"""Boundary strategies: where, among the cuts a run of pieces allows, its chunks end.

Structure decides where a chunk *may* end (between blocks, items, rows, lines, sentences: the
seams of :mod:`mdchunk.formats.kinds`); a strategy decides where chunks *do* end. Every strategy
receives the same :class:`Run` and kit and must keep every guarantee; it returns the drafts of
its chunks, whose spans are the cut positions it chose. The greedy strategy (fill each chunk
until the next piece does not fit) is the default; strategies that score seams by meaning plug
in beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ...formats.blocks import Block
from ..drafts import Draft
from ..kit import PackingKit
from ..pieces import Piece

__all__ = ["BoundaryStrategy", "Run"]


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive pieces of one section, to be packed into one or more chunks; ``path`` is the
    heading path every chunk of the run carries."""

    pieces: Sequence[Piece]
    path: tuple[Block, ...]


class BoundaryStrategy(Protocol):
    """Chooses where the chunks of a run end."""

    name: str

    def pack(self, run: Run, kit: PackingKit) -> list[Draft]:
        """The run's chunks as drafts, in order, tiling its non-blank text."""
