"""Embedding: the models that turn text into vectors, for the index and the semantic scorer, all
behind one protocol (:class:`Embedder`). Importing this package loads neither torch, onnxruntime
nor any weights: they load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .backends import (
        BACKENDS,
        Backend,
        backend_of,
        default_backend,
        export_of,
        recorded_backend,
        vector_kind,
    )
    from .loading import load_embedder, seam_embedder
    from .multilingual import USE_MODEL, UniversalSentenceEncoder
    from .onnx_export import EXPORTER_VERSION
    from .prompts import KNOWN_PROMPTS, Prompts, model_prompts, with_prompt
    from .protocol import Embedder
    from .rerankers import CrossEncoderReranker, Reranker, load_reranker
    from .resolve import DEFAULT_MODEL, resolve_model
    from .sentence_transformer import SentenceTransformerEmbedder, length_batches

__all__ = ["BACKENDS", "DEFAULT_MODEL", "EXPORTER_VERSION", "KNOWN_PROMPTS", "USE_MODEL",
           "Backend", "CrossEncoderReranker", "Embedder", "Prompts", "Reranker",
           "SentenceTransformerEmbedder",
           "UniversalSentenceEncoder", "backend_of", "default_backend", "export_of",
           "length_batches", "load_embedder", "load_reranker", "model_prompts", "recorded_backend",
           "resolve_model", "seam_embedder", "vector_kind", "with_prompt"]

__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(["BACKENDS", "Backend", "backend_of", "default_backend", "export_of",
                     "recorded_backend", "vector_kind"], ".backends"),
    **dict.fromkeys(["load_embedder", "seam_embedder"], ".loading"),
    **dict.fromkeys(["USE_MODEL", "UniversalSentenceEncoder"], ".multilingual"),
    "EXPORTER_VERSION": ".onnx_export",
    **dict.fromkeys(["KNOWN_PROMPTS", "Prompts", "model_prompts", "with_prompt"], ".prompts"),
    "Embedder": ".protocol",
    **dict.fromkeys(["CrossEncoderReranker", "Reranker", "load_reranker"], ".rerankers"),
    **dict.fromkeys(["DEFAULT_MODEL", "resolve_model"], ".resolve"),
    **dict.fromkeys(["SentenceTransformerEmbedder", "length_batches"], ".sentence_transformer"),
})
