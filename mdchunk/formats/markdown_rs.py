"""The fast Markdown reader: markdown-it-pyrs (the Rust port of markdown-it) builds the block
tree, mapped onto the same :class:`Block` s that :func:`~.markdown.parse_markdown_it` builds from
markdown-it-py's tokens.

markdown-it-py costs about 10 µs a token, so a document of many tiny sections (a heading, a
line, a two-item list, again and again) parsed ten times slower per byte than ordinary prose;
the Rust parser builds the same tree several times faster. It reads only documents it is known
to read alike (:func:`may_read`): none that may hold what only the Python plugins read (math,
admonitions, and the rules a site's record turns on: MkDocs content tabs on a
``site="mkdocs"`` page), nor ``:::`` containers, definition lists or footnotes where it cannot
tell (:mod:`.colon_containers`, :mod:`.deflists`, :mod:`.fast_footnotes`), tabs where they may
count as columns (:mod:`~.fenced_lines`), quotes with a line that may read on lazily
(:mod:`~.quote_lines`) or a pipe, headings that may use a link reference definition, HTML
comments in a paragraph beside one, tables the parsers may read apart (:func:`tables_agree`),
lines that may nest lists and quotes eight deep outside a fence; an unknown node sends the
document back too.

Front matter is read as the reference's own rule reads it (:func:`_front_matter`: its token
built as mdit-py-plugins' ``front_matter`` makes it, :mod:`.front_matter_token`), the rest by
the Rust parser, as markdown-it-py reads on after it; a document whose front matter it cannot
split off goes to the reference. HTML comments are found by the reference's code
(:meth:`~.block_maker.BlockMaker.html`, :meth:`~.block_maker.BlockMaker.paragraph`) in the same
HTML block and paragraph content, which the Rust tree gives as markdown-it-py's tokens do.
markdown-it-py reads everything else, and every document when the package is not installed: it
stays the reference, and ``tests/test_markdown_rs.py`` holds both readers to the same result on
the grammar's documents, every fixture and the corpora.

The tree becomes blocks in :mod:`.rust_tree`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .blocks import Document, LineIndex
from .colon_containers import MARKER as CONTAINER_MARKER
from .colon_containers import Containers, blank_markers, container_lines, listed_containers
from .deflists import deflist_refusals
from .fast_footnotes import FootnotedTree, definitions
from .fenced_lines import (
    MAY_BE_DEEP,
    deep_line,
    deep_line_numbers,
    indented_as_spaces,
    lines_to_place,
    listed_tab,
    may_be_placed,
    placed_alike,
    tabbed_line,
)
from .front_matter_token import split_front_matter
from .markdown_it_parser import RULE_TRIGGERS
from .quote_lines import QUOTE_MARKERS, first_quote, lazy_quote
from .rust_tree import TreeReader, Unsupported, byte_line_starts, line_finder
from .sites.generators import read_as
from .table_shapes import tables_agree, unproven_tables

if TYPE_CHECKING:
    from markdown_it.token import Token
    from markdown_it_pyrs import MarkdownIt as RustMarkdownIt

__all__ = ["may_read", "parse_fast", "refusals", "tables_agree"]

#: A quote's line holding a pipe, as a table's row in a quote does.
_QUOTED_PIPE = re.compile(r"\n" + QUOTE_MARKERS.pattern + r"[^\n]*\|")

#: A line that starts with 16 or more spaces and list markers, as deep nesting needs: each list
#: level takes two of them (``- `` or its indentation). markdown-it-py stops at 20 open tokens
#: (``maxNesting``) where the Rust parser reads on, so such a line is read fast only where no
#: block rule reads its start (:mod:`~.fenced_lines`).
_DEEP = re.compile(r"\n(?:[ ]|(?:[-*+]|[0-9]{1,9}[.)])(?=[ \n])){16}")
#: One level a line's start may nest, quotes counted: a space, a ``>``, a list marker.
_LEVEL = r"(?:[ >]|(?:[-*+]|[0-9]{1,9}[.)])(?=[ \n]))"
#: The same where quotes nest too: each ``>`` one more.
_DEEP_QUOTED = re.compile(r"\n" + _LEVEL + "{16}")
#: A line deep enough to overflow the Rust parser's stack should it nest after all (it recurses
#: once a level; some 100,000 levels overflow it): never handed to it, fence or not.
_TOO_DEEP = re.compile(r"\n" + _LEVEL + "{1000}")

#: A line that may open a list or a definition outside a fence, at the top level, in a quote or
#: a footnote: a marker after spaces, quotes' and definitions' markers or a footnote's label (a
#: tab before it sets it four columns into the top level, where it opens none, or makes a
#: quote's or a definition's line the fast reader takes in a fence only).
_MAY_OPEN_A_LIST = re.compile(r"\n(?:\[\^[^\]\n]*\]:)?[ >:~]*(?:[-*+:~]|[0-9]{1,9}[.)])"
                              r"(?:[ \t]|(?=\n)|\Z)")
#: A line that ends right after a link reference's label and colon, over a line that is an
#: empty list item's marker: markdown-it-py ends the definition there (an empty item ends a
#: definition, not a paragraph), the Rust parser takes the marker for its destination.
_LABEL_OVER_EMPTY_ITEM = re.compile(r"\]:[ \t]*\n[ ]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]*(?=\n|\Z)")

#: A block's first character on the first line, inside a list item or quote (after a blank
#: or ``>``), and two dashes after it: where the front matter rule may act inside.
_NESTED_START = re.compile(r"[ >][^ ]--")

#: Rules of :data:`~.markdown_it_parser.RULE_TRIGGERS` whose syntax this reader reads too:
#: markdown-it's normalisation (applied before either parser sees the text), ``:::``
#: containers (:mod:`.colon_containers`), definition lists (:mod:`.deflists`) and footnotes
#: (:mod:`.fast_footnotes`).
_READ_HERE = frozenset({"normalize", "container_container", "deflist", "footnote_def"})

#: A page's containers where it holds no ``:::``.
_NO_CONTAINERS = Containers([], [])

#: markdown-it's normalisation, applied before either parser sees the text.
_LINE_BREAK = re.compile(r"\r\n?")


@functools.lru_cache(maxsize=2)
def _rust_parser(footnotes: bool = False) -> RustMarkdownIt | None:
    """The Rust parser with CommonMark's block rules and no inline pass (chunking needs block
    structure only; a heading's inline text comes as written, as markdown-it-py's does), and
    with the ``footnote`` plugin for a page with footnote definitions (:mod:`.fast_footnotes`);
    ``None`` without markdown-it-pyrs."""
    try:
        from markdown_it_pyrs import MarkdownIt
    except ImportError:
        return None
    parser = MarkdownIt("zero").enable_many(["blockquote", "code", "fence", "heading", "hr",
                                             "lheading", "list", "paragraph", "reference",
                                             "html_block", "table", "deflist"])
    return parser.enable("footnote") if footnotes else parser


def may_read(source: str, site: str = "plain") -> bool:
    """Whether the Rust parser is here and ``source`` holds nothing it may read otherwise than
    markdown-it-py with mdchunk's plugins and ``site``'s rules (see the module docstring)."""
    return next(refusals(source, site), None) is None


def refusals(source: str, site: str = "plain") -> Iterator[str]:
    """What sends ``source`` to markdown-it-py, each reason once, cheapest test first: nothing
    when the Rust parser may read it. Lazy, so :func:`may_read` stops at the first; the
    benchmarks list them all (which constructs keep documents from the fast reader)."""
    if _rust_parser() is None:
        yield "markdown-it-pyrs not installed"
        return
    split = _front_matter(source)
    if split is None:
        yield "front matter it cannot split off, or a first line the rule may read"
    yield from _body_refusals(source[split[0]:] if split else source, site)


def _body_refusals(source: str, site: str) -> Iterator[str]:
    """:func:`refusals` of what follows the front matter (all of ``source`` when it has none):
    the Rust parser reads it as a document of its own, as markdown-it-py reads on after the
    front matter's closing line as at the start of one."""
    return _Body(source).refusals(site)


class _Body:
    """What follows the front matter, and what the refusal scans find in it on the way that
    :func:`parse_fast` reads again (its lines, its containers, the lines only their place makes
    read alike): each scan of the page once."""

    def __init__(self, source: str, lines: list[str] | None = None) -> None:
        self.source = source
        #: ``source`` with LF line breaks (markdown-it's normalisation, NUL aside).
        self.text = _LINE_BREAK.sub("\n", source) if "\r" in source else source
        self._lines = lines
        #: The containers' lines (:func:`~.colon_containers.container_lines`), when
        #: :meth:`refusals` found them.
        self.containers: Containers | None = None

    @property
    def lines(self) -> list[str]:
        """:attr:`text`'s lines, split once."""
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    @functools.cached_property
    def tabbed(self) -> list[int] | None:
        """The lines holding a tab that may count as columns, each where its place makes both
        parsers read it alike (:func:`~.fenced_lines.lines_to_place`), or of the shape a list
        item's line may have (:func:`~.fenced_lines.listed_tab`, placed in the tree only);
        ``None`` when one may stand in no such place."""
        return lines_to_place(self.lines, tabbed_line, "\t", placed_after=listed_tab) \
            if "\t" in self.text else []

    @functools.cached_property
    def in_items(self) -> list[int]:
        """Those of :attr:`tabbed` that may stand in a list item (:func:`listed_tab`)."""
        return [number for number in self.tabbed or () if listed_tab(self.lines[number])]

    @functools.cached_property
    def deep(self) -> list[int] | None:
        """The lines nested deep, each where its place makes both parsers read it alike;
        ``None`` when one may stand in no such place."""
        return lines_to_place(self.lines, deep_line, among=deep_line_numbers(self.text))

    @functools.cached_property
    def tables(self) -> tuple[int, ...]:
        """The header and delimiter lines of the tables both parsers may read apart
        (:func:`~.table_shapes.unproven_tables`), on a page that may hold a list or a definition
        those of the page read with the tabs that lead its lines as the columns they reach too
        (:func:`~.fenced_lines.indented_as_spaces`), as both parsers read them there where the
        table's tests take only spaces. A line a tab leads stands four columns or more into the
        top level, where neither parser reads it as a table's line; but in an item or a
        definition, or right after one, where a paragraph's next line is tried in the item's
        (``- far``, ``text``, a tab and ``--:``: a table to the Rust parser, a lazy line to
        markdown-it-py), it may be one, of a table the tests must see."""
        tables = unproven_tables(self.text)
        tabbed = self.tabbed
        if not tabbed or not _MAY_OPEN_A_LIST.search("\n" + self.text):
            return tables
        spaced = unproven_tables(indented_as_spaces(self.lines, frozenset(tabbed)))
        return tuple(sorted({*tables, *spaced}))

    def lines_to_place(self) -> list[int] | None:
        """The numbers of the lines that only their place makes read alike (tabs that may count
        as columns, lines nested deep, tables of an unproven shape), ascending; ``None`` when one
        may stand in no such place."""
        tabbed, deep, tables = self.tabbed, self.deep, self.tables
        if tabbed is None or deep is None:
            return None
        return sorted({*tabbed, *deep, *tables}) if tabbed or deep else list(tables)

    def placed_in_items(self) -> frozenset[int]:
        """The lines of :attr:`in_items` that may be placed in a list item: none of a table of
        an unproven shape, whose lines only a fence may hold."""
        return frozenset(self.in_items).difference(self.tables)

    def refusals(self, site: str) -> Iterator[str]:
        """:func:`_body_refusals`, cheapest test first."""
        source, text = self.source, self.text
        if "\t" in source and self.tabbed is None:
            yield "tab"
        # every line after a line break: a pattern led by one is searched 15-30 times faster
        # than one led by ``(?:^|\n)`` (20 ms each on the Chroma corpora)
        lines = "\n" + text
        quote_at = first_quote(lines)  # a quote's line, the pipe's or the lazy one's, is after
        quoted = quote_at >= 0
        if quoted and lazy_quote(lines, quote_at):
            yield "blockquote"
        may_be_deep = MAY_BE_DEEP.search(lines)  # the first line that may be deep, or none
        if may_be_deep and (_DEEP_QUOTED if quoted else _DEEP).search(
                lines, may_be_deep.start()) and (
                _TOO_DEEP.search(lines, may_be_deep.start()) or self.deep is None):
            yield "deep nesting"
        if self.tables and not may_be_placed(self.lines, self.tables, listed=True):
            yield "table of an unproven shape"
        if quoted and _QUOTED_PIPE.search(lines, quote_at):
            yield "a quote's line with a pipe"  # a table in a quote: tables_agree reads none
        yield from deflist_refusals(text)
        if "<!--" in source and _comment_over_blank(text):
            yield "a comment left open in a container"  # html_comments.py reads it
        if "]:" in source and _LABEL_OVER_EMPTY_ITEM.search(text):
            yield "a link reference's label over an empty list item"
        acting = read_as(site).rules_that_may_act(source)  # it has none of the site rules
        if acting:
            yield f"a {site} rule ({', '.join(rule.label for rule in acting)})"
        if CONTAINER_MARKER in source:
            self.containers = container_lines(self.lines)
            if self.containers is None:
                yield "a ::: container it cannot place"
        yield from (rule for rule, may_use in RULE_TRIGGERS.items()
                    if rule not in _READ_HERE and may_use(source))


def _comment_over_blank(text: str) -> bool:
    """Whether an indented or quoted comment runs over a blank line to more text before its
    ``-->``: markdown-it-pyrs ends the HTML block at the blank line, as markdown-it does
    (mdchunk's :mod:`.html_comments` rule reads on to the ``-->``)."""
    pos = text.find("<!--")
    while pos >= 0:
        close = text.find("-->", pos + 4)
        if close < 0:  # never closed: both rules end it where markdown-it does
            return False
        lead = text[text.rfind("\n", 0, pos) + 1:pos]
        if lead and _CONTAINER_LEAD.fullmatch(lead) and _BLANK_THEN_TEXT.search(text, pos, close):
            return True
        pos = text.find("<!--", close + 3)
    return False


_BLANK_THEN_TEXT = re.compile(r"\n[ \t>]*\n[ \t>]*[^\s>]")
#: What stands before a comment that opens an HTML block inside a container: indentation,
#: quote markers, a list marker.
_CONTAINER_LEAD = re.compile(r"[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?[ \t]*")


def parse_fast(source: str, site: str = "plain") -> Document | None:
    """``source`` read as :func:`~.markdown.parse_markdown_it` reads it for ``site``, by the
    Rust parser; ``None`` when the reference must read it (see :func:`may_read`)."""
    parser = _rust_parser()
    split = _front_matter(source) if parser is not None else None
    if parser is None or split is None:
        return None
    body_start, front = split
    body = _Body(source[body_start:])
    if next(body.refusals(site), None) is not None:
        return None
    text, lines = body.text, body.lines
    found: Containers | None = body.containers or _NO_CONTAINERS
    if "\0" in text:  # markdown-it's normalisation: NUL is U+FFFD to both parsers
        text = text.replace("\0", "\ufffd")
        lines = text.split("\n")
        found = container_lines(lines) if CONTAINER_MARKER in text else _NO_CONTAINERS
    defs = definitions(lines) if "[^" in text else []
    if found is None or defs is None or (found.pairs and defs):
        return None
    containers = found.pairs
    if containers:  # the Rust parser reads a container's lines with its marker lines blanked
        lines = blank_markers(lines, containers)
        text = "\n".join(lines)
    first_line = front.map[1] if front and front.map else 0
    index = LineIndex.of(source, _source_lines(source, body_start, body.lines))
    verbatim = not containers and text is body.source  # the text parsed is the source's own
    try:
        at = line_finder(index, body_start, first_line, text, lines, verbatim)
    except UnicodeEncodeError:  # lone surrogates: the Rust parser takes UTF-8 only
        return None
    byte_starts = byte_line_starts(text, lines) if defs else None
    notes = FootnotedTree.parse(_rust_parser(footnotes=True) or parser, text, defs,
                                byte_starts) if byte_starts else None
    if defs and (notes is None or not notes.started_alike(lines)):
        return None
    nodes = notes.nodes if notes else parser.tree(text).children
    # the lines the refusals placed, unless the text parsed is another (NUL, markers blanked)
    parsed = body if text is body.text else _Body(text, lines)
    placed, in_items = parsed.lines_to_place(), parsed.placed_in_items()
    if placed is None or (placed and not placed_alike(
            lines, placed, nodes, byte_starts or byte_line_starts(text, lines), in_items)):
        return None
    markers = [first_line + line for pair in containers for line in pair]
    top, listed = listed_containers(body.lines, containers) if containers else ([], [])
    reader = TreeReader(source, index, at, first_line, markers, listed,
                        tabbed_items=bool(in_items), lines=lines)
    try:
        if notes:  # markdown-it-py's inline rules read by the labels defined
            reader.make.env.update(notes.env())
        blocks = reader.contained(nodes, top) if containers else reader.blocks(nodes)
        read = notes.with_footnotes(blocks, reader, site) if notes else blocks
    except Unsupported:
        return None
    if reader.placed != len(listed):
        return None  # a container opened in no top-level list's item
    if found.fenced and not reader.fenced_alike(nodes, found.fenced):
        return None
    return None if read is None else reader.make.document(read, front)


def _source_lines(source: str, body_start: int, body_lines: list[str]) -> list[str] | None:
    """``source.split("\\n")`` from the lines of what follows its front matter, split already
    (only the front matter's lines split again); ``None`` where they are not the source's own
    (CR line breaks, which :class:`~.blocks.LineIndex` finds otherwise)."""
    if "\r" in source or (body_start and source[body_start - 1] != "\n"):
        return None  # (the second: front matter closed on the last line, no line break after)
    if not body_start:
        return body_lines
    return [*source[:body_start].split("\n")[:-1], *body_lines]


def _front_matter(source: str) -> tuple[int, Token | None] | None:
    """Where what follows ``source``'s front matter starts, and the front matter's token, as
    markdown-it-py's ``front_matter`` rule makes it; ``(0, None)`` when ``source`` has none
    (it does not start with a line of three dashes), ``None`` when this cannot tell where it
    ends (nor where the rule may read a list item's first line). The rule reads from the first
    line to the first that closes it: the first line that may close it must be the one
    (:func:`~.front_matter_token.split_front_matter`)."""
    if not source.startswith("---"):
        # the rule reads the first line in a list item too (it asks the source's first
        # character, and the two after the item's first for dashes): the reference's
        # reading of ``- ---`` and the like, a front matter block in the item
        nested = source.startswith("-") and _NESTED_START.search(source.split("\n", 1)[0])
        return None if nested else (0, None)
    return split_front_matter(source)
