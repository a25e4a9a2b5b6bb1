"""How an embedder runs its model (torch, ONNX fp32 or int8, numpy for USE), which an index
records (:attr:`~mdchunk.index.store.IndexMeta.backend`), so vectors of two never mix in one
collection."""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path
from typing import Literal

from .protocol import Embedder

__all__ = ["BACKENDS", "Backend", "backend_of", "default_backend", "export_of", "gpu",
           "recorded_backend", "vector_kind"]

#: How an embedder runs its model: PyTorch, or onnxruntime on the model exported to ONNX, fp32
#: or quantized to int8. Seams are always scored with torch.
Backend = Literal["torch", "onnx", "onnx-int8"]
#: How a sentence-transformers model is run: PyTorch, or onnxruntime on its ONNX export, fp32
#: or int8 (the ``onnx`` extra, part of ``all``).
BACKENDS: tuple[Backend, ...] = ("torch", "onnx", "onnx-int8")


def recorded_backend(recorded: str) -> Backend | None:
    """The backend to embed a query with, from the one a collection records (USE's ``numpy``,
    or nothing recorded, is no choice: ``None``).

    >>> recorded_backend("onnx-int8"), recorded_backend("numpy")
    ('onnx-int8', None)
    """
    return next((name for name in BACKENDS if name == recorded), None)


def gpu() -> bool:
    """Whether torch sees a CUDA device. Asked only where an NVIDIA driver shows (or where that
    cannot be told), so that the ONNX path of a CPU machine never imports torch."""
    if os.name == "posix" and not (Path("/proc/driver/nvidia/version").exists()
                                   or Path("/dev/nvidia0").exists()):
        return False
    if find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def default_backend() -> Backend:
    """``torch`` where torch sees a GPU, else ``onnx-int8`` where onnxruntime and onnx are
    installed, else ``torch``."""
    if gpu():
        return "torch"
    return "onnx-int8" if find_spec("onnxruntime") and find_spec("onnx") else "torch"


def backend_of(embedder: Embedder) -> str:
    """The backend an embedder's vectors come from, as an index records it (``torch`` for an
    embedder that does not say)."""
    return str(getattr(embedder, "backend", "torch"))


def export_of(embedder: Embedder) -> str:
    """The ONNX export recipe (:data:`~.onnx_export.EXPORTER_VERSION`) an embedder's vectors
    come from, as an index records it: ``""`` on torch, numpy, and for an embedder that does
    not say."""
    return str(getattr(embedder, "export", ""))


def vector_kind(embedder: Embedder) -> str:
    """How an embedder's vectors are made besides its model, for a cache of vectors to key on
    with the model's name: ``""`` on torch and numpy (the vectors the model's own code makes),
    else the backend and its export recipe (``onnx-int8-e2``); recipe 1 was not recorded."""
    backend, export = backend_of(embedder), export_of(embedder)
    if backend in ("torch", "numpy"):
        return ""
    return backend if export in ("", "1") else f"{backend}-e{export}"
