"""The fast Markdown reader: markdown-it-pyrs (the Rust port of markdown-it) builds the block
tree, mapped onto the same :class:`Block` s that :func:`~.markdown.parse_markdown_it` builds from
markdown-it-py's tokens.

markdown-it-py costs about 10 µs a token, so a document of many tiny sections (a heading, a
line, a two-item list, again and again) parsed ten times slower per byte than ordinary prose;
the Rust parser builds the same tree several times faster. It reads only documents it is known
to read alike (:func:`may_read`): none that may hold what only the Python plugins read (math,
admonitions, footnotes, and the rules a site's record turns on: MkDocs content tabs on a
``site="mkdocs"`` page), nor ``:::`` containers or definition lists where it cannot tell
(:mod:`.colon_containers`, :mod:`.deflists`), tabs where they may count as columns
(:mod:`~.fenced_lines`), quotes with a line that may read on lazily (:mod:`~.quote_lines`) or
a pipe, headings that may use a link reference definition, HTML comments in a paragraph beside
one, tables the parsers may read apart (:func:`tables_agree`), lines that may nest lists and
quotes eight deep outside a fence; an unknown node sends the document back too.

Front matter is read as the reference's own rule reads it (:func:`_front_matter`: its token
built as mdit-py-plugins' ``front_matter`` makes it, :mod:`.front_matter_token`), the rest by
the Rust parser, as markdown-it-py reads on after it; a document whose front matter it cannot
split off goes to the reference. HTML comments are found by the reference's code
(:meth:`~.block_maker.BlockMaker.html`, :meth:`~.block_maker.BlockMaker.paragraph`) in the same
HTML block and paragraph content, which the Rust tree gives as markdown-it-py's tokens do.
markdown-it-py reads everything else, and every document when the package is not installed: it
stays the reference, and ``tests/test_markdown_rs.py`` holds both readers to the same result on
the grammar's documents, every fixture and the corpora.

Spans are built as the reference builds them: the Rust parser's byte offsets become line
numbers, and lines become character spans of the original source, whatever its line endings.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from .block_maker import BlockMaker
from .blocks import Block, Document, LineIndex, rstrip_end, tile
from .colon_containers import MARKER as CONTAINER_MARKER
from .colon_containers import blank_markers, container_lines
from .deflists import HOLDERS, deflist_refusals, marker_inside
from .fenced_lines import (
    deep_line,
    deep_line_numbers,
    lines_to_place,
    may_be_placed,
    placed_alike,
    tabbed_line,
)
from .front_matter_token import split_front_matter
from .markdown_it_parser import RULE_TRIGGERS
from .quote_lines import QUOTE_MARKERS, lazy_quote
from .sites.generators import read_as
from .table_shapes import tables_agree, unproven_tables

if TYPE_CHECKING:
    from markdown_it.token import Token
    from markdown_it_pyrs import MarkdownIt as RustMarkdownIt

__all__ = ["may_read", "parse_fast", "refusals", "tables_agree"]

#: A quote's line (after a line break), its markers.
_MARKED_QUOTE = re.compile(r"\n" + QUOTE_MARKERS.pattern)
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

#: A line that ends right after a link reference's label and colon, over a line that is an
#: empty list item's marker: markdown-it-py ends the definition there (an empty item ends a
#: definition, not a paragraph), the Rust parser takes the marker for its destination.
_LABEL_OVER_EMPTY_ITEM = re.compile(r"\]:[ \t]*\n[ ]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]*(?=\n|\Z)")

#: A block's first character on the first line, inside a list item or quote (after a blank
#: or ``>``), and two dashes after it: where the front matter rule may act inside.
_NESTED_START = re.compile(r"[ >][^ ]--")

#: Rules of :data:`~.markdown_it_parser.RULE_TRIGGERS` whose syntax this reader reads too:
#: markdown-it's normalisation (applied before either parser sees the text), ``:::``
#: containers (:mod:`.colon_containers`) and definition lists (:mod:`.deflists`).
_READ_HERE = frozenset({"normalize", "container_container", "deflist"})

#: markdown-it's normalisation, applied before either parser sees the text.
_LINE_BREAK = re.compile(r"\r\n?")


@functools.lru_cache(maxsize=1)
def _rust_parser() -> RustMarkdownIt | None:
    """The Rust parser with CommonMark's block rules and no inline pass (chunking needs block
    structure only; a heading's inline text comes as written, as markdown-it-py's does);
    ``None`` without markdown-it-pyrs."""
    try:
        from markdown_it_pyrs import MarkdownIt
    except ImportError:
        return None
    return MarkdownIt("zero").enable_many(["blockquote", "code", "fence", "heading", "hr",
                                           "lheading", "list", "paragraph", "reference",
                                           "html_block", "table", "deflist"])


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
    text = _LINE_BREAK.sub("\n", source) if "\r" in source else source
    if "\t" in source and lines_to_place(text.split("\n"), tabbed_line, "\t") is None:
        yield "tab"
    # every line after a line break: a pattern led by one is searched 15-30 times faster than
    # one led by ``(?:^|\n)`` (20 ms each on the Chroma corpora)
    lines = "\n" + text
    quoted = ">" in source and _MARKED_QUOTE.search(lines) is not None
    if quoted and lazy_quote(lines):
        yield "blockquote"
    if (_DEEP_QUOTED if quoted else _DEEP).search(lines) and (
            _TOO_DEEP.search(lines) or lines_to_place(
                text.split("\n"), deep_line, among=deep_line_numbers(text)) is None):
        yield "deep nesting"
    tables = unproven_tables(text)
    if tables and not may_be_placed(text.split("\n"), tables, listed=True):
        yield "table of an unproven shape"
    if quoted and _QUOTED_PIPE.search(lines):
        yield "a quote's line with a pipe"  # a table in a quote: tables_agree reads none
    yield from deflist_refusals(text)
    if "]:" in source and _LABEL_OVER_EMPTY_ITEM.search(text):
        yield "a link reference's label over an empty list item"
    acting = read_as(site).rules_that_may_act(source)  # it has none of the site rules
    if acting:
        yield f"a {site} rule ({', '.join(rule.label for rule in acting)})"
    if CONTAINER_MARKER in source and container_lines(text.split("\n")) is None:
        yield "a ::: container it cannot place"
    yield from (rule for rule, may_use in RULE_TRIGGERS.items()
                if rule not in _READ_HERE and may_use(source))


class _Unsupported(Exception):
    """A node the fast reader has no rule for: the reference reads the document."""


def parse_fast(source: str, site: str = "plain") -> Document | None:
    """``source`` read as :func:`~.markdown.parse_markdown_it` reads it for ``site``, by the
    Rust parser; ``None`` when the reference must read it (see :func:`may_read`)."""
    parser = _rust_parser()
    split = _front_matter(source) if parser is not None else None
    if parser is None or split is None:
        return None
    body_start, front = split
    body = source[body_start:]
    if next(_body_refusals(body, site), None) is not None:
        return None
    text = _LINE_BREAK.sub("\n", body).replace("\0", "\ufffd")
    lines = text.split("\n")
    containers = container_lines(lines) if CONTAINER_MARKER in text else []
    if containers is None:
        return None
    if containers:  # the Rust parser reads a container's lines with its marker lines blanked
        lines = blank_markers(lines, containers)
        text = "\n".join(lines)
    try:
        byte_starts = _byte_line_starts(text)
    except UnicodeEncodeError:  # lone surrogates: the Rust parser takes UTF-8 only
        return None
    first_line = front.map[1] if front and front.map else 0
    markers = [first_line + line for pair in (containers or ()) for line in pair]
    reader = _TreeReader(source, byte_starts, first_line, markers)
    tree = parser.tree(text)
    placed = _lines_to_place(text, lines)
    if placed is None or (placed and not placed_alike(lines, placed, tree.children,
                                                       byte_starts)):
        return None
    try:
        blocks = reader.contained(tree.children, containers, lines) if containers \
            else reader.blocks(tree.children)
    except _Unsupported:
        return None
    # no footnotes here, so no block of markdown-it-py's moved after the rest (_outermost)
    return reader.make.document(blocks, front)


def _lines_to_place(text: str, lines: Sequence[str]) -> list[int] | None:
    """The numbers of the ``lines`` of ``text`` (LF line breaks) that only their place makes
    read alike (tabs that may count as columns, lines nested deep, tables of an unproven shape;
    :func:`~.fenced_lines.lines_to_place`), ``None`` when one may stand in no such place."""
    tables = unproven_tables(text)
    tabbed = lines_to_place(lines, tabbed_line, "\t") if "\t" in text else []
    deep = lines_to_place(lines, deep_line, among=deep_line_numbers(text))
    if tabbed is None or deep is None:
        return None
    return sorted({*tabbed, *deep, *tables}) if tabbed or deep else list(tables)


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


def _byte_line_starts(text: str) -> list[int]:
    """UTF-8 byte offset of every line start of ``text`` (LF only): the Rust parser's offsets
    are bytes."""
    lines = text.split("\n") if text.isascii() else text.encode("utf-8").split(b"\n")
    return list(accumulate((len(line) + 1 for line in lines), initial=0))


class _TreeReader:
    """Turns the Rust parser's nodes into blocks, one rule per node name."""

    def __init__(self, source: str, byte_starts: Sequence[int], first_line: int = 0,
                 markers: Sequence[int] = ()) -> None:
        self.make = BlockMaker(source, LineIndex.of(source), {})
        self.source = source
        #: UTF-8 byte offset of each line start of the text parsed, which starts at the
        #: source's line ``first_line`` (after the front matter).
        self.byte_starts = byte_starts
        self.first_line = first_line
        #: Character offset of each line start, and the end of the source after the last.
        self.char_starts = (*self.make.lines.starts, len(source))
        #: Whether the source may define link references (``[label]: url``).
        self.references = "]:" in source
        #: The source's lines (ascending) that hold a container's marker, blanked in the text
        #: parsed: a node the Rust parser ran on over one, and the blank lines after it, ends
        #: there, as markdown-it-py ends the container's content there (:meth:`contained`).
        self.markers = markers

    def blocks(self, nodes: Sequence[Any], in_item: bool = False, depth: int = 0
               ) -> list[Block]:
        """Blocks of ``nodes`` (siblings, inside ``depth`` containers); ``in_item`` when they are
        a list item's or a definition's children, whose bare text is a tight list's paragraph."""
        out = []
        for node in nodes:
            block = self.block(node, in_item, depth)
            if block is not None:
                out.append(block)
        return out

    def contained(self, nodes: Sequence[Any], containers: Sequence[tuple[int, int]],
                  lines: Sequence[str]) -> list[Block]:
        """Blocks of the top-level ``nodes`` of ``lines`` read with each container's marker
        lines blanked (:mod:`.colon_containers`): those between a container's lines are its
        children, as markdown-it-py's container rule reads them; unless a node crosses a marker
        line, or an HTML block (which a blank line ends, the opening line not) ends right
        before one."""
        spans = [self.lines_of(node, lines) for node in nodes]
        out: list[Block] = []
        index = 0
        for opening, closing in containers:
            while index < len(nodes) and spans[index][1] < opening:
                out.extend(self.blocks([nodes[index]]))
                index += 1
            if index and nodes[index - 1].name == "html_block" \
                    and spans[index - 1][1] == opening - 1:
                raise _Unsupported("an HTML block the opening line may continue")
            first = index
            while index < len(nodes) and opening < spans[index][0] and spans[index][1] < closing:
                index += 1
            if index < len(nodes) and spans[index][0] <= closing:
                raise _Unsupported("a node across a container's marker line")
            start, end = self.make.span((self.first_line + opening, self.first_line + closing))
            children = self.blocks(nodes[first:index], depth=1)
            out.append(Block("container", start, end,
                             tuple(tile(self.source, children, start, end))))
        out.extend(self.blocks(nodes[index:]))
        return out

    def lines_of(self, node: Any, lines: Sequence[str]) -> tuple[int, int]:
        """The first and last of the ``lines`` parsed that a node's byte span covers; a list's
        without the blank lines it ends with (a list holds the blank lines after it until
        what follows, where a fence's or an HTML block's blank lines are its content)."""
        if node.srcmap is None:
            raise _Unsupported("a node without a source map")
        first_byte, end_byte = node.srcmap
        first = bisect_right(self.byte_starts, first_byte) - 1
        last = bisect_right(self.byte_starts, max(first_byte, end_byte - 1)) - 1
        if node.name in ("bullet_list", "ordered_list"):
            while last > first and not lines[last].strip():
                last -= 1
        return first, last

    def span(self, srcmap: tuple[int, int] | None) -> tuple[int, int]:
        """The character span :meth:`~.block_maker.BlockMaker.span` gives the lines a node's
        byte span covers (the lines markdown-it-py's ``token.map`` names)."""
        if srcmap is None:
            raise _Unsupported("a node without a source map")
        first_byte, end_byte = srcmap
        first = bisect_right(self.byte_starts, first_byte) - 1 + self.first_line
        after = bisect_right(self.byte_starts, max(first_byte, end_byte - 1)) + self.first_line
        if self.markers:
            marker = bisect_right(self.markers, first)
            if marker < len(self.markers) and self.markers[marker] < after:
                after = self.markers[marker]
        start = self.char_starts[first]
        return start, rstrip_end(self.source, start, self.char_starts[after])

    def block(self, node: Any, in_item: bool, depth: int) -> Block | None:
        name = node.name
        if name in ("definition", "definition_term"):  # a link reference definition, a term:
            return None  # no token in markdown-it-py, a token of no lines
        start, end = self.span(node.srcmap)
        if start >= end:
            return None
        if name == "paragraph" or (name == "text" and in_item):
            return self.paragraph(node, start, end)
        if name == "html_block":
            return self.make.html(start, end, node.meta["content"])
        if name in _CONTAINERS:
            if depth == _MAX_DEPTH:
                raise _Unsupported("nesting deeper than markdown-it-py reads")
            if name == "definition_description" and marker_inside(self.source, (
                    self.span(child.srcmap) for child in node.children if child.name in HOLDERS)):
                raise _Unsupported("a definition's marker inside a list or quote in a definition")
            children = self.blocks(node.children, name in _ITEMS, depth + 1)
            return Block(_CONTAINERS[name], start, end,
                         tuple(tile(self.source, children, start, end)))
        if name == "table":
            return self.table(node, start, end, depth)
        if name in ("heading", "lheading"):
            return self.heading(node, start, end)
        if name == "trow":
            return self.make.row(start, end)
        if name in _LEAVES:
            prefix = self.make.fence_line(start) if name == "fence" else ""
            return Block(_LEAVES[name], start, end, prefix=prefix)
        raise _Unsupported(name)

    def paragraph(self, node: Any, start: int, end: int) -> Block:
        """A paragraph, its HTML comments as the reference finds them in the same inline
        content; unless the source may define link references, which that inline parse reads
        by (see :meth:`heading`)."""
        content = node.meta["content"] if node.name == "text" else _inline_text(node)
        if "<!--" in content and self.references:
            raise _Unsupported("a comment in a paragraph that may use a link reference")
        return self.make.paragraph(start, end, content)

    def heading(self, node: Any, start: int, end: int) -> Block:
        """A heading, unless its title may use a link reference: markdown-it-py's inline parse
        reads ``[label]`` by the definitions its block parse collected, which this reader has
        not got."""
        content = _inline_text(node)
        if self.references and "[" in content:
            raise _Unsupported("a heading that may use a link reference")
        return self.make.heading(start, end, node.meta["level"], content)

    def table(self, node: Any, start: int, end: int, depth: int) -> Block:
        """A table's rows, header first, as markdown-it-py's ``tr`` s (its ``thead`` and
        ``tbody`` are transparent)."""
        parts = node.children
        if any(part.name not in ("thead", "tbody") for part in parts):
            raise _Unsupported("a table part other than thead and tbody")
        rows = self.blocks([row for part in parts for row in part.children], depth=depth + 1)
        return self.make.table(start, end, tile(self.source, rows, start, end))


#: Containers (lists, items, quotes) nested deeper than this go to the reference: markdown-it-py
#: stops parsing at 20 open tokens (``maxNesting``), the Rust parser reads on.
_MAX_DEPTH = 16
#: Nodes without children to cut between -> their kind.
_LEAVES = {"fence": "code", "code_block": "code", "hr": "hr",
           "trow": "row"}
#: Nodes whose children are blocks -> their kind.
_CONTAINERS = {"bullet_list": "list", "ordered_list": "list", "list_item": "item",
               "blockquote": "blockquote", "definition_list": "deflist",
               "definition_description": "definition"}
_ITEMS = ("list_item", "definition_description")  # their bare text: a tight list's paragraph


def _inline_text(node: Any) -> str:
    """A heading's inline content as written: without inline rules, the parser's text nodes."""
    parts = []
    for child in node.children:
        if child.name != "text":
            raise _Unsupported(child.name)
        parts.append(child.meta["content"])
    return "".join(parts)
