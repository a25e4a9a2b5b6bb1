"""The index's storage behind two small protocols, and the values that cross them.

:class:`ChunkStore` holds chunk rows (verbatim text, provenance, dense and BM25 vectors; their
layout: :mod:`.rows`) and answers one side of a search at a time: the leaves nearest a query
vector (:class:`DenseQuery`) or the best full-text matches of a query text (:class:`TextQuery`),
under a filter given in store-neutral form (:data:`Filter`). Fusing the two sides, collapsing and
widening hits happen above any store (:mod:`.search`). A store also keeps the parents of a
hierarchical index (the coarser levels, text and provenance only: they are shown, never
searched), so that a search can widen a hit to its context. :class:`Manifest` records, per
document, the hash and config it was indexed with. The indexer and search are written against
these protocols only; Milvus (Lite or a server, :mod:`mdchunk.index.milvus`) implements them,
and so does an in-memory store (:mod:`mdchunk.index.memory`); :mod:`.stores` opens either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from .hits import Location, Match, SearchHit

__all__ = ["ANALYZER_NAMES", "EXPAND_NAMES", "SCHEMA_VERSION", "All", "AnyOf", "ChunkStore",
           "Compare", "Contains", "DenseQuery", "Expand", "Field", "Filter", "Glob", "IndexMeta",
           "Location", "LockTable", "Manifest", "ManifestEntry", "Match", "Negated", "OneOf",
           "PathPrefix", "Scalar", "SearchHit", "SearchMode", "SideQuery", "TextQuery"]

SearchMode = Literal["hybrid", "dense", "bm25"]
#: What a search returns for a matching leaf: the leaf (``none``), its parent (``parent``), or
#: the largest ancestor enough of whose children matched (``auto``; see
#: :mod:`mdchunk.index.expand`).
Expand = Literal["none", "parent", "auto"]
EXPAND_NAMES: tuple[Expand, ...] = ("none", "parent", "auto")

#: BM25 analyzers a store must offer, by name: ``standard`` (words) and ``jieba`` (Chinese and
#: words). How a store defines each is its own (Milvus's: :data:`mdchunk.index.milvus.ANALYZERS`);
#: it records its definition in :attr:`IndexMeta.analysis`, so that a changed one rebuilds.
ANALYZER_NAMES = ("standard", "jieba")

#: Version of the stored rows' layout (:mod:`.rows`), recorded with the index: an index of
#: another version is rebuilt by the next indexing run and refused by search.
SCHEMA_VERSION = "7"
_PROP = "mdchunk."


@dataclass(frozen=True, slots=True)
class IndexMeta:
    """What every vector and chunk in a collection was made with; a mismatch means rebuild."""

    model: str
    dim: int
    #: Portable fingerprint of the chunker config (see :func:`mdchunk.index.config_fingerprint`).
    config: str
    analyzer: str
    #: The layout the collections were created with (:data:`SCHEMA_VERSION` for new ones).
    schema: str = SCHEMA_VERSION
    #: How the store defines ``analyzer`` (its params, canonical JSON); ``""`` in a meta about
    #: to be written, which the store fills in (:meth:`ChunkStore.open`).
    analysis: str = ""
    #: How the vectors were computed (``torch``, ``onnx``, ``onnx-int8``, ``numpy`` for USE):
    #: vectors of two backends differ a little, so switching rebuilds rather than mixes them.
    backend: str = "torch"
    #: The ONNX export recipe of an ONNX backend's vectors (``""`` on torch and numpy): a new
    #: recipe's int8 vectors differ a little from an old one's.
    export: str = ""
    #: Whether the leaves' units are embedded too (:mod:`mdchunk.index.units`).
    units: bool = False
    #: Whether what BM25 reads has CJK character bigrams added (leaves and queries alike).
    bigrams: bool = False
    #: What was put before every passage embedded, and what a query gets (``""``: nothing).
    document_prompt: str = ""
    query_prompt: str = ""

    def properties(self) -> dict[str, str]:
        return {f"{_PROP}schema": self.schema, f"{_PROP}model": self.model,
                f"{_PROP}dim": str(self.dim), f"{_PROP}config": self.config,
                f"{_PROP}analyzer": self.analyzer, f"{_PROP}analysis": self.analysis,
                f"{_PROP}backend": self.backend, f"{_PROP}export": self.export,
                f"{_PROP}units": "1" if self.units else "0",
                f"{_PROP}bigrams": "1" if self.bigrams else "0",
                # recorded when there is one: a collection without stays as it was written
                **{f"{_PROP}{side}": prompt for side, prompt in
                   (("document_prompt", self.document_prompt),
                    ("query_prompt", self.query_prompt)) if prompt}}

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> IndexMeta | None:
        """The recorded meta, or ``None`` when the collection was not made by mdchunk (one of
        another schema version is still mdchunk's: indexing rebuilds it)."""
        try:
            return cls(props[f"{_PROP}model"], int(props[f"{_PROP}dim"]),
                       props[f"{_PROP}config"], props[f"{_PROP}analyzer"],
                       props[f"{_PROP}schema"],
                       props.get(f"{_PROP}analysis") or "(not recorded)",
                       props.get(f"{_PROP}backend") or "torch",
                       props.get(f"{_PROP}export") or "",
                       props.get(f"{_PROP}units") == "1",
                       props.get(f"{_PROP}bigrams") == "1",
                       props.get(f"{_PROP}document_prompt") or "",
                       props.get(f"{_PROP}query_prompt") or "")
        except (KeyError, ValueError):
            return None

    def differences(self, other: IndexMeta) -> list[str]:
        """``field: recorded -> wanted`` for each field that differs (``self`` is recorded);
        a field left empty (no ONNX export on torch) reads ``none``, not a bare arrow.

        >>> onnx = IndexMeta("m", 8, "c", "standard", backend="onnx-int8", export="3")
        >>> onnx.differences(IndexMeta("m", 8, "c", "standard", backend="torch"))
        ['backend: onnx-int8 -> torch', 'export: 3 -> none']
        """
        def shown(value: object) -> str:
            return "none" if value == "" else str(value)

        return [f"{name}: {shown(getattr(self, name))} -> {shown(getattr(other, name))}"
                for name in ("model", "backend", "export", "dim", "config", "analyzer",
                             "analysis", "units", "bigrams", "document_prompt", "query_prompt",
                             "schema")
                if getattr(self, name) != getattr(other, name)]


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    """One indexed document. An empty ``content_hash`` marks a document whose write is under way."""

    doc_id: str
    content_hash: str
    config: str
    chunk_count: int
    path: str

    @property
    def pending(self) -> bool:
        return not self.content_hash


@dataclass(frozen=True, slots=True)
class PathPrefix:
    """Leaves whose document id or path starts with ``prefix``, taken literally: no character
    of it is a wildcard (``_`` and ``%`` are common in file names). An empty prefix keeps all.
    Like every filter node, a store-neutral value each store translates into its own syntax."""

    prefix: str


#: A value a filter compares with: a string, a number or a boolean.
Scalar: TypeAlias = str | int | float | bool


@dataclass(frozen=True, slots=True)
class Field:
    """What a filter reads of a row: one of the stored fields a filter may name
    (:data:`mdchunk.index.where.TEXT_FIELDS`, :data:`~mdchunk.index.where.INT_FIELDS`; ``path``
    stands for the document's ``doc_id`` or its ``path``, as :class:`PathPrefix` does), or with
    ``meta`` a key of the row's ``metadata`` (front matter and the caller's metadata)."""

    name: str
    meta: bool = False
    #: Where the name stands in the filter's text (1-based column; 0: not parsed from text),
    #: for an error to point at; not part of the field's identity.
    at: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Compare:
    """``field op value``; ``!=`` is the negation of ``==`` (:class:`Negated`)."""

    field: Field
    op: Literal["==", "<", "<=", ">", ">="]
    value: Scalar


@dataclass(frozen=True, slots=True)
class OneOf:
    """``field in [values]``."""

    field: Field
    values: tuple[Scalar, ...]


@dataclass(frozen=True, slots=True)
class Contains:
    """``field contains value``: a metadata list that holds ``value``."""

    field: Field
    value: Scalar


@dataclass(frozen=True, slots=True)
class Glob:
    """``field ~ pattern``: ``*`` any characters but ``/``, ``**`` any at all, ``?`` one but
    ``/``, ``\\`` makes the next character literal (:func:`mdchunk.index.where.glob_regex`)."""

    field: Field
    pattern: str


@dataclass(frozen=True, slots=True)
class All:
    """Every one of ``parts`` (``and``)."""

    parts: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    """At least one of ``parts`` (``or``)."""

    parts: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class Negated:
    """Not ``part`` (``not``)."""

    part: Filter


#: A search's filter, as every store must understand it: a path prefix, or a tree of the
#: filter language's nodes (:func:`mdchunk.index.where.parse_where`); what each node means, for
#: any store, is :func:`mdchunk.index.where.matches`.
Filter: TypeAlias = (PathPrefix | Compare | OneOf | Contains | Glob | All | AnyOf | Negated)


@dataclass(frozen=True, slots=True)
class DenseQuery:
    """The dense side of a search: the leaves whose vectors are nearest ``vector`` (cosine),
    made by the model the index records."""

    vector: Sequence[float]


@dataclass(frozen=True, slots=True)
class TextQuery:
    """The full-text side of a search: BM25 of ``text`` (already through
    :func:`~mdchunk.index.rows.search_text`, as the stored ``search_text`` is) under the
    analyzer the index records."""

    text: str


#: One side of a search, which is all a store answers (:meth:`ChunkStore.search`).
SideQuery: TypeAlias = DenseQuery | TextQuery


class Manifest(Protocol):
    """One entry per indexed document; an entry with an empty hash marks a write under way."""

    def entries(self) -> dict[str, ManifestEntry]: ...

    def put(self, entries: Iterable[ManifestEntry]) -> None: ...

    def delete(self, doc_ids: Sequence[str]) -> None: ...


class LockTable(Protocol):
    """Where a server keeps its indexes' write locks: one row per collection name, with its
    ``owner`` and ``heartbeat`` (ms). Storage only; :class:`mdchunk.index.lock.ServerLock` is
    the protocol."""

    #: Who the table belongs to, for messages (``Milvus at URI``).
    where: str

    def prepare(self) -> None:
        """Make the table ready to use (creating it unless another run did)."""

    def read(self, name: str) -> dict[str, Any] | None:
        """The row of ``name`` as the server has it now; ``None`` when it is not locked."""

    def write(self, name: str, owner: str, heartbeat: int) -> None: ...

    def delete(self, name: str) -> None: ...


class ChunkStore(Protocol):
    """Chunk rows of one index, with the manifest that says which documents they are of."""

    #: The index's name in the store (what a write lock holds).
    collection: str

    @property
    def manifest(self) -> Manifest:
        """The store's manifest (read-only here, so a store may keep a more specific one)."""

    def meta(self) -> IndexMeta | None:
        """What the index was built with; ``None`` when there is none yet."""

    def open(self, meta: IndexMeta, *, rebuild: bool = True) -> bool:
        """Make the index match ``meta``; whether it was (re)created empty."""

    def check(self, *, model: str | None = None, dim: int | None = None) -> IndexMeta:
        """The recorded meta, checked against the query side; raises when there is no index."""

    def doc_chunks(self, doc_id: str, *, vectors: bool = True) -> list[dict[str, Any]]:
        """Every stored leaf row of a document (:data:`~mdchunk.index.rows.SCALAR_FIELDS`, and
        ``dense`` if asked)."""

    def vectors(self, hashes: Sequence[str]) -> dict[str, Any]:
        """The stored ``dense`` vector of each of ``hashes`` (embed-text hashes) that some leaf
        of the collection has; the collection-wide embedding cache
        (:mod:`mdchunk.index.cache`)."""

    def upsert_chunks(self, rows: Sequence[Mapping[str, Any]]) -> None: ...

    def delete_chunks(self, ids: Sequence[str]) -> None: ...

    def count(self) -> int:
        """Leaves the index holds (what an indexing run reports and the server counts)."""

    def doc_units(self, doc_id: str) -> list[dict[str, Any]]:
        """Every stored unit row of a document (:data:`~mdchunk.index.rows.UNIT_FIELDS` and
        ``dense``)."""

    def upsert_units(self, rows: Sequence[Mapping[str, Any]]) -> None: ...

    def delete_units(self, ids: Sequence[str]) -> None: ...

    def search_units(self, query: DenseQuery, *, limit: int, where: Filter | None = None
                     ) -> list[str]:
        """The leaves (ids, best first, each once) of the ``limit`` units nearest ``query``
        among the leaves ``where`` keeps."""

    def unit_vectors(self, leaf_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The stored unit vectors of each of ``leaf_ids`` that has units, by unit id (the id
        says which unit: :func:`~mdchunk.index.units.unit_id`)."""

    def leaf_rows(self, ids: Sequence[str], *, where: Filter | None = None
                  ) -> list[dict[str, Any]]:
        """The stored leaf rows among ``ids`` that ``where`` keeps, with what a hit shows and
        ``dense``; unknown ids are left out."""

    def metadata_keys(self) -> frozenset[str]:
        """Every metadata key a document of the index has had (what a filter may name besides
        the stored fields: :func:`mdchunk.index.where.check_fields`)."""

    def add_metadata_keys(self, keys: Iterable[str]) -> None:
        """Record ``keys`` among :meth:`metadata_keys` (before rows holding them are written)."""

    def doc_parents(self, doc_id: str) -> list[dict[str, Any]]:
        """Every stored parent row of a document (:data:`~mdchunk.index.rows.PARENT_FIELDS`)."""

    def upsert_parents(self, rows: Sequence[Mapping[str, Any]]) -> None: ...

    def delete_parents(self, ids: Sequence[str]) -> None: ...

    def parents(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The stored parent rows among ``ids`` (:data:`~mdchunk.index.rows.PARENT_FIELDS`);
        unknown ids are left out."""

    def delete_doc(self, doc_id: str) -> None:
        """Remove a document's units, then its leaves, then its parents."""

    def flush(self) -> None:
        """Make what was written durable and fast to search (once per run)."""

    def search(self, query: SideQuery, *, limit: int, where: Filter | None = None
               ) -> list[SearchHit]:
        """One side of a search: the best ``limit`` leaves for ``query``, best first, each
        marking all of its own text (:func:`~mdchunk.index.rows.leaf_hit`). A dense query scores
        by cosine, a text query by BM25 over the leaves' ``search_text``; either way higher is
        better. Only leaves matching ``where`` are considered."""

    def lock_table(self) -> LockTable | None:
        """Where the store's server keeps write locks (:class:`LockTable`); ``None`` when a
        writing run needs none beyond the local file's (:mod:`mdchunk.index.lock`)."""

    def close(self) -> None: ...
