"""The Milvus collections of an index: the schema of each (leaves, parents, manifest), with the
BM25 analyzer and function wired into the leaves', the indexes they need, created again when an
interrupted creation left one out, and the paged read every collection is queried with.

:mod:`.store` opens, fills and searches them; nothing here holds a connection.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from ...errors import StoreError
from ..rows import FIELD_BYTES
from ..store import IndexMeta

__all__ = ["ANALYZERS", "DUMMY_VECTOR", "INT_FIELDS", "QUERY_WINDOW", "analyzer_params_json",
           "create_chunk_collection", "create_dense_index", "create_manifest_collection",
           "create_parent_collection", "create_unit_collection", "defined", "ensure_indexes",
           "is_local", "select_rows"]

log = logging.getLogger("mdchunk.index.milvus")  # the store's records, under its name

DUMMY_VECTOR = [0.0, 0.0]  # Milvus needs a vector field in every collection: manifest, parents
INT_FIELDS = ("level", "index", "start", "end", "line_start", "line_end", "token_count")
QUERY_WINDOW = 16384  # Milvus refuses a query whose offset + limit exceeds this
#: The text fields of a leaf and of a parent: place, text, and what a search's filter reads
#: besides their metadata (a JSON field): language, site version, the metadata's terms
#: (:func:`~mdchunk.index.rows.metadata_terms`; the filters: :mod:`mdchunk.index.where`).
_CHUNK_TEXTS = ("doc_id", "path", "file_type", "title", "section_path", "parent_id", "text",
                "url", "anchor", "lang", "version", "terms")


#: Each of :data:`~mdchunk.index.store.ANALYZER_NAMES` (a test keeps them in step) as Milvus's
#: analyzer params (a tokenizer and token filters, passed on to its schema as they are):
#: ``standard`` (words) and ``jieba`` (Chinese and words). ``lowercase`` is explicit because a
#: Milvus server's ``standard`` tokenizer does not fold case (Milvus Lite's does). Milvus Lite
#: applies its tokenizer only and ignores every filter, so the filters a server offers (stop words,
#: stemming, punctuation) could not be measured here and none is added (BENCHMARKS.md,
#: "BM25 analyzers"). What a collection was built with is recorded as these params
#: (:attr:`IndexMeta.analysis`), so changing a definition here rebuilds it.
ANALYZERS: dict[str, dict[str, Any]] = {
    "standard": {"tokenizer": "standard", "filter": ["lowercase"]},
    "jieba": {"tokenizer": "jieba", "filter": ["lowercase"]},
}


def analyzer_params_json(name: str) -> str:
    """The params of analyzer ``name`` as canonical JSON (``""`` for an unknown name, which
    creating the collection refuses)."""
    params = ANALYZERS.get(name)
    return json.dumps(params, sort_keys=True, separators=(",", ":")) if params else ""


def defined(meta: IndexMeta) -> IndexMeta:
    """``meta`` with its analyzer's definition here (:data:`ANALYZERS`) when it has none yet,
    as a new collection records it."""
    if meta.analysis:
        return meta
    return dataclasses.replace(meta, analysis=analyzer_params_json(meta.analyzer))


def is_local(uri: str) -> bool:
    """Milvus Lite takes a local file path; anything with a scheme is a server."""
    return "://" not in uri


def create_chunk_collection(client: Any, collection: str, meta: IndexMeta) -> None:
    """The leaves' collection: scalar fields, text with its BM25 analyzer, dense and sparse
    vectors; ``meta`` is recorded in its properties."""
    from pymilvus import DataType, Function, FunctionType

    if meta.analyzer not in ANALYZERS:
        raise StoreError(f"unknown analyzer {meta.analyzer!r}: "
                         f"use one of {', '.join(ANALYZERS)}")
    schema = _schema(client, "id", (*_CHUNK_TEXTS, "content_hash"), INT_FIELDS)
    schema.add_field("metadata", DataType.JSON)
    schema.add_field("search_text", DataType.VARCHAR, max_length=FIELD_BYTES["search_text"],
                     enable_analyzer=True, analyzer_params=ANALYZERS[meta.analyzer])
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=meta.dim)
    schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    schema.add_function(Function(name="text_bm25", function_type=FunctionType.BM25,
                                 input_field_names=["search_text"],
                                 output_field_names=["sparse"]))
    client.create_collection(collection, schema=schema, properties=meta.properties())


def create_parent_collection(client: Any, collection: str) -> None:
    """The parents' collection: a chunk's fields without vectors but a placeholder, and
    ``child_count``. Its text has no analyzer: parents are fetched by id, never searched."""
    from pymilvus import DataType

    schema = _schema(client, "id", _CHUNK_TEXTS, (*INT_FIELDS, "child_count"))
    schema.add_field("metadata", DataType.JSON)
    schema.add_field("dummy", DataType.FLOAT_VECTOR, dim=len(DUMMY_VECTOR))
    client.create_collection(collection, schema=schema)


def _schema(client: Any, key: str, texts: tuple[str, ...], ints: tuple[str, ...] = ()) -> Any:
    """A schema keyed by the text field ``key``, with the text fields ``texts`` (each as long
    as :data:`~mdchunk.index.rows.FIELD_BYTES` says) and the integer fields ``ints``."""
    from pymilvus import DataType

    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field(key, DataType.VARCHAR, is_primary=True, max_length=FIELD_BYTES[key])
    for name in texts:
        schema.add_field(name, DataType.VARCHAR, max_length=FIELD_BYTES[name])
    for name in ints:
        schema.add_field(name, DataType.INT64)
    return schema


def create_unit_collection(client: Any, collection: str, dim: int) -> None:
    """The units' collection (:mod:`mdchunk.index.units`): one vector per unit, keyed by the
    unit's id, with its leaf's id, document and path. Empty when units are not embedded."""
    from pymilvus import DataType

    schema = _schema(client, "id", ("leaf_id", "doc_id", "path", "content_hash"))
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
    client.create_collection(collection, schema=schema)


def create_manifest_collection(client: Any, collection: str) -> None:
    """The manifest's collection: one row per document, keyed by its id."""
    from pymilvus import DataType

    schema = _schema(client, "doc_id", ("content_hash", "path"), ("chunk_count",))
    schema.add_field("config", DataType.VARCHAR, max_length=64)
    schema.add_field("dummy", DataType.FLOAT_VECTOR, dim=len(DUMMY_VECTOR))
    client.create_collection(collection, schema=schema)


def ensure_indexes(client: Any, chunks: str, parents: str, manifest: str, units: str, *,
                   uri: str) -> None:
    """Create whichever index of the four collections is missing (the dense indexes:
    :func:`create_dense_index`).

    Creating a collection and its indexes are separate calls, so an interrupted creation
    leaves a collection without some; the next open finishes the job. ``sync=False``: on
    an empty collection there is nothing to wait for, and Milvus Lite does not implement
    the timestamp call that waiting makes.
    """
    # Per collection, each field and its index parameters; ``None``: the dense index.
    wanted: dict[str, list[tuple[str, dict[str, str] | None]]] = {
        chunks: [("sparse", {"index_type": "SPARSE_INVERTED_INDEX",
                                      "metric_type": "BM25"}),
                          ("doc_id", {"index_type": "INVERTED"}),
                          ("content_hash", {"index_type": "INVERTED"}),
                          ("dense", None)],
        manifest: [("dummy", {"index_type": "AUTOINDEX", "metric_type": "L2"})],
        parents: [("dummy", {"index_type": "AUTOINDEX", "metric_type": "L2"}),
                                  ("doc_id", {"index_type": "INVERTED"})],
        units: [("doc_id", {"index_type": "INVERTED"}), ("leaf_id", {"index_type": "INVERTED"}),
                ("dense", None)],
    }
    for collection, indexes in wanted.items():
        have = set(client.list_indexes(collection))
        for field, params in indexes:
            if field in have:
                continue
            if params is None:
                create_dense_index(client, collection, uri=uri)
                continue
            index = client.prepare_index_params()
            index.add_index(field, index_name=field, **params)
            client.create_index(collection, index, sync=False)


def create_dense_index(client: Any, collection: str, *, uri: str) -> None:
    """HNSW on a server; Milvus Lite (and a Lite server without faiss) gets AUTOINDEX."""
    from pymilvus import MilvusException

    kinds = ["AUTOINDEX"] if is_local(uri) else ["HNSW", "AUTOINDEX"]
    for kind in kinds:
        params = client.prepare_index_params()
        params.add_index("dense", index_name="dense", index_type=kind, metric_type="COSINE")
        try:
            client.create_index(collection, params, sync=False)
            return
        except MilvusException as exc:
            if kind == kinds[-1]:
                raise
            log.info("Milvus at %s refused a %s index (%s); using AUTOINDEX", uri, kind,
                     exc.message)


def select_rows(client: Any, collection: str, filter: str, fields: list[str]
                ) -> list[dict[str, Any]]:
    """All rows matching ``filter``: one query when they fit Milvus's query window, else pages.

    The paged query iterator is the fallback only, since Milvus Lite cannot give it a
    consistent timestamp and pymilvus warns about that on every use.
    """
    rows = client.query(collection, filter=filter, output_fields=fields, limit=QUERY_WINDOW)
    if len(rows) < QUERY_WINDOW:
        return [{f: row[f] for f in fields} for row in rows]
    iterator = client.query_iterator(collection, batch_size=1000, filter=filter,
                                     output_fields=fields)
    out: list[dict[str, Any]] = []
    try:
        while batch := iterator.next():
            out.extend({f: row[f] for f in fields} for row in batch)
    finally:
        iterator.close()
    return out
