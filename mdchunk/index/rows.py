"""The layout of a stored chunk: the fields of a leaf row and of a parent row, their byte limits,
and the hit a search makes of a leaf row. The same for every store: the indexer writes these
rows through :class:`~mdchunk.index.store.ChunkStore` and compares them with the rows read back.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..chunks import Chunk
from ..errors import StoreError
from ..text import clean_text
from ..text.scripts import HAN
from .store import SearchHit

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FIELD_BYTES", "FILTER_FIELDS", "PARENT_FIELDS", "SCALAR_FIELDS", "UNIT_FIELDS",
           "chunk_row", "cjk_bigrams", "document_version", "embed_hash", "leaf_hit",
           "metadata_json", "metadata_term", "metadata_terms", "parent_row", "search_text",
           "unit_row"]

#: Byte limits of text fields: Milvus's VARCHAR limits, which are in bytes (the store with the
#: tightest limits sets them for all, so that a row means the same in any store). Display fields
#: are clipped to them; identifiers and text never are.
FIELD_BYTES = {"id": 64, "doc_id": 2048, "path": 4096, "file_type": 32, "title": 2048,
               "section_path": 8192, "text": 65535, "content_hash": 64, "parent_id": 64,
               "url": 8192, "anchor": 1024, "search_text": 65535, "leaf_id": 64, "lang": 16,
               "version": 128, "metadata": 65536, "terms": 65535}

#: Fields that leaves and parents share: a chunk's place in its document and its text.
_CHUNK_FIELDS = ("id", "doc_id", "path", "file_type", "title", "section_path", "level", "index",
                 "parent_id", "start", "end", "line_start", "line_end", "token_count", "text",
                 "url", "anchor", "lang", "version", "metadata", "terms")
#: Every stored field of a chunk (leaf) row except the vectors.
SCALAR_FIELDS = (*_CHUNK_FIELDS, "content_hash")
#: Every stored field of a parent row except the placeholder vector; ``child_count`` is the
#: number of chunks one level down whose ``parent_id`` it is.
PARENT_FIELDS = (*_CHUNK_FIELDS, "child_count")
#: Every stored field of a unit row (:mod:`.units`) except its vector: its leaf, and the leaf's
#: document and path (what a search's filter reads); ``content_hash`` is its text's hash.
UNIT_FIELDS = ("id", "leaf_id", "doc_id", "path", "content_hash")
#: What a search's filter may read of a leaf (:mod:`.where`): a store that cannot say a filter
#: exactly fetches these to check its rows.
FILTER_FIELDS = ("doc_id", "path", "title", "section_path", "file_type", "lang", "version",
                 "url", "anchor", "level", "line_start", "line_end", "token_count", "metadata",
                 "terms")


def embed_hash(text: str) -> str:
    """Hash of what is embedded: equal hashes under one model mean a reusable vector."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _clip(value: str, field: str) -> str:
    """``value`` cut (at a character boundary) to the field's byte limit."""
    data = value.encode("utf-8", "surrogatepass")
    limit = FIELD_BYTES[field]
    return value if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def metadata_json(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A chunk's metadata as it is stored (a JSON object: other values as their text, keys as
    strings). Past :data:`FIELD_BYTES` ``["metadata"]`` or the ``terms`` limit, the largest values
    are left out whole until it fits, so every filter reads the same metadata."""
    data: dict[str, Any] = json.loads(json.dumps(dict(metadata), default=str, ensure_ascii=False))
    sizes = {key: len(json.dumps(value, ensure_ascii=False).encode())
             for key, value in data.items()}
    while data and (len(json.dumps(data, ensure_ascii=False).encode()) > FIELD_BYTES["metadata"]
                    or len(metadata_terms(data)) > FIELD_BYTES["terms"]):
        del data[max(data, key=lambda key: sizes[key])]
    return data


def metadata_term(key: str, kind: str, value: object) -> str:
    """The term that says metadata ``key`` is ``value`` (``kind`` ``=``) or is a list holding
    it (``kind`` ``in``): a hash, so that a filter finds it with ``like`` whatever the value
    holds. A number's term is its value's (``2`` and ``2.0`` are one), a boolean's its own."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    digest = hashlib.blake2b(f"{key}\x00{kind}\x00{text}".encode("utf-8", "surrogatepass"),
                             digest_size=8)
    return digest.hexdigest()


def metadata_terms(metadata: Mapping[str, Any]) -> str:
    """The ``terms`` of a row: one for each scalar value of its metadata and each scalar item of
    a list, space-separated with a space at either end. Milvus evaluates a JSON filter row by
    row, far slower than ``like`` over this text, so equality, ``in`` and ``contains`` read
    it; ordering reads the JSON."""
    terms: set[str] = set()
    for key, value in metadata.items():
        items = [("in", v) for v in value] if isinstance(value, list) else [("=", value)]
        terms.update(metadata_term(key, kind, v) for kind, v in items
                     if isinstance(v, str | int | float | bool))
    return f" {' '.join(sorted(terms))} " if terms else ""


_VERSIONED = re.compile(r"(?:^|/)versioned_docs/version-([^/]+)/")


def document_version(metadata: Mapping[str, Any], *paths: str) -> str:
    """The site version a page belongs to: its front matter's ``version``, else the folder a
    Docusaurus site keeps it in (``versioned_docs/version-5.0/...``) in any of ``paths``;
    ``""`` when neither says.

    >>> document_version({}, "site/versioned_docs/version-5.0/intro.md")
    '5.0'
    """
    given = metadata.get("version")
    if isinstance(given, str | int | float) and not isinstance(given, bool) and str(given):
        return _clip(str(given), "version")
    for path in paths:
        if found := _VERSIONED.search(path.replace("\\", "/")):
            return _clip(found.group(1), "version")
    return ""


def _fields(chunk: Chunk, *, path: str, file_type: str, title: str, hint: str, lang: str,
            version: str) -> dict[str, Any]:
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
        "lang": _clip(lang, "lang"), "version": _clip(version, "version"),
        "metadata": (metadata := metadata_json(chunk.metadata)),
        "terms": metadata_terms(metadata),
    }


def chunk_row(chunk: Chunk, *, path: str, file_type: str, title: str,
              vector: Sequence[float] | np.ndarray, bigrams: bool = False, lang: str = "",
              version: str = "") -> dict[str, Any]:
    """The stored row of a leaf; raises :class:`StoreError` if the verbatim text cannot fit.
    ``parent_id`` is ``""`` for a leaf without a parent (Milvus has no null here); ``bigrams`` adds
    CJK character bigrams to what BM25 reads (:func:`search_text`)."""
    row = _fields(chunk, path=path, file_type=file_type, title=title,
                  hint="chunk with oversized='split'", lang=lang, version=version)
    row["dense"] = [float(x) for x in vector]
    row["content_hash"] = embed_hash(chunk.embed_text)
    row["search_text"] = _clip(search_text(chunk.embed_text, bigrams=bigrams), "search_text")
    return row


def unit_row(unit_id: str, leaf: Mapping[str, Any], text: str,
             vector: Sequence[float] | np.ndarray) -> dict[str, Any]:
    """The stored row of a unit of the leaf whose row is ``leaf`` (its text is not stored:
    the leaf's text shows it)."""
    return {"id": unit_id, "leaf_id": leaf["id"], "doc_id": leaf["doc_id"], "path": leaf["path"],
            "content_hash": embed_hash(text), "dense": [float(x) for x in vector]}


def search_text(text: str, *, bigrams: bool = False) -> str:
    """What BM25 reads of a chunk's text, or of a query: the text after hygiene, so that a
    zero-width space or a soft hyphen inside a word does not hide it. With ``bigrams``, every pair
    of adjacent Han characters is appended as a word (:func:`cjk_bigrams`), so that a paraphrase
    the segmenter cuts differently still shares terms."""
    cleaned = clean_text(text).text
    if not bigrams:
        return cleaned
    pairs = cjk_bigrams(cleaned)
    return f"{cleaned}\n{' '.join(pairs)}" if pairs else cleaned


_HAN_RUN = re.compile(rf"[{HAN}]{{2,}}")


def cjk_bigrams(text: str) -> list[str]:
    """Every two adjacent Han characters of ``text``, in order.

    >>> cjk_bigrams("磁盘快满了 disk 满")
    ['磁盘', '盘快', '快满', '满了']
    """
    return [run[i:i + 2] for run in _HAN_RUN.findall(text) for i in range(len(run) - 1)]


def parent_row(chunk: Chunk, *, path: str, file_type: str, title: str, child_count: int,
               lang: str = "", version: str = "") -> dict[str, Any]:
    """The row of a parent (a chunk above the leaves): no vectors, and how many chunks one
    level down it holds, which is what automatic merging weighs hits against."""
    row = _fields(chunk, path=path, file_type=file_type, title=title,
                  hint="index with smaller levels", lang=lang, version=version)
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
        url=row.get("url") or None, anchor=row.get("anchor") or None,
        metadata=dict(row.get("metadata") or {}), lang=row.get("lang") or "",
        version=row.get("version") or "")
