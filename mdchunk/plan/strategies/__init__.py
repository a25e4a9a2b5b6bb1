"""Boundary strategies: where, among the cuts a run of pieces allows, its chunks end. Structure
decides where a chunk *may* end, a strategy where chunks *do*; every strategy keeps every
guarantee. Greedy is the default."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ...formats.blocks import Block
from ..drafts import Draft
from ..kit import PackingKit
from ..piece_packer import PiecePacker
from ..pieces import Piece

__all__ = ["BoundaryStrategy", "GreedyStrategy", "Run"]


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


class GreedyStrategy:
    """Fill each chunk until the next piece does not fit, then start the next: every decision
    is one of the named rules of :mod:`mdchunk.plan.rules`."""

    name = "greedy"

    def pack(self, run: Run, kit: PackingKit) -> list[Draft]:
        return PiecePacker(kit, run.path).pack(run.pieces)
