"""Fusing a dense and a BM25 result list into one ranking (pure; no Milvus here).

Hybrid search runs both searches and fuses their lists here, in this process, rather than
with Milvus's rankers: the same code then ranks on Milvus Lite and on a server, the fusion is
testable without either, and it can do what Milvus's rankers cannot (weighted RRF).

Two fusions, each weighting the two lists ``(dense, bm25)``:

- ``rrf``: reciprocal-rank fusion, ``sum(w / (k + rank))``; equal weights are plain RRF,
  others weighted RRF. Ranks only: robust to scores on different scales, but a list that
  ranks at random (a model that cannot read the language) still pulls its top hits in as
  strongly as a good list does.
- ``score``: each list's scores min-max normalised to [0, 1] over its own candidates, then
  summed with the weights ("relative score fusion"). A list whose best hit stands out keeps
  its lead; a flat list of near-equal scores spreads over [0, 1] too, which is its weakness.

Which is the default, and with which weights, was chosen on the retrieval bench per language
(BENCHMARKS.md, "Chinese and mixed corpora"); ``weights`` and ``fusion`` stay open to users.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

__all__ = ["DEFAULT_FUSION", "FUSIONS", "FUSION_DEPTH", "Fusion", "FusionName", "fuse", "rrf",
           "score_fusion"]

T = TypeVar("T")
#: One result list, best first: ``(key, score)``, higher scores better.
Ranked = Sequence[tuple[T, float]]
FusionName = Literal["rrf", "score"]
FUSIONS: tuple[FusionName, ...] = ("rrf", "score")
#: RRF's rank offset, as in Cormack et al. (2009) and Milvus's RRFRanker.
RRF_K = 60
#: Candidates each list is fused over, however many hits are asked for: ranks and min-max
#: scores depend on the list's length, so a fixed depth keeps the first hits of ``k=3`` and
#: ``k=9`` in the same order (and is deep enough for ``k * CANDIDATES_PER_HIT`` up to 10).
FUSION_DEPTH = 30


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


#: The fusion hybrid search uses unless told otherwise: min-max score fusion weighting BM25
#: 0.7 and dense 0.3. Of the six fusions the retrieval bench measured (RRF, weighted RRF and
#: score fusion, each at 1:1, 3:7 and 7:3) it is the only one whose hybrid hit@5 is at least
#: the better half's in every corpus and language, and above both halves in three of the six
#: (BENCHMARKS.md, "Chinese and mixed corpora"). BM25 leads because it finds the whole
#: answer more often than either model on runbooks (exact commands, metric names, error
#: strings); min-max scores keep a clear BM25 leader first, which RRF's ranks cannot.
DEFAULT_FUSION = Fusion("score", (0.3, 0.7))


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
        if not ranked:
            continue
        values = [s for _, s in ranked]
        low, span = min(values), max(values) - min(values)
        for key, score in ranked:
            unit = (score - low) / span if span > 0 else 1.0
            scores[key] = scores.get(key, 0.0) + weight * unit
    return _ordered(scores)


_METHODS: dict[FusionName, Callable[[Sequence[Ranked[T]], Sequence[float]],
                                    list[tuple[T, float]]]] = {
    "rrf": rrf,
    "score": score_fusion,
}


def fuse(dense: Ranked[T], bm25: Ranked[T], fusion: Fusion = DEFAULT_FUSION
         ) -> list[tuple[T, float]]:
    """The two lists fused by ``fusion``, best first. Ties keep the order of first appearance
    (dense before BM25), so the result is deterministic."""
    return _METHODS[fusion.method]([dense, bm25], fusion.weights)


def _ordered(scores: dict[T, float]) -> list[tuple[T, float]]:
    # sorted() is stable: equal scores keep the order keys were first met in.
    return sorted(scores.items(), key=lambda item: -item[1])
