"""Chunks: the public entry points (text or a file in, :class:`Chunk` s out) and the chunk
itself."""

from .chunk import Chunk
from .chunker import (
    Chunker,
    chunk_file,
    chunk_hierarchy,
    chunk_markdown,
    chunk_qa,
    chunk_text,
)
from .docsearch import docsearch_record

__all__ = ["Chunk", "Chunker", "chunk_file", "chunk_hierarchy", "chunk_markdown", "chunk_qa",
           "chunk_text", "docsearch_record"]
