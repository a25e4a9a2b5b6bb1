"""The sentence-transformers embedder: a model from local files, on torch, or by default where
onnxruntime is installed on its ONNX export quantized to int8; on a GPU, torch in half precision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from ..errors import ConfigError
from .backends import BACKENDS, Backend, default_backend
from .onnx_export import EXPORTER_VERSION, Export, export_of_model
from .onnx_runtime import OnnxSession, onnx_session
from .resolve import describe, resolve_model
from .torch_runtime import ask_model, auto_device, load_model

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

__all__ = ["GPU_BATCH_SCALE", "ONNX_BATCH_TOKENS", "SentenceTransformerEmbedder", "length_batches"]

#: A batch on a GPU holds this many times the tokens of one on the CPU.
GPU_BATCH_SCALE = 4
#: Tokens an ONNX batch holds, padding included: a larger batch costs more CPU time per text
#: (BENCHMARKS.md), so a long text runs alone and short ones about a dozen at a time.
ONNX_BATCH_TOKENS = 256


def length_batches(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Indices of ``lengths`` (token counts) in batches, longest texts first, each batch holding at
    most ``budget`` tokens once padded to its longest text (at least one text): sorted, little is
    padding; a token budget lets a batch of short texts hold many; the longest first, so that a
    batch too large for memory fails at once.

    >>> length_batches([5, 100, 7, 98, 6], budget=200)
    [[1, 3], [2, 4, 0]]"""
    if budget < 1:
        raise ConfigError(f"batch_tokens={budget} must be at least 1")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    for i in order:
        # Sorted longest first: a batch's first text is its longest, its padded length.
        if batches and (len(batches[-1]) + 1) * max(lengths[batches[-1][0]], 1) <= budget:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from local files only.

    ``model`` is a local directory, a hub name already in the local cache or ``None`` for the
    bundled all-MiniLM-L6-v2. ``backend`` is ``torch``, ``onnx`` or ``onnx-int8`` (``None`` or
    ``auto``: :func:`default_backend`); a model that cannot be exported runs on torch, said once.
    ``device`` (torch only) ``None`` picks CUDA when available, in half precision with
    :data:`GPU_BATCH_SCALE` times the tokens a batch. Texts are embedded in batches by length
    (:func:`length_batches`) of at most ``batch_tokens`` tokens (by default ``batch_size`` texts
    of the full window; on ONNX at most :data:`ONNX_BATCH_TOKENS`)."""

    def __init__(self, model: str | None = None, device: str | None = None,
                 batch_size: int = 32, *, backend: Backend | Literal["auto"] | None = None,
                 batch_tokens: int | None = None) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size={batch_size} must be at least 1")
        if backend is None or backend == "auto":
            backend = default_backend()
        if backend not in BACKENDS:
            raise ConfigError(f"backend={backend!r} must be one of auto, {', '.join(BACKENDS)}")
        if batch_tokens is not None and batch_tokens < 1:
            raise ConfigError(f"batch_tokens={batch_tokens} must be at least 1")
        #: Where the model's files are: a folder, or a hub name in the local cache (where its
        #: declared prompts are read: :mod:`.prompts`).
        self.name, self.source = resolve_model(model)
        self._device = device
        self.batch_size = batch_size
        #: The backend asked for; :attr:`backend` is the one used.
        self.wanted: Backend = backend
        self._backend: Backend | None = "torch" if backend == "torch" else None
        self._export: Export | None = None
        self._batch_tokens = batch_tokens
        self.tokenizer: str = self.source
        described = describe(self.source)
        if described is None:  # an unusual layout: ask the loaded model itself
            described = ask_model(self._load(), self.name)
        self.dim, self.max_tokens = described

    @property
    def backend(self) -> Backend:
        """The backend the vectors come from. For an ONNX one, the first call exports the
        model when its export is not cached yet (or is broken), and falls back to torch when
        it cannot be exported."""
        if self._backend is None:
            self._export = export_of_model(self.source, self.name, self.wanted == "onnx-int8")
            self._backend = self.wanted if self._export is not None else "torch"
        return self._backend

    @property
    def export(self) -> str:
        """The export recipe of an ONNX backend's vectors (``""`` on torch): a new recipe's
        vectors differ a little from an old one's, so an index records it beside the
        backend."""
        return "" if self.backend == "torch" else EXPORTER_VERSION

    @property
    def device(self) -> str:
        if self._device is None:
            self._device = auto_device()
        return self._device

    def _load(self) -> SentenceTransformer:
        """The torch model, loaded on first use: an index run with nothing new to embed never
        pays the seconds torch and the weights take to load. On a GPU, in half precision."""
        model = load_model(self.source, self.device)
        if self.device.startswith("cuda"):
            model.half()  # idempotent: the loaded model is shared
        return model

    def _session(self) -> OnnxSession | None:
        """The onnxruntime session, or None on the torch backend."""
        if self.backend == "torch" or self._export is None:
            return None
        return onnx_session(self._export.folder, self.backend == "onnx-int8")

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text as the model reads it (special tokens in, cut at its window)."""
        session = self._session()
        if session is not None:
            return [len(e.ids) for e in session.encodings(texts)]
        model = self._load()
        encoded = model.tokenizer(list(texts), add_special_tokens=True, truncation=True,
                                  max_length=model.max_seq_length)
        return [len(ids) for ids in encoded["input_ids"]]

    @property
    def batch_tokens(self) -> int:
        """Tokens a batch may hold, padding included."""
        if self._batch_tokens:
            return self._batch_tokens
        if self._session() is not None and self._export is not None:
            return min(ONNX_BATCH_TOKENS, self.batch_size * self._export.max_seq_length)
        window = self._load().max_seq_length or self.max_tokens
        scale = GPU_BATCH_SCALE if self.device.startswith("cuda") else 1
        return self.batch_size * window * scale

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalized float32 vectors, in batches by length (:func:`length_batches`)."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session = self._session()
        if session is not None:
            # Each batch holds texts of about one length, padded to its longest; an int8
            # vector does not depend on its batch (activations are scaled per row:
            # .int8_rows), so batching changes no vector.
            encodings = session.encodings(texts)
            batches = length_batches([len(e.ids) for e in encodings], self.batch_tokens)
            for batch, vectors in session.encode_batches(encodings, batches):
                out[batch] = vectors
            return out
        model = self._load()
        for batch in length_batches(self.token_lengths(texts), self.batch_tokens):
            out[batch] = model.encode([texts[i] for i in batch], batch_size=len(batch),
                                      normalize_embeddings=True, convert_to_numpy=True,
                                      show_progress_bar=False)
        return out

    def __repr__(self) -> str:
        return (f"SentenceTransformerEmbedder({self.name!r}, dim={self.dim}, "
                f"{self._backend or self.wanted})")
