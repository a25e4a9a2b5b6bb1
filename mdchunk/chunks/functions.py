"""The one-call functions of the public API: ``chunk_markdown``, ``chunk_text``, ``chunk_qa``,
``chunk_file`` and ``chunk_hierarchy``, each a :class:`~mdchunk.chunks.chunker.Chunker` built
from keyword arguments and used once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config import DEFAULT_LEVELS, DEFAULT_TITLE_KEYS, ChunkerConfig, Semantic, TokenizerSpec
from ..formats.registry import FormatName
from ..plan.strategies.llm import Llm
from .chunk import Chunk
from .chunker import Chunker

__all__ = ["chunk_file", "chunk_hierarchy", "chunk_markdown", "chunk_qa", "chunk_text"]


def _config(max_tokens: int, overlap_tokens: int, tokenizer: TokenizerSpec,
            oversized: str, min_tokens: int | None, base_url: str | None, site: str,
            title_keys: Sequence[str], clean: bool, semantic: Semantic | None = None,
            semantic_model: str | None = None, includes: str | os.PathLike[str] | None = None
            ) -> ChunkerConfig:
    return ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap_tokens, tokenizer=tokenizer,
                         oversized=oversized, min_tokens=min_tokens,  # type: ignore[arg-type]
                         base_url=base_url, site=site,  # type: ignore[arg-type]
                         title_keys=title_keys, clean=clean,  # type: ignore[arg-type]  # checked
                         semantic=semantic, semantic_model=semantic_model,
                         includes=includes)  # type: ignore[arg-type]  # made a str there


def chunk_markdown(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
                   tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
                   oversized: str = "split", metadata: Mapping[str, Any] | None = None,
                   min_tokens: int | None = None, base_url: str | None = None,
                   site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
                   clean: bool = True, semantic: Semantic | None = None,
                   semantic_model: str | None = None, llm: Llm | None = None,
                   includes: str | os.PathLike[str] | None = None) -> list[Chunk]:
    """Chunk a Markdown string (see ``docs/contract.md``). With ``base_url``, each chunk's ``url``
    is its page's URL as ``site`` builds it (``plain``, ``docusaurus``, ``mkdocs``, ``hugo``)
    from ``doc_id``, plus ``#anchor``; ``title_keys`` name the front matter page title.
    ``includes`` is the include root: a ``code_sample``, ``include``, ``--8<--`` or MDX
    raw-loader reference shows its file's text as a code block (``docs/sites.md``).

    >>> [c.text for c in chunk_markdown("# T\\n\\nHello.\\n", max_tokens=32, overlap_tokens=0)]
    ['# T\\n\\nHello.']
    """
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model, includes)
    return Chunker(config, llm=llm).chunk(text, doc_id=doc_id, metadata=metadata)


def chunk_text(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
               tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
               oversized: str = "split", metadata: Mapping[str, Any] | None = None,
               min_tokens: int | None = None, base_url: str | None = None,
               site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
               clean: bool = True, semantic: Semantic | None = None,
               semantic_model: str | None = None, llm: Llm | None = None,
               includes: str | os.PathLike[str] | None = None) -> list[Chunk]:
    """Chunk plain text; headings are found by a line classifier."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model, includes)
    return Chunker(config, llm=llm).chunk_text(text, doc_id=doc_id, metadata=metadata)


def chunk_qa(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
             tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
             oversized: str = "split", metadata: Mapping[str, Any] | None = None,
             min_tokens: int | None = None, base_url: str | None = None,
             site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
             clean: bool = True, semantic: Semantic | None = None,
             semantic_model: str | None = None, llm: Llm | None = None,
             includes: str | os.PathLike[str] | None = None) -> list[Chunk]:
    """Chunk a ``question:/answer:`` file, one chunk per pair."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model, includes)
    return Chunker(config, llm=llm).chunk_qa(text, doc_id=doc_id, metadata=metadata)


def chunk_file(path: str | Path, *, max_tokens: int = 512, overlap_tokens: int = 64,
               tokenizer: TokenizerSpec = "cl100k_base", doc_id: str | None = None,
               oversized: str = "split", metadata: Mapping[str, Any] | None = None,
               min_tokens: int | None = None, levels: Sequence[int] | None = None,
               base_url: str | None = None, site: str = "plain",
               title_keys: Sequence[str] = DEFAULT_TITLE_KEYS, clean: bool = True,
               semantic: Semantic | None = None, semantic_model: str | None = None,
               llm: Llm | None = None, includes: str | os.PathLike[str] | None = None
               ) -> list[Chunk]:
    """Chunk a file, picking the reader by extension and content; with ``levels``, every level
    of a hierarchy (see :func:`chunk_hierarchy`)."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model, includes)
    return Chunker(config, llm=llm).chunk_file(path, doc_id=doc_id, metadata=metadata,
                                               levels=levels)


def chunk_hierarchy(text: str, *, levels: Sequence[int] = DEFAULT_LEVELS,
                    overlap_tokens: int = 64, tokenizer: TokenizerSpec = "cl100k_base",
                    doc_id: str = "", oversized: str = "split",
                    metadata: Mapping[str, Any] | None = None,
                    format: FormatName = "markdown", base_url: str | None = None,
                    site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
                    clean: bool = True, semantic: Semantic | None = None,
                    semantic_model: str | None = None, llm: Llm | None = None,
                    includes: str | os.PathLike[str] | None = None) -> list[Chunk]:
    """Chunks of every level of a hierarchy, coarsest (level 1) first, linked by ``parent_id``.

    Level 1 tiles ``text`` exactly; each finer level is packed inside its parents with its own
    budget; leaves are the last level. ``format`` is ``"markdown"``, ``"text"`` or ``"qa"``.

    >>> chunks = chunk_hierarchy("# T\\n\\nHello.\\n", levels=(64, 32), overlap_tokens=0)
    >>> [(c.level, c.text, c.parent_id == chunks[0].id) for c in chunks]
    [(1, '# T\\n\\nHello.\\n', False), (2, '# T\\n\\nHello.\\n', True)]
    """
    config = ChunkerConfig(overlap_tokens=overlap_tokens, tokenizer=tokenizer,
                           oversized=oversized, levels=levels,  # type: ignore[arg-type]
                           base_url=base_url, site=site,  # type: ignore[arg-type]
                           title_keys=title_keys,  # type: ignore[arg-type]  # checked there
                           clean=clean, semantic=semantic, semantic_model=semantic_model,
                           includes=includes)  # type: ignore[arg-type]  # made a str there
    return Chunker(config, llm=llm).chunk_hierarchy(text, doc_id=doc_id, metadata=metadata,
                                                    format=format)
