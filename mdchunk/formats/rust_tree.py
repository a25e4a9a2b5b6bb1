"""The Rust parser's tree (markdown-it-pyrs) turned into the :class:`~.blocks.Block` s that
:func:`~.markdown.parse_markdown_it` builds from markdown-it-py's tokens (:class:`TreeReader`),
for :func:`~.markdown_rs.parse_fast`.

Spans are built as the reference builds them: the Rust parser's byte offsets become line
numbers (:class:`LineFinder`, one bisect in C for each end of a node; none to build for an
ASCII page, whose byte offsets are character offsets), and lines become character spans of the
original source, whatever its line endings.

A page's tree has a few thousand nodes and each of their attributes is built anew by the
binding on every read (a string, a list, a dict): the reader reads each once, a paragraph's
content only where its lines may hold a comment, and builds each block once.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any, NamedTuple

from .block_maker import BlockMaker
from .blocks import Block, LineIndex, rstrip_end, tile
from .colon_containers import Listed
from .deflists import HOLDERS, marker_inside
from .fenced_lines import MAX_DEPTH

__all__ = ["LineFinder", "TreeReader", "Unsupported", "byte_line_starts", "line_finder"]


class Unsupported(Exception):
    """A node the fast reader has no rule for: the reference reads the document."""


def byte_line_starts(text: str, lines: Sequence[str]) -> list[int]:
    """UTF-8 byte offset of every line start of ``text`` (LF only), whose ``lines`` these are
    (``text.split("\\n")``): the Rust parser's offsets are bytes. Summed in C, from the lines'
    lengths when ``text`` is ASCII."""
    lengths = map(len, lines if text.isascii() else text.encode("utf-8").split(b"\n"))
    return list(accumulate(map((1).__add__, lengths), initial=0))


class LineFinder(NamedTuple):
    """Where the Rust parser's byte offsets fall among the source's lines: the source's line
    holding byte ``offset`` of the text it read is ``bisect_right(starts, offset + delta) +
    shift``, one bisect in C for each end of a node."""

    starts: Sequence[int]
    delta: int
    shift: int


def line_finder(index: LineIndex, body_start: int, first_line: int, text: str,
                lines: Sequence[str], verbatim: bool) -> LineFinder:
    """The :class:`LineFinder` of ``text``, whose ``lines`` these are: the source's from its
    line ``first_line`` on (at ``body_start``, after the front matter), LF line breaks.

    When ``text`` is the source's own characters there (``verbatim``: no CR made LF, no marker
    line blanked) and all of them ASCII, a byte offset is a character offset: the source's line
    starts serve as they are, the offset moved past the front matter. Otherwise the text's
    line starts in bytes, the line numbers moved past the front matter's lines. Raises
    :class:`UnicodeEncodeError` on lone surrogates, which UTF-8 cannot hold."""
    if verbatim and text.isascii():
        return LineFinder(index.starts, body_start, -1)
    return LineFinder(byte_line_starts(text, lines), 0, first_line - 1)


#: A node's span: its byte span as the Rust parser gives it -> the character span of the lines
#: it covers.
_Spans = Callable[[tuple[int, int] | None], tuple[int, int]]


def _span_finder(source: str, index: LineIndex, at: LineFinder,
                 markers: Sequence[int]) -> _Spans:
    """The character span :meth:`~.block_maker.BlockMaker.span` gives the lines a node's
    byte span covers (the lines markdown-it-py's ``token.map`` names), cut at the first of
    ``markers`` (the source's container marker lines, ascending) after its first line.

    A closure over what it reads (some ten thousand calls a corpus, one a node): locals are
    read faster than a reader's attributes."""
    starts, delta, shift = at
    char_starts = (*index.starts, index.length)  # and the source's end after the last line

    def span(srcmap: tuple[int, int] | None) -> tuple[int, int]:
        if srcmap is None:
            raise Unsupported("a node without a source map")
        first_byte, end_byte = srcmap
        first = bisect_right(starts, first_byte + delta) + shift
        last_byte = end_byte - 1 if end_byte > first_byte else first_byte
        after = bisect_right(starts, last_byte + delta) + shift + 1
        if markers:
            marker = bisect_right(markers, first)
            if marker < len(markers) and markers[marker] < after:
                after = markers[marker]
        start, stop = char_starts[first], char_starts[after]
        if stop - start > 1 and source[stop - 1] == "\n" and not source[stop - 2].isspace():
            return start, stop - 1  # most nodes: a line break after text, all rstrip_end takes
        return start, rstrip_end(source, start, stop)
    return span


class TreeReader:
    """Turns the Rust parser's nodes into blocks, one rule per node name.

    Each node's attributes are built anew on every read (a string, a list, a dict), so each is
    read once; a paragraph's content only when its lines may hold a comment."""

    def __init__(self, source: str, index: LineIndex, at: LineFinder, first_line: int = 0,
                 markers: Sequence[int] = (), listed: Sequence[Listed] = (),
                 tabbed_items: bool = False, lines: Sequence[str] = ()) -> None:
        self.make = BlockMaker(source, index, {})
        self.source = source
        #: Where the Rust parser's byte offsets fall among the source's lines.
        self.at = at
        #: The source's line the text parsed starts at (after the front matter).
        self.first_line = first_line
        #: Whether the source may define link references (``[label]: url``).
        self.references = "]:" in source
        #: The source's lines (ascending) that hold a container's marker, blanked in the text
        #: parsed: a node the Rust parser ran on over one, and the blank lines after it, ends
        #: there, as markdown-it-py ends the container's content there (:meth:`contained`).
        self.markers = markers
        #: Whether a list item's text may hold a line a tab indents
        #: (:func:`~.fenced_lines.listed_tab`): the Rust parser ends the span of a tight item's
        #: text where its content ends, and the content holds spaces for the part of a tab it
        #: splits, so the span may run past the text's last line into the next; its lines are
        #: counted in its content instead.
        self.tabbed_items = tabbed_items
        self.span = _span_finder(source, index, at, markers)
        #: The containers opened in a top-level list's item (:meth:`listed_item`), and how
        #: many of them the items read have placed: each must be, once.
        self.listed = listed
        self.placed = 0
        #: A list's or item's span that holds them: cut at the top-level markers only.
        self.whole_span = _span_finder(source, index, at, sorted(
            {*markers} - {first_line + line for pair in listed for line in pair[:2]})
        ) if listed else self.span
        #: The lines parsed (LF, container markers blanked): where a node's lines are found
        #: (:meth:`contained`) and an item's first line read (:meth:`listed_item`).
        self.lines = lines

    def blocks(self, nodes: Sequence[Any], in_item: bool = False, depth: int = 0
               ) -> list[Block]:
        """Blocks of ``nodes`` (siblings, inside ``depth`` containers); ``in_item`` when they are
        a list item's or a definition's children, whose bare text is a tight list's paragraph."""
        out = []
        span = self.span
        for node in nodes:
            name = node.name
            if name in _NO_TOKEN:
                continue
            counted = in_item and name == "text" and self.tabbed_items
            start, end = span(self.text_srcmap(node) if counted else node.srcmap)
            if start >= end:
                continue
            if name == "paragraph" or (in_item and name == "text"):
                out.append(self.paragraph(node, name, start, end))
            else:
                out.append(self.block(node, name, start, end, depth))
        return out

    def text_srcmap(self, node: Any) -> tuple[int, int] | None:
        """A tight item's text's byte span, ended in the last line its content counts (see
        :attr:`tabbed_items`)."""
        if node.srcmap is None:
            return None
        first_byte = node.srcmap[0]
        starts, delta, shift = self.at
        last = bisect_right(starts, first_byte + delta) + shift + node.meta["content"].count("\n")
        return first_byte, starts[last - 1 - shift] - delta + 1

    def contained(self, nodes: Sequence[Any], containers: Sequence[tuple[int, int]],
                  depth: int = 0, in_item: bool = False) -> list[Block]:
        """Blocks of the ``nodes`` (siblings inside ``depth`` containers, a list item's children
        when ``in_item``) of the :attr:`lines` read with each container's marker lines blanked
        (:mod:`.colon_containers`): those between a container's lines are its children, as
        markdown-it-py's container rule reads them; unless a node crosses a marker line, or an
        HTML block (which a blank line ends, the opening line not) ends right before one."""
        spans = [self.lines_of(node) for node in nodes]
        out: list[Block] = []
        index = 0
        for opening, closing in containers:
            while index < len(nodes) and spans[index][1] < opening:
                out.extend(self.blocks([nodes[index]], in_item, depth))
                index += 1
            if index and nodes[index - 1].name == "html_block" \
                    and spans[index - 1][1] == opening - 1:
                raise Unsupported("an HTML block the opening line may continue")
            first = index
            while index < len(nodes) and opening < spans[index][0] and spans[index][1] < closing:
                index += 1
            if index < len(nodes) and spans[index][0] <= closing:
                raise Unsupported("a node across a container's marker line")
            start, end = self.make.span((self.first_line + opening, self.first_line + closing))
            children = self.blocks(nodes[first:index], in_item, depth + 1)
            out.append(Block("container", start, end,
                             tuple(tile(self.source, children, start, end))))
        out.extend(self.blocks(nodes[index:], in_item, depth))
        return out

    def listed_item(self, node: Any, name: str, depth: int) -> Block | None:
        """The block of a top-level list (``depth`` 0) or of its item (``depth`` 1) that holds
        containers opened in the item (:class:`~.colon_containers.Listed`); ``None`` when it
        holds none. Their span runs over the closing lines, as markdown-it-py's item reads on
        past them (the Rust parser's may end before the last, blanked); an item's children
        between a container's lines are its children (:meth:`contained`), provided the item's
        content starts at a column that makes the container rule read them alike."""
        first, last = self.lines_of(node)
        held = [pair for pair in self.listed if first < pair.opening <= last]
        if not held:
            return None
        start, end = self.whole_span(node.srcmap)
        closing = self.first_line + held[-1].closing
        end = max(end, rstrip_end(self.source, start, self.make.lines.offset(closing + 1)))
        if name != "list_item":
            children = self.blocks(node.children, False, depth + 1)
        elif all(_content_column(self.lines[first]) in pair.columns for pair in held):
            children = self.contained(node.children, [pair[:2] for pair in held], depth + 1,
                                      in_item=True)
            self.placed += len(held)
        else:
            raise Unsupported("a container the item's content column may read otherwise")
        return Block(_CONTAINERS[name], start, end, tuple(tile(self.source, children, start, end)))

    def fenced_alike(self, nodes: Sequence[Any], fenced: Sequence[tuple[int, int]]) -> bool:
        """Whether each of the ``fenced`` pairs of the :attr:`lines`
        (:class:`~.colon_containers.Containers`: a fence's opening line, the last line led by
        colons that was taken for its content) is a fence among the top-level ``nodes``, opened
        on the one and holding the other: then the container rule, which reads no fence's
        content, never sees them either."""
        fences = dict(self.lines_of(node) for node in nodes if node.name == "fence")
        return all(fences.get(opening, opening) >= last for opening, last in fenced)

    def lines_of(self, node: Any) -> tuple[int, int]:
        """The first and last of the :attr:`lines` parsed that a node's byte span covers; a list's
        without the blank lines it ends with (a list holds the blank lines after it until
        what follows, where a fence's or an HTML block's blank lines are its content)."""
        srcmap = node.srcmap
        if srcmap is None:
            raise Unsupported("a node without a source map")
        first_byte, end_byte = srcmap
        starts, delta, shift = self.at
        shift -= self.first_line  # the lines parsed, not the source's
        first = bisect_right(starts, first_byte + delta) + shift
        last = bisect_right(starts, max(first_byte, end_byte - 1) + delta) + shift
        if node.name in ("bullet_list", "ordered_list"):
            while last > first and not self.lines[last].strip():
                last -= 1
        return first, last

    def block(self, node: Any, name: str, start: int, end: int, depth: int) -> Block:
        """The block of a node other than a paragraph, named ``name``, spanning
        ``source[start:end]`` (not empty), inside ``depth`` containers."""
        if name in _CONTAINERS:
            return self.container(node, name, start, end, depth)
        if name == "html_block":
            return self.make.html(start, end, node.meta["content"])
        if name == "table":
            return self.table(node, start, end, depth)
        if name in ("heading", "lheading"):
            return self.heading(node, start, end)
        if name == "trow":
            return self.make.row(start, end)
        if name in _LEAVES:
            prefix = self.make.fence_line(start) if name == "fence" else ""
            return Block(_LEAVES[name], start, end, prefix=prefix)
        raise Unsupported(name)

    def container(self, node: Any, name: str, start: int, end: int, depth: int) -> Block:
        """A list, item, quote, definition list or definition: its children's blocks, tiled."""
        if depth == MAX_DEPTH:
            raise Unsupported("nesting deeper than markdown-it-py reads")
        if self.listed and depth < 2 and name in _LISTS_AND_ITEMS[depth]:
            listed = self.listed_item(node, name, depth)
            if listed is not None:
                return listed
        children = node.children
        if name == "definition_description":
            holders = [child.srcmap for child in children if child.name in HOLDERS]
            if marker_inside(self.source, map(self.span, holders)):
                raise Unsupported("a definition's marker inside a list or quote in a definition")
        blocks = self.blocks(children, name in _ITEMS, depth + 1)
        return Block(_CONTAINERS[name], start, end,
                     tuple(tile(self.source, blocks, start, end)))

    def paragraph(self, node: Any, name: str, start: int, end: int) -> Block:
        """A paragraph (``name`` ``paragraph``, or a tight list's bare ``text``), its HTML
        comments as the reference finds them in the same inline content; unless the source
        may define link references, which that inline parse reads by (see :meth:`heading`).

        The content's lines are the source's lines behind their indentation and markers
        (spaces put in front where a tab is split), so content without ``<!--`` in those
        lines holds no comment: it is read only where they hold one."""
        if name == "text":
            if self.source.find("<!--", start, end) < 0:
                return Block("paragraph", start, end)
            content = node.meta["content"]
        else:
            texts = _texts(node)
            if self.source.find("<!--", start, end) < 0:
                return Block("paragraph", start, end)
            content = "".join([text.meta["content"] for text in texts])
        if "<!--" in content and self.references:
            raise Unsupported("a comment in a paragraph that may use a link reference")
        return self.make.paragraph(start, end, content)

    def heading(self, node: Any, start: int, end: int) -> Block:
        """A heading, unless its title may use a link reference: markdown-it-py's inline parse
        reads ``[label]`` by the definitions its block parse collected, which this reader has
        not got."""
        content = "".join([text.meta["content"] for text in _texts(node)])
        if self.references and "[" in content:
            raise Unsupported("a heading that may use a link reference")
        return self.make.heading(start, end, node.meta["level"], content)

    def table(self, node: Any, start: int, end: int, depth: int) -> Block:
        """A table's rows, header first, as markdown-it-py's ``tr`` s (its ``thead`` and
        ``tbody`` are transparent)."""
        parts = node.children
        if any(part.name not in ("thead", "tbody") for part in parts):
            raise Unsupported("a table part other than thead and tbody")
        rows = self.blocks([row for part in parts for row in part.children], depth=depth + 1)
        return self.make.table(start, end, tile(self.source, rows, start, end))


#: Nodes without children to cut between -> their kind.
_LEAVES = {"fence": "code", "code_block": "code", "hr": "hr",
           "trow": "row"}
#: Nodes whose children are blocks -> their kind.
_CONTAINERS = {"bullet_list": "list", "ordered_list": "list", "list_item": "item",
               "blockquote": "blockquote", "definition_list": "deflist",
               "definition_description": "definition"}
#: A top-level list's nodes that may hold a container opened in an item, by depth.
_LISTS_AND_ITEMS = (("bullet_list", "ordered_list"), ("list_item",))
_ITEMS = ("list_item", "definition_description")  # their bare text: a tight list's paragraph
#: Nodes of no token in markdown-it-py (a link reference definition) or of no lines (a term).
_NO_TOKEN = frozenset({"definition", "definition_term"})


def _texts(node: Any) -> list[Any]:
    """A paragraph's or heading's children, its inline content as written: without inline
    rules, the parser's text nodes only."""
    children: list[Any] = node.children
    for child in children:
        if child.name != "text":
            raise Unsupported(child.name)
    return children


#: A list item's first line: indentation, marker, the spaces after it (tabs aside).
_ITEM_START = re.compile(r"( {0,3}(?:[-*+]|[0-9]{1,9}[.)]))( *)(.?)")


def _content_column(line: str) -> int:
    """The column where the content of the list item whose first line ``line`` is starts
    (CommonMark: past the marker and the spaces after it, or one space past the marker when
    the line holds nothing more or five spaces or more, an indented code block); ``-1`` where
    this cannot tell (a tab)."""
    found = _ITEM_START.match(line)
    if found is None or "\t" in line[:found.end()]:
        return -1
    marker, spaces, text = found.groups()
    return len(marker) + (len(spaces) if text and len(spaces) <= 4 else 1)
