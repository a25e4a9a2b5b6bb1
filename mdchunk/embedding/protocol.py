"""The one thing every embedding model is to mdchunk: text in, unit-length vectors out, with its
window (so no chunk is silently truncated), its tokenizer (so chunks are sized in its tokens) and
a portable name (recorded in the index). Imports nothing of any model: the plan stage knows
embedders by it alone."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Hashable, Protocol):
    """An embedding model as the indexer, search and the semantic scorer use it; hashable (by
    identity) so that a chunker can be kept per model. The attributes are read-only properties so
    that an embedder may work them out late; a plain attribute satisfies them as well."""

    @property
    def name(self) -> str:
        """Portable identity recorded in the index (a hub name, never a machine-specific
        path)."""

    @property
    def dim(self) -> int:
        """Length of every vector."""

    @property
    def max_tokens(self) -> int:
        """Tokens of text the model reads, special tokens excluded: the largest safe chunk
        budget."""

    @property
    def tokenizer(self) -> str:
        """A tokenizer spec the chunker accepts (``tokenizer=``) that counts the model's own
        tokens."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``: a float32 array of shape ``(len(texts), dim)``, rows unit
        length."""
