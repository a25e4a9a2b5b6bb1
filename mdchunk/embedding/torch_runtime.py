"""Sentence-transformers models on PyTorch, loaded once per process from local files on first
use; :class:`LazyEmbedder` loads nothing until the first seam is scored, so chunking greedily
never imports torch."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import DependencyError
from .resolve import EXTRA_HINT, describe, resolve_model

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

__all__ = ["LazyEmbedder", "ask_model", "auto_device", "load_model", "local_model"]


@functools.lru_cache(maxsize=4)
def load_model(source: str, device: str) -> SentenceTransformer:
    """Load once per process (PyTorch): a model takes seconds to load and tests and CLI reuse
    it."""
    model: SentenceTransformer = local_model("SentenceTransformer", source, device, "embedding",
                                             f"embedding model {source!r}")
    return model


def local_model(kind: str, source: str, device: str, use: str, named: str) -> Any:
    """``sentence_transformers.<kind>`` (``SentenceTransformer``, ``CrossEncoder``) of
    ``source`` from local files only; a missing package or a model that will not load is a
    :class:`DependencyError` saying what needs it (``use``) and which model (``named``)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import sentence_transformers
    except ImportError as exc:
        raise DependencyError(f"{use} needs sentence-transformers: {EXTRA_HINT}") from exc
    try:
        return getattr(sentence_transformers, kind)(source, device=device, local_files_only=True)
    except Exception as exc:  # missing files, bad config, unknown device: many exception types
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DependencyError(f"{named} could not be loaded locally (no network is used): "
                              f"{first_line}") from exc


def ask_model(model: Any, name: str) -> tuple[int, int]:
    """``(dim, max_tokens)`` of a loaded model, for a folder :func:`~.resolve.describe` cannot
    read."""
    # sentence-transformers renamed the method in v5; accept both spellings.
    get_dim = (getattr(model, "get_embedding_dimension", None)
               or model.get_sentence_embedding_dimension)
    dim = get_dim()
    if not dim:
        raise DependencyError(f"embedding model {name!r} does not report its dimension")
    special = model.tokenizer.num_special_tokens_to_add(pair=False)
    return int(dim), int(model.max_seq_length) - special


def auto_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class LazyEmbedder:
    """A model spec (``None`` for the bundled all-MiniLM-L6-v2, a cached hub name, or a folder)
    that loads on the first :meth:`embed`, on the CPU; the rest of :class:`~.protocol.Embedder`
    is worked out when asked, from the model's config files or else the loaded model."""

    def __init__(self, model: str | None = None, batch_size: int = 64) -> None:
        self.model = model
        self.batch_size = batch_size

    @property
    def name(self) -> str:
        return resolve_model(self.model)[0]

    @property
    def tokenizer(self) -> str:
        return resolve_model(self.model)[1]

    @property
    def dim(self) -> int:
        return self._shape()[0]

    @property
    def max_tokens(self) -> int:
        return self._shape()[1]

    def _shape(self) -> tuple[int, int]:
        _, source = resolve_model(self.model)
        return describe(source) or ask_model(load_model(source, "cpu"), self.name)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length vectors of ``texts``, one forward pass per ``batch_size`` texts."""
        _, source = resolve_model(self.model)
        vectors: np.ndarray = load_model(source, "cpu").encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False)
        return vectors
