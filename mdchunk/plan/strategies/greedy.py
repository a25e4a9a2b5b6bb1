"""The greedy strategy: fill each chunk until the next piece does not fit, then start the next.

Fast and predictable; every decision is one of the named rules of :mod:`mdchunk.plan.rules`.
"""

from __future__ import annotations

from ..drafts import Draft
from ..kit import PackingKit
from ..piece_packer import PiecePacker
from . import Run

__all__ = ["GreedyStrategy"]


class GreedyStrategy:
    """See the module docstring."""

    name = "greedy"

    def pack(self, run: Run, kit: PackingKit) -> list[Draft]:
        return PiecePacker(kit, run.path).pack(run.pieces)
