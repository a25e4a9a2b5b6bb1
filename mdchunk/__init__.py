"""mdchunk: structure-aware chunking of Markdown and plain-text knowledge bases for retrieval.

It never cuts a code block, table or list that fits, never emits a heading without its body,
sizes chunks in real tokens, and records exactly where every chunk came from.
"""

from __future__ import annotations

from .chunker import Chunker, chunk_file, chunk_markdown, chunk_qa, chunk_text
from .errors import ConfigError, DependencyError, InputError, MdchunkError, StoreError
from .model import Chunk, ChunkerConfig

__all__ = [
    "Chunk",
    "Chunker",
    "ChunkerConfig",
    "ConfigError",
    "DependencyError",
    "InputError",
    "MdchunkError",
    "StoreError",
    "chunk_file",
    "chunk_markdown",
    "chunk_qa",
    "chunk_text",
]

__version__ = "0.1.0"
