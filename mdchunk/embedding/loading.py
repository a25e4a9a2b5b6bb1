"""From what a user names (``--model``, ``model=``) to an :class:`~.protocol.Embedder`.
transformers' progress bars have only process-wide switches, which a library leaves to its
caller: the ``mdchunk`` command turns them off (:func:`mdchunk.cli.app.main`)."""

from __future__ import annotations

from typing import Literal

from .backends import Backend
from .multilingual import USE_MODEL, UniversalSentenceEncoder
from .protocol import Embedder
from .sentence_transformer import SentenceTransformerEmbedder
from .torch_runtime import LazyEmbedder

__all__ = ["load_embedder", "seam_embedder"]


def load_embedder(model: str | Embedder | None,
                  backend: Backend | Literal["auto"] | None = None) -> Embedder:
    """``model`` itself when it is an :class:`~.protocol.Embedder`; USE multilingual for
    ``"use-multilingual"`` (``backend`` ignored); else the sentence-transformers model of that
    name or path (``None``: the bundled default) on ``backend`` (``None``:
    :func:`~.backends.default_backend`)."""
    if isinstance(model, Embedder):
        return model
    if model == USE_MODEL:
        return UniversalSentenceEncoder()
    return SentenceTransformerEmbedder(model, backend=backend)


def seam_embedder(model: str | None) -> Embedder:
    """The model a semantic chunker scores seams with when it is handed none: ``model`` (a
    config's ``semantic_model``; ``None``, the bundled all-MiniLM-L6-v2) on torch, loaded when
    the first seam is scored, so that building a chunker loads nothing."""
    return LazyEmbedder(model)
