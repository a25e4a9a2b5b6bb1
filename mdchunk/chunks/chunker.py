"""The :class:`Chunker`: text (or a file) in, :class:`~mdchunk.chunks.chunk.Chunk` s out.

:mod:`.read` reads a document into blocks, :mod:`mdchunk.plan` nests them under headings and
plans drafts under the budget, and :meth:`Chunker._chunk` turns drafts into chunks with ids,
line numbers and metadata. Only :meth:`Chunker.chunk_file` does I/O. :func:`boundary_strategy`
is the strategy a config asks for (greedy unless ``semantic`` or an ``llm``)."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..config import DEFAULT_LEVELS, ChunkerConfig
from ..embedding import Embedder, seam_embedder
from ..errors import InputError
from ..formats.registry import FormatName
from ..formats.tabs import tab_spans, tabs_in
from ..plan import BoundaryStrategy, Draft, PackingKit, SectionPacker, Tiling, plan_hierarchy
from ..plan.breadcrumbs import crumb_titles
from ..plan.strategies import GreedyStrategy
from ..plan.strategies.llm import LLM_TIMEOUT, Llm, LlmStrategy
from ..plan.strategies.scorers import EmbeddingScorer, LexicalScorer, SeamScorer
from ..plan.strategies.semantic import SemanticStrategy
from ..plan.visible import page_hidden
from ..tokens import get_counter
from .chunk import Chunk, ChunkList, chunk_id, json_ready
from .context import Enrich, Enricher, doc_context, lead_in, with_line
from .includes import IncludeRoot
from .read import read, read_file
from .reading import Reading

__all__ = ["Chunker", "boundary_strategy", "reader_of"]


def boundary_strategy(config: ChunkerConfig, embedder: Embedder | None = None,
                      llm: Llm | None = None, llm_timeout: float = LLM_TIMEOUT
                      ) -> BoundaryStrategy:
    """The strategy for ``config``: greedy, semantic (``config.semantic``), or the LLM's
    proposals falling back to semantic (lexical when the config names no scorer)."""
    if config.semantic is None and llm is None:
        return GreedyStrategy()
    scorer: SeamScorer
    if config.semantic == "embedding":
        scorer = EmbeddingScorer(embedder or seam_embedder(config.semantic_model))
    else:
        scorer = LexicalScorer()
    semantic = SemanticStrategy(scorer, config.semantic_threshold)
    return semantic if llm is None else LlmStrategy(llm, semantic, llm_timeout)


class Chunker:
    """Chunks documents under one :class:`ChunkerConfig`; reusable and thread-safe.

    >>> chunker = Chunker(ChunkerConfig(max_tokens=64, overlap_tokens=0))
    >>> [c.section_path for c in chunker.chunk("# Guide\\n\\n## Install\\n\\nRun it.\\n")]
    ['Guide > Install']
    """

    def __init__(self, config: ChunkerConfig | None = None,
                 strategy: BoundaryStrategy | None = None, *, encoder: Embedder | None = None,
                 llm: Llm | None = None, llm_timeout: float = LLM_TIMEOUT,
                 enrich: Enrich | Enricher | None = None) -> None:
        """``strategy`` overrides the one the config asks for; ``encoder`` is the embedding
        scorer's model (default: ``config.semantic_model``, loaded on first use); ``llm``
        (``prompt -> reply``) proposes cuts inside sections, each given ``llm_timeout`` seconds,
        and makes results :class:`ChunkList` s. ``enrich`` (``(document, leaf_text) -> line``, or
        an :class:`~.context.Enricher`) writes a line of context into each leaf's ``embed_text``."""
        self.config = config or ChunkerConfig()
        self.counter = get_counter(self.config.tokenizer)
        self.strategy: BoundaryStrategy = strategy or boundary_strategy(
            self.config, encoder, llm, llm_timeout)
        self.counts_events = llm is not None
        self.fingerprint = self.config.fingerprint  # hashed once, not per document
        #: Where included files are read from (what a call could not include, it says once).
        self.includes = IncludeRoot(self.config.includes)
        self.enricher = enrich if enrich is None or isinstance(enrich, Enricher) \
            else Enricher(enrich)

    # -- entry points -------------------------------------------------------------------------

    def chunk(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
              ) -> list[Chunk]:
        """Chunk Markdown. Front matter goes to every chunk's ``metadata``, not into a chunk.
        With ``config.levels``, every level of a hierarchy (as :meth:`chunk_hierarchy`)."""
        return self.chunk_reading(self._read("markdown", text, doc_id, metadata), doc_id)

    def chunk_text(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
                   ) -> list[Chunk]:
        """Chunk plain text; headings come from the line classifier in
        :mod:`mdchunk.formats.plaintext`. With ``config.levels``, every level."""
        return self.chunk_reading(self._read("text", text, doc_id, metadata), doc_id)

    def chunk_qa(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
                 ) -> list[Chunk]:
        """One chunk per question/answer pair; a pair over budget is split inside its answer,
        each piece carrying the question as its breadcrumb. With ``config.levels``, every
        level."""
        return self.chunk_reading(self._read("qa", text, doc_id, metadata), doc_id)

    def chunk_hierarchy(self, text: str, doc_id: str = "",
                        metadata: Mapping[str, Any] | None = None,
                        levels: Sequence[int] | None = None, reader: FormatName = "markdown",
                        *, format: FormatName | None = None) -> list[Chunk]:
        """Chunks of every level, coarsest first: ``levels`` are the budgets (default: the
        config's, else ``DEFAULT_LEVELS``); level 1 tiles ``text`` exactly, and each chunk of a
        finer level lies inside its ``parent_id``. ``reader`` is ``"markdown"``, ``"text"`` or
        ``"qa"`` (``format=`` is its deprecated name)."""
        config = self._hierarchy_config(levels)
        fmt = reader_of(reader, format)
        return self._hierarchy(self._read(fmt, text, doc_id, metadata), doc_id, config)

    def chunk_file(self, path: str | Path, doc_id: str | None = None,
                   metadata: Mapping[str, Any] | None = None,
                   levels: Sequence[int] | None = None) -> list[Chunk]:
        """Read ``path`` and chunk it with the reader its extension and content call for (with
        ``levels``, every level); the encoding it was read in is in every chunk's
        ``metadata["source_encoding"]``."""
        return self.read_and_chunk_file(path, doc_id, metadata, levels)[1]

    def read_and_chunk_file(self, path: str | Path, doc_id: str | None = None,
                            metadata: Mapping[str, Any] | None = None,
                            levels: Sequence[int] | None = None
                            ) -> tuple[Reading | None, list[Chunk]]:
        """:meth:`chunk_file`'s chunks, and the document as it read them from (``None`` when
        blank): ``mdchunk inspect`` flags the blocks of that very reading."""
        path = Path(path)
        doc_id = path.as_posix() if doc_id is None else doc_id
        try:
            reading = read_file(path, self.config, doc_id, metadata, includes=self.includes)
            return reading, self.chunk_reading(reading, doc_id, levels)
        except RecursionError as exc:
            raise InputError(f"{path}: nesting too deep to chunk") from exc

    def chunk_reading(self, reading: Reading | None, doc_id: str,
                      levels: Sequence[int] | None = None) -> list[Chunk]:
        """Chunks of a document already read (:func:`~.read.read`, :func:`~.read.read_file`):
        leaves at ``max_tokens``, or every level of a hierarchy when ``levels`` or the config's
        levels are given: the one choice every entry point makes alike."""
        if levels is None and self.config.levels is None:
            return self._flat(reading, doc_id)
        return self._hierarchy(reading, doc_id, self._hierarchy_config(levels))

    def _read(self, fmt: FormatName, text: str, doc_id: str,
              metadata: Mapping[str, Any] | None) -> Reading | None:
        """The document read by format ``fmt`` (:func:`~.read.read`), with this chunker's
        include root."""
        return read(text, doc_id, metadata, self.config, reader=fmt, includes=self.includes)

    # -- assembly -----------------------------------------------------------------------------

    def _flat(self, reading: Reading | None, doc_id: str) -> list[Chunk]:
        """Leaves only, at ``max_tokens``: the chunks of every entry point but the hierarchy."""
        if reading is None:
            return self._result([], [])
        kit = PackingKit.of(reading.doc.source, self.counter, self.config,
                            hidden=page_hidden(reading.doc, self.config.html_comments == "drop"))
        drafts = [d for top in reading.tops for d in SectionPacker(kit, self.strategy).pack(top)]
        document = _Document.of(reading, doc_id, self.fingerprint)
        return self._result([self._chunk(document, self._in_context(document, draft, kit), 3,
                                         index, None)
                             for index, draft in enumerate(drafts)], [kit])

    def _result(self, chunks: list[Chunk], kits: Sequence[PackingKit]) -> list[Chunk]:
        """With an ``llm``, a :class:`ChunkList` counting its proposals and fallbacks."""
        if not self.counts_events:
            return chunks
        return ChunkList(chunks, sum((kit.events for kit in kits), Counter[str]()))

    def _hierarchy_config(self, levels: Sequence[int] | None) -> ChunkerConfig:
        if levels is not None:
            return replace(self.config, levels=tuple(levels))
        if self.config.levels is None:
            return replace(self.config, levels=DEFAULT_LEVELS)
        return self.config

    def _hierarchy(self, reading: Reading | None, doc_id: str, config: ChunkerConfig
                   ) -> list[Chunk]:
        if reading is None:
            return self._result([], [])
        source = reading.doc.source
        budgets = config.levels or DEFAULT_LEVELS
        hidden = page_hidden(reading.doc, config.html_comments == "drop")
        kits = [PackingKit.of(source, self.counter, config.at_level(level),
                              Tiling.of(source) if level == 1 else None, hidden)
                for level in range(1, len(budgets) + 1)]
        planned = plan_hierarchy(reading.tops, kits, self.strategy, reading.lead)
        document = _Document.of(reading, doc_id, config.fingerprint)
        chunks: list[Chunk] = []
        parent_ids: list[str] = []
        for nodes in planned:
            level = [self._chunk(document, self._in_context(document, node.draft, kits[-1])
                                 if node.level == len(budgets) else node.draft, node.level,
                                 index, None if node.parent is None else parent_ids[node.parent])
                     for index, node in enumerate(nodes)]
            parent_ids = [chunk.id for chunk in level]
            chunks += level
        return self._result(chunks, kits)

    def _in_context(self, document: _Document, draft: Draft, kit: PackingKit) -> Draft:
        """A leaf's draft with its line of context (:mod:`.context`): the document's own when
        the config asks for it, then the ``enrich`` callable's, each where the budget leaves
        room."""
        if not self.config.doc_context and self.enricher is None:
            return draft  # no line to add: no copy of its text to take
        doc = document.reading.doc
        text = doc.source[draft.start:draft.end]
        if self.config.doc_context:
            at = draft.start + len(text) - len(text.lstrip())  # where its first block is
            line = doc_context(document.reading.metadata, [h.title for h in draft.path],
                               lead_in(doc.blocks, document.starts, doc.source, at))
            draft = with_line(draft, line, kit.counts.counter, kit.max_tokens, keep_end=True)
        if self.enricher is not None:
            line = self.enricher.line(doc.source, text)
            draft = with_line(draft, line, kit.counts.counter, kit.max_tokens)
        return draft

    @staticmethod
    def _chunk(document: _Document, draft: Draft, level: int, index: int,
               parent_id: str | None) -> Chunk:
        reading, doc_id, metadata = document.reading, document.doc_id, document.metadata
        fingerprint, tabs = document.fingerprint, document.tabs
        page = reading.page
        labels = tabs_in(tabs, draft.start, draft.end) if tabs else []
        if labels:  # the tab a chunk came from, or the tabs of a group it holds
            metadata = {**metadata, **({"tab": labels[0]} if len(labels) == 1
                                       else {"tabs": labels})}
        salt = ""
        expansion = reading.expansion
        if expansion is not None and expansion.touches(draft.start, draft.end):
            included = expansion.paths_in(draft.start, draft.end)
            if included:  # the files whose text the chunk's embed_text holds
                metadata = {**metadata, "includes": included}
            salt = f"{draft.start}:{draft.end}"  # the pieces of an include share its span
        text, start, end, lines = reading.span(draft.start, draft.end)
        headings = list(crumb_titles(draft.path))
        anchor = page.anchor(draft.path)
        return Chunk(
            id=chunk_id(doc_id, level, (start, end), text, draft.embed_text, fingerprint, parent_id,
                        salt),
            doc_id=doc_id,
            index=index,
            level=level,
            parent_id=parent_id,
            text=text,
            start=start,
            end=end,
            line_start=lines.line_of(start),
            line_end=lines.line_of(max(start, end - 1)),
            headings=headings,
            section_path=" > ".join(headings),
            embed_text=draft.embed_text,
            token_count=draft.token_count,
            kinds=list(draft.kinds),
            metadata=dict(metadata),
            oversized=draft.oversized,
            anchor=anchor,
            url=page.url(anchor),
            title=draft.path[0].title if draft.path and draft.path[0].kind == "title" else None,
        )


@dataclass(frozen=True, slots=True)
class _Document:
    """What every chunk of one document shares: how it was read, its id, its metadata as
    JSON, the config's fingerprint and where its tabs lie."""

    reading: Reading
    doc_id: str
    metadata: dict[str, Any]
    fingerprint: str
    tabs: Sequence[tuple[int, int, str]]
    #: The top-level blocks' starts, to find the block a leaf starts in.
    starts: Sequence[int]

    @classmethod
    def of(cls, reading: Reading, doc_id: str, fingerprint: str) -> _Document:
        return cls(reading, doc_id, json_ready(reading.metadata), fingerprint,
                   tab_spans(reading.doc.blocks), [b.start for b in reading.doc.blocks])


def reader_of(reader: FormatName, format: FormatName | None) -> FormatName:
    """The reader asked for: ``reader``, or ``format`` (its deprecated name) when given."""
    if format is None:
        return reader
    warnings.warn("format= is deprecated: it is reader= now (the reader, not an output "
                  "format)", DeprecationWarning, stacklevel=3)
    return format
