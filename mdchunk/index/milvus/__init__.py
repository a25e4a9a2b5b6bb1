"""Milvus (Lite or a server) behind :class:`~mdchunk.index.store.ChunkStore`: everything that
knows it is Milvus lives here, and nothing above imports it but the places that open a store.

``store`` (:class:`MilvusStore`: connect, write, read, search one side), ``client`` (the
connection and its one-line errors), ``collections`` (the three collections' schemas with the
BM25 analyzer and function, their indexes, the paged read), ``manifest`` (one row per document),
``filters`` (store-neutral filters and lookups as Milvus expressions, values quoted) and
``locks`` (where a server keeps its indexes' write locks).
"""

from .collections import is_local
from .manifest import MilvusManifest
from .store import MilvusStore

__all__ = ["MilvusManifest", "MilvusStore", "is_local"]
