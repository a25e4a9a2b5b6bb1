"""From what a user names (``--model``, ``model=``) to an :class:`~.protocol.Embedder`.

Loading a sentence-transformers model on torch, transformers draws a "Loading weights" progress
bar on stderr. It has no per-call switch, only process-wide ones, and a library does not turn a
process-wide switch in its caller's process: ``mdchunk`` (the command, which owns its process)
turns the bars off before anything imports them (:func:`mdchunk.cli.app.main`); a program that
wants them off calls ``transformers.utils.logging.disable_progress_bar()`` or sets
``HF_HUB_DISABLE_PROGRESS_BARS=1`` before importing transformers."""

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
    """``model`` itself when it is an :class:`~.protocol.Embedder`; the multilingual Universal
    Sentence Encoder for ``"use-multilingual"`` (numpy: it has no backend to choose,
    ``backend`` is ignored); else the sentence-transformers model of that name or path
    (``None``: the bundled default) on ``backend`` (``None``:
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
