"""Milvus storage, on Lite (``uri`` a local ``.db`` path) or a server (``http(s)://host:port``;
only the dense index type differs): the leaves, their parents (``<collection>_parents``: text and
provenance, no embedding), their units (``<collection>_units``) and the manifest
(``<collection>_manifest``), all in Milvus, so that two machines indexing into one server agree
on what is there. What the index was built with is kept in the leaf collection's properties, so a
query or a run with another model is caught before anything is written. This module writes, reads
and searches one side at a time; schemas are :mod:`.collections`, filter expressions
:mod:`.filters`, the connection :mod:`.client`."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Self

from ...errors import StoreError
from ..rows import FILTER_FIELDS, PARENT_FIELDS, SCALAR_FIELDS, UNIT_FIELDS, leaf_hit
from ..store import SCHEMA_VERSION, DenseQuery, Filter, IndexMeta, SearchHit, SideQuery
from ..where import matches
from .client import connect, errors
from .collections import (
    DUMMY_VECTOR,
    QUERY_WINDOW,
    create_chunk_collection,
    create_parent_collection,
    create_unit_collection,
    defined,
    ensure_indexes,
    is_local,
    select_rows,
)
from .filters import Translation, equals, one_of, translate
from .locks import MilvusLocks
from .manifest import MilvusManifest

__all__ = ["MilvusStore"]

log = logging.getLogger(__name__)

_OUTPUT_FIELDS = ["doc_id", "path", "title", "section_path", "line_start", "line_end", "text",
                  "level", "parent_id", "start", "end", "url", "anchor", "lang", "version",
                  "metadata"]
#: The chunk collection's property listing the metadata keys its documents have had.
_KEYS_PROPERTY = "mdchunk.metadata_keys"
#: The most hits one Milvus search returns (its top-k limit).
_MAX_LIMIT = 16384
#: How much more a search asks for, round after round, when it must check rows itself.
_OVERFETCH = 4


class MilvusStore:
    """The chunk collection of one index, its parents and its manifest, behind one
    :class:`pymilvus.MilvusClient`."""

    def __init__(self, uri: str = "./mdchunk.db", collection: str = "mdchunk", *,
                 token: str | None = None, timeout: float = 10.0, create: bool = True) -> None:
        """``create=False`` for a reader (a search, a server that may not index): Milvus Lite
        makes a file it is asked to open, so a path typed wrong (or the default
        ``./mdchunk.db`` in another folder) would leave an empty index behind; refused instead,
        naming the path."""
        self.uri = uri
        self.collection = collection
        self.timeout = timeout
        if not create and is_local(uri) and not os.path.exists(uri):
            raise StoreError(f"{uri}: no index here (no such Milvus Lite file); index into it "
                             f"first: mdchunk index PATH --db {uri}")
        self._client = connect(uri, token, timeout)
        self.manifest = MilvusManifest(self._client, f"{collection}_manifest", self._errors)
        self.parents_collection = f"{collection}_parents"
        self.units_collection = f"{collection}_units"

    # -- plumbing ---------------------------------------------------------------------------

    def _errors(self, action: str) -> AbstractContextManager[None]:
        """Turn any client failure into a one-line :class:`StoreError` naming the URI."""
        return errors(self.uri, action)

    def lock_table(self) -> MilvusLocks | None:
        """Where a server keeps this collection's write lock (:mod:`mdchunk.index.lock`);
        ``None`` for a Lite file, which is locked before it is opened."""
        return None if is_local(self.uri) else MilvusLocks(self._client, self.uri)

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
        self._load(self.collection, self.parents_collection, self.units_collection)
        return meta

    def open(self, meta: IndexMeta, *, rebuild: bool = True) -> bool:
        """Make the collections match ``meta``; returns whether they were (re)created empty.

        A collection built with anything else is dropped and rebuilt when ``rebuild`` is true;
        otherwise a :class:`StoreError` is raised and nothing is touched.
        """
        meta = defined(meta)
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
                # and units without them would be stale: drop them first.
                for name in (self.manifest.collection, self.parents_collection,
                             self.units_collection):
                    if self._client.has_collection(name):
                        self._client.drop_collection(name)
                create_chunk_collection(self._client, self.collection, meta)
                created = True
            if not self._client.has_collection(self.manifest.collection):
                self.manifest.create()
            if not self._client.has_collection(self.parents_collection):
                create_parent_collection(self._client, self.parents_collection)
            if not self._client.has_collection(self.units_collection):
                create_unit_collection(self._client, self.units_collection, meta.dim)
            self._ensure_indexes()
        self._load()
        return created

    def drop(self) -> None:
        """Drop manifest first, then parents and units, then chunks: an interrupted drop never
        leaves a stale manifest, and the next :meth:`open` drops whatever is left with the
        chunks."""
        with self._errors(f"drop collection {self.collection!r}"):
            for name in (self.manifest.collection, self.parents_collection,
                         self.units_collection, self.collection):
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
    def _collections(self) -> tuple[str, str, str, str]:
        return (self.collection, self.parents_collection, self.manifest.collection,
                self.units_collection)

    def _ensure_indexes(self) -> None:
        """The collections' missing indexes (a step of its own: an interrupted :meth:`open`
        leaves a collection without them, and the next finishes the job)."""
        ensure_indexes(self._client, self.collection, self.parents_collection,
                       self.manifest.collection, self.units_collection, uri=self.uri)

    # -- chunks -----------------------------------------------------------------------------

    def doc_chunks(self, doc_id: str, *, vectors: bool = True) -> list[dict[str, Any]]:
        """Every stored chunk row of a document: all scalar fields, and ``dense`` if asked."""
        fields = list(SCALAR_FIELDS) + (["dense"] if vectors else [])
        with self._errors(f"read chunks of {doc_id}"):
            return select_rows(self._client, self.collection, equals("doc_id", doc_id), fields)

    def vectors(self, hashes: Sequence[str], batch: int = 512) -> dict[str, Any]:
        """The stored vector of each of ``hashes`` that a leaf has, asked with strong
        consistency (rows an earlier group of the same run wrote must be seen on a server)."""
        found: dict[str, Any] = {}
        with self._errors("read cached vectors"):
            for i in range(0, len(hashes), batch):
                wanted = one_of("content_hash", hashes[i:i + batch])
                rows = self._client.query(self.collection, filter=wanted,
                                          output_fields=["content_hash", "dense"],
                                          limit=QUERY_WINDOW, consistency_level="Strong")
                found.update((r["content_hash"], r["dense"]) for r in rows)
        return found

    def upsert_chunks(self, rows: Sequence[Mapping[str, Any]], batch: int = 512) -> None:
        self._upsert(self.collection, rows, batch, "write chunks")

    def delete_chunks(self, ids: Sequence[str], batch: int = 1024) -> None:
        self._delete(self.collection, ids, batch, "delete chunks")

    def doc_units(self, doc_id: str) -> list[dict[str, Any]]:
        """Every stored unit row of a document, with its vector."""
        with self._errors(f"read units of {doc_id}"):
            return select_rows(self._client, self.units_collection, equals("doc_id", doc_id),
                               [*UNIT_FIELDS, "dense"])

    def upsert_units(self, rows: Sequence[Mapping[str, Any]], batch: int = 512) -> None:
        self._upsert(self.units_collection, rows, batch, "write units")

    def delete_units(self, ids: Sequence[str], batch: int = 1024) -> None:
        self._delete(self.units_collection, ids, batch, "delete units")

    def unit_vectors(self, leaf_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The unit vectors of each of ``leaf_ids`` by unit id (for a search: a few dozen
        leaves)."""
        found: dict[str, dict[str, Any]] = {}
        if leaf_ids:
            with self._errors("read unit vectors"):
                for row in select_rows(self._client, self.units_collection,
                                       one_of("leaf_id", dict.fromkeys(leaf_ids)),
                                       ["id", "leaf_id", "dense"]):
                    found.setdefault(row["leaf_id"], {})[row["id"]] = row["dense"]
        return found

    def leaf_rows(self, ids: Sequence[str], *, where: Filter | None = None
                  ) -> list[dict[str, Any]]:
        """The stored leaves among ``ids`` that ``where`` keeps: what a hit shows, and
        ``dense``."""
        if not ids:
            return []
        wanted = translate(where)
        fields = ["id", *_OUTPUT_FIELDS, "dense", *_checked_fields(wanted)]
        condition = one_of("id", dict.fromkeys(ids))
        if wanted.expression:
            condition = f"({condition}) and ({wanted.expression})"
        with self._errors("read leaves"):
            rows = select_rows(self._client, self.collection, condition,
                               list(dict.fromkeys(fields)))
        return rows if wanted.exact else [r for r in rows if matches(where, r)]

    def metadata_keys(self) -> frozenset[str]:
        """The metadata keys recorded in the chunk collection's properties."""
        with self._errors(f"describe collection {self.collection!r}"):
            props = self._client.describe_collection(self.collection).get("properties") or {}
        return frozenset(json.loads(props.get(_KEYS_PROPERTY) or "[]"))

    def add_metadata_keys(self, keys: Iterable[str]) -> None:
        """Record ``keys`` among the collection's metadata keys (a property: one call only
        when a key is new)."""
        known = self.metadata_keys()
        wanted = known | set(keys)
        if wanted != known:
            with self._errors(f"record metadata keys of {self.collection!r}"):
                self._client.alter_collection_properties(
                    self.collection, properties={_KEYS_PROPERTY: json.dumps(sorted(wanted))})

    def doc_parents(self, doc_id: str) -> list[dict[str, Any]]:
        """Every stored parent row of a document (all of :data:`PARENT_FIELDS`)."""
        with self._errors(f"read parents of {doc_id}"):
            return select_rows(self._client, self.parents_collection, equals("doc_id", doc_id),
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
        with self._errors("read parents"):
            return select_rows(self._client, self.parents_collection,
                               one_of("id", dict.fromkeys(ids)), list(PARENT_FIELDS))

    def delete_doc(self, doc_id: str) -> None:
        """Remove a document's units, then its leaves, then its parents: a unit never outlives
        its leaf, nor a leaf its parent."""
        for name, what in ((self.units_collection, "units"), (self.collection, "chunks"),
                           (self.parents_collection, "parents")):
            with self._errors(f"delete {what} of {doc_id}"):
                self._client.delete(name, filter=equals("doc_id", doc_id))

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

    def search(self, query: SideQuery, *, limit: int, where: Filter | None = None
               ) -> list[SearchHit]:
        """One side: the top ``limit`` leaves by cosine to a dense query's vector, or by BM25
        for a text query's text, among those ``where`` keeps.

        A filter Milvus cannot say exactly (:mod:`.filters`) is searched loosened, asking for
        more each round, and each hit checked (:func:`~mdchunk.index.where.matches`) until
        ``limit`` are kept or the collection has no more."""
        wanted = translate(where)
        ask = limit if wanted.exact else min(limit * _OVERFETCH, _MAX_LIMIT)
        while True:
            rows = self._search_rows(query, ask, wanted)
            kept = rows if wanted.exact else [r for r in rows if matches(where, r[1])]
            if len(kept) >= limit or len(rows) < ask or ask >= _MAX_LIMIT:
                return [leaf_hit(score, row) for score, row in kept[:limit]]
            ask = min(ask * _OVERFETCH, _MAX_LIMIT)

    def _search_rows(self, query: SideQuery, limit: int, wanted: Translation
                     ) -> list[tuple[float, dict[str, Any]]]:
        data: list[Any]
        if isinstance(query, DenseQuery):
            side, field, metric, data = "dense", "dense", "COSINE", [list(query.vector)]
        else:
            side, field, metric, data = "bm25", "sparse", "BM25", [query.text]
        fields = list(dict.fromkeys([*_OUTPUT_FIELDS, *_checked_fields(wanted)]))
        with self._errors(f"{side} search in {self.collection!r}"):
            result = self._client.search(self.collection, data, anns_field=field,
                                         search_params={"metric_type": metric}, limit=limit,
                                         filter=wanted.expression, output_fields=fields)
        # Milvus Lite reports BM25 as a negated distance, a server as a positive score.
        signed = abs if side == "bm25" else float
        return [(signed(float(hit["distance"])), {**hit["entity"], "id": hit["id"]})
                for hit in result[0]]

    def search_units(self, query: DenseQuery, *, limit: int, where: Filter | None = None
                     ) -> list[str]:
        """The leaves of the ``limit`` units nearest ``query``'s vector, best first, once each.

        A unit row has its leaf's document and path only: what else ``where`` asks is left to
        :meth:`leaf_rows`, which the leaves found here are read through."""
        loosened = translate(where, columns=("doc_id", "path")).expression
        with self._errors(f"unit search in {self.units_collection!r}"):
            result = self._client.search(self.units_collection, [list(query.vector)],
                                         anns_field="dense",
                                         search_params={"metric_type": "COSINE"}, limit=limit,
                                         filter=loosened, output_fields=["leaf_id"])
        return list(dict.fromkeys(hit["entity"]["leaf_id"] for hit in result[0]))


def _checked_fields(wanted: Translation) -> tuple[str, ...]:
    """The fields a search must read to check its rows when its expression is not exact."""
    return () if wanted.exact else FILTER_FIELDS
