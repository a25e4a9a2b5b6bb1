"""mdchunk: structure-aware chunking of Markdown and plain-text knowledge bases for retrieval.

It never cuts a code block, table or list that fits, never emits a heading without its body,
sizes chunks in real tokens, and records exactly where every chunk came from.

The pipeline, one sub-package a stage, data flowing one way: ``formats`` (documents → blocks)
→ ``text`` (decoding, sentences) → ``tokens`` (counters, exact span counts) → ``embedding``
(the models, loaded on first use) → ``plan`` (sections, packing, boundary strategies) →
``chunks`` (the entry points below) → ``index`` (Milvus, search); ``sources`` finds and batches
files, ``cli`` sits on top.
"""

from __future__ import annotations

from .chunks import (
    Chunk,
    Chunker,
    chunk_file,
    chunk_hierarchy,
    chunk_markdown,
    chunk_qa,
    chunk_text,
    docsearch_record,
)
from .config import DEFAULT_LEVELS, ChunkerConfig
from .errors import ConfigError, DependencyError, InputError, MdchunkError, StoreError

__all__ = ["DEFAULT_LEVELS", "Chunk", "Chunker", "ChunkerConfig", "ConfigError", "DependencyError",
           "InputError", "MdchunkError", "StoreError", "chunk_file", "chunk_hierarchy",
           "chunk_markdown", "chunk_qa", "chunk_text", "docsearch_record"]

#: The release, written here only: pyproject.toml reads it (``dynamic = ["version"]``).
__version__ = "0.1.0"
