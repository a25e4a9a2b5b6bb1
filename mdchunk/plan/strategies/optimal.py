"""The optimal choice of cuts over a run of units: dynamic programming under the budget.

Pure arithmetic, no text: given each unit's tokens, the room a chunk starting at each unit has,
which seams may be cut and what cutting each costs, :func:`plan_cuts` returns the cuts whose
summed cost is least while every chunk of more than one unit fits its room. Chunks smaller than
``min_tokens`` cost :data:`SHORT_PENALTY` each, so they appear only where nothing else fits.

:func:`seam_costs` turns similarities into costs with an adaptive threshold: a seam's cost is
its similarity's rank among the run's own seams (0 the least alike, 1 the most) minus the
threshold quantile. Ranks, not raw values, because Chinese text (and any one-topic document)
scores uniformly high: a fixed cut-off would cut it everywhere or nowhere, while ranks find the
document's own valleys. Seams below the quantile cost less than nothing, so the plan cuts there
when the budget and ``min_tokens`` allow; a significant drop (a seam well below both its
neighbours) is favoured further by ``drop_bonus``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["SHORT_PENALTY", "feasible", "plan_cost", "plan_cuts", "seam_costs"]

#: What a chunk under ``min_tokens`` costs: more than any run of seams can save.
SHORT_PENALTY = 1_000.0


def seam_costs(similarities: Sequence[float | None], threshold: float = 0.5,
               drop_bonus: float = 0.25) -> list[float]:
    """Cost of cutting each seam: rank of its similarity among the scored seams, in [0, 1],
    minus ``threshold``, less ``drop_bonus`` times how far it lies below the lower of its
    neighbours (in rank). Unscored seams (``None``: inside units too short to score) cost
    ``1 - threshold``, as the most alike.

    >>> [round(c, 2) for c in seam_costs([0.9, 0.2, 0.8], threshold=0.5, drop_bonus=0.0)]
    [0.5, -0.5, 0.0]
    """
    scored = sorted((s, i) for i, s in enumerate(similarities) if s is not None)
    ranks: list[float] = [1.0] * len(similarities)
    if len(scored) > 1:
        for r, (_, i) in enumerate(scored):
            ranks[i] = r / (len(scored) - 1)
    costs = []
    for i, rank in enumerate(ranks):
        cost = rank - threshold
        if similarities[i] is not None and drop_bonus:
            left = ranks[i - 1] if i > 0 else 1.0
            right = ranks[i + 1] if i + 1 < len(ranks) else 1.0
            cost -= drop_bonus * max(0.0, min(left, right) - rank)
        costs.append(cost)
    return costs


def plan_cost(weights: Sequence[int], costs: Sequence[float], cuts: Sequence[int],
              min_tokens: int) -> float:
    """What :func:`plan_cuts` minimises, for given ``cuts`` (seam indices, ascending)."""
    bounds = [0, *cuts, len(weights)]
    total = sum(costs[c - 1] for c in cuts)
    for a, b in zip(bounds, bounds[1:]):
        if sum(weights[a:b]) < min_tokens:
            total += SHORT_PENALTY
    return total


def feasible(weights: Sequence[int], rooms: Sequence[int], allowed: Sequence[bool],
             cuts: Sequence[int]) -> bool:
    """Does every chunk fit the room of the unit it starts with, or hold no seam that may be
    cut (a heading and what follows it, a unit alone: the packer cuts those finer)?"""
    bounds = [0, *cuts, len(weights)]
    return all(sum(weights[a:b]) <= rooms[a] or not any(allowed[a:b - 1])
               for a, b in zip(bounds, bounds[1:]))


def _blocks(allowed: Sequence[bool]) -> list[int]:
    """Where the runs of units no allowed seam separates begin."""
    return [0, *(k for k in range(1, len(allowed) + 1) if allowed[k - 1])]


def plan_cuts(weights: Sequence[int], rooms: Sequence[int], costs: Sequence[float],
              allowed: Sequence[bool], min_tokens: int) -> list[int]:
    """The feasible cuts (``k`` cuts before unit ``k``, ascending) that minimise
    :func:`plan_cost`.

    ``weights[k]`` are unit ``k``'s tokens and ``rooms[k]`` what a chunk starting with it may
    hold; ``costs[k - 1]`` and ``allowed[k - 1]`` belong to the seam before unit ``k``. Units
    no allowed seam separates are one block; a chunk of one block always goes (the packer cuts
    one too large finer), so cutting every allowed seam is a plan, and the least costly is
    found over blocks in time linear in their number times the blocks a chunk can hold. Ties go
    to the plan whose last chunk is longest, then recursively.

    >>> plan_cuts([10, 10, 10, 10], [20] * 4, [0.0, -1.0, 0.0], [True] * 3, min_tokens=0)
    [2]
    """
    starts = _blocks(allowed)
    n = len(starts)
    if n <= 1:
        return []
    prefix = [0]
    for a, b in zip(starts, [*starts[1:], len(weights)]):
        prefix.append(prefix[-1] + sum(weights[a:b]))
    widest = max(rooms)
    best = [math.inf] * (n + 1)
    back = [0] * (n + 1)
    best[0] = 0.0
    lo = 0
    for j in range(1, n + 1):
        while prefix[j] - prefix[lo] > widest and lo < j - 1:
            lo += 1
        for i in range(lo, j):
            size = prefix[j] - prefix[i]
            if j - i > 1 and size > rooms[starts[i]]:
                continue
            cost = best[i] + (costs[starts[i] - 1] if i else 0.0)
            if size < min_tokens:
                cost += SHORT_PENALTY
            if cost < best[j] - 1e-12:
                best[j], back[j] = cost, i
    cuts = []
    j = n
    while j > 0:
        j = back[j]
        if j:
            cuts.append(starts[j])
    return cuts[::-1]
