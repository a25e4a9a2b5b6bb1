"""The manifest of an index in Milvus (``<collection>_manifest``): one row per indexed document,
its file hash, chunker config, chunk count and path, read and written by the indexer.

It lives in Milvus beside the chunks, so two machines indexing into one server agree on what
is already there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ..store import ManifestEntry
from .collections import DUMMY_VECTOR, create_manifest_collection, select_rows

__all__ = ["MilvusManifest"]


class MilvusManifest:
    """The manifest collection (``<collection>_manifest``): one row per indexed document."""

    def __init__(self, client: Any, collection: str,
                 errors: Callable[[str], AbstractContextManager[None]]) -> None:
        self._client = client
        self.collection = collection
        self._errors = errors

    def create(self) -> None:
        create_manifest_collection(self._client, self.collection)

    def entries(self) -> dict[str, ManifestEntry]:
        """Every document entry, read in pages (a knowledge base may exceed one query's limit).
        The collection is loaded first: a store opened to search (a server counting its
        documents) has loaded only what a search reads."""
        fields = ["doc_id", "content_hash", "config", "chunk_count", "path"]
        entries: dict[str, ManifestEntry] = {}
        with self._errors("read manifest"):
            self._client.load_collection(self.collection)
            for row in select_rows(self._client, self.collection, 'doc_id != ""', fields):
                entries[row["doc_id"]] = ManifestEntry(*(row[f] for f in fields))
        return entries

    def put(self, entries: Iterable[ManifestEntry]) -> None:
        rows = [{"doc_id": e.doc_id, "content_hash": e.content_hash, "config": e.config,
                 "chunk_count": e.chunk_count, "path": e.path, "dummy": DUMMY_VECTOR}
                for e in entries]
        if rows:
            with self._errors("write manifest"):
                self._client.upsert(self.collection, rows)

    def delete(self, doc_ids: Sequence[str]) -> None:
        if doc_ids:
            with self._errors("delete from manifest"):
                self._client.delete(self.collection, ids=list(doc_ids))
