"""What reading a document gives the chunker: its blocks' section trees, its metadata, its page
(title, anchors, URL) and the way back from the text the blocks index to the caller's string.
:mod:`.read` is the one path that makes a :class:`Reading`; nothing here plans or packs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from ..config import ChunkerConfig
from ..errors import InputError
from ..formats import Block, Document, LineIndex, parse_markdown, parse_plain_text, parse_qa
from ..formats.includes import Expansion
from ..formats.qa import PREAMBLE_KEY
from ..formats.registry import FormatName
from ..formats.site_markup import render_markup
from ..formats.sites import anchors, join_url, page_path, page_title
from ..plan import Section, build_sections
from ..text import Cleaned

__all__ = ["READERS", "Origin", "Page", "Reader", "Reading", "markdown_reading", "qa_reading",
           "text_reading"]


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
        start, end = self.to_source(start, end)
        return self.source[start:end], start, end, self.lines

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """A span of ``doc.source`` as a span of :attr:`source`: an included file's text
        maps to its reference, the cleaned text to the caller's."""
        if self.expansion is not None:
            start, end = self.expansion.start(start), self.expansion.end(end)
        if self.origin is None:
            return start, end
        return self.origin.cleaned.to_source(start), self.origin.cleaned.to_source(end)

    @property
    def source(self) -> str:
        """The string the caller passed: chunks' offsets and lines are those of this one."""
        if self.origin is not None:
            return self.origin.cleaned.source
        return self.page_source if self.page_lines is not None else self.doc.source

    @property
    def lines(self) -> LineIndex:
        """The line index of :attr:`source`."""
        if self.origin is not None:
            return self.origin.lines
        return self.page_lines if self.page_lines is not None else self.doc.lines

    def source_blocks(self) -> tuple[Block, ...]:
        """The top-level blocks the chunker packs, children and all, as spans of
        :attr:`source`: what ``mdchunk inspect`` and ``--stats`` compare chunks with. A Q&A
        file's are its preamble, then each pair's question and answer blocks."""
        found = list(self.doc.blocks or self.preamble)
        if not self.doc.blocks:  # a Q&A file: its document holds no blocks, its pairs do
            for top in self.tops:
                found += [top.heading, *top.blocks] if top.heading is not None else top.blocks
        return tuple(self._in_source(block) for block in found)

    def _in_source(self, block: Block) -> Block:
        start, end = self.to_source(block.start, block.end)
        return replace(block, start=start, end=end,
                       children=tuple(self._in_source(child) for child in block.children))

    @property
    def lead(self) -> tuple[Block, ...]:
        """What a hierarchy's first chunk holds before the first tree: the front matter, or a
        Q&A file's preamble."""
        block = self.doc.front_matter_block
        return (block,) if block is not None else self.preamble


def markdown_reading(text: str, doc_id: str, metadata: Mapping[str, Any] | None,
                     config: ChunkerConfig) -> Reading:
    """Markdown: one tree, under the front matter's page title when it gives one; the front
    matter goes to the metadata; generator markup is read as its site renders it."""
    doc = render_markup(parse_markdown(text, config.site), config.site)
    front = _front_matter(doc, doc_id)
    meta = {**front, **(metadata or {})}
    page = _page(config, doc_id, front, page_title(front, doc.blocks, config.title_keys),
                 anchors(doc.blocks, config.site))
    return Reading(doc, [build_sections(doc.blocks, page.root_path)], meta, page)


def text_reading(text: str, doc_id: str, metadata: Mapping[str, Any] | None,
                 config: ChunkerConfig) -> Reading:
    """Plain text: one tree, headings found by the line classifier."""
    doc = parse_plain_text(text)
    return Reading(doc, [build_sections(doc.blocks)], dict(metadata or {}), _page(config, doc_id))


def _page(config: ChunkerConfig, doc_id: str, front: Mapping[str, Any] | None = None,
          title: Block | None = None, found: Mapping[int, str] | None = None) -> Page:
    """Markdown headings get anchors; plain text and Q&A have none to link to, but their
    chunks still get the page URL."""
    if config.base_url is None:
        return Page(title, found or {})
    return Page(title, found or {}, config.base_url, page_path(doc_id, config.site, front))


def qa_reading(text: str, doc_id: str, metadata: Mapping[str, Any] | None,
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


#: Signature of the per-format readers: ``(cleaned text, doc_id, metadata, config) -> Reading``.
Reader = Callable[[str, str, Mapping[str, Any] | None, ChunkerConfig], Reading]
#: The reader of each format (:func:`mdchunk.formats.registry.reader_for` picks the format).
READERS: dict[FormatName, Reader] = {"markdown": markdown_reading, "qa": qa_reading,
                                     "text": text_reading}


def _front_matter(doc: Document, doc_id: str) -> dict[str, Any]:
    if doc.front_matter is None:
        return {}
    try:
        data = load_yaml(doc.front_matter)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (front matter line {mark.line + 2})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{doc_id or '<text>'}: front matter is not valid YAML{where}: {problem}"
                         ) from exc
    if data is None:
        return {}
    return data if isinstance(data, dict) else {"front_matter": data}


_STR_TAG = "tag:yaml.org,2002:str"


def _strings_at_once(loader: Any) -> Any:
    """``loader`` whose constructor returns a string scalar's own ``value`` without the
    generic dispatch (most front matter values are strings), as ``construct_yaml_str`` would;
    only while the loader's ``str`` constructor is PyYAML's own."""
    if loader is None or loader.yaml_constructors.get(_STR_TAG) is not \
            yaml.constructor.SafeConstructor.construct_yaml_str:
        return loader

    class StringsAtOnce(loader):  # type: ignore[misc]
        def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
            if node.tag == _STR_TAG and type(node) is yaml.ScalarNode:
                return node.value
            return super().construct_object(node, deep)

    return StringsAtOnce


#: PyYAML's safe loader on libyaml's C parser, when PyYAML was built with it.
_C_SAFE_LOADER: Any = _strings_at_once(getattr(yaml, "CSafeLoader", None))


def load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, parsed by libyaml where PyYAML has it (the pure-Python parser
    is slow); whatever the C parser refuses the pure one reads again, so an error (and its
    line) is the one ``safe_load`` gives."""
    if _C_SAFE_LOADER is not None:
        try:
            return yaml.load(text, Loader=_C_SAFE_LOADER)
        except (yaml.YAMLError, ValueError):
            pass
    return yaml.safe_load(text)
