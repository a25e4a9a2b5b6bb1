"""Which store an index lives in: a registry of store packages keyed by the scheme of
:attr:`StoreConfig.db <mdchunk.index.config.StoreConfig.db>`, and :func:`open_store`, the one
place indexing, search, the server and the write lock open a store.

A store is a package under ``mdchunk/index/`` whose ``__init__`` offers what
:class:`StorePackage` names (it opens a :class:`~mdchunk.index.store.ChunkStore` for a
config, and says which local file a writing run locks before opening it), plus its line in
:data:`STORES`. Packages are imported on first use, so a store's client library loads only
when an index is opened there.
"""

from __future__ import annotations

import importlib
from typing import Protocol, cast

from .config import StoreConfig
from .store import ChunkStore

__all__ = ["DEFAULT_STORE", "STORES", "StorePackage", "open_store", "store_package",
           "stored_counts"]

#: Store packages by the URI scheme that selects them (``memory://kb``).
STORES: dict[str, str] = {
    "memory": "mdchunk.index.memory",
}
#: The package of any other ``db``: Milvus reads a file path (Milvus Lite) and every URI
#: pymilvus does (``http://host:19530``, ``https://…``, ``tcp://…``).
DEFAULT_STORE = "mdchunk.index.milvus"


class StorePackage(Protocol):
    """What a store package offers, at its top level."""

    def open_store(self, config: StoreConfig, *, create: bool = True) -> ChunkStore:
        """The store of ``config``, connected (a :class:`~mdchunk.StoreError` naming the URI
        when it cannot be); without ``create``, a store that is not there yet is refused, not
        made (read-only commands leave nothing behind)."""
        ...

    def local_file(self, db: str) -> str | None:
        """The file at ``db`` that one process at a time may open (a Milvus Lite file), which
        a writing run locks before opening the store (:func:`mdchunk.index.lock.index_lock`);
        ``None`` when the store keeps its write locks itself
        (:meth:`~mdchunk.index.store.ChunkStore.lock_table`) or needs none."""
        ...


def store_package(db: str) -> StorePackage:
    """The package of the store ``db`` names, by its scheme (:data:`STORES`)."""
    scheme = db.split("://", 1)[0].lower() if "://" in db else ""
    return cast(StorePackage, importlib.import_module(STORES.get(scheme, DEFAULT_STORE)))


def open_store(config: StoreConfig, *, create: bool = True) -> ChunkStore:
    """The store ``config`` names, open; the caller closes it. Without ``create``, one that is
    not there yet is refused (:class:`~mdchunk.StoreError`) rather than made."""
    return store_package(config.db).open_store(config, create=create)


def stored_counts(store: ChunkStore) -> tuple[int, int]:
    """``(chunks, documents)``: the leaves ``store`` holds and the documents whose write is
    done, as ``index``, ``config`` and the server's ``/v1/collections`` report them."""
    entries = store.manifest.entries()
    return store.count(), sum(not entry.pending for entry in entries.values())
