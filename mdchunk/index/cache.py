"""Embed each distinct text once per collection: the collection-wide embedding cache.

A chunk collection holds the vectors of one model (its :class:`~mdchunk.index.store.IndexMeta`
records which; another model rebuilds it), and every leaf row carries ``content_hash``, the hash
of its ``embed_text`` (:func:`~mdchunk.index.rows.embed_hash`). So the collection itself is the
cache, keyed by model and embed text: before embedding, the indexer asks the store for the
vectors of the hashes it needs (:meth:`~mdchunk.index.store.ChunkStore.vectors`), and embeds
only those no document has yet. Boilerplate repeated across pages (a licence header, a shared
footer, the admonition every page carries) is embedded once per collection, on Milvus Lite and
on a server alike, with no second copy of any vector and nothing to invalidate: a vector leaves
the cache when the last chunk that uses it does.

Rows written earlier in the same run are found too, even where a server's default (bounded)
consistency would not yet show them: :class:`VectorCache` also remembers what this run
embedded, up to a bound, so that memory does not grow with the corpus.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

from .store import ChunkStore

__all__ = ["RUN_MEMORY", "VectorCache"]

#: Vectors of this run kept in memory (about 1.5 kB each at 384 dimensions: 100 MB).
RUN_MEMORY = 65536


class VectorCache:
    """Vectors by embed hash: this run's most recent ones, then the collection's stored ones."""

    def __init__(self, store: ChunkStore, memory: int = RUN_MEMORY) -> None:
        self.store = store
        self.memory = memory
        self._recent: OrderedDict[str, Any] = OrderedDict()

    def lookup(self, keys: Iterable[str]) -> dict[str, Any]:
        """The vectors known for ``keys`` (unknown keys are left out)."""
        found: dict[str, Any] = {}
        missing: list[str] = []
        for key in dict.fromkeys(keys):
            if key in self._recent:
                found[key] = self._recent[key]
                self._recent.move_to_end(key)
            else:
                missing.append(key)
        if missing:
            found.update(self.store.vectors(missing))
        return found

    def remember(self, vectors: Mapping[str, Any]) -> None:
        """Keep ``vectors`` (just embedded or just written) for the rest of the run."""
        for key, vector in vectors.items():
            self._recent[key] = vector
            self._recent.move_to_end(key)
        while len(self._recent) > self.memory:
            self._recent.popitem(last=False)
