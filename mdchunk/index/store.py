"""The index's storage behind two small protocols, and the values that cross them.

:class:`ChunkStore` holds chunk rows (verbatim text, provenance, dense and BM25 vectors) and
answers searches; it also keeps the parents of a hierarchical index (the coarser levels, text
and provenance only: they are shown, never searched), so that a search can widen a hit to its
context. :class:`Manifest` records, per document, the hash and config it was indexed
with. The indexer and search are written against these protocols only; Milvus (Lite or a
server, :mod:`mdchunk.index.milvus`) is the implementation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..chunks import Chunk
from ..errors import StoreError
from ..text import clean_text
from .fusion import Fusion

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ANALYZERS",
    "ANALYZER_NAMES",
    "EXPAND_NAMES",
    "FIELD_BYTES",
    "PARENT_FIELDS",
    "SCALAR_FIELDS",
    "SCHEMA_VERSION",
    "ChunkStore",
    "Expand",
    "IndexMeta",
    "Manifest",
    "ManifestEntry",
    "SearchHit",
    "SearchMode",
    "analyzer_params_json",
    "chunk_row",
    "embed_hash",
    "leaf_hit",
    "parent_row",
    "path_prefix_filter",
    "quote",
]

SearchMode = Literal["hybrid", "dense", "bm25"]
#: What a search returns for a matching leaf: the leaf (``none``), its parent (``parent``), or
#: the largest ancestor enough of whose children matched (``auto``; see
#: :mod:`mdchunk.index.expand`).
Expand = Literal["none", "parent", "auto"]
EXPAND_NAMES: tuple[Expand, ...] = ("none", "parent", "auto")

#: BM25 analyzers a store must offer, by name, with their Milvus analyzer params: ``standard``
#: (words) and ``jieba`` (Chinese and words). ``lowercase`` is explicit because a Milvus
#: server's ``standard`` tokenizer does not fold case (Milvus Lite's does). Milvus Lite applies
#: its tokenizer only and ignores every filter, so the filters a server offers (stop words,
#: stemming, punctuation) could not be measured here and none is added (BENCHMARKS.md,
#: "BM25 analyzers"). What a collection was built with is recorded as these params
#: (:attr:`IndexMeta.analysis`), so changing a definition here rebuilds it.
ANALYZERS: dict[str, dict[str, Any]] = {
    "standard": {"tokenizer": "standard", "filter": ["lowercase"]},
    "jieba": {"tokenizer": "jieba", "filter": ["lowercase"]},
}
ANALYZER_NAMES = tuple(ANALYZERS)

#: Byte limits of text fields (Milvus VARCHAR limits are in bytes). Display fields are clipped to
#: them; identifiers and text never are.
FIELD_BYTES = {"id": 64, "doc_id": 2048, "path": 4096, "file_type": 32, "title": 2048,
               "section_path": 8192, "text": 65535, "content_hash": 64, "parent_id": 64,
               "url": 8192, "anchor": 1024, "search_text": 65535}
#: Version of the collections' layout, recorded with the index. Version 2 added ``parent_id``
#: to chunk rows and the parents collection, version 3 ``url`` and ``anchor``, version 4
#: ``search_text`` (what BM25 reads: the text after hygiene), version 5 made it the leaf's
#: ``embed_text`` (breadcrumb included, as the model reads it) instead of its ``text``; an index
#: of another version is rebuilt by the next indexing run and refused by search.
SCHEMA_VERSION = "5"
_PROP = "mdchunk."
#: Fields that leaves and parents share: a chunk's place in its document and its text.
_CHUNK_FIELDS = ("id", "doc_id", "path", "file_type", "title", "section_path", "level", "index",
                 "parent_id", "start", "end", "line_start", "line_end", "token_count", "text",
                 "url", "anchor")
#: Every stored field of a chunk (leaf) row except the vectors.
SCALAR_FIELDS = (*_CHUNK_FIELDS, "content_hash")
#: Every stored field of a parent row except the placeholder vector; ``child_count`` is the
#: number of chunks one level down whose ``parent_id`` it is.
PARENT_FIELDS = (*_CHUNK_FIELDS, "child_count")


def analyzer_params_json(name: str) -> str:
    """The params of analyzer ``name`` as canonical JSON (``""`` for an unknown name, which
    creating the collection refuses)."""
    params = ANALYZERS.get(name)
    return json.dumps(params, sort_keys=True, separators=(",", ":")) if params else ""


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
    #: The analyzer's params as recorded (canonical JSON): by default those :data:`ANALYZERS`
    #: gives ``analyzer`` now, so a collection built under another definition differs.
    analysis: str = ""
    #: How the vectors were computed (``torch``, ``onnx``, ``onnx-int8``, ``numpy`` for USE):
    #: vectors of two backends differ a little, so switching rebuilds rather than mixes them.
    #: A collection that records none was built before backends were recorded, with torch.
    backend: str = "torch"
    #: The ONNX export recipe of an ONNX backend's vectors (``EXPORTER_VERSION``; ``""`` on torch
    #: and numpy): a new recipe's int8 vectors differ a little from an old one's. An ONNX
    #: collection that records none was built with recipe 1, before it was recorded.
    export: str = ""

    def __post_init__(self) -> None:
        if not self.analysis:
            object.__setattr__(self, "analysis", analyzer_params_json(self.analyzer))

    def properties(self) -> dict[str, str]:
        return {f"{_PROP}schema": self.schema, f"{_PROP}model": self.model,
                f"{_PROP}dim": str(self.dim), f"{_PROP}config": self.config,
                f"{_PROP}analyzer": self.analyzer, f"{_PROP}analysis": self.analysis,
                f"{_PROP}backend": self.backend, f"{_PROP}export": self.export}

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> IndexMeta | None:
        """The recorded meta, or ``None`` when the collection was not made by mdchunk.

        A collection of another schema version is still mdchunk's: its meta differs from a
        current one (``schema: 1 -> 2``), so indexing rebuilds it rather than refusing it.
        """
        try:
            return cls(props[f"{_PROP}model"], int(props[f"{_PROP}dim"]),
                       props[f"{_PROP}config"], props[f"{_PROP}analyzer"],
                       props[f"{_PROP}schema"],
                       props.get(f"{_PROP}analysis") or "(not recorded)",
                       props.get(f"{_PROP}backend") or "torch",
                       props.get(f"{_PROP}export") or "")
        except (KeyError, ValueError):
            return None

    def differences(self, other: IndexMeta) -> list[str]:
        """``field: recorded -> wanted`` for each field that differs (``self`` is recorded)."""
        return [f"{name}: {getattr(self, name)} -> {getattr(other, name)}"
                for name in ("model", "backend", "export", "dim", "config", "analyzer",
                             "analysis", "schema")
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
class SearchHit:
    """One search result; ``score`` is higher-is-better within a mode (RRF, cosine or BM25).

    A hit is a leaf, or with ``expand`` a parent standing for the leaves that matched inside
    it (its score is their best). ``text`` is what to show, ``line_start``-``line_end`` and
    ``start``-``end`` (character offsets in the document) where it lies, ``level`` its depth
    in the hierarchy (1 coarsest). ``leaf_ids[i]`` is a matching leaf and ``marks[i]`` its span
    in ``text`` (``text[a:b]`` is that leaf's text), in document order; an unexpanded leaf
    marks all of itself. Tuples, so that a hit stays hashable.
    """

    score: float
    id: str
    doc_id: str
    path: str
    title: str
    section_path: str
    line_start: int
    line_end: int
    text: str
    level: int = 0
    parent_id: str | None = None
    start: int = 0
    end: int = 0
    marks: tuple[tuple[int, int], ...] = ()
    leaf_ids: tuple[str, ...] = ()
    #: Where the hit is published (page URL plus ``#anchor``) when the index was built with a
    #: ``base_url``, and its heading's anchor; ``None`` otherwise.
    url: str | None = None
    anchor: str | None = None


def embed_hash(text: str) -> str:
    """Hash of what is embedded: equal hashes under one model mean a reusable vector."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _clip(value: str, field: str) -> str:
    """``value`` cut (at a character boundary) to the field's byte limit."""
    data = value.encode("utf-8", "surrogatepass")
    limit = FIELD_BYTES[field]
    return value if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def _fields(chunk: Chunk, *, path: str, file_type: str, title: str, hint: str
            ) -> dict[str, Any]:
    """The fields every stored chunk has; raises :class:`StoreError` (ending with ``hint``)
    when its verbatim text cannot fit, or when an identifier would have to be cut."""
    if len(chunk.text.encode("utf-8", "surrogatepass")) > FIELD_BYTES["text"]:
        raise StoreError(
            f"{path}:{chunk.line_start}: a chunk of {len(chunk.text)} characters exceeds Milvus's "
            f"{FIELD_BYTES['text']}-byte VARCHAR limit; {hint}"
        )
    for name, value in (("doc_id", chunk.doc_id), ("path", path)):
        if len(value.encode("utf-8", "surrogatepass")) > FIELD_BYTES[name]:
            raise StoreError(f"{value[:80]}...: {name} longer than {FIELD_BYTES[name]} bytes")
    return {
        "id": chunk.id, "doc_id": chunk.doc_id, "path": path,
        "file_type": _clip(file_type, "file_type"), "title": _clip(title, "title"),
        "section_path": _clip(chunk.section_path, "section_path"),
        "level": chunk.level, "index": chunk.index, "parent_id": chunk.parent_id or "",
        "start": chunk.start, "end": chunk.end,
        "line_start": chunk.line_start, "line_end": chunk.line_end,
        "token_count": chunk.token_count, "text": chunk.text,
        "url": _clip(chunk.url or "", "url"), "anchor": _clip(chunk.anchor or "", "anchor"),
    }


def chunk_row(chunk: Chunk, *, path: str, file_type: str, title: str,
              vector: Sequence[float] | np.ndarray) -> dict[str, Any]:
    """The Milvus row for a leaf; raises :class:`StoreError` if the verbatim text cannot fit.

    ``parent_id`` is stored as ``""`` for a leaf without a parent (Milvus has no null here).
    """
    row = _fields(chunk, path=path, file_type=file_type, title=title,
                  hint="chunk with oversized='split'")
    row["dense"] = [float(x) for x in vector]
    row["content_hash"] = embed_hash(chunk.embed_text)
    row["search_text"] = _clip(search_text(chunk.embed_text), "search_text")
    return row


def search_text(text: str) -> str:
    """What BM25 reads of a chunk's text, or of a query: the text after hygiene
    (:func:`mdchunk.text.clean_text`), so that a zero-width space or a soft hyphen inside a word,
    a BOM or a control character does not split or hide the word the query names. The stored
    ``text`` stays verbatim."""
    return clean_text(text).text


def parent_row(chunk: Chunk, *, path: str, file_type: str, title: str, child_count: int
               ) -> dict[str, Any]:
    """The row of a parent (a chunk above the leaves): no vectors, and how many chunks one
    level down it holds, which is what automatic merging weighs hits against."""
    row = _fields(chunk, path=path, file_type=file_type, title=title,
                  hint="index with smaller levels")
    row["child_count"] = child_count
    return row


def leaf_hit(score: float, row: Mapping[str, Any]) -> SearchHit:
    """A leaf found by a search, from its stored ``row``: it marks all of its own text."""
    return SearchHit(
        score=score, id=str(row["id"]), doc_id=row["doc_id"], path=row["path"],
        title=row["title"], section_path=row["section_path"], line_start=row["line_start"],
        line_end=row["line_end"], text=row["text"], level=row["level"],
        parent_id=row["parent_id"] or None, start=row["start"], end=row["end"],
        marks=((0, len(row["text"])),), leaf_ids=(str(row["id"]),),
        url=row.get("url") or None, anchor=row.get("anchor") or None)


def quote(value: str) -> str:
    """A Milvus filter string literal for ``value``."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def path_prefix_filter(prefix: str) -> str:
    """Rows whose ``doc_id`` or ``path`` starts with ``prefix``, metacharacters and all.

    Both fields, because ``doc_id`` is relative to the indexed root (``runbooks/db.md``) and
    ``path`` is the file as it was named when indexed (``kb/runbooks/db.md``). A lexicographic
    range rather than ``like "prefix%"``: Milvus Lite ignores escapes in LIKE patterns, so ``_``
    (common in file names) would match any character there. UTF-8 byte order is code point
    order, so the range means the same on a server.

    >>> path_prefix_filter("docs/")
    '(doc_id >= "docs/" and doc_id < "docs0") or (path >= "docs/" and path < "docs0")'
    """
    if not prefix:
        return ""
    successor = ord(prefix[-1]) + 1
    if 0xD800 <= successor <= 0xDFFF:  # no surrogates in UTF-8: skip to the next scalar value
        successor = 0xE000
    low, high = quote(prefix), quote(prefix[:-1] + chr(successor))
    return " or ".join(f"({f} >= {low} and {f} < {high})" for f in ("doc_id", "path"))


class Manifest(Protocol):
    """One entry per indexed document; an entry with an empty hash marks a write under way."""

    def entries(self) -> dict[str, ManifestEntry]: ...

    def put(self, entries: Iterable[ManifestEntry]) -> None: ...

    def delete(self, doc_ids: Sequence[str]) -> None: ...


class ChunkStore(Protocol):
    """Chunk rows of one index, with the manifest that says which documents they are of."""

    @property
    def manifest(self) -> Manifest:
        """The store's manifest (read-only here, so a store may keep a more specific one)."""
        ...

    def meta(self) -> IndexMeta | None:
        """What the index was built with; ``None`` when there is none yet."""
        ...

    def open(self, meta: IndexMeta, *, rebuild: bool = True) -> bool:
        """Make the index match ``meta``; whether it was (re)created empty."""
        ...

    def check(self, *, model: str | None = None, dim: int | None = None) -> IndexMeta:
        """The recorded meta, checked against the query side; raises when there is no index."""
        ...

    def doc_chunks(self, doc_id: str, *, vectors: bool = True) -> list[dict[str, Any]]:
        """Every stored leaf row of a document (:data:`SCALAR_FIELDS`, and ``dense`` if asked)."""
        ...

    def vectors(self, hashes: Sequence[str]) -> dict[str, Any]:
        """The stored ``dense`` vector of each of ``hashes`` (embed-text hashes) that some leaf
        of the collection has; the collection-wide embedding cache
        (:mod:`mdchunk.index.cache`)."""
        ...

    def upsert_chunks(self, rows: Sequence[Mapping[str, Any]]) -> None: ...

    def delete_chunks(self, ids: Sequence[str]) -> None: ...

    def doc_parents(self, doc_id: str) -> list[dict[str, Any]]:
        """Every stored parent row of a document (:data:`PARENT_FIELDS`)."""
        ...

    def upsert_parents(self, rows: Sequence[Mapping[str, Any]]) -> None: ...

    def delete_parents(self, ids: Sequence[str]) -> None: ...

    def parents(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The stored parent rows among ``ids`` (:data:`PARENT_FIELDS`); unknown ids are left
        out."""
        ...

    def delete_doc(self, doc_id: str) -> None:
        """Remove a document's leaves, then its parents."""
        ...

    def flush(self) -> None:
        """Make what was written durable and fast to search (once per run)."""
        ...

    def search(self, *, mode: SearchMode, k: int, text: str, vector: Sequence[float] | None,
               filter: str = "", fusion: Fusion = ...) -> list[SearchHit]: ...

    def close(self) -> None: ...
