"""Embed each distinct text once per collection. The collection is the cache: a collection holds
one model's vectors and every leaf row carries the hash of its ``embed_text``, so the indexer
asks the store for the vectors of the hashes it needs and embeds only the rest. Nothing to
invalidate: a vector leaves the cache with the last chunk that uses it.

:class:`VectorCache` also remembers, up to a bound, what this run embedded, which a server's
bounded consistency may not show yet."""

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
