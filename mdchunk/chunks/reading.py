"""Reading a document for the chunker: the text cleaned (or not), read by its format's reader
into section trees, with its metadata (front matter), its page (title, anchors, URL) and the way
back from the cleaned text to the string the caller passed.

A :class:`Reading` is what :class:`~mdchunk.chunks.chunker.Chunker` packs; nothing here plans
or packs a chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from ..config import ChunkerConfig
from ..errors import ConfigError, InputError
from ..formats import Block, Document, LineIndex, parse_markdown, read_plain_text
from ..formats import read_qa as parse_qa
from ..formats.includes import Expansion
from ..formats.qa import PREAMBLE_KEY
from ..formats.registry import FormatName
from ..formats.site_markup import render_markup
from ..formats.sites import anchors, join_url, page_path, page_title
from ..plan import Section, build_sections
from ..text import Cleaned, clean_text

__all__ = ["READERS", "Origin", "Page", "Reader", "Reading", "read", "read_markdown", "read_qa",
           "read_text"]


@dataclass(frozen=True, slots=True)
class Page:
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
class Origin:
    """The string the caller passed, when hygiene changed it: chunks are planned on the cleaned
    text (``Document.source``) and their spans and lines are given in this one."""

    cleaned: Cleaned
    lines: LineIndex

    @classmethod
    def of(cls, cleaned: Cleaned) -> Origin | None:
        return cls(cleaned, LineIndex.of(cleaned.source)) if cleaned.changed else None


@dataclass(frozen=True, slots=True)
class Reading:
    """A document as a format reader left it: its blocks' section trees, packed independently
    (one for Markdown and plain text, one per pair for Q&A), its metadata and its page; and,
    when hygiene changed the text, the string the caller passed."""

    doc: Document
    tops: list[Section]
    metadata: dict[str, Any]
    page: Page
    origin: Origin | None = None
    #: Text no section holds that level 1 of a hierarchy still tiles: a Q&A file's preamble.
    preamble: tuple[Block, ...] = ()
    #: When included files' text was put in (:mod:`mdchunk.chunks.includes`): ``doc`` is the
    #: expanded text, and this maps its positions back to the page's (each included text to
    #: its reference).
    expansion: Expansion | None = None
    #: The page's (cleaned) text and its lines, when ``doc`` is the expanded text.
    page_source: str = ""
    page_lines: LineIndex | None = None

    def span(self, start: int, end: int) -> tuple[str, int, int, LineIndex]:
        """A draft's span of the cleaned text as the caller's: its verbatim text, offsets and
        the line index to number them with."""
        if self.expansion is not None:
            return self._page_span(self.expansion.start(start), self.expansion.end(end))
        return self._page_span(start, end)

    def _page_span(self, start: int, end: int) -> tuple[str, int, int, LineIndex]:
        if self.origin is None and self.page_lines is not None:
            return self.page_source[start:end], start, end, self.page_lines
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


def read(fmt: FormatName, text: str, doc_id: str, metadata: Mapping[str, Any] | None,
         config: ChunkerConfig) -> Reading | None:
    """The document read by format ``fmt``; ``None`` when it is blank.

    With ``config.clean`` (the default) the reader reads the text after hygiene
    (:mod:`mdchunk.text.clean`), and the reading keeps the way back to ``text``."""
    _check_text(text, doc_id)
    if fmt not in READERS:
        raise ConfigError(f"format={fmt!r} must be one of {sorted(READERS)}")
    cleaned = clean_text(text) if config.clean else None
    body = text if cleaned is None else cleaned.text
    if not body.strip():
        return None
    reading = READERS[fmt](body, doc_id, metadata, config)
    origin = None if cleaned is None else Origin.of(cleaned)
    return reading if origin is None else replace(reading, origin=origin)


def read_markdown(text: str, doc_id: str, metadata: Mapping[str, Any] | None,
                  config: ChunkerConfig) -> Reading:
    """Markdown: one tree, under the front matter's page title when it gives one; the front
    matter goes to the metadata; generator markup is read as its site renders it."""
    doc = render_markup(parse_markdown(text, config.site), config.site)
    front = _front_matter(doc, doc_id)
    meta = {**front, **(metadata or {})}
    page = _page(config, doc_id, front, page_title(front, doc.blocks, config.title_keys),
                 anchors(doc.blocks, config.site))
    return Reading(doc, [build_sections(doc.blocks, page.root_path)], meta, page)


def read_text(text: str, doc_id: str, metadata: Mapping[str, Any] | None,
              config: ChunkerConfig) -> Reading:
    """Plain text: one tree, headings found by the line classifier."""
    doc = read_plain_text(text)
    return Reading(doc, [build_sections(doc.blocks)], dict(metadata or {}), _page(config, doc_id))


def _page(config: ChunkerConfig, doc_id: str, front: Mapping[str, Any] | None = None,
          title: Block | None = None, found: Mapping[int, str] | None = None) -> Page:
    """Markdown headings get anchors; plain text and Q&A have none to link to, but their
    chunks still get the page URL."""
    if config.base_url is None:
        return Page(title, found or {})
    return Page(title, found or {}, config.base_url, page_path(doc_id, config.site, front))


def read_qa(text: str, doc_id: str, metadata: Mapping[str, Any] | None,
            config: ChunkerConfig) -> Reading:
    """One tree per pair; the text before the first question (an export banner, a date)
    is no chunk's: it goes to ``metadata["qa_preamble"]``, as front matter does."""
    loose, pairs = parse_qa(text)
    if not pairs:
        raise InputError(f"{doc_id or '<text>'}: no 'question:' / 'answer:' pairs found")
    tops = [Section(heading=p.question, path=(p.question,), blocks=list(p.answer))
            for p in pairs]
    doc = Document(text, (), None, LineIndex.of(text))
    preamble = {PREAMBLE_KEY: text[loose[0].start:loose[-1].end]} if loose else {}
    return Reading(doc, tops, {**preamble, **(metadata or {})}, _page(config, doc_id),
                   preamble=tuple(loose))


#: Signature of the per-format readers: ``(text, doc_id, metadata, config) -> Reading``.
Reader = Callable[[str, str, Mapping[str, Any] | None, ChunkerConfig], Reading]
#: The reader of each format.
READERS: dict[FormatName, Reader] = {"markdown": read_markdown, "qa": read_qa, "text": read_text}


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
