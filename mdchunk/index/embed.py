"""Embedders: text in, unit-length float32 vectors out.

The indexer needs more from a model than vectors: its window (so the chunker never makes a chunk
the model would silently truncate), its tokenizer (so chunks are sized in the model's own tokens)
and a portable name (recorded in the index, so another model or machine is detected). The
:class:`Embedder` protocol names exactly those; :class:`SentenceTransformerEmbedder` is the
offline implementation used by default.

It runs its model with PyTorch or, by default where onnxruntime is installed, with
onnxruntime on the model exported to ONNX and quantized to int8 (``backend``: ``torch``,
``onnx``, ``onnx-int8``; :mod:`.onnx_export` exports and caches, :mod:`.onnx_model` runs). The
backend is part of what an index records (:attr:`~mdchunk.index.store.IndexMeta.backend`), so
vectors of two backends never mix in one collection. Where torch sees a GPU, the default is
torch on it, in half precision, with larger batches.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Hashable, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from ..chunks.models import DEFAULT_MODEL, Backend
from ..chunks.models import load_model as _load
from ..chunks.models import resolve_model as _resolve
from ..errors import ConfigError, DependencyError
from .multilingual import USE_MODEL, UniversalSentenceEncoder
from .onnx_export import EXPORTER_VERSION, ONNX_HINT, Export, Unexportable, exported
from .onnx_model import OnnxEncoder, onnx_encoder

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

__all__ = ["BACKENDS", "DEFAULT_MODEL", "GPU_BATCH_SCALE", "Backend", "Embedder",
           "SentenceTransformerEmbedder", "backend_of", "default_backend", "export_of",
           "length_batches", "load_embedder", "vector_kind"]

log = logging.getLogger(__name__)

#: How a sentence-transformers model is run: PyTorch, or onnxruntime on its ONNX export, fp32
#: or int8 (the ``onnx`` extra, part of ``all``).
BACKENDS: tuple[Backend, ...] = ("torch", "onnx", "onnx-int8")
#: A batch on a GPU holds this many times the tokens of one on the CPU.
GPU_BATCH_SCALE = 4


@runtime_checkable
class Embedder(Hashable, Protocol):
    """What the indexer and search need from an embedding model."""

    #: Portable identity recorded in the index (a hub name, never a machine-specific path).
    name: str
    #: Length of every vector.
    dim: int
    #: Tokens of text the model reads, special tokens excluded: the largest safe chunk budget.
    max_tokens: int
    #: A tokenizer spec the chunker accepts (``tokenizer=``) that counts the model's own tokens.
    tokenizer: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``: a float32 array of shape ``(len(texts), dim)``, rows unit
        length."""
        ...


def length_batches(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Indices of ``lengths`` (token counts) in batches, longest texts first, each batch holding
    at most ``budget`` tokens once padded to its longest text (at least one text).

    A model pads every text of a batch to the batch's longest, so sorting first wastes almost
    nothing on padding, and a token budget rather than a fixed count lets a batch of short
    texts hold many: fewer, fuller forward passes. The longest come first so that a batch too
    large for memory fails at once, not at the end of a long run.

    >>> length_batches([5, 100, 7, 98, 6], budget=200)
    [[1, 3], [2, 4, 0]]
    """
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


def _model_folder(source: str) -> Path | None:
    """The local folder of a model path, or of a hub name already in the local cache."""
    if Path(source).is_dir():
        return Path(source)
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(source, local_files_only=True))
    except Exception:  # not cached, or no huggingface_hub: the loader will say so
        return None


def _describe(source: str) -> tuple[int, int] | None:
    """``(dim, max_tokens)`` read from a sentence-transformers folder's config files, without
    loading torch or weights; None when the layout is not the plain one understood here."""
    folder = _model_folder(source)
    if folder is None:
        return None
    try:
        modules = json.loads((folder / "modules.json").read_text())
        dim = None
        for module in modules:
            kind = module["type"].rsplit(".", 1)[-1]
            config_file = folder / module["path"] / "config.json"
            if kind == "Pooling":
                config = json.loads(config_file.read_text())
                modes = sum(bool(v) for k, v in config.items() if k.startswith("pooling_mode_"))
                dim = config["word_embedding_dimension"] * max(modes, 1)
            elif kind == "Dense":
                dim = json.loads(config_file.read_text())["out_features"]
            elif kind not in ("Transformer", "Normalize"):
                return None
        bert_config = json.loads((folder / "sentence_bert_config.json").read_text())
        window = bert_config["max_seq_length"]
        from tokenizers import Tokenizer  # light: no torch, no transformers

        processor = Tokenizer.from_file(str(folder / "tokenizer.json")).post_processor
        special = processor.num_special_tokens_to_add(False) if processor else 0
    except Exception:  # missing or unexpected files: fall back to loading the model
        return None
    return (int(dim), int(window) - special) if dim else None


def _ask_model(model: Any, name: str) -> tuple[int, int]:
    # sentence-transformers renamed the method in v5; accept both spellings.
    get_dim = (getattr(model, "get_embedding_dimension", None)
               or model.get_sentence_embedding_dimension)
    dim = get_dim()
    if not dim:
        raise DependencyError(f"embedding model {name!r} does not report its dimension")
    special = model.tokenizer.num_special_tokens_to_add(pair=False)
    return int(dim), int(model.max_seq_length) - special


def _auto_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _gpu() -> bool:
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
    if _gpu():
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


@functools.lru_cache(maxsize=16)
def _say_fallback(name: str, reason: str) -> None:
    log.warning("%s cannot run on ONNX (%s): embedding with torch", name, reason)


@functools.lru_cache(maxsize=8)
def _onnx_export(source: str, name: str, quantized: bool) -> Export | None:
    """The model's ONNX export (made and cached on first use), or None when it cannot be
    exported: said once, with why. Once per process and model."""
    if find_spec("onnxruntime") is None or find_spec("onnx") is None:
        raise DependencyError(f"the ONNX backends need onnxruntime and onnx: {ONNX_HINT}")
    folder = _model_folder(source)
    try:
        if folder is None:
            raise Unexportable("its files are not in the local model cache")
        return exported(folder, name, quantized=quantized)
    except Unexportable as exc:
        _say_fallback(name, str(exc))
        return None


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from local files only.

    ``model`` is a local directory, a hub name already in the local cache (e.g. ``BAAI/bge-m3``)
    or ``None`` for the bundled all-MiniLM-L6-v2. ``backend`` is ``torch``, ``onnx`` (the model
    exported to ONNX, run by onnxruntime) or ``onnx-int8`` (the export quantized to int8);
    ``None`` or ``auto`` is :func:`default_backend`. A model that cannot be exported runs on
    torch, said once with why; :attr:`backend` then says ``torch``. ``device`` (torch only)
    ``None`` picks CUDA when available, where the model runs in half precision and a batch
    holds :data:`GPU_BATCH_SCALE` times the tokens.

    Texts are embedded in batches by length (:func:`length_batches`): each batch holds at most
    ``batch_tokens`` tokens, by default as many as ``batch_size`` texts of the model's full
    window, so a batch of short texts holds more of them and no batch takes more memory than
    ``batch_size`` texts ever could.
    """

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
        self.name, self._source = _resolve(model)
        self._device = device
        self.batch_size = batch_size
        #: The backend asked for; :attr:`backend` is the one used.
        self.wanted: Backend = backend
        self._backend: Backend | None = "torch" if backend == "torch" else None
        self._export: Export | None = None
        self._batch_tokens = batch_tokens
        self.tokenizer: str = self._source
        described = _describe(self._source)
        if described is None:  # an unusual layout: ask the loaded model itself
            described = _ask_model(self._load(), self.name)
        self.dim, self.max_tokens = described

    @property
    def backend(self) -> Backend:
        """The backend the vectors come from. For an ONNX one, the first call exports the
        model when its export is not cached yet (or is broken), and falls back to torch when
        it cannot be exported."""
        if self._backend is None:
            self._export = _onnx_export(self._source, self.name, self.wanted == "onnx-int8")
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
            self._device = _auto_device()
        return self._device

    def _load(self) -> SentenceTransformer:
        """The torch model, loaded on first use: an index run with nothing new to embed never
        pays the seconds torch and the weights take to load. On a GPU, in half precision."""
        model = _load(self._source, self.device)
        if self.device.startswith("cuda"):
            model.half()  # idempotent: the loaded model is shared
        return model

    def _encoder(self) -> OnnxEncoder | None:
        """The onnxruntime session, or None on the torch backend."""
        if self.backend == "torch" or self._export is None:
            return None
        return onnx_encoder(self._export.folder, self.backend == "onnx-int8")

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text as the model reads it (special tokens in, cut at its window)."""
        encoder = self._encoder()
        if encoder is not None:
            return [len(e.ids) for e in encoder.encodings(texts)]
        model = self._load()
        encoded = model.tokenizer(list(texts), add_special_tokens=True, truncation=True,
                                  max_length=model.max_seq_length)
        return [len(ids) for ids in encoded["input_ids"]]

    @property
    def batch_tokens(self) -> int:
        """Tokens a batch may hold, padding included."""
        if self._batch_tokens:
            return self._batch_tokens
        if self._encoder() is not None and self._export is not None:
            return self.batch_size * self._export.max_seq_length
        window = self._load().max_seq_length or self.max_tokens
        scale = GPU_BATCH_SCALE if self.device.startswith("cuda") else 1
        return self.batch_size * window * scale

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalized float32 vectors, in batches by length (:func:`length_batches`)."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encoder = self._encoder()
        if encoder is not None:
            encodings = encoder.encodings(texts)
            if self.backend == "onnx-int8":
                # Dynamic int8 scales a batch's activations by the whole batch's range, so a
                # text's vector would move with its neighbours (cosine 0.99) and an interrupted
                # run would not redo the vectors of a clean one. Alone, a text gets the same
                # vector in every run, and no padding is computed: as fast as batches here.
                for i, encoding in enumerate(encodings):
                    out[i] = encoder.encode([encoding])[0]
                return out
            for batch in length_batches([len(e.ids) for e in encodings], self.batch_tokens):
                out[batch] = encoder.encode([encodings[i] for i in batch])
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


def load_embedder(model: str | Embedder | None,
                  backend: Backend | Literal["auto"] | None = None) -> Embedder:
    """``model`` itself when it is an :class:`Embedder`; the multilingual Universal Sentence
    Encoder for ``"use-multilingual"`` (numpy: it has no backend to choose, ``backend`` is
    ignored); else the sentence-transformers model of that name or path (``None``: the bundled
    default) on ``backend`` (``None``: :func:`default_backend`)."""
    if isinstance(model, Embedder):
        return model
    if model == USE_MODEL:
        return UniversalSentenceEncoder()
    return SentenceTransformerEmbedder(model, backend=backend)
