"""What the framework adapters share: one text to chunks, read the one way mdchunk reads; the
metadata a chunk carries into a framework (the contract's fields, the start offset named as each
framework names it); and the old ``format=`` keyword, still taken."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ..chunks import Chunk, Chunker
from ..chunks.chunk import json_ready
from ..chunks.read import read
from ..formats.registry import ReaderChoice

__all__ = ["CONTRACT_KEYS", "ReaderChoice", "chunk_metadata", "chunk_source", "doc_id_of",
           "reader_keyword"]

#: Metadata keys every adapter sets from a chunk (``anchor`` and ``url`` only where known).
CONTRACT_KEYS = ("chunk_id", "doc_id", "parent_id", "level", "index", "line_start", "line_end",
                 "section_path", "headings", "token_count", "kinds", "anchor", "url")

#: Document metadata keys that name where a document came from, in the order they are tried:
#: LangChain loaders set ``source``; LlamaIndex's ``SimpleDirectoryReader`` sets ``file_path``.
SOURCE_KEYS = ("source", "file_path")


def doc_id_of(metadata: Mapping[str, Any], fallback: str = "") -> str:
    """The document id a framework document's metadata gives (chunk ids depend on it)."""
    for key in SOURCE_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return fallback


def chunk_source(chunker: Chunker, text: str, *, doc_id: str, reader: ReaderChoice,
                 levels: Sequence[int] | None, metadata: Mapping[str, Any] | None = None
                 ) -> list[Chunk]:
    """Chunks of ``text`` read by ``reader`` (``auto``: from the document id's extension,
    Markdown without one): every level of a hierarchy with ``levels``, else flat ones.

    ``metadata`` is not copied onto the chunks: a framework keeps its document's metadata
    itself, so only front matter reaches ``chunk.metadata``.
    """
    reading = read(text, doc_id, metadata, chunker.config, reader=reader,
                   includes=chunker.includes)
    return chunker.chunk_reading(reading, doc_id, levels)


def reader_keyword(reader: ReaderChoice, format: ReaderChoice | None, owner: str
                   ) -> ReaderChoice:
    """The reader an adapter was given: ``format=``, its old name, still wins when given, with
    a :class:`DeprecationWarning` (it meant the reader, a word ``chunk --format`` uses for the
    output)."""
    if format is None:
        return reader
    warnings.warn(f"{owner}(format=...) is deprecated: use reader={format!r}",
                  DeprecationWarning, stacklevel=3)
    return format


def chunk_metadata(chunk: Chunk) -> dict[str, Any]:
    """The contract's fields of ``chunk`` as metadata (front matter first, then these).

    ``parent_id`` is ``None`` for a chunk without a parent; ``anchor`` and ``url`` are left out
    when unknown, so that a vector store's metadata filter never meets ``None`` for them.
    """
    fields: dict[str, Any] = {
        "chunk_id": chunk.id, "doc_id": chunk.doc_id, "parent_id": chunk.parent_id,
        "level": chunk.level, "index": chunk.index, "line_start": chunk.line_start,
        "line_end": chunk.line_end, "section_path": chunk.section_path,
        "headings": list(chunk.headings), "token_count": chunk.token_count,
        "kinds": list(chunk.kinds),
    }
    for name in ("anchor", "url"):
        value = getattr(chunk, name)
        if value is not None:
            fields[name] = value
    return {**json_ready(chunk.metadata), **fields}
