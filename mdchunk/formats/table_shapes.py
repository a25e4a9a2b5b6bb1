"""Tables both parsers read alike, told from their lines: the fast reader (:mod:`.markdown_rs`)
takes a page only where :func:`tables_agree` (issue 32: Hugo's pages write tables without
pipes at their ends, RocketMQ's right under a heading), or where the lines of each table it
cannot prove (:func:`unproven_tables`) stand where no block rule reads them, inside a fence
(:mod:`~.fenced_lines`).

``tests/test_markdown_rs.py`` holds both readers to the same Document on generated tables of
any shape.
"""

from __future__ import annotations

import re

from markdown_it.rules_block.table import escapedSplit

from .colon_containers import MARKER as CONTAINER_MARKER

__all__ = ["tables_agree", "unproven_tables"]

#: A line either parser may take for a table's delimiter row: pipes, colons, dashes, spaces,
#: a dash among them (each cell wants one: a ``:::`` container's closing line is none). The
#: characters before the first dash are matched by a class without one, so that no line is
#: backtracked over (issue 32: an indented line of code was, once a space, 2.5 times slower).
_DELIMITER_LIKE = re.compile(r"\n[|: ]*-[|:\- ]*(?=\n|\Z)")
#: A delimiter row both parsers read alike: ``| --- | :-: |``, pipes at both ends, or
#: ``--- | :-:`` with a pipe between cells and none or one at either end.
_DELIMITER_ROW = re.compile(r"[ ]*\|(?:[ ]*:?-+:?[ ]*\|)+[ ]*"
                            r"|[ ]*\|?[ ]*:?-+:?[ ]*(?:\|[ ]*:?-+:?[ ]*)+\|?[ ]*")
#: A header cell's character both split alike: anything but a pipe, or a backslash that
#: escapes neither a pipe nor a backslash (before a pipe the parsers may split apart).
_HEADER_CHAR = r"(?:[^|\\\n]|\\(?![|\\]))"
#: The row above it, a header both split alike: a pipe first (at the end too or not, as
#: GitLab's pages write ``| First IP | Last IP``), or a pipe between cells, the first starting
#: with what starts no other block (a word, a code span, an entity).
_HEADER_ROW = re.compile(r"[ ]*(?:\||(?:[^\W\d_]|`(?!``)|&)" + _HEADER_CHAR + r"*\|)"
                         r"(?:" + _HEADER_CHAR + r"|\|)*")
#: A table's body row both parsers read as one: it starts with a pipe, or with what starts no
#: other block (a word, a link, an image, a code span, an entity, digits that are no ordered
#: list's marker), a pipe in it or not.
_BODY_ROW = re.compile(r"\||(?:[^\W\d_]|\[|!|`(?!``)|&|[0-9]+(?![0-9.)]))")
#: markdown-it-py stops a table's body once it has filled in this many missing cells.
_MAX_AUTOCOMPLETED_CELLS = 0x10000


def tables_agree(text: str) -> bool:
    """Whether both parsers find the same tables in ``text`` (LF line breaks), as far as
    can be told from its lines: it holds none :func:`unproven_tables` finds."""
    return not unproven_tables(text)


def unproven_tables(text: str) -> tuple[int, ...]:
    """The numbers of the header and delimiter lines of each table in ``text`` (LF line
    breaks) that both parsers may read apart, as far as can be told from its lines (ascending).

    They disagree where a table is unusual: the Rust parser takes a single column without
    pipes (``a`` over ``--:``), splits cells otherwise where a header escapes a pipe, and lets
    a body row be any line where markdown-it-py ends the table at a line another block may
    start (``2. two``, ``# h``). So each line that may be a delimiter row is either dashes
    under a line without pipes (a setext underline, as before tables were read) or the second
    line of a table both read alike: a header with pipes at both ends, or two cells or more and
    a word, a code span or an entity first (as Hugo's pages write ``Field|Precedence``); a
    delimiter row of as many cells, at the header's indentation or, under a header not
    indented, indented up to three spaces (as RocketMQ's `` --- | --- ``); and body rows at the
    header's indentation, up to a blank line or the end, that each start with a pipe or with
    what starts no other block (a word, a link, an image, a code span, an entity, digits no
    list's marker: ``1 | NettyBoss``). Where the header follows a paragraph's line, the table
    interrupts it in both: each parser tries its table rule there, and they take the same
    headers. (The first line is no delimiter row: there is no header above it; a table's body
    row is none either.)

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
    return tuple(unproven)


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
    if not _DELIMITER_ROW.fullmatch(delimiter) or not _HEADER_ROW.fullmatch(header):
        return -1
    indent = _indentation(header)
    columns = _cell_count(header.strip())
    if (_cell_count(delimiter.strip()) != columns
            or not _indented_alike(indent, _indentation(delimiter))
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


def _indented_alike(header: int, delimiter: int) -> bool:
    """Whether a delimiter row indented ``delimiter`` spaces is read under a header indented
    ``header`` alike: at the same indentation, or up to three spaces under a header not
    indented (each parser measures the row from its block's indentation, as the other does:
    up to three columns past it, a row; less, the row ends the block or reads on lazily)."""
    return delimiter == header or (header == 0 and delimiter <= 3)


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
