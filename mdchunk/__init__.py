"""mdchunk: structure-aware chunking of Markdown and plain-text knowledge bases for retrieval.

The pipeline, one sub-package a stage, data flowing one way: ``formats`` (documents → blocks) →
``text`` → ``tokens`` → ``embedding`` → ``plan`` (sections, packing, boundary strategies) →
``chunks`` (the entry points below) → ``index`` (stores, search); ``sources`` finds and batches
files, ``serve`` and ``cli`` sit on top. The names below are imported on first use
(:mod:`.lazy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import ConfigError, DependencyError, InputError, MdchunkError, StoreError
from .lazy import lazy_exports

if TYPE_CHECKING:
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

__all__ = ["DEFAULT_LEVELS", "Chunk", "Chunker", "ChunkerConfig", "ConfigError", "DependencyError",
           "InputError", "MdchunkError", "StoreError", "chunk_file", "chunk_hierarchy",
           "chunk_markdown", "chunk_qa", "chunk_text", "docsearch_record"]

__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(["Chunk", "Chunker", "chunk_file", "chunk_hierarchy", "chunk_markdown",
                     "chunk_qa", "chunk_text", "docsearch_record"], ".chunks"),
    **dict.fromkeys(["DEFAULT_LEVELS", "ChunkerConfig"], ".config"),
})

#: The release, written here only: pyproject.toml reads it (``dynamic = ["version"]``).
__version__ = "0.1.0"
