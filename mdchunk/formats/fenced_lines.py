"""Lines the fast reader may take only where no block rule reads their start: tabs where they
may count as columns, and lines nested deep (issue 32).

Tabs expand to columns, which markdown-it-py and the Rust parser may count apart, so a tab
used to send the whole page to the reference: the Go and shell code of site pages, and the
``* [cmd](link)\t - what it does`` lines of generated CLI pages, sent 35 of Ory's 150 pages
there. A line that starts with sixteen spaces or list markers may nest lists and quotes past
markdown-it-py's ``maxNesting``, where the two parsers part, so it sent the page there too: the
Java code of RocketMQ's pages, indented four levels inside its fences, sent 14 of its 83.

Both are read alike where no block rule reads the line's start at all: inside a fence the Rust
parser finds at the top level, opened at the start of its line; and, for a line indented four
columns or more at the top level (where both parsers count columns alike), after the first line
of a top-level paragraph or in an indented code block (Ory's state diagrams in JSX, their lines
indented by a tab, sent its three largest pages there). (A tab inside a line's text, after its
first word, is read alike anywhere: no block rule counts the columns after it.)
:mod:`~.markdown_rs` asks :func:`lines_to_place` before it parses and :func:`placed_alike` of
the tree it got; ``tests/test_markdown_rs.py`` holds both readers to the same Document on
generated pages with tabs and deep lines everywhere.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["MAY_BE_DEEP", "deep_line", "deep_line_numbers", "lines_to_place", "may_be_placed",
           "placed_alike", "tabbed_line"]

#: A line whose tabs all stand inside its text: after spaces and list markers (spaces after
#: them), a word or a link's ``[``, and no tab before that word's first character; no pipe (a
#: table's row, whose cells each parser trims) and no ``]:`` (a link reference definition,
#: whose blanks each parser skips) in it.
_INNER_TAB = re.compile(r"(?![^\n]*\]:)[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*[A-Za-z\[]"
                        r"[^\t|]*?[^\s|]\t[^|]*\Z")
#: A line its leading blanks indent four columns or more (a tab among the first four blanks
#: reaches the fourth column in both parsers).
_INDENTED = re.compile(r"[ ]{0,3}\t|[ ]{4}")
#: A list item's line: a marker after fewer than four spaces, then a blank or nothing.
_ITEM_LINE = re.compile(r"[ ]{0,3}(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)")
#: A line that starts with 16 or more spaces, list markers and ``>`` s, as deep nesting needs:
#: each list level takes two of them (``- `` or its indentation), each quote one.
_DEEP = re.compile(r"(?:[ >]|(?:[-*+]|[0-9]{1,9}[.)])(?=[ ]|\Z)){16}")
#: The same after a line break, in a whole text: where :func:`deep_line_numbers` looks.
_DEEP_AFTER_BREAK = re.compile(r"\n(?:[ >]|(?:[-*+]|[0-9]{1,9}[.)])(?=[ \n]|\Z)){16}")
#: Sixteen characters that a line's levels may be made of (spaces, ``>`` s, list markers'
#: characters) after a line break: where :data:`_DEEP_AFTER_BREAK` (or the fast reader's
#: patterns of deep lines) finds a line, this finds it too (each level takes one character or
#: more), and its plain class is searched four times faster (issue 32: 0.5 ms over Ory's pages,
#: 2 ms the levels).
MAY_BE_DEEP = re.compile(r"\n[ >*+\-0-9.)]{16}")


def tabbed_line(line: str) -> bool:
    """Whether ``line`` holds a tab that may count as columns (not only inside its text; a line
    of blanks only is a blank line to both parsers, whatever its columns)."""
    return "\t" in line and not _INNER_TAB.match(line) and line.strip(" \t") != ""


def deep_line(line: str) -> bool:
    """Whether ``line`` starts deep enough to nest lists and quotes past ``maxNesting`` (a line
    of blanks only nests nothing: it is a blank line to both parsers)."""
    return _DEEP.match(line) is not None and line.strip(" \t") != ""


def lines_to_place(lines: Sequence[str], needs_place: Callable[[str], bool], hint: str = "",
                   among: Sequence[int] | None = None) -> list[int] | None:
    """The numbers of the ``lines`` that ``needs_place`` (each holding ``hint``, or ``among``
    those numbered so, which are looked for first: asking only the lines that hold a tab, or
    that :func:`deep_line_numbers` found, is many times faster), when each
    :func:`may_be_placed`; ``None`` when one may not."""
    if among is None:
        numbers = [number for number, line in enumerate(lines)
                   if hint in line and needs_place(line)]
    else:
        numbers = [number for number in among if needs_place(lines[number])]
    return numbers if may_be_placed(lines, numbers) else None


def deep_line_numbers(text: str) -> list[int]:
    """The numbers of the lines of ``text`` (LF line breaks) that may be deep
    (:func:`deep_line` tells), found by one search over the text, from the first line a cheaper
    search finds that may be."""
    lines = "\n" + text
    first = MAY_BE_DEEP.search(lines)
    if first is None:
        return []
    numbers: list[int] = []
    number = at = 0
    for found in _DEEP_AFTER_BREAK.finditer(lines, first.start()):
        number += text.count("\n", at, found.start())  # the line starts at found.start()
        at = found.start()
        numbers.append(number)
    return numbers


def may_be_placed(lines: Sequence[str], numbers: Sequence[int], listed: bool = False) -> bool:
    """Whether each of the ``lines`` numbered ``numbers`` (ascending) may stand where both
    parsers read past it alike (:func:`placed_alike`): indented four columns or more and not
    under a list item's line (the nearest line above it with text none: there it belongs to
    the item, RocketMQ's API pages, and the parse would be spent in vain), or after a line that
    starts with three backticks or tildes (or, when ``listed``, that holds them, as a fence's
    opening line in a list item does) and starting with neither itself (blanks aside), so that
    it can close no fence."""
    if not numbers:
        return True
    opens = (lambda line: "```" in line or "~~~" in line) if listed else (
        lambda line: line.startswith(("```", "~~~")))
    opening = next((number for number, line in enumerate(lines) if opens(line)), len(lines))
    return all((_INDENTED.match(lines[number]) and not _under_an_item(lines, number)) or (
        number > opening and lines[number].lstrip(" \t")[:1] not in ("`", "~"))
        for number in numbers)


def _under_an_item(lines: Sequence[str], number: int) -> bool:
    """Whether the nearest line above line ``number`` that holds text is a list item's."""
    for above in range(number - 1, -1, -1):
        if lines[above].strip(" \t"):
            return _ITEM_LINE.match(lines[above]) is not None
    return False


def placed_alike(lines: Sequence[str], numbers: Sequence[int], nodes: Sequence[Any],
                 byte_starts: Sequence[int]) -> bool:
    """Whether every one of the ``lines`` (the text the Rust parser read) numbered ``numbers``
    (ascending, from :func:`lines_to_place` and :func:`~.table_shapes.unproven_tables`) lies
    where no block rule reads its start, in the Rust parser's tree (``nodes``, the top level):
    after the first line of a top-level fence opened at the start of its line; indented four
    columns or more, after a top-level paragraph's first line or in a top-level indented code
    block; or, neither tabbed nor deep (:func:`tabbed_line`, :func:`deep_line`: a table's line),
    after the first line of a fence in a list item or a definition, lists, items, definition
    lists and definitions all the way up (Hugo's build settings, YAML in a definition).

    Then both parsers read alike: the text before such a node holds no such line outside such
    nodes before it, so both start the node on the same line; at the top level both count a
    line's columns alike (a tab to the next multiple of four from the line's start), and a
    line indented four columns or more closes no fence, continues a paragraph whatever follows
    its blanks (no rule may interrupt it there) and continues an indented code block; a fence
    closes on the same line in both, which is none of the others (none starts with a backtick
    or a tilde); in a list item or a definition, a fence's line neither tabbed nor deep ends
    the fence and the item in both where it is indented less than the item's content, and no
    rule reads it otherwise; and
    what follows starts where it starts in both."""
    places = iter(list(_places(nodes, lines, byte_starts)))
    inside = next(places, None)
    for number in numbers:
        while inside is not None and inside[1] < number:
            inside = next(places, None)
        if inside is None or number < inside[0] or not _ACCEPTS[inside[2]](lines[number]):
            return False
    return True


def _places(nodes: Sequence[Any], lines: Sequence[str], byte_starts: Sequence[int],
            listed: bool = False) -> Iterator[tuple[int, int, str]]:
    """The first and last line of each of ``nodes`` (at the top level, or in lists, items,
    definition lists and definitions only when ``listed``) that may hold lines no block rule
    reads the start of, and its kind (a key of :data:`_ACCEPTS`), in the order of the text."""
    for node in nodes:
        if node.srcmap is None:
            continue
        if node.name in _LISTS:
            yield from _places(node.children, lines, byte_starts, listed=True)
            continue
        first = bisect_right(byte_starts, node.srcmap[0]) - 1
        last = bisect_right(byte_starts, max(node.srcmap[0], node.srcmap[1] - 1)) - 1
        if node.name == "fence" and (listed or lines[first].startswith(("```", "~~~"))):
            yield first + 1, last, "listed fence" if listed else "fence"
        elif node.name in ("paragraph", "code_block") and not listed:
            yield first + (node.name == "paragraph"), last, "top"


#: Nodes a fence in a list item or a definition stands in, all the way up.
_LISTS = frozenset({"bullet_list", "ordered_list", "list_item", "definition_list",
                    "definition_description"})
#: What each place takes: a top-level fence any line :func:`may_be_placed` lets through (none
#: can close it), a top-level paragraph or code block a line indented four columns, a fence in
#: a list item a line neither tabbed nor deep.
_ACCEPTS: dict[str, Callable[[str], bool]] = {
    "fence": lambda line: True,
    "top": lambda line: _INDENTED.match(line) is not None,
    "listed fence": lambda line: not tabbed_line(line) and not deep_line(line)}
