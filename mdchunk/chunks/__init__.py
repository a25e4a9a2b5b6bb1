"""Chunks: the public entry points (text or a file in, :class:`Chunk` s out) and the chunk
itself."""

from .chunk import Chunk
from .chunker import Chunker
from .context import EnrichCache, Enricher
from .docsearch import docsearch_record
from .functions import chunk_file, chunk_hierarchy, chunk_markdown, chunk_qa, chunk_text

__all__ = ["Chunk", "Chunker", "EnrichCache", "Enricher", "chunk_file", "chunk_hierarchy",
           "chunk_markdown", "chunk_qa", "chunk_text", "docsearch_record"]
