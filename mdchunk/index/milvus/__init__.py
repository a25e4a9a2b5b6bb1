"""Milvus (Lite or a server) behind :class:`~mdchunk.index.store.ChunkStore`: everything that
knows it is Milvus lives here, and nothing above imports it: :mod:`mdchunk.index.stores` opens
it for any ``db`` that is a file path or a pymilvus URI.

``store`` (:class:`MilvusStore`: connect, write, read, search one side), ``client`` (the
connection and its one-line errors), ``collections`` (the three collections' schemas with the
BM25 analyzers' params and function, their indexes, the paged read), ``manifest`` (one row per
document), ``filters`` (store-neutral filters and lookups as Milvus expressions, values quoted)
and ``locks`` (where a server keeps its indexes' write locks).
"""

from __future__ import annotations

from ..config import StoreConfig
from .collections import ANALYZERS, is_local
from .manifest import MilvusManifest
from .store import MilvusStore

__all__ = ["ANALYZERS", "MilvusManifest", "MilvusStore", "is_local", "local_file", "open_store"]


def open_store(config: StoreConfig, *, create: bool = True) -> MilvusStore:
    """The Milvus store of ``config``: a Lite file or a server, ``credential`` its token;
    without ``create``, a Lite file that is not there is refused rather than made."""
    return MilvusStore(config.db, config.collection, token=config.credential, create=create)


def local_file(db: str) -> str | None:
    """A Milvus Lite file (one process opens it at a time); ``None`` for a server, which keeps
    its write locks in a collection (:mod:`.locks`)."""
    return db if is_local(db) else None
