"""Tables both parsers read alike, told from their lines: the fast reader (:mod:`.markdown_rs`)
takes a page only where :func:`tables_agree` (issue 32: Hugo's pages write tables without
pipes at their ends, RocketMQ's right under a heading).

``tests/test_markdown_rs.py`` holds both readers to the same Document on generated tables of
any shape.
"""

from __future__ import annotations

import re

from markdown_it.rules_block.table import escapedSplit

from .colon_containers import MARKER as CONTAINER_MARKER

__all__ = ["tables_agree", "unproven_tables"]

#: A line either parser may take for a table's delimiter row: pipes, colons, dashes, spaces,
#: a dash among them (each cell wants one: a ``:::`` container's closing line is none).
_DELIMITER_LIKE = re.compile(r"\n[ ]*[|:\- ]*-[|:\- ]*(?=\n|\Z)")
#: A delimiter row both parsers read alike: ``| --- | :-: |``, pipes at both ends, or
#: ``--- | :-:`` with a pipe between cells and none or one at either end.
_DELIMITER_ROW = re.compile(r"[ ]*\|(?:[ ]*:?-+:?[ ]*\|)+[ ]*"
                            r"|[ ]*\|?[ ]*:?-+:?[ ]*(?:\|[ ]*:?-+:?[ ]*)+\|?[ ]*")
#: The row above it, a header both split alike: no escape or code span, and pipes at both ends
#: or a pipe between cells, the first a word's (no other block starts with a letter).
_HEADER_ROW = re.compile(r"[ ]*\|(?:[^|\\`\n]*\|)+[ ]*|[ ]*[^\W\d_][^|\\`\n]*(?:\|[^|\\`\n]*)+")
#: A table's body row both parsers read as one: it starts with a pipe, or holds one and starts
#: with what starts no other block (a word, a link, a code span).
_BODY_ROW = re.compile(r"\||(?=[^\n]*\|)(?:[^\W\d_]|\[|`(?!``))")
#: A line that is a block of its own and leaves no paragraph open: an ATX heading.
_ATX_HEADING = re.compile(r"#{1,6}(?:[ \t][^\n]*)?")
#: markdown-it-py stops a table's body once it has filled in this many missing cells.
_MAX_AUTOCOMPLETED_CELLS = 0x10000


def tables_agree(text: str) -> bool:
    """Whether both parsers find the same tables in ``text`` (LF line breaks), as far as
    can be told from its lines: it holds none :func:`unproven_tables` finds."""
    return not unproven_tables(text)


def unproven_tables(text: str) -> list[int]:
    """The numbers of the header and delimiter lines of each table in ``text`` (LF line
    breaks) that both parsers may read apart, as far as can be told from its lines (ascending).

    They disagree where a table is unusual: the Rust parser takes a single column without
    pipes (``a`` over ``--:``), splits cells otherwise where a header escapes a pipe, and lets
    a body row be any line where markdown-it-py ends the table at a line another block may
    start (``2. two``, ``# h``). So each line that may be a delimiter row is either dashes
    under a line without pipes (a setext underline, as before tables were read) or the second
    line of a table both read alike: a header after a blank line or an ATX heading (it
    interrupts nothing) with pipes at both ends, or two cells or more and a word first (as
    Hugo's pages write ``Field|Precedence``), a delimiter row of as many cells, and body rows at
    the same indentation, up to a blank line or the end, that each start with a pipe or hold
    one and start with what starts no other block (a word, a link, a code span). (The first
    line is no delimiter row: there is no header above it; a table's body row is none
    either.)

    Neither parser reads a table where no block rule reads a line's start: inside a fence, say
    (RocketMQ's pages draw tables of boxes in their code); so the fast reader may take a page
    with such lines where they stand in such a place (:mod:`~.fenced_lines`)."""
    table_end = 0
    unproven: list[int] = []
    for match in _DELIMITER_LIKE.finditer(text):
        if match.start() < table_end:
            continue  # a row of the table above
        table_end = _table_end(text, match.start() + 1, match.end())
        if table_end < 0:
            delimiter = text.count("\n", 0, match.start() + 1)
            unproven += [delimiter - 1, delimiter]
            table_end = match.end()
    return unproven


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
            or not _starts_a_block(text, header_start)):
        return -1
    indent = _indentation(header)
    columns = _cell_count(header.strip())
    if (_cell_count(delimiter.strip()) != columns or _indentation(delimiter) != indent
            or (columns < 2 and not header.lstrip().startswith("|"))):
        return -1
    rows, body_start = 0, end
    while end < len(text):
        line_end = text.find("\n", end + 1)
        line = text[end + 1:line_end if line_end >= 0 else len(text)]
        if not line.strip() or line.startswith(CONTAINER_MARKER):
            break  # a container's marker line ends the table as a blank line does
        if _indentation(line) != indent or not _BODY_ROW.match(line, indent):
            return -1
        rows += 1
        end = line_end if line_end >= 0 else len(text)
    if rows * columns > _MAX_AUTOCOMPLETED_CELLS and _fills_too_many(text[body_start + 1:end],
                                                                     columns):
        return -1
    return end


def _starts_a_block(text: str, line_start: int) -> bool:
    """Whether the line at ``line_start`` starts a block in both parsers whatever it holds: the
    first line, or one after a blank line, a ``:::`` container's marker line (the fast reader
    reads one as a blank line, :mod:`.colon_containers`, or not at all) or an ATX heading (a
    table after any of them interrupts nothing)."""
    if line_start == 0:
        return True
    above = text[text.rfind("\n", 0, line_start - 1) + 1:line_start - 1]
    return not above.strip() or above.startswith(CONTAINER_MARKER) or (
        _indentation(text[line_start:line_start + 4]) == 0
        and _ATX_HEADING.fullmatch(above) is not None)


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
