"""Seam scorers: how alike the text on the two sides of each seam is.

A semantic strategy asks a scorer for the similarity of each pair of neighbouring units (a
sentence, an item, a block); the less alike two neighbours are, the better a place to end a
chunk between them. Two scorers:

* :class:`LexicalScorer` — Jaccard similarity of word sets: Latin words lower-cased, CJK text as
  character bigrams (Chinese has no spaces between words). No model, deterministic, fast.
* :class:`EmbeddingScorer` — cosine similarity of sentence embeddings. The model is an explicit
  :class:`Encoder` handed in (the chunker builds a lazily loaded one at its edge), so this module
  imports neither torch nor sentence-transformers; every unit is embedded once, in one batch.

Both score a unit together with up to ``window - 1`` units before it (and after it, on the far
side), as semantic chunkers do, so that one short sentence does not decide a seam alone.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["EmbeddingScorer", "Encoder", "LexicalScorer", "SeamScorer", "word_set"]

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
    """Scores the seams between neighbouring units of text."""

    name: str

    def similarities(self, units: Sequence[str]) -> list[float]:
        """``len(units) - 1`` similarities, one for each seam between neighbours; higher means
        more alike (a worse place to cut)."""
        ...


def _windows(n: int, window: int) -> list[tuple[range, range]]:
    """For each seam ``i`` (before unit ``i``), the units on its left and its right."""
    return [(range(max(0, i - window), i), range(i, min(n, i + window))) for i in range(1, n)]


class LexicalScorer:
    """Jaccard similarity of the word sets on the two sides of each seam."""

    name = "lexical"

    def __init__(self, window: int = 2) -> None:
        self.window = max(1, window)

    def similarities(self, units: Sequence[str]) -> list[float]:
        sets = [word_set(u) for u in units]
        out = []
        for left, right in _windows(len(units), self.window):
            a = frozenset().union(*(sets[k] for k in left))
            b = frozenset().union(*(sets[k] for k in right))
            union = len(a | b)
            out.append(len(a & b) / union if union else 1.0)  # two blanks: nothing tells them apart
        return out


@runtime_checkable
class Encoder(Hashable, Protocol):
    """An embedding model as the embedding scorer needs it (``mdchunk.index``'s embedders,
    and the chunker's lazily loaded sentence-transformers model, are such objects); hashable,
    as objects are by identity, so that a chunker can be kept per model."""

    def embed(self, texts: Sequence[str]) -> Any:
        """One vector per text: an array-like of shape ``(len(texts), dim)``."""
        ...


class EmbeddingScorer:
    """Cosine similarity of the mean embeddings on the two sides of each seam."""

    name = "embedding"

    def __init__(self, encoder: Encoder, window: int = 2) -> None:
        self.encoder = encoder
        self.window = max(1, window)

    def similarities(self, units: Sequence[str]) -> list[float]:
        if len(units) < 2:
            return []
        import numpy as np  # present wherever an embedding model is: the ``embed`` extra

        vectors = np.asarray(self.encoder.embed(list(units)), dtype=np.float64)
        if vectors.ndim != 2 or len(vectors) != len(units):
            raise ValueError(f"the encoder returned shape {vectors.shape} for {len(units)} texts")
        # the sum of the window's vectors on each side, from running sums
        sums = np.vstack([np.zeros((1, vectors.shape[1])), np.cumsum(vectors, axis=0)])
        seams = np.arange(1, len(units))
        left = sums[seams] - sums[np.maximum(0, seams - self.window)]
        right = sums[np.minimum(len(units), seams + self.window)] - sums[seams]
        norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
        dots = np.einsum("ij,ij->i", left, right)
        return [float(x) for x in np.where(norms > 0, dots / np.where(norms > 0, norms, 1), 1.0)]
