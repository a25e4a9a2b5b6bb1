"""Chunks: the public entry points (text or a file in, :class:`Chunk` s out) and the chunk
itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .chunk import Chunk
    from .chunker import Chunker
    from .context import EnrichCache, Enricher
    from .docsearch import docsearch_record
    from .functions import chunk_file, chunk_hierarchy, chunk_markdown, chunk_qa, chunk_text

__all__ = ["Chunk", "Chunker", "EnrichCache", "Enricher", "chunk_file", "chunk_hierarchy",
           "chunk_markdown", "chunk_qa", "chunk_text", "docsearch_record"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Chunk": ".chunk",
    "Chunker": ".chunker",
    **dict.fromkeys(["EnrichCache", "Enricher"], ".context"),
    "docsearch_record": ".docsearch",
    **dict.fromkeys(["chunk_file", "chunk_hierarchy", "chunk_markdown", "chunk_qa",
                     "chunk_text"], ".functions"),
})
