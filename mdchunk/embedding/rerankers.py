"""Rerankers: a second look at search's candidates, query and passage read together. A
cross-encoder scores how well a passage answers the query far better and far slower than a
bi-encoder, so search reranks only the candidates it has already fused. A reranker is any
callable ``(query, texts) -> scores`` (:data:`Reranker`), higher meaning more relevant;
:func:`load_reranker` makes one of a local cross-encoder (nothing is downloaded). Importing this
module loads no model."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..errors import ConfigError, DependencyError
from .resolve import model_folder
from .torch_runtime import local_model

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

__all__ = ["CrossEncoderReranker", "Reranker", "load_reranker", "rerank_scores"]

#: ``(query, texts) -> one score per text``, higher is more relevant.
Reranker = Callable[[str, Sequence[str]], Sequence[float]]


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` (e.g. ``BAAI/bge-reranker-base``) from a local
    folder or the local Hugging Face cache, loaded on the first call, on the CPU unless
    ``device`` says otherwise; ``batch_size`` pairs a forward pass."""

    def __init__(self, model: str, device: str | None = None, batch_size: int = 16) -> None:
        self.model = os.fspath(model)
        self.device = device
        self.batch_size = batch_size

    def __repr__(self) -> str:
        return f"CrossEncoderReranker({self.model!r})"

    def __call__(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        scores = _cross_encoder(self.model, self.device).predict(
            [(query, text) for text in texts], batch_size=self.batch_size,
            show_progress_bar=False, convert_to_numpy=True)
        return [float(score) for score in scores]


def load_reranker(spec: str | os.PathLike[str] | Reranker) -> Reranker:
    """``spec`` itself when it is a callable; else the cross-encoder of that name or folder, its
    files looked for now (so a misspelt name is said before any search runs), its weights loaded
    on the first call."""
    if callable(spec):
        return spec
    if not isinstance(spec, (str, os.PathLike)) or not os.fspath(spec):
        raise ConfigError(f"rerank={spec!r} must be a cross-encoder's name or folder, or a "
                          "callable (query, texts) -> scores")
    name = os.fspath(spec)
    if model_folder(name) is None:
        raise DependencyError(
            f"reranker {name!r} is neither a folder nor a model in the local Hugging Face "
            "cache (nothing is downloaded): download it once where there is a network, e.g. "
            f"`huggingface-cli download {name}`, or pass its folder")
    return CrossEncoderReranker(name)


def rerank_scores(reranker: Reranker, query: str, texts: Sequence[str]) -> list[float]:
    """The reranker's scores for ``texts``, checked: one finite number per text, else a
    :class:`ConfigError` (a reranker that answers otherwise would reorder hits arbitrarily)."""
    scores = list(reranker(query, texts))
    if len(scores) != len(texts):
        raise ConfigError(f"the reranker returned {len(scores)} scores for {len(texts)} texts")
    try:
        checked = [float(score) for score in scores]
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"the reranker returned a score that is no number: {exc}") from exc
    if not all(math.isfinite(score) for score in checked):
        raise ConfigError("the reranker returned a score that is not finite")
    return checked


@functools.lru_cache(maxsize=2)
def _cross_encoder(model: str, device: str | None) -> CrossEncoder:
    """Load once per process: searches in a loop reuse the model."""
    loaded: CrossEncoder = local_model("CrossEncoder", str(model_folder(model) or model),
                                       device or "cpu", "reranking", f"reranker {model!r}")
    return loaded
