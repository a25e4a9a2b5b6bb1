"""Where an indexing run's documents are chunked and embedded: :class:`LocalEngine` here, one
document after another, or :class:`mdchunk.index.distributed.RayEngine` on a cluster. Every write
stays in the indexer's process, so the crash-safe semantics are one code whichever engine runs."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..chunks import Chunk, Chunker
from ..config import ChunkerConfig
from ..embedding import Embedder
from ..errors import ConfigError, InputError
from ..sources import Source
from .rows import embed_hash
from .units import leaf_units

__all__ = ["Engine", "LocalEngine", "Prepared", "PreparedDoc", "Preparer", "Window",
           "window_of"]


@dataclass(frozen=True, slots=True)
class PreparedDoc:
    """A document about to be written: its leaves with their embed-text hashes, its parents
    (every coarser level) with their number of children."""

    source: Source
    digest: str
    known: bool  # has a manifest entry, so it may have stored chunks
    leaves: list[Chunk]
    keys: list[str]  # embed hashes of the leaves
    parents: list[Chunk]
    child_counts: Mapping[str, int]
    #: Leaf id -> the texts of its units (:mod:`.units`), when the index embeds them.
    units: Mapping[str, list[str]] = field(default_factory=dict)


#: A document of the plan and what preparing it gave: the document, or why it could not be read.
Prepared = tuple[Source, PreparedDoc | InputError]


@dataclass(frozen=True, slots=True)
class Window:
    """A model's window, for checking chunks sized with another tokenizer."""

    tokenizer: str
    max_tokens: int
    model: str


def window_of(embedder: Embedder) -> Window:
    return Window(embedder.tokenizer, embedder.max_tokens, embedder.name)


@functools.lru_cache(maxsize=8)
def _chunker(config: ChunkerConfig, encoder: Embedder | None = None) -> Chunker:
    """One chunker per config (and seam-scoring model) and process: a worker prepares many
    documents."""
    return Chunker(config, encoder=encoder)


@dataclass(frozen=True, slots=True)
class Preparer:
    """Chunks one document for the indexer: every level, split into leaves and parents. ``window``
    is set when chunks are sized with a tokenizer other than the model's: each leaf is then
    checked against the model's window (:meth:`check`)."""

    config: ChunkerConfig
    window: Window | None = None
    #: The model that scores seams when ``config.semantic == "embedding"`` (the index's own).
    encoder: Embedder | None = None
    #: Whether the leaves' units are read for embedding too (:mod:`.units`).
    units: bool = False
    #: Whether what BM25 reads of a leaf has CJK bigrams added (:func:`.rows.search_text`).
    bigrams: bool = False
    #: The run's metadata, under every chunk's own (front matter wins a key): only stored.
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __call__(self, source: Source, digest: str, known: bool) -> PreparedDoc:
        chunks = _chunker(self.config, self.encoder).chunk_file(source.file, doc_id=source.doc_id)
        if self.metadata:  # merged after chunking: the run's keys never change a chunk's text
            chunks = [replace(c, metadata={**self.metadata, **c.metadata}) for c in chunks]
        leaf_level = len(self.config.levels or ())
        leaves = [c for c in chunks if c.level == leaf_level]
        self.check(leaves, source)
        keys = [embed_hash(c.embed_text) for c in leaves]
        return PreparedDoc(source, digest, known, leaves, keys,
                           [c for c in chunks if c.level < leaf_level],
                           Counter(c.parent_id for c in chunks if c.parent_id is not None),
                           {c.id: leaf_units(c.text, page_start=c.start == 0)
                            for c in leaves} if self.units else {})

    def check(self, chunks: Sequence[Chunk], source: Source) -> None:
        """Refuse chunks the model would truncate (only needed with a foreign tokenizer)."""
        if self.window is None:
            return
        from ..tokens import get_counter

        window = self.window
        count = get_counter(window.tokenizer).count
        for chunk in chunks:
            n = count(chunk.embed_text)
            if n > window.max_tokens:
                raise ConfigError(
                    f"{source.path}:{chunk.line_start}: a chunk of {n} {window.model} tokens "
                    f"exceeds the model's window of {window.max_tokens}; lower max_tokens or "
                    "drop tokenizer")

    def prepared(self, source: Source, digest: str, known: bool) -> Prepared:
        """:meth:`__call__`, with a file that cannot be read as a value, not an exception (a
        run goes on without it); a config error still stops the run."""
        try:
            return source, self(source, digest, known)
        except InputError as exc:
            return source, exc


class Engine(Protocol):
    """Where a run's documents are chunked and embedded (see the module docstring)."""

    def start(self, embedder: Embedder) -> AbstractContextManager[Embedder]:
        """For the run: the embedder to embed with (``embedder`` itself, or one standing for
        it elsewhere), released when the run ends."""

    def prepare(self, preparer: Preparer, todo: Sequence[tuple[Source, str, bool]]
                ) -> Iterator[Prepared]:
        """Each of ``todo`` (source, file hash, known) prepared, in ``todo`` 's order."""


class LocalEngine:
    """Everything in this process, one document after another."""

    def start(self, embedder: Embedder) -> AbstractContextManager[Embedder]:
        return nullcontext(embedder)

    def prepare(self, preparer: Preparer, todo: Sequence[tuple[Source, str, bool]]
                ) -> Iterator[Prepared]:
        for source, digest, known in todo:
            yield preparer.prepared(source, digest, known)
