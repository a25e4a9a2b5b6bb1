"""The one-call functions of the public API (``chunk_markdown``, ``chunk_text``, ``chunk_qa``,
``chunk_file``, ``chunk_hierarchy``). Each takes the chunker's settings whole (``config=``) or as
keyword arguments (:class:`~mdchunk.config.ChunkerOptions`), the keywords overriding the config's
fields; a keyword that is no field is a :class:`~mdchunk.ConfigError` naming it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Unpack

from ..config import ChunkerConfig, ChunkerOptions, config_with
from ..formats.registry import FormatName
from ..plan.strategies.llm import Llm
from .chunk import Chunk
from .chunker import Chunker, reader_of
from .context import Enrich, Enricher

__all__ = ["chunk_file", "chunk_hierarchy", "chunk_markdown", "chunk_qa", "chunk_text"]


def chunk_markdown(text: str, *, doc_id: str = "", metadata: Mapping[str, Any] | None = None,
                   llm: Llm | None = None,
                   enrich: Enrich | Enricher | None = None, config: ChunkerConfig | None = None,
                   **options: Unpack[ChunkerOptions]) -> list[Chunk]:
    """Chunk a Markdown string (see ``docs/contract.md``). With ``base_url``, each chunk's
    ``url`` is its page's URL as ``site`` builds it (``plain``, ``docusaurus``, ``mkdocs``,
    ``hugo``) from ``doc_id``, plus ``#anchor``; ``title_keys`` name the front matter page
    title. ``includes`` is the include root: a ``code_sample``, ``include``, ``--8<--`` or MDX
    raw-loader reference shows its file's text as a code block (``docs/sites.md``). With
    ``levels``, every level of a hierarchy (see :func:`chunk_hierarchy`). ``enrich``
    (``(document, leaf_text) -> line``) writes a line of context into each leaf's
    ``embed_text``, within the budget (:mod:`mdchunk.chunks.context`).

    >>> [c.text for c in chunk_markdown("# T\\n\\nHello.\\n", max_tokens=32, overlap_tokens=0)]
    ['# T\\n\\nHello.']
    """
    chunker = Chunker(config_with(config, options), llm=llm, enrich=enrich)
    return chunker.chunk(text, doc_id=doc_id, metadata=metadata)


def chunk_text(text: str, *, doc_id: str = "", metadata: Mapping[str, Any] | None = None,
               llm: Llm | None = None, enrich: Enrich | Enricher | None = None,
               config: ChunkerConfig | None = None,
               **options: Unpack[ChunkerOptions]) -> list[Chunk]:
    """Chunk plain text; headings are found by a line classifier."""
    chunker = Chunker(config_with(config, options), llm=llm, enrich=enrich)
    return chunker.chunk_text(text, doc_id=doc_id, metadata=metadata)


def chunk_qa(text: str, *, doc_id: str = "", metadata: Mapping[str, Any] | None = None,
             llm: Llm | None = None, enrich: Enrich | Enricher | None = None,
             config: ChunkerConfig | None = None, **options: Unpack[ChunkerOptions]) -> list[Chunk]:
    """Chunk a ``question:/answer:`` file, one chunk per pair."""
    chunker = Chunker(config_with(config, options), llm=llm, enrich=enrich)
    return chunker.chunk_qa(text, doc_id=doc_id, metadata=metadata)


def chunk_file(path: str | Path, *, doc_id: str | None = None,
               metadata: Mapping[str, Any] | None = None, llm: Llm | None = None,
               enrich: Enrich | Enricher | None = None, config: ChunkerConfig | None = None,
               **options: Unpack[ChunkerOptions]) -> list[Chunk]:
    """Chunk a file, picking the reader by extension and content; with ``levels``, every level
    of a hierarchy (see :func:`chunk_hierarchy`)."""
    chunker = Chunker(config_with(config, options), llm=llm, enrich=enrich)
    return chunker.chunk_file(path, doc_id=doc_id, metadata=metadata)


def chunk_hierarchy(text: str, *, doc_id: str = "", metadata: Mapping[str, Any] | None = None,
                    reader: FormatName = "markdown", llm: Llm | None = None,
                    enrich: Enrich | Enricher | None = None,
                    config: ChunkerConfig | None = None, format: FormatName | None = None,
                    **options: Unpack[ChunkerOptions]) -> list[Chunk]:
    """Chunks of every level of a hierarchy, coarsest (level 1) first, linked by ``parent_id``.

    Level 1 tiles ``text`` exactly; each finer level is packed inside its parents with its own
    budget; leaves are the last level. ``levels`` default to the config's, else
    :data:`~mdchunk.DEFAULT_LEVELS`. ``reader`` is ``"markdown"``, ``"text"`` or ``"qa"``
    (``format=``, its old name, is deprecated).

    >>> chunks = chunk_hierarchy("# T\\n\\nHello.\\n", levels=(64, 32), overlap_tokens=0)
    >>> [(c.level, c.text, c.parent_id == chunks[0].id) for c in chunks]
    [(1, '# T\\n\\nHello.\\n', False), (2, '# T\\n\\nHello.\\n', True)]
    """
    chunker = Chunker(config_with(config, options), llm=llm, enrich=enrich)
    return chunker.chunk_hierarchy(text, doc_id=doc_id, metadata=metadata,
                                   reader=reader_of(reader, format))

