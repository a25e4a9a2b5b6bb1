"""The public entry points: text (or a file) in, :class:`~mdchunk.chunks.chunk.Chunk` s out.

Data flows one way: a reader of :mod:`mdchunk.formats` finds blocks, :mod:`mdchunk.plan` nests
them under headings and plans drafts under the budget, and :meth:`Chunker._to_chunks` turns
drafts into chunks with ids, line numbers and metadata. Nothing here does I/O except
:meth:`Chunker.chunk_file`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ..config import DEFAULT_LEVELS, DEFAULT_TITLE_KEYS, ChunkerConfig, Semantic, TokenizerSpec
from ..errors import ConfigError, InputError
from ..formats import (
    Block,
    Document,
    LineIndex,
    format_for,
    parse_markdown,
    read_plain_text,
    read_qa,
)
from ..formats.qa import PREAMBLE_KEY
from ..formats.registry import FormatName
from ..formats.sites import anchors, join_url, page_path, page_title
from ..plan import (
    BoundaryStrategy,
    Draft,
    PackingKit,
    Section,
    SectionPacker,
    Tiling,
    build_sections,
    plan_hierarchy,
)
from ..plan.strategies.llm import LLM_TIMEOUT, Llm
from ..plan.strategies.scorers import Encoder
from ..text import ENCODING_KEY, Cleaned, clean_text, decode_document
from ..tokens import get_counter
from .boundaries import boundary_strategy
from .chunk import Chunk, ChunkList, chunk_id, json_ready

__all__ = ["Chunker", "chunk_file", "chunk_hierarchy", "chunk_markdown", "chunk_qa", "chunk_text"]


@dataclass(frozen=True, slots=True)
class _Page:
    """Where a document is published: its page title (the root of every heading path, when
    front matter gives one the text does not), its headings' anchors by start, and its page
    path under ``base_url`` (``None`` without one)."""

    title: Block | None = None
    anchors: Mapping[int, str] = field(default_factory=dict)
    base_url: str | None = None
    path: str = "/"

    @property
    def root_path(self) -> tuple[Block, ...]:
        return (self.title,) if self.title is not None else ()

    def anchor(self, path: Sequence[Block]) -> str | None:
        """The anchor of the deepest heading of ``path`` (not of a page title)."""
        return self.anchors.get(path[-1].start) if path and path[-1].kind == "heading" else None

    def url(self, anchor: str | None) -> str | None:
        return None if self.base_url is None else join_url(self.base_url, self.path, anchor)


@dataclass(frozen=True, slots=True)
class _Origin:
    """The string the caller passed, when hygiene changed it: chunks are planned on the cleaned
    text (``Document.source``) and their spans and lines are given in this one."""

    cleaned: Cleaned
    lines: LineIndex

    @classmethod
    def of(cls, cleaned: Cleaned) -> _Origin | None:
        return cls(cleaned, LineIndex.of(cleaned.source)) if cleaned.changed else None


@dataclass(frozen=True, slots=True)
class _Reading:
    """A document as a format reader left it: its blocks' section trees, packed independently
    (one for Markdown and plain text, one per pair for Q&A), its metadata and its page; and,
    when hygiene changed the text, the string the caller passed."""

    doc: Document
    tops: list[Section]
    metadata: dict[str, Any]
    page: _Page
    origin: _Origin | None = None
    #: Text no section holds that level 1 of a hierarchy still tiles: a Q&A file's preamble.
    preamble: tuple[Block, ...] = ()

    def span(self, start: int, end: int) -> tuple[str, int, int, LineIndex]:
        """A draft's span of the cleaned text as the caller's: its verbatim text, offsets and
        the line index to number them with."""
        if self.origin is None:
            return self.doc.source[start:end], start, end, self.doc.lines
        cleaned = self.origin.cleaned
        start, end = cleaned.to_source(start), cleaned.to_source(end)
        return cleaned.source[start:end], start, end, self.origin.lines

    @property
    def lead(self) -> tuple[Block, ...]:
        """What a hierarchy's first chunk holds before the first tree: the front matter, or a
        Q&A file's preamble."""
        block = self.doc.front_matter_block
        return (block,) if block is not None else self.preamble


#: Signature of the chunker's per-format readers.
_Read = Callable[[str, str, Mapping[str, Any] | None], _Reading]


class Chunker:
    """Chunks documents under one :class:`ChunkerConfig`; reusable and thread-safe.

    >>> chunker = Chunker(ChunkerConfig(max_tokens=64, overlap_tokens=0))
    >>> [c.section_path for c in chunker.chunk("# Guide\\n\\n## Install\\n\\nRun it.\\n")]
    ['Guide > Install']
    """

    def __init__(self, config: ChunkerConfig | None = None,
                 strategy: BoundaryStrategy | None = None, *, encoder: Encoder | None = None,
                 llm: Llm | None = None, llm_timeout: float = LLM_TIMEOUT) -> None:
        """``strategy`` overrides the one the config asks for (:func:`boundary_strategy`);
        ``encoder`` is the embedding scorer's model (default: ``config.semantic_model``,
        loaded on first use); ``llm`` (``prompt -> reply``) proposes cuts inside sections,
        each given ``llm_timeout`` seconds, and makes results :class:`ChunkList` s."""
        self.config = config or ChunkerConfig()
        self.counter = get_counter(self.config.tokenizer)
        self.strategy: BoundaryStrategy = strategy or boundary_strategy(
            self.config, encoder, llm, llm_timeout)
        self.counts_events = llm is not None
        self.fingerprint = self.config.fingerprint  # hashed once, not per document
        self._readers: dict[FormatName, _Read] = {
            "markdown": self._read_markdown, "qa": self._read_qa, "text": self._read_text}

    # -- entry points -------------------------------------------------------------------------

    def chunk(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
              ) -> list[Chunk]:
        """Chunk Markdown. Front matter goes to every chunk's ``metadata``, not into a chunk."""
        return self._flat(self._read("markdown", text, doc_id, metadata), doc_id)

    def chunk_text(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
                   ) -> list[Chunk]:
        """Chunk plain text; headings come from the line classifier in
        :mod:`mdchunk.formats.plaintext`."""
        return self._flat(self._read("text", text, doc_id, metadata), doc_id)

    def chunk_qa(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
                 ) -> list[Chunk]:
        """One chunk per question/answer pair; a pair over budget is split inside its answer,
        each piece carrying the question as its breadcrumb."""
        return self._flat(self._read("qa", text, doc_id, metadata), doc_id)

    def chunk_hierarchy(self, text: str, doc_id: str = "",
                        metadata: Mapping[str, Any] | None = None,
                        levels: Sequence[int] | None = None, format: FormatName = "markdown"
                        ) -> list[Chunk]:
        """Chunks of every level, coarsest first (see :mod:`mdchunk.plan.hierarchy`).

        ``levels`` are the budgets, coarsest first (default: the config's, else
        ``DEFAULT_LEVELS``); level 1 tiles ``text`` exactly, front matter included, and each
        chunk of a finer level lies inside its ``parent_id``. Leaves are the last level.
        """
        config = self._hierarchy_config(levels)
        return self._hierarchy(self._read(format, text, doc_id, metadata), doc_id, config)

    def chunk_file(self, path: str | Path, doc_id: str | None = None,
                   metadata: Mapping[str, Any] | None = None,
                   levels: Sequence[int] | None = None) -> list[Chunk]:
        """Read ``path`` and chunk it with the reader its extension and content call for; with
        ``levels`` (or a config that has them), every level of a hierarchy.

        The encoding the file was read in (``utf-8``, ``gb18030``, ``utf-16-le``…; see
        :mod:`mdchunk.text.decode`) is in every chunk's ``metadata["source_encoding"]``."""
        path = Path(path)
        decoded = decode_document(path)
        text = decoded.text
        metadata = {ENCODING_KEY: decoded.encoding, **(metadata or {})}
        doc_id = path.as_posix() if doc_id is None else doc_id
        fmt = format_for(path.suffix, text)
        try:
            if levels is None and self.config.levels is None:
                return self._flat(self._read(fmt, text, doc_id, metadata), doc_id)
            config = self._hierarchy_config(levels)
            return self._hierarchy(self._read(fmt, text, doc_id, metadata), doc_id, config)
        except InputError:
            raise
        except RecursionError as exc:
            raise InputError(f"{path}: nesting too deep to chunk") from exc

    # -- readers ------------------------------------------------------------------------------

    def _read(self, fmt: FormatName, text: str, doc_id: str,
              metadata: Mapping[str, Any] | None) -> _Reading | None:
        """The document read by format ``fmt``; ``None`` when it is blank.

        With ``config.clean`` (the default) the reader reads the text after hygiene
        (:mod:`mdchunk.text.clean`), and the reading keeps the way back to ``text``."""
        _check_text(text, doc_id)
        if fmt not in self._readers:
            raise ConfigError(f"format={fmt!r} must be one of {sorted(self._readers)}")
        cleaned = clean_text(text) if self.config.clean else None
        body = text if cleaned is None else cleaned.text
        if not body.strip():
            return None
        reading = self._readers[fmt](body, doc_id, metadata)
        origin = None if cleaned is None else _Origin.of(cleaned)
        return reading if origin is None else replace(reading, origin=origin)

    def _read_markdown(self, text: str, doc_id: str, metadata: Mapping[str, Any] | None
                       ) -> _Reading:
        doc = parse_markdown(text)
        front = _front_matter(doc, doc_id)
        meta = {**front, **(metadata or {})}
        page = self._page(doc_id, front, page_title(front, doc.blocks, self.config.title_keys),
                          anchors(doc.blocks, self.config.site))
        return _Reading(doc, [build_sections(doc.blocks, page.root_path)], meta, page)

    def _read_text(self, text: str, doc_id: str, metadata: Mapping[str, Any] | None
                   ) -> _Reading:
        doc = read_plain_text(text)
        return _Reading(doc, [build_sections(doc.blocks)], dict(metadata or {}),
                        self._page(doc_id))

    def _page(self, doc_id: str, front: Mapping[str, Any] | None = None,
              title: Block | None = None, found: Mapping[int, str] | None = None) -> _Page:
        """Markdown headings get anchors; plain text and Q&A have none to link to, but their
        chunks still get the page URL."""
        config = self.config
        if config.base_url is None:
            return _Page(title, found or {})
        return _Page(title, found or {}, config.base_url, page_path(doc_id, config.site, front))

    def _read_qa(self, text: str, doc_id: str, metadata: Mapping[str, Any] | None) -> _Reading:
        """One tree per pair; the text before the first question (an export banner, a date)
        is no chunk's: it goes to ``metadata["qa_preamble"]``, as front matter does."""
        loose, pairs = read_qa(text)
        if not pairs:
            raise InputError(f"{doc_id or '<text>'}: no 'question:' / 'answer:' pairs found")
        tops = [Section(heading=p.question, path=(p.question,), blocks=list(p.answer))
                for p in pairs]
        doc = Document(text, (), None, LineIndex.of(text))
        preamble = {PREAMBLE_KEY: text[loose[0].start:loose[-1].end]} if loose else {}
        return _Reading(doc, tops, {**preamble, **(metadata or {})}, self._page(doc_id),
                        preamble=tuple(loose))

    # -- assembly -----------------------------------------------------------------------------

    def _flat(self, reading: _Reading | None, doc_id: str) -> list[Chunk]:
        """Leaves only, at ``max_tokens``: the chunks of every entry point but the hierarchy."""
        if reading is None:
            return self._result([], [])
        kit = PackingKit.of(reading.doc.source, self.counter, self.config,
                            hidden=reading.doc.hidden(self.config.html_comments == "drop"))
        drafts = [d for top in reading.tops for d in SectionPacker(kit, self.strategy).pack(top)]
        meta = json_ready(reading.metadata)
        return self._result([self._chunk(reading, draft, doc_id, meta, self.fingerprint, 3,
                                         index, None) for index, draft in enumerate(drafts)],
                            [kit])

    def _result(self, chunks: list[Chunk], kits: Sequence[PackingKit]) -> list[Chunk]:
        """With an ``llm``, a :class:`ChunkList` counting its proposals and fallbacks."""
        if not self.counts_events:
            return chunks
        events: dict[str, int] = {}
        for kit in kits:
            for name, count in kit.events.items():
                events[name] = events.get(name, 0) + count
        return ChunkList(chunks, events)

    def _hierarchy_config(self, levels: Sequence[int] | None) -> ChunkerConfig:
        if levels is not None:
            return replace(self.config, levels=tuple(levels))
        if self.config.levels is None:
            return replace(self.config, levels=DEFAULT_LEVELS)
        return self.config

    def _hierarchy(self, reading: _Reading | None, doc_id: str, config: ChunkerConfig
                   ) -> list[Chunk]:
        if reading is None:
            return self._result([], [])
        source = reading.doc.source
        budgets = config.levels or DEFAULT_LEVELS
        hidden = reading.doc.hidden(config.html_comments == "drop")
        kits = [PackingKit.of(source, self.counter, config.at_level(level),
                              Tiling.of(source) if level == 1 else None, hidden)
                for level in range(1, len(budgets) + 1)]
        planned = plan_hierarchy(reading.tops, kits, self.strategy, reading.lead)
        fingerprint = config.fingerprint
        meta = json_ready(reading.metadata)
        chunks: list[Chunk] = []
        parent_ids: list[str] = []
        for nodes in planned:
            level = [self._chunk(reading, node.draft, doc_id, meta, fingerprint, node.level,
                                 index, None if node.parent is None else parent_ids[node.parent])
                     for index, node in enumerate(nodes)]
            parent_ids = [chunk.id for chunk in level]
            chunks += level
        return self._result(chunks, kits)

    @staticmethod
    def _chunk(reading: _Reading, draft: Draft, doc_id: str, metadata: dict[str, Any],
               fingerprint: str, level: int, index: int, parent_id: str | None) -> Chunk:
        page = reading.page
        text, start, end, lines = reading.span(draft.start, draft.end)
        headings = [h.title for h in draft.path]
        anchor = page.anchor(draft.path)
        return Chunk(
            id=chunk_id(doc_id, level, start, end, text, draft.embed_text, fingerprint, parent_id),
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


def _check_text(text: object, doc_id: str) -> None:
    if not isinstance(text, str):
        raise InputError(f"{doc_id or '<text>'}: expected str, got {type(text).__name__}")


def _front_matter(doc: Document, doc_id: str) -> dict[str, Any]:
    if doc.front_matter is None:
        return {}
    try:
        data = yaml.safe_load(doc.front_matter)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (front matter line {mark.line + 2})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{doc_id or '<text>'}: front matter is not valid YAML{where}: {problem}"
                         ) from exc
    if data is None:
        return {}
    return data if isinstance(data, dict) else {"front_matter": data}


def _config(max_tokens: int, overlap_tokens: int, tokenizer: TokenizerSpec,
            oversized: str, min_tokens: int | None, base_url: str | None, site: str,
            title_keys: Sequence[str], clean: bool, semantic: Semantic | None = None,
            semantic_model: str | None = None) -> ChunkerConfig:
    return ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap_tokens, tokenizer=tokenizer,
                         oversized=oversized, min_tokens=min_tokens,  # type: ignore[arg-type]
                         base_url=base_url, site=site,  # type: ignore[arg-type]
                         title_keys=title_keys, clean=clean,  # type: ignore[arg-type]  # checked
                         semantic=semantic, semantic_model=semantic_model)


def chunk_markdown(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
                   tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
                   oversized: str = "split", metadata: Mapping[str, Any] | None = None,
                   min_tokens: int | None = None, base_url: str | None = None,
                   site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
                   clean: bool = True, semantic: Semantic | None = None,
                   semantic_model: str | None = None, llm: Llm | None = None) -> list[Chunk]:
    """Chunk a Markdown string (see ``CONTRACT.md``). With ``base_url``, each chunk's ``url``
    is its page's URL as ``site`` builds it (``plain``, ``docusaurus``, ``mkdocs``, ``hugo``)
    from ``doc_id``, plus ``#anchor``; ``title_keys`` name the front matter page title.

    >>> [c.text for c in chunk_markdown("# T\\n\\nHello.\\n", max_tokens=32, overlap_tokens=0)]
    ['# T\\n\\nHello.']
    """
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model)
    return Chunker(config, llm=llm).chunk(text, doc_id=doc_id, metadata=metadata)


def chunk_text(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
               tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
               oversized: str = "split", metadata: Mapping[str, Any] | None = None,
               min_tokens: int | None = None, base_url: str | None = None,
               site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
               clean: bool = True, semantic: Semantic | None = None,
               semantic_model: str | None = None, llm: Llm | None = None) -> list[Chunk]:
    """Chunk plain text; headings are found by a line classifier."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model)
    return Chunker(config, llm=llm).chunk_text(text, doc_id=doc_id, metadata=metadata)


def chunk_qa(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
             tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
             oversized: str = "split", metadata: Mapping[str, Any] | None = None,
             min_tokens: int | None = None, base_url: str | None = None,
             site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
             clean: bool = True, semantic: Semantic | None = None,
             semantic_model: str | None = None, llm: Llm | None = None) -> list[Chunk]:
    """Chunk a ``question:/answer:`` file, one chunk per pair."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model)
    return Chunker(config, llm=llm).chunk_qa(text, doc_id=doc_id, metadata=metadata)


def chunk_file(path: str | Path, *, max_tokens: int = 512, overlap_tokens: int = 64,
               tokenizer: TokenizerSpec = "cl100k_base", doc_id: str | None = None,
               oversized: str = "split", metadata: Mapping[str, Any] | None = None,
               min_tokens: int | None = None, levels: Sequence[int] | None = None,
               base_url: str | None = None, site: str = "plain",
               title_keys: Sequence[str] = DEFAULT_TITLE_KEYS, clean: bool = True,
               semantic: Semantic | None = None, semantic_model: str | None = None,
               llm: Llm | None = None) -> list[Chunk]:
    """Chunk a file, picking the reader by extension and content; with ``levels``, every level
    of a hierarchy (see :func:`chunk_hierarchy`)."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens, base_url, site,
                     title_keys, clean, semantic, semantic_model)
    return Chunker(config, llm=llm).chunk_file(path, doc_id=doc_id, metadata=metadata,
                                               levels=levels)


def chunk_hierarchy(text: str, *, levels: Sequence[int] = DEFAULT_LEVELS,
                    overlap_tokens: int = 64, tokenizer: TokenizerSpec = "cl100k_base",
                    doc_id: str = "", oversized: str = "split",
                    metadata: Mapping[str, Any] | None = None,
                    format: FormatName = "markdown", base_url: str | None = None,
                    site: str = "plain", title_keys: Sequence[str] = DEFAULT_TITLE_KEYS,
                    clean: bool = True, semantic: Semantic | None = None,
                    semantic_model: str | None = None, llm: Llm | None = None) -> list[Chunk]:
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
                           clean=clean, semantic=semantic, semantic_model=semantic_model)
    return Chunker(config, llm=llm).chunk_hierarchy(text, doc_id=doc_id, metadata=metadata,
                                                    format=format)
