"""Fusing a dense and a BM25 result list into one ranking (pure; no Milvus here), in this process
rather than with Milvus's rankers: it ranks the same on Lite and on a server, is testable
without either, and can do what Milvus's rankers cannot (weighted RRF).

Three fusions, each weighting the two lists ``(dense, bm25)``:

- ``rrf``: reciprocal-rank fusion, ``sum(w / (k + rank))``: ranks only, robust to scales, but a
  list that ranks at random pulls its top hits in as strongly as a good one;
- ``score``: each list's scores min-max normalised over its own candidates, then summed with
  the weights; a flat list of near-equal scores spreads over [0, 1] too;
- ``peaked``: ``score``, each list's weight multiplied by how far its first hits stand out
  (:func:`peaked_fusion`), so that the list sure of its answer for this query leads (query
  performance prediction used as fusion weights: Shtok et al.'s NQC, 2012).

The default was chosen on the retrieval bench (BENCHMARKS.md); ``weights`` and ``fusion`` stay
open to users."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

__all__ = ["DEFAULT_FUSION", "FUSIONS", "PEAK_HEAD", "Fusion", "FusionName", "fuse",
           "peaked_fusion", "rrf", "score_fusion"]

T = TypeVar("T")
#: One result list, best first: ``(key, score)``, higher scores better.
Ranked = Sequence[tuple[T, float]]
FusionName = Literal["rrf", "score", "peaked"]
FUSIONS: tuple[FusionName, ...] = ("rrf", "score", "peaked")
#: RRF's rank offset, as in Cormack et al. (2009) and Milvus's RRFRanker.
RRF_K = 60
#: The first hits of a list whose normalised scores say how peaked it is (``peaked``).
PEAK_HEAD = 10


@dataclass(frozen=True, slots=True)
class Fusion:
    """How hybrid search fuses its two lists: ``method`` and the ``(dense, bm25)`` weights."""

    method: FusionName = "rrf"
    weights: tuple[float, float] = (1.0, 1.0)

    def __post_init__(self) -> None:
        if self.method not in FUSIONS:
            raise ValueError(f"fusion {self.method!r} must be one of {', '.join(FUSIONS)}")
        if len(self.weights) != 2 or min(self.weights) < 0 or not any(self.weights):
            raise ValueError(f"weights {self.weights!r} must be two non-negative numbers, "
                             "not both zero")


#: The fusion hybrid search uses unless told otherwise: ``peaked`` with equal weights. A fixed
#: weighting could not serve both languages' paraphrases (English ones want the dense side
#: ahead, Chinese ones BM25); the figures are in BENCHMARKS.md.
DEFAULT_FUSION = Fusion("peaked", (1.0, 1.0))


def rrf(lists: Sequence[Ranked[T]], weights: Sequence[float], k: int = RRF_K
        ) -> list[tuple[T, float]]:
    """Weighted reciprocal-rank fusion: ``score(d) = sum_i weights[i] / (k + rank_i(d))``,
    ranks from 1; a key missing from a list gains nothing from it.

    >>> rrf([[("a", 9.0), ("b", 8.0)], [("b", 0.9), ("c", 0.5)]], (1, 1), k=0)
    [('b', 1.5), ('a', 1.0), ('c', 0.5)]
    """
    scores: dict[T, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        for rank, (key, _) in enumerate(ranked, 1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return _ordered(scores)


def score_fusion(lists: Sequence[Ranked[T]], weights: Sequence[float]
                 ) -> list[tuple[T, float]]:
    """Weighted sum of each list's scores min-max normalised over that list (a list of one,
    or of equal scores, counts 1 for each of its keys).

    >>> score_fusion([[("a", 0.9), ("b", 0.5)], [("b", 12.0), ("c", 2.0)]], (1, 1))
    [('a', 1.0), ('b', 1.0), ('c', 0.0)]
    """
    scores: dict[T, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        for key, unit in _min_max(ranked):
            scores[key] = scores.get(key, 0.0) + weight * unit
    return _ordered(scores)


def peaked_fusion(lists: Sequence[Ranked[T]], weights: Sequence[float]
                  ) -> list[tuple[T, float]]:
    """:func:`score_fusion` with each list's weight times its peakedness: one minus the mean
    of its min-max normalised scores over its first :data:`PEAK_HEAD` hits (a list shorter
    than that counts 0 for the hits it lacks). A list whose best hit stands out from the ones
    after it weighs nearly its full weight; a list of near-equal scores, nearly nothing.

    >>> dense = [(k, 0.5 - i / 1000) for i, k in enumerate("abcdefghij")] + [("z", 0.2)]
    >>> bm25 = [("c", 9.0), ("j", 1.0), ("a", 0.5)]  # one clear leader
    >>> fused = peaked_fusion([dense, bm25], (1, 1))
    >>> [key for key, _ in fused][:3], round(dict(fused)["b"], 3)  # b: dense's flat head
    (['c', 'j', 'a'], 0.015)
    """
    scores: dict[T, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        units = _min_max(ranked)
        peak = 1.0 - sum(unit for _, unit in units[:PEAK_HEAD]) / PEAK_HEAD
        for key, unit in units:
            scores[key] = scores.get(key, 0.0) + weight * peak * unit
    return _ordered(scores)


def _min_max(ranked: Ranked[T]) -> list[tuple[T, float]]:
    """The list's scores mapped to [0, 1] over its own range (all 1 when they are equal)."""
    if not ranked:
        return []
    values = [s for _, s in ranked]
    low, span = min(values), max(values) - min(values)
    return [(key, (score - low) / span if span > 0 else 1.0) for key, score in ranked]


_METHODS: dict[FusionName, Callable[[Sequence[Ranked[T]], Sequence[float]],
                                    list[tuple[T, float]]]] = {
    "rrf": rrf,
    "score": score_fusion,
    "peaked": peaked_fusion,
}


def fuse(dense: Ranked[T], bm25: Ranked[T], fusion: Fusion = DEFAULT_FUSION
         ) -> list[tuple[T, float]]:
    """The two lists fused by ``fusion``, best first. Ties keep the order of first appearance
    (dense before BM25), so the result is deterministic."""
    return _METHODS[fusion.method]([dense, bm25], fusion.weights)


def _ordered(scores: dict[T, float]) -> list[tuple[T, float]]:
    # sorted() is stable: equal scores keep the order keys were first met in.
    return sorted(scores.items(), key=lambda item: -item[1])
