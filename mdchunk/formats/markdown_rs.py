"""The fast Markdown reader: markdown-it-pyrs (the Rust port of markdown-it) builds the block
tree, mapped onto the same :class:`Block` s that :func:`~.markdown.parse_markdown_it` builds from
markdown-it-py's tokens.

markdown-it-py costs about 10 µs a token, so a document of many tiny sections (a heading, a
line, a two-item list, again and again) parsed ten times slower per byte than ordinary prose;
the Rust parser builds the same tree several times faster. It reads only documents it is known
to read alike (:func:`may_read`): none that may hold what only the Python plugins read (math,
admonitions, containers, footnotes, definition lists, and the rules a site's record turns on:
MkDocs content tabs on a ``site="mkdocs"`` page), nor tabs where they may count as columns
(:mod:`~.tab_lines`), blockquotes with a line that may read on lazily (:func:`_lazy_quote`)
or a pipe, headings that may use a link reference definition, HTML comments in a paragraph
beside one, tables of a shape the two parsers may read apart (:func:`tables_agree`) or lines
that may nest lists and quotes eight deep; a node of any kind it does not know sends the
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

from markdown_it.rules_block.table import escapedSplit

from .block_maker import BlockMaker
from .blocks import Block, Document, LineIndex, rstrip_end, tile
from .front_matter_token import split_front_matter
from .markdown_it_parser import RULE_TRIGGERS
from .sites.generators import read_as
from .tab_lines import tab_lines, tabs_inside_fences

if TYPE_CHECKING:
    from markdown_it.token import Token
    from markdown_it_pyrs import MarkdownIt as RustMarkdownIt

__all__ = ["may_read", "parse_fast", "refusals", "tables_agree"]

#: A blockquote's line, its text starting with ``>`` (after list markers too), and the line
#: after it, after a line break: markdown-it-py ends a quoted paragraph where an ordered list
#: from 2 starts, the Rust parser reads on lazily, so a quote with a line after it that may
#: read on lazily (:func:`_lazy_quote`) stays with the reference. Link reference
#: definitions are read alike, a heading that may use one is not (:meth:`_TreeReader.heading`),
#: nor a comment in a paragraph beside one (:meth:`_TreeReader.paragraph`).
_QUOTE = re.compile(r"\n(?P<markers>[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*(?:>[ ]*)+)"
                    r"(?P<text>[^\n]*)\n(?P<next>[^\n]*)")
#: The list markers and ``>`` s a line starts with.
_MARKERS = re.compile(r"[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*(?:>[ ]*)+")
#: A quote's line (after a line break), its markers.
_MARKED_QUOTE = re.compile(r"\n" + _MARKERS.pattern)
#: A quote's line holding a pipe, as a table's row in a quote does.
_QUOTED_PIPE = re.compile(r"\n" + _MARKERS.pattern + r"[^\n]*\|")

#: A line that starts with 16 or more spaces and list markers, as deep nesting needs: each list
#: level takes two of them (``- `` or its indentation). markdown-it-py stops at 20 open tokens
#: (``maxNesting``) where the Rust parser reads on, and the Rust parser recurses once a level:
#: some 100,000 levels overflow its stack.
_DEEP = re.compile(r"\n(?:[ ]|(?:[-*+]|[0-9]{1,9}[.)])(?=[ \n])){16}")
#: The same where quotes nest too: each ``>`` one more.
_DEEP_QUOTED = re.compile(r"\n(?:[ >]|(?:[-*+]|[0-9]{1,9}[.)])(?=[ \n])){16}")

#: A block's first character on the first line, inside a list item or quote (after a blank
#: or ``>``), and two dashes after it: where the front matter rule may act inside.
_NESTED_START = re.compile(r"[ >][^ ]--")

#: markdown-it's normalisation, applied before either parser sees the text.
_LINE_BREAK = re.compile(r"\r\n?")

#: A line either parser may take for a table's delimiter row: pipes, colons, dashes, spaces.
_DELIMITER_LIKE = re.compile(r"\n[ ]*[|:\- ]*[-:][|:\- ]*(?=\n|\Z)")
#: A delimiter row both parsers read alike: ``| --- | :-: |``, pipes at both ends.
_DELIMITER_ROW = re.compile(r"[ ]*\|(?:[ ]*:?-+:?[ ]*\|)+[ ]*")
#: The row above it, a header both split alike: pipes at both ends, no escape or code span.
_HEADER_ROW = re.compile(r"[ ]*\|(?:[^|\\`\n]*\|)+[ ]*")
#: markdown-it-py stops a table's body once it has filled in this many missing cells.
_MAX_AUTOCOMPLETED_CELLS = 0x10000


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
                                           "html_block", "table"])


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
    if "\t" in source and tab_lines(text.split("\n")) is None:
        yield "tab"
    # every line after a line break: a pattern led by one is searched 15-30 times faster than
    # one led by ``(?:^|\n)`` (20 ms each on the Chroma corpora)
    lines = "\n" + text
    quoted = ">" in source and _MARKED_QUOTE.search(lines) is not None
    if quoted and _lazy_quote(lines):
        yield "blockquote"
    if (_DEEP_QUOTED if quoted else _DEEP).search(lines):
        yield "deep nesting"
    if not tables_agree(text):
        yield "table of an unproven shape"
    if quoted and _QUOTED_PIPE.search(lines):
        yield "a quote's line with a pipe"  # a table in a quote: tables_agree reads none
    acting = read_as(site).rules_that_may_act(source)  # it has none of the site rules
    if acting:
        yield f"a {site} rule ({', '.join(rule.label for rule in acting)})"
    yield from (rule for rule, may_use in RULE_TRIGGERS.items()
                if rule != "normalize" and may_use(source))


def _lazy_quote(lines: str) -> bool:
    """Whether a quote's line in ``lines`` (LF line breaks, one before the first) has a line
    after it that may read on lazily: one not blank that does not start with the same markers
    or more (list markers and ``>`` s, spaces aside), after a quote's line with text. Only
    there do the parsers part (issue 32: Hugo pages quote notes and alerts, and every quote
    went to the reference)."""
    pos = 0
    while (found := _QUOTE.search(lines, pos)) is not None:
        if found["text"].strip() and found["next"].strip() and not _within(found["markers"],
                                                                          found["next"]):
            return True
        pos = found.start("next") - 1  # the next line may be a quote's line too
    return False


def _within(markers: str, line: str) -> bool:
    """Whether ``line`` starts with ``markers`` (a quote's line's list markers and ``>`` s) or
    more ``>`` s after them, spaces aside: it is inside every quote that line is."""
    found = _MARKERS.match(line)
    return found is not None and found[0].replace(" ", "").startswith(markers.replace(" ", ""))


def tables_agree(text: str) -> bool:
    """Whether both parsers find the same tables in ``text`` (LF line breaks), as far as
    can be told from its lines.

    They disagree where a table is unusual: the Rust parser takes a single column without
    pipes (``a`` over ``--:``), splits cells otherwise where a header escapes a pipe, and lets
    a body row be any line where markdown-it-py ends the table at a line another block may
    start (``2. two``, ``# h``). So each line that may be a delimiter row is either dashes
    under a line without pipes (a setext underline, as before tables were read) or the second
    line of a table both read alike: a header with pipes at both ends after a blank line (it
    interrupts nothing), a delimiter row of as many cells, and body rows that each start with
    a pipe at the same indentation, up to a blank line or the end. (The first line is no
    delimiter row: there is no header above it; a table's body row is none either.)"""
    table_end = 0
    for match in _DELIMITER_LIKE.finditer(text):
        if match.start() < table_end:
            continue  # a row of the table above
        table_end = _table_end(text, match.start() + 1, match.end())
        if table_end < 0:
            return False
    return True


def _table_end(text: str, start: int, end: int) -> int:
    """Where the table whose delimiter row ``text[start:end]`` may be ends (``end`` when it is
    none), when both parsers read it alike; ``-1`` when they may not (see
    :func:`tables_agree`)."""
    delimiter = text[start:end]
    header_start = text.rfind("\n", 0, start - 1) + 1
    header = text[header_start:start - 1]
    if not header.strip():
        return end  # no header: no table
    if "|" not in header and "|" not in delimiter:
        return end if set(delimiter) <= {"-", " "} else -1
    if (not _DELIMITER_ROW.fullmatch(delimiter) or not _HEADER_ROW.fullmatch(header)
            or (header_start > 0 and text[text.rfind("\n", 0, header_start - 1) + 1:
                                          header_start - 1].strip())):
        return -1
    indent = _indentation(header)
    columns = header.count("|") - 1
    if delimiter.count("|") - 1 != columns or _indentation(delimiter) != indent:
        return -1
    rows, body_start = 0, end
    while end < len(text):
        line_end = text.find("\n", end + 1)
        line = text[end + 1:line_end if line_end >= 0 else len(text)]
        if not line.strip():
            break
        if _indentation(line) != indent or line[indent] != "|":
            return -1
        rows += 1
        end = line_end if line_end >= 0 else len(text)
    if rows * columns > _MAX_AUTOCOMPLETED_CELLS and _fills_too_many(text[body_start + 1:end],
                                                                     columns):
        return -1
    return end


def _fills_too_many(body: str, columns: int) -> bool:
    """Whether markdown-it-py's table rule stops inside ``body`` (its rows, LF line breaks):
    it counts the cells it fills in, a row's missing cells (less any extra ones) added up row
    by row, and ends the table where the sum passes its limit; the Rust parser reads on. (Only
    a table of more cells than the limit may: a bound that sent every table of 32,768 rows to
    the reference made chunking one table quadratic-looking at that size, issue 32.)"""
    filled = 0
    for row in body.split("\n"):
        filled += columns - _cell_count(row.strip())
        if filled > _MAX_AUTOCOMPLETED_CELLS:
            return True
    return False


def _cell_count(row: str) -> int:
    """The cells markdown-it-py's table rule finds in a stripped body row: its own split where
    a backslash may escape a pipe, else the pipes' count (the same, many times faster), each
    less an empty first and last cell."""
    if "\\" in row:
        cells = escapedSplit(row)
        if cells and cells[0] == "":
            cells.pop(0)
        if cells and cells[-1] == "":
            cells.pop()
        return len(cells)
    return row.count("|") + 1 - row.startswith("|") - row.endswith("|")


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


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
    try:
        byte_starts = _byte_line_starts(text)
    except UnicodeEncodeError:  # lone surrogates: the Rust parser takes UTF-8 only
        return None
    reader = _TreeReader(source, byte_starts, front.map[1] if front and front.map else 0)
    tree = parser.tree(text)
    if "\t" in text and not tabs_inside_fences(text.split("\n"), tree.children, byte_starts):
        return None
    try:
        blocks = reader.blocks(tree.children)
    except _Unsupported:
        return None
    # no footnotes here, so no block of markdown-it-py's moved after the rest (_outermost)
    return reader.make.document(blocks, front)


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

    def __init__(self, source: str, byte_starts: Sequence[int], first_line: int = 0) -> None:
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

    def blocks(self, nodes: Sequence[Any], in_item: bool = False, depth: int = 0
               ) -> list[Block]:
        """Blocks of ``nodes`` (siblings, inside ``depth`` containers); ``in_item`` when they are
        a list item's children, whose bare text is the paragraph of a tight list."""
        out = []
        for node in nodes:
            block = self.block(node, in_item, depth)
            if block is not None:
                out.append(block)
        return out

    def span(self, srcmap: tuple[int, int] | None) -> tuple[int, int]:
        """The character span :meth:`~.block_maker.BlockMaker.span` gives the lines a node's
        byte span covers (the lines markdown-it-py's ``token.map`` names)."""
        if srcmap is None:
            raise _Unsupported("a node without a source map")
        first_byte, end_byte = srcmap
        first = bisect_right(self.byte_starts, first_byte) - 1 + self.first_line
        after = bisect_right(self.byte_starts, max(first_byte, end_byte - 1)) + self.first_line
        start = self.char_starts[first]
        return start, rstrip_end(self.source, start, self.char_starts[after])

    def block(self, node: Any, in_item: bool, depth: int) -> Block | None:
        name = node.name
        if name == "definition":  # a link reference definition: no token in markdown-it-py
            return None
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
            children = self.blocks(node.children, name == "list_item", depth + 1)
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
               "blockquote": "blockquote"}


def _inline_text(node: Any) -> str:
    """A heading's inline content as written: without inline rules, the parser's text nodes."""
    parts = []
    for child in node.children:
        if child.name != "text":
            raise _Unsupported(child.name)
        parts.append(child.meta["content"])
    return "".join(parts)
