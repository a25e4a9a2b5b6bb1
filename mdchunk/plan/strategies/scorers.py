"""Scorers: how alike each unit of text is to each of the next few (within ``reach``: as far as
one chunk can hold). :class:`LexicalScorer`: Jaccard similarity of word sets, CJK as character
bigrams; no model. :class:`EmbeddingScorer`: cosine of embeddings from an
:class:`~mdchunk.embedding.Embedder` handed in, every unit embedded once, in one batch."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from ...embedding.protocol import Embedder

__all__ = ["EmbeddingScorer", "LexicalScorer", "SeamScorer", "word_set"]

#: Latin words and digits (lower-cased), or a run of CJK ideographs / kana / hangul.
_TOKEN = re.compile(r"[^\W\d_]+|\d+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def word_set(text: str) -> frozenset[str]:
    """The words of ``text`` for Jaccard: Latin words lower-cased, CJK runs as their character
    bigrams (a lone CJK character stands for itself).

    >>> sorted(word_set("Restart the Pod. 重启服务"))
    ['pod', 'restart', 'the', '启服', '服务', '重启']
    """
    words: set[str] = set()
    for match in _TOKEN.finditer(text):
        token = match.group()
        if _CJK.match(token):
            words.update(token[i:i + 2] for i in range(max(1, len(token) - 1)))
        else:
            words.add(token.lower())
    return frozenset(words)


class SeamScorer(Protocol):
    """Scores how alike nearby units of text are."""

    name: str

    def band(self, units: Sequence[str], reach: int) -> list[list[float]]:
        """For each unit ``i``, its similarity to units ``i + 1 .. i + reach`` (fewer near the
        end): ``band[i][d - 1]`` is unit ``i`` against unit ``i + d``; higher means more
        alike (two units better kept in one chunk)."""


class LexicalScorer:
    """Jaccard similarity of the units' word sets."""

    name = "lexical"

    def band(self, units: Sequence[str], reach: int) -> list[list[float]]:
        sets = [word_set(u) for u in units]
        out = []
        for i, a in enumerate(sets):
            row = []
            for b in sets[i + 1:i + 1 + reach]:
                union = len(a | b)
                # two blanks: nothing tells them apart
                row.append(len(a & b) / union if union else 1.0)
            out.append(row)
        return out


class EmbeddingScorer:
    """Cosine similarity of the units' embeddings, each unit embedded once, in one batch.
    Only :meth:`~mdchunk.embedding.Embedder.embed` of the embedder is called."""

    name = "embedding"

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def band(self, units: Sequence[str], reach: int) -> list[list[float]]:
        if not units:
            return []
        import numpy as np  # present wherever an embedding model is: the ``embed`` extra

        vectors = np.asarray(self.embedder.embed(list(units)), dtype=np.float64)
        if vectors.ndim != 2 or len(vectors) != len(units):
            raise ValueError(f"the embedder returned shape {vectors.shape} for {len(units)} texts")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms > 0, norms, 1.0)
        n = len(units)
        out: list[list[float]] = [[] for _ in range(n)]
        for d in range(1, min(reach, n - 1) + 1):
            dots = np.einsum("ij,ij->i", vectors[:n - d], vectors[d:])
            for i, dot in enumerate(dots.tolist()):
                out[i].append(float(dot))
        return out
