"""An in-memory store (``db="memory://NAME"``): every index of a process in dicts, for tests
and trials; a second :func:`open_store` of the same name and collection in the same process
sees what the first wrote (an index, then a search), and nothing outlives the process.

It is a store like Milvus: this package, and its line in :data:`mdchunk.index.stores.STORES`.
"""

from __future__ import annotations

import threading

from ..config import StoreConfig
from .store import MemoryManifest, MemoryStore

__all__ = ["MemoryManifest", "MemoryStore", "local_file", "open_store"]

#: The indexes of this process, by ``(db, collection)``.
_INDEXES: dict[tuple[str, str], MemoryStore] = {}
_MADE = threading.Lock()


def open_store(config: StoreConfig, *, create: bool = True) -> MemoryStore:
    """The in-memory index ``config`` names, made empty the first time; without ``create``,
    an empty one that is not kept (a search leaves nothing behind)."""
    with _MADE:
        key = (config.db, config.collection)
        if key not in _INDEXES:
            if not create:
                return MemoryStore(config.collection)
            _INDEXES[key] = MemoryStore(config.collection)
        return _INDEXES[key]


def local_file(db: str) -> str | None:
    """None: no file to lock (one process holds the index)."""
    return None
