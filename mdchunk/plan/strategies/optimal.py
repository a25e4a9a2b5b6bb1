"""The optimal choice of chunks over a run of units: dynamic programming under the budget, the
cuts that maximise the summed pairwise cohesion of the chunks while each fits its room (the
objective, the baseline quantile and :data:`SHORT_PENALTY`: docs/semantic.md, "The plan")."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence

__all__ = ["SHORT_PENALTY", "baseline", "feasible", "plan_chunks", "plan_cost", "reach"]

#: What a chunk under ``min_tokens`` costs: more than any cohesion can gain.
SHORT_PENALTY = 1_000_000.0


def reach(weights: Sequence[int], rooms: Sequence[int]) -> int:
    """The most units a chunk can hold (at least 1): how far apart two units of one chunk can
    be, so how wide a band of similarities the plan needs."""
    widest, most, lo, size = max(rooms, default=0), 1, 0, 0
    for hi, weight in enumerate(weights):
        size += weight
        while size > widest and lo < hi:
            size -= weights[lo]
            lo += 1
        most = max(most, hi - lo + 1)
    return most


def baseline(band: Sequence[Sequence[float]], threshold: float) -> float:
    """The ``threshold`` quantile of the band's similarities, moved halfway up to the next larger
    one (0.0 for an empty band): a pair *at* the quantile counts as unlike, so that Jaccard's many
    exact 0.0 pairs do not let a chunk run across a topic change for free.

    >>> baseline([[0.9, 0.1], [0.5], []], 0.5)
    0.7"""
    values = sorted(s for row in band for s in row)
    if not values:
        return 0.0
    at = bisect_right(values, values[min(len(values) - 1, int(threshold * len(values)))])
    low = values[at - 1]
    return (low + values[at]) / 2 if at < len(values) else low


def _unit_weights(weights: Sequence[int]) -> list[float]:
    mean = sum(weights) / len(weights) if weights else 1.0
    return [w / mean if mean else 1.0 for w in weights]


def plan_cost(weights: Sequence[int], band: Sequence[Sequence[float]], base: float,
              cuts: Sequence[int], min_tokens: int) -> float:
    """What :func:`plan_chunks` minimises, for given ``cuts`` (unit indices, ascending): less the
    summed cohesion of the chunks, plus :data:`SHORT_PENALTY` per chunk under ``min_tokens``.
    Pairs farther apart than the band reaches count as the baseline (add nothing)."""
    w = _unit_weights(weights)
    bounds = [0, *cuts, len(weights)]
    total = 0.0
    for a, b in zip(bounds, bounds[1:]):
        for u in range(a, b):
            for d, s in enumerate(band[u][:b - u - 1], start=1):
                total -= w[u] * w[u + d] * (s - base)
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


def plan_chunks(weights: Sequence[int], rooms: Sequence[int], band: Sequence[Sequence[float]],
                base: float, min_tokens: int) -> list[int]:
    """The cuts (``k`` cuts before unit ``k``, ascending) that minimise :func:`plan_cost`, every
    chunk of more than one unit within the room of the unit it starts with. ``weights[k]`` are unit
    ``k``'s tokens, ``rooms[k]`` what a chunk starting with it may hold, ``band[k][d - 1]`` its
    similarity to unit ``k + d``. Ties go to the plan whose last chunk is longest.

    >>> plan_chunks([10] * 4, [20] * 4, [[0.9, 0.0], [0.0, 0.0], [0.9], []], 0.5, 0)
    [2]"""
    n = len(weights)
    if n <= 1:
        return []
    w = _unit_weights(weights)
    # ahead[u][d]: what unit u gains with units u+1 .. u+d in its chunk (running sums of a row)
    ahead: list[list[float]] = []
    for u in range(n):
        row, acc = [0.0], 0.0
        for d, s in enumerate(band[u], start=1):
            acc += w[u] * w[u + d] * (s - base)
            row.append(acc)
        ahead.append(row)
    prefix = [0]
    for weight in weights:
        prefix.append(prefix[-1] + weight)
    widest = max(rooms)
    best = [math.inf] * (n + 1)
    back = [0] * (n + 1)
    best[0] = 0.0
    for j in range(1, n + 1):
        gain = 0.0
        for i in range(j - 1, -1, -1):
            size = prefix[j] - prefix[i]
            if j - i > 1 and size > widest:
                break
            row = ahead[i]
            gain += row[min(j - i - 1, len(row) - 1)]
            if j - i > 1 and size > rooms[i]:
                continue
            cost = best[i] - gain + (SHORT_PENALTY if size < min_tokens else 0.0)
            if cost < best[j] + 1e-9:  # on a tie the longer last chunk wins
                best[j], back[j] = cost, i
    cuts = []
    j = n
    while j > 0:
        j = back[j]
        if j:
            cuts.append(j)
    return cuts[::-1]
