"""What the framework adapters share: one text in a named or detected format to chunks, and the
metadata a chunk carries into a framework's document or node.

The metadata names follow the contract's fields, except the start offset, which each framework
names its own way (LangChain ``start_index``, LlamaIndex ``start_char_idx`` on the node itself).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any, Literal

from ..chunks import Chunk, Chunker
from ..chunks.chunk import json_ready
from ..errors import ConfigError
from ..formats import format_for
from ..formats.registry import FormatName

__all__ = ["CONTRACT_KEYS", "FormatChoice", "chunk_metadata", "chunk_source", "doc_id_of"]

#: ``auto`` picks the reader from the document id's extension and the text, as ``chunk_file``
#: does (Markdown for an id without one); otherwise one of the readers by name.
FormatChoice = Literal["auto", "markdown", "text", "qa"]

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


def chunk_source(chunker: Chunker, text: str, *, doc_id: str, format: FormatChoice,
                 levels: Sequence[int] | None, metadata: Mapping[str, Any] | None = None
                 ) -> list[Chunk]:
    """Chunks of ``text``: every level of a hierarchy with ``levels``, else flat ones.

    ``metadata`` is not copied onto the chunks: a framework keeps its document's metadata
    itself, so only front matter reaches ``chunk.metadata``.
    """
    fmt: FormatName
    if format == "auto":
        suffix = PurePath(doc_id).suffix
        fmt = format_for(suffix, text) if suffix else "markdown"
    elif format in ("markdown", "text", "qa"):
        fmt = format
    else:
        raise ConfigError(f"format={format!r} must be 'auto', 'markdown', 'text' or 'qa'")
    if levels is not None:
        return chunker.chunk_hierarchy(text, doc_id, metadata, levels, fmt)
    flat = {"markdown": chunker.chunk, "text": chunker.chunk_text, "qa": chunker.chunk_qa}[fmt]
    return flat(text, doc_id, metadata)


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
