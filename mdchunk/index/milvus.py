"""Milvus storage: a collection of chunks, one of their parents and a manifest, on Lite or a
server.

The same code serves Milvus Lite (``uri`` a local ``.db`` path) and a server or cluster
(``http(s)://host:port``): only the dense index type differs. What the index was built with
(model, dimension, chunker config, BM25 analyzer) is kept in the chunk collection's properties,
so a query or an indexing run with another model is caught before anything is written.

The manifest (``<collection>_manifest``, one row per document: :mod:`.milvus_manifest`) lives
in Milvus too, so two machines indexing into one server agree on what is already there. So do
the parents of a hierarchical index (``<collection>_parents``): the chunks above the leaves,
with their text and provenance but no embedding, fetched by id when a search widens a hit to its
context. The collections' schemas and indexes are :mod:`.milvus_collections`; this module
connects, writes, reads and searches.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Self

from ..errors import DependencyError, StoreError
from .fusion import DEFAULT_FUSION, FUSION_DEPTH, Fusion, fuse
from .milvus_collections import (
    ANALYZERS,
    DUMMY_VECTOR,
    QUERY_WINDOW,
    create_chunk_collection,
    create_parent_collection,
    ensure_indexes,
    is_local,
    select_rows,
)
from .milvus_manifest import MilvusManifest
from .store import (
    PARENT_FIELDS,
    SCALAR_FIELDS,
    SCHEMA_VERSION,
    IndexMeta,
    SearchHit,
    SearchMode,
    leaf_hit,
    quote,
)

__all__ = ["ANALYZERS", "MilvusManifest", "MilvusStore", "is_local"]

log = logging.getLogger(__name__)

_OUTPUT_FIELDS = ["doc_id", "path", "title", "section_path", "line_start", "line_end", "text",
                  "level", "parent_id", "start", "end", "url", "anchor"]
_EXTRA_HINT = "pip install 'mdchunk[milvus]'"
# A channel of our own, closed with the store, that does not ping while idle. pymilvus shares one
# channel per address for the whole process and pings it every 10 s even with no call under way;
# a gRPC server with default settings (the ``milvus-lite server``) answers a quiet client's
# pings with GOAWAY "too_many_pings", and the next call on the shared channel then fails.
_GRPC_OPTIONS = {"grpc.keepalive_permit_without_calls": False, "grpc.keepalive_time_ms": 60_000}


def _lite_in_use(uri: str) -> bool:
    """Whether another process holds Milvus Lite's own lock on the file (``<uri>/LOCK``)."""
    import fcntl
    import os

    try:
        fd = os.open(os.path.join(uri, "LOCK"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


class MilvusStore:
    """The chunk collection of one index, its parents and its manifest, behind one
    :class:`pymilvus.MilvusClient`."""

    def __init__(self, uri: str = "./mdchunk.db", collection: str = "mdchunk", *,
                 token: str | None = None, timeout: float = 10.0) -> None:
        try:
            import pymilvus
        except ImportError as exc:
            raise DependencyError(f"writing to Milvus needs pymilvus: {_EXTRA_HINT}") from exc
        self.uri = uri
        self.collection = collection
        self.timeout = timeout
        if is_local(uri):
            try:
                import milvus_lite  # noqa: F401  (pymilvus needs it for a .db path)
            except ImportError as exc:
                raise DependencyError(f"{uri}: a local Milvus Lite file needs milvus-lite: "
                                      f"{_EXTRA_HINT}") from exc
        try:
            with self._errors("cannot connect"):
                self._client = pymilvus.MilvusClient(uri=uri, token=token or "", timeout=timeout,
                                                     dedicated=True, grpc_options=_GRPC_OPTIONS)
        except StoreError as exc:
            if is_local(uri) and _lite_in_use(uri):
                raise StoreError(f"{uri}: the Milvus Lite file is open in another process (Milvus "
                                 "Lite opens a file in one process at a time); try again when "
                                 "it is done, or use a Milvus server") from exc
            raise
        self.manifest = MilvusManifest(self._client, f"{collection}_manifest", self._errors)
        self.parents_collection = f"{collection}_parents"

    # -- plumbing ---------------------------------------------------------------------------

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        """Turn any client failure into a one-line :class:`StoreError` naming the URI."""
        try:
            yield
        except StoreError:
            raise
        except Exception as exc:  # pymilvus raises MilvusException, grpc errors, OSError, ...
            message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            first = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
            raise StoreError(f"Milvus at {self.uri}: {action}: {first}") from exc

    def close(self) -> None:
        with self._errors("close"):
            self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- collections ------------------------------------------------------------------------

    def meta(self) -> IndexMeta | None:
        """What the chunk collection was built with; ``None`` if it does not exist."""
        with self._errors(f"describe collection {self.collection!r}"):
            if not self._client.has_collection(self.collection):
                return None
            props = self._client.describe_collection(self.collection).get("properties") or {}
        meta = IndexMeta.from_properties(props)
        if meta is None:
            raise StoreError(f"Milvus at {self.uri}: collection {self.collection!r} was not "
                             "created by this version of mdchunk; choose another --collection")
        return meta

    def check(self, *, model: str | None = None, dim: int | None = None) -> IndexMeta:
        """The recorded meta, after checking it matches the query side; raises if absent."""
        meta = self.meta()
        if meta is None:
            raise StoreError(f"Milvus at {self.uri}: no collection {self.collection!r}; "
                             "run `mdchunk index` first")
        if meta.schema != SCHEMA_VERSION:
            raise StoreError(f"Milvus at {self.uri}: collection {self.collection!r} was built by "
                             f"another version of mdchunk (schema {meta.schema}, this one reads "
                             f"{SCHEMA_VERSION}); run `mdchunk index` to rebuild it")
        if (model is not None and model != meta.model) or (dim is not None and dim != meta.dim):
            raise StoreError(f"Milvus at {self.uri}: collection {self.collection!r} holds "
                             f"{meta.model} vectors (dim {meta.dim}), not {model} (dim {dim}); "
                             "search with the model it was indexed with or re-index")
        self._load(self.collection, self.parents_collection)
        return meta

    def open(self, meta: IndexMeta, *, rebuild: bool = True) -> bool:
        """Make the collections match ``meta``; returns whether they were (re)created empty.

        A collection built with anything else is dropped and rebuilt when ``rebuild`` is true;
        otherwise a :class:`StoreError` is raised and nothing is touched.
        """
        recorded = self.meta()
        created = False
        if recorded is not None and recorded != meta:
            change = "; ".join(recorded.differences(meta))
            if not rebuild:
                raise StoreError(f"Milvus at {self.uri}: collection {self.collection!r} was built "
                                 f"differently ({change}); re-index to rebuild it")
            log.warning("rebuilding collection %r (%s): every document is re-embedded",
                        self.collection, change)
            self.drop()
            recorded = None
        with self._errors(f"create collection {self.collection!r}"):
            if recorded is None:
                # A manifest without its chunks would claim documents are indexed, and parents
                # without them would be stale: drop both first.
                for name in (self.manifest.collection, self.parents_collection):
                    if self._client.has_collection(name):
                        self._client.drop_collection(name)
                self._create_chunks(meta)
                created = True
            if not self._client.has_collection(self.manifest.collection):
                self.manifest.create()
            if not self._client.has_collection(self.parents_collection):
                self._create_parents()
            self._ensure_indexes()
        self._load()
        return created

    def drop(self) -> None:
        """Drop manifest first, then parents, then chunks: an interrupted drop never leaves a
        stale manifest, and the next :meth:`open` drops whatever is left with the chunks."""
        with self._errors(f"drop collection {self.collection!r}"):
            for name in (self.manifest.collection, self.parents_collection, self.collection):
                if self._client.has_collection(name):
                    self._client.drop_collection(name)

    def _load(self, *names: str) -> None:
        # Milvus Lite reopens collections released; search, query and get need them loaded.
        with self._errors(f"load collection {self.collection!r}"):
            for name in names or self._collections:
                if self._client.has_collection(name):
                    self._client.load_collection(name)

    def flush(self) -> None:
        """Seal what was written into indexed segments, once at the end of a run.

        Milvus Lite searches unsealed rows by brute force in Python (about 200 ms for a
        thousand chunks against 10 ms sealed); a server seals by itself, and one flush per
        run is well within its rate limit.
        """
        with self._errors(f"flush collection {self.collection!r}"):
            for name in self._collections:
                self._client.flush(name)

    @property
    def _collections(self) -> tuple[str, str, str]:
        return self.collection, self.parents_collection, self.manifest.collection

    def _create_chunks(self, meta: IndexMeta) -> None:
        create_chunk_collection(self._client, self.collection, meta)

    def _create_parents(self) -> None:
        create_parent_collection(self._client, self.parents_collection)

    def _ensure_indexes(self) -> None:
        """The collections' missing indexes (a step of its own: an interrupted :meth:`open`
        leaves a collection without them, and the next finishes the job)."""
        ensure_indexes(self._client, self.collection, self.parents_collection,
                       self.manifest.collection, uri=self.uri)

    # -- chunks -----------------------------------------------------------------------------

    def doc_chunks(self, doc_id: str, *, vectors: bool = True) -> list[dict[str, Any]]:
        """Every stored chunk row of a document: all scalar fields, and ``dense`` if asked."""
        fields = list(SCALAR_FIELDS) + (["dense"] if vectors else [])
        with self._errors(f"read chunks of {doc_id}"):
            return select_rows(self._client, self.collection, f"doc_id == {quote(doc_id)}", fields)

    def vectors(self, hashes: Sequence[str], batch: int = 512) -> dict[str, Any]:
        """The stored vector of each of ``hashes`` that a leaf has, asked with strong
        consistency (rows an earlier group of the same run wrote must be seen on a server)."""
        found: dict[str, Any] = {}
        with self._errors("read cached vectors"):
            for i in range(0, len(hashes), batch):
                wanted = ", ".join(quote(h) for h in hashes[i:i + batch])
                rows = self._client.query(self.collection, filter=f"content_hash in [{wanted}]",
                                          output_fields=["content_hash", "dense"],
                                          limit=QUERY_WINDOW, consistency_level="Strong")
                found.update((r["content_hash"], r["dense"]) for r in rows)
        return found

    def upsert_chunks(self, rows: Sequence[Mapping[str, Any]], batch: int = 512) -> None:
        self._upsert(self.collection, rows, batch, "write chunks")

    def delete_chunks(self, ids: Sequence[str], batch: int = 1024) -> None:
        self._delete(self.collection, ids, batch, "delete chunks")

    def doc_parents(self, doc_id: str) -> list[dict[str, Any]]:
        """Every stored parent row of a document (all of :data:`PARENT_FIELDS`)."""
        with self._errors(f"read parents of {doc_id}"):
            return select_rows(self._client, self.parents_collection, f"doc_id == {quote(doc_id)}",
                           list(PARENT_FIELDS))

    def upsert_parents(self, rows: Sequence[Mapping[str, Any]], batch: int = 128) -> None:
        """Write parent rows (a smaller batch than leaves: a parent's text is larger)."""
        self._upsert(self.parents_collection, [{**r, "dummy": DUMMY_VECTOR} for r in rows],
                     batch, "write parents")

    def delete_parents(self, ids: Sequence[str], batch: int = 1024) -> None:
        self._delete(self.parents_collection, ids, batch, "delete parents")

    def parents(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The stored parents among ``ids`` (for a search: a few dozen, one query)."""
        if not ids:
            return []
        wanted = ", ".join(quote(i) for i in dict.fromkeys(ids))
        with self._errors("read parents"):
            return select_rows(self._client, self.parents_collection, f"id in [{wanted}]",
                           list(PARENT_FIELDS))

    def delete_doc(self, doc_id: str) -> None:
        """Remove a document's leaves, then its parents: a leaf never outlives its parent."""
        for name, what in ((self.collection, "chunks"), (self.parents_collection, "parents")):
            with self._errors(f"delete {what} of {doc_id}"):
                self._client.delete(name, filter=f"doc_id == {quote(doc_id)}")

    def _upsert(self, collection: str, rows: Sequence[Mapping[str, Any]], batch: int,
                action: str) -> None:
        with self._errors(action):
            for i in range(0, len(rows), batch):
                self._client.upsert(collection, list(rows[i:i + batch]))

    def _delete(self, collection: str, ids: Sequence[str], batch: int, action: str) -> None:
        with self._errors(action):
            for i in range(0, len(ids), batch):
                self._client.delete(collection, ids=list(ids[i:i + batch]))

    def count(self) -> int:
        """Rows in the chunk collection (an exact count query, not possibly stale statistics)."""
        with self._errors("count chunks"):
            res = self._client.query(self.collection, filter="", output_fields=["count(*)"])
        return int(res[0]["count(*)"])

    def rows(self, fields: Sequence[str] = ("id", "doc_id", "content_hash")
             ) -> list[dict[str, Any]]:
        """Every chunk row with ``fields`` (for tests, audits and small indexes)."""
        with self._errors("read chunks"):
            return select_rows(self._client, self.collection, 'id != ""', list(fields))

    def parent_rows(self, fields: Sequence[str] = PARENT_FIELDS) -> list[dict[str, Any]]:
        """Every parent row with ``fields`` (for tests, audits and small indexes)."""
        with self._errors("read parents"):
            return select_rows(self._client, self.parents_collection, 'id != ""', list(fields))

    # -- search -----------------------------------------------------------------------------

    def search(self, *, mode: SearchMode, k: int, text: str, vector: Sequence[float] | None,
               filter: str = "", fusion: Fusion = DEFAULT_FUSION) -> list[SearchHit]:
        """Top ``k`` chunks for ``text`` (BM25) and/or ``vector`` (dense).

        Hybrid runs both searches, :data:`~mdchunk.index.fusion.FUSION_DEPTH` deep at least,
        and fuses the two lists here (:func:`~mdchunk.index.fusion.fuse`), not with Milvus's
        rankers: the same fusion then ranks on Milvus Lite and on a server, and its order does
        not depend on ``k``. A hybrid hit's score is its fused score.
        """
        if mode != "hybrid":
            return self._search_one(mode, k, text, vector, filter)
        depth = max(k, FUSION_DEPTH)
        dense = self._search_one("dense", depth, text, vector, filter)
        bm25 = self._search_one("bm25", depth, text, vector, filter)
        hits = {hit.id: hit for hit in (*bm25, *dense)}
        fused = fuse([(h.id, h.score) for h in dense], [(h.id, h.score) for h in bm25], fusion)
        return [dataclasses.replace(hits[key], score=score) for key, score in fused[:k]]

    def _search_one(self, mode: SearchMode, k: int, text: str, vector: Sequence[float] | None,
                    filter: str) -> list[SearchHit]:
        """One side: dense (cosine) or BM25."""
        data: list[Any]
        if mode == "dense":
            if vector is None:
                raise StoreError(f"Milvus at {self.uri}: a dense search needs a query vector")
            field, params, data = "dense", {"metric_type": "COSINE"}, [list(vector)]
        else:
            field, params, data = "sparse", {"metric_type": "BM25"}, [text]
        with self._errors(f"{mode} search in {self.collection!r}"):
            result = self._client.search(self.collection, data, anns_field=field,
                                         search_params=params, limit=k, filter=filter,
                                         output_fields=_OUTPUT_FIELDS)
        # Milvus Lite reports BM25 as a negated distance, a server as a positive score.
        signed = abs if mode == "bm25" else float
        return [leaf_hit(signed(float(hit["distance"])), {**hit["entity"], "id": hit["id"]})
                for hit in result[0]]
