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
first word, is read alike anywhere: no block rule counts the columns after it.) A line a tab
indents in a list item, text that starts no block but a list item or a table's row, is read as
the same line indented by spaces (:func:`listed_tab`): RocketMQ's API pages write their items'
paragraphs, nested lists and tables so.
:mod:`~.markdown_rs` asks :func:`lines_to_place` before it parses and :func:`placed_alike` of
the tree it got; ``tests/test_markdown_rs.py`` holds both readers to the same Document on
generated pages with tabs and deep lines everywhere.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

__all__ = ["MAX_DEPTH", "MAY_BE_DEEP", "deep_line", "deep_line_numbers", "indent_columns",
           "indented_as_spaces", "lines_to_place", "listed_tab", "may_be_placed", "placed_alike",
           "tabbed_line"]

#: A line whose tabs all stand inside its text: after spaces and list markers (spaces after
#: them), a word or a link's ``[``, and no tab before that word's first character; no pipe (a
#: table's row, whose cells each parser trims) and no ``]:`` (a link reference definition,
#: whose blanks each parser skips) in it. A word may start with a digit where its digits make
#: no ordered list's marker, the one block a digit starts (RocketMQ's ``4.5<tab>public ...``:
#: ``4.`` and a ``5``, as ``123<tab>`` or ten digits and a dot, marks no item in either parser).
_INNER_TAB = re.compile(r"(?![^\n]*\]:)[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*"
                        r"(?:[A-Za-z\[]|(?![0-9]{1,9}[.)](?:[ \t]|\Z))[0-9])"
                        r"[^\t|]*?[^\s|]\t[^|]*\Z")
#: A line its leading blanks indent four columns or more (a tab among the first four blanks
#: reaches the fourth column in both parsers).
_INDENTED = re.compile(r"[ ]{0,3}\t|[ ]{4}")
#: A list item's marker, as both parsers read one.
_MARKER = r"(?:[-*+]|[0-9]{1,9}[.)])"
#: A line a tab may indent inside a list item (:func:`listed_tab`): blanks with a tab among them;
#: then one list marker and spaces, or none; then text with no tab that starts no block but a
#: table's row: no quote, definition, heading, HTML, fence or thematic break (nor a setext
#: underline), no second list marker, and it is no bare marker.
_LISTED_TAB = re.compile(r"[ \t]*\t[ \t]*(?:" + _MARKER + r"[ ]+)?(?!" + _MARKER + r"(?:[ ]|\Z)"
                         r"|```|(?:[-*_][ ]*){3,}\Z)[^>:~#<=\s][^\t]*\Z")
#: A list item's line: a marker after fewer than four spaces, then a blank or nothing.
_ITEM_LINE = re.compile(r"[ ]{0,3}" + _MARKER + r"(?:[ \t]|$)")
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


def listed_tab(line: str) -> bool:
    """Whether ``line`` (a :func:`tabbed_line`) has the shape of a line a tab indents that both
    parsers read as they read it indented by spaces to the same column, in a list item, where
    :func:`placed_alike` finds it (RocketMQ's API pages write an item's paragraphs, nested lists
    and tables so: 4% of its characters went to markdown-it-py).

    A tab counts in a line's blanks, after a list marker (in the item's first line) and after a
    quote's or a definition's marker. In the blanks both parsers count alike: markdown-it-py's
    ``sCount`` and the Rust parser's ``indent_nonspace`` are the columns the blanks reach, a tab
    to the next multiple of four from the line's start, and both rules read on from the first
    character after them. Every block rule reads a line by that column against the block's
    indentation (``blkIndent``, ``blk_indent``: both ``sCount - blkIndent``, code from four
    columns, a lazy line below zero) and by its characters from that first one, so a line
    whose tabs stand only there (none after its first character) is read as the same line led by
    spaces. A list item's indentation is alike too where only spaces follow its marker: the
    marker's column plus its width and those spaces (one where more than four, or none), in
    both. A tab there is split between the item's indentation and its first line's content,
    which the parsers count each its own way (markdown-it-py from the line's start, with
    ``bsCount``; the Rust parser's ``find_indent_of`` from the previous tab), so such an item's
    line is none of these, nor any item's line on a page the fast reader takes. A quote's or a
    definition's marker (``>``, ``:``, ``~``) after the blanks opens a block whose lines the
    parsers measure each its own way (``bsCount`` again), so its line is none either. What the
    parsers give of such a line in a paragraph's text (``getLines``, ``get_lines``:
    markdown-it-py skips blanks up to the block's indentation and puts spaces for the rest of
    the tab that crosses it; the Rust parser's ``calc_right_whitespace_with_tabstops`` keeps as
    many columns from the right, spaces for the tab it splits) is the same text, so the same
    comments. A line holds one list marker at most, and text after it (the lines the fast
    reader's tests of empty items look for take only spaces), so such lines nest a list a line
    at most, and the Rust tree's depth past 16 goes to the reference (:data:`MAX_DEPTH`).

    The fast reader's line tests see such a line with its tabs as spaces where they take only
    spaces (:func:`indented_as_spaces`: a table's lines); a quote's line above one takes it for a
    lazy line, and the page goes to the reference. :func:`placed_alike` then takes such a line
    only in a paragraph, a tight item's text or a table of a list item, lists and items all
    the way up: no quote, definition or footnote around it. So the shape is narrower than the
    argument needs: its text starts no block but a list item or a table's row, and a line
    that would start one goes to the reference before the parse."""
    return _LISTED_TAB.match(line) is not None


def indented_as_spaces(lines: Sequence[str], numbers: Collection[int]) -> str:
    """``lines`` joined by LF, those numbered ``numbers`` indented by spaces to the columns
    their blanks reach (a tab to the next multiple of four), as both parsers count them: the
    page as the line tests that take only spaces for indentation (a table's) may read it."""
    return "\n".join(_as_spaces(line) if number in numbers else line
                     for number, line in enumerate(lines))


def _as_spaces(line: str) -> str:
    """``line`` with its leading blanks as spaces to the same column."""
    return " " * indent_columns(line) + line.lstrip(" \t")


def indent_columns(line: str) -> int:
    """The column ``line``'s text starts at, its leading tabs counted to the next multiple of
    four, as both parsers count them."""
    return len(line[:len(line) - len(line.lstrip(" \t"))].expandtabs(4))


def deep_line(line: str) -> bool:
    """Whether ``line`` starts deep enough to nest lists and quotes past ``maxNesting`` (a line
    of blanks only nests nothing: it is a blank line to both parsers)."""
    return _DEEP.match(line) is not None and line.strip(" \t") != ""


def lines_to_place(lines: Sequence[str], needs_place: Callable[[str], bool], hint: str = "",
                   among: Sequence[int] | None = None,
                   placed_after: Callable[[str], bool] | None = None) -> list[int] | None:
    """The numbers of the ``lines`` that ``needs_place`` (each holding ``hint``, or ``among``
    those numbered so, which are looked for first: asking only the lines that hold a tab, or
    that :func:`deep_line_numbers` found, is many times faster), when each
    :func:`may_be_placed`, but those ``placed_after`` tells (their place is found only in the
    tree, :func:`placed_alike`: a list item's); ``None`` when one may not."""
    if among is None:
        numbers = [number for number, line in enumerate(lines)
                   if hint in line and needs_place(line)]
    else:
        numbers = [number for number in among if needs_place(lines[number])]
    before = numbers if placed_after is None else [
        number for number in numbers if not placed_after(lines[number])]
    return numbers if may_be_placed(lines, before) else None


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
                 byte_starts: Sequence[int], in_items: Collection[int] = ()) -> bool:
    """Whether every one of the ``lines`` (the text the Rust parser read) numbered ``numbers``
    (ascending, from :func:`lines_to_place` and :func:`~.table_shapes.unproven_tables`) lies
    where no block rule reads its start, in the Rust parser's tree (``nodes``, the top level):
    after the first line of a top-level fence opened at the start of its line; indented four
    columns or more, after a top-level paragraph's first line or in a top-level indented code
    block; or, neither tabbed nor deep (:func:`tabbed_line`, :func:`deep_line`: a table's line),
    after the first line of a fence in a list item or a definition, lists, items, definition
    lists and definitions all the way up (Hugo's build settings, YAML in a definition); or,
    one of ``in_items`` (lines a tab indents, :func:`listed_tab`), in a paragraph, a tight
    item's text or a table of a list item, lists and items all the way up (no more than
    :data:`MAX_DEPTH` of them), where both parsers read it as they read it indented by
    spaces (see :func:`listed_tab`).

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
    places = iter(list(_places(nodes, lines, byte_starts, itemize=bool(in_items))))
    inside = next(places, None)
    for number in numbers:
        while inside is not None and inside[1] < number:
            inside = next(places, None)
        if inside is None or number < inside[0]:
            return False
        kind = inside[2]
        if not (number in in_items if kind == "item" else _ACCEPTS[kind](lines[number])):
            return False
    return True


def _places(nodes: Sequence[Any], lines: Sequence[str], byte_starts: Sequence[int],
            listed: bool = False, items: bool = False, depth: int = 0, itemize: bool = False
            ) -> Iterator[tuple[int, int, str]]:
    """The first and last line of each of ``nodes`` (at the top level, or in lists, items,
    definition lists and definitions only when ``listed``; in lists and items only, all the way
    up, when ``items``; inside ``depth`` of them) that may hold lines no block rule reads the
    start of, and its kind (a key of :data:`_ACCEPTS`, or ``item`` where ``itemize``), in the
    order of the text."""
    for node in nodes:
        srcmap = node.srcmap  # the binding builds each attribute anew on every read
        if srcmap is None:
            continue
        name = node.name
        if name in _LISTS:
            if depth < MAX_DEPTH:
                yield from _places(node.children, lines, byte_starts, listed=True,
                                   items=(items or (itemize and not listed))
                                   and name in _ITEMS, depth=depth + 1, itemize=itemize)
            continue
        first = bisect_right(byte_starts, srcmap[0]) - 1
        last = bisect_right(byte_starts, max(srcmap[0], srcmap[1] - 1)) - 1
        if items and name == "text":  # its span may end past its lines (TreeReader)
            last = first + node.meta["content"].count("\n")
        if name == "fence" and (listed or lines[first].startswith(("```", "~~~"))):
            yield first + 1, last, "listed fence" if listed else "fence"
        elif name in ("paragraph", "code_block") and not listed:
            yield first + (name == "paragraph"), last, "top"
        elif items and name in ("paragraph", "text", "table"):
            yield first, last, "item"


#: Nodes a fence in a list item or a definition stands in, all the way up.
_LISTS = frozenset({"bullet_list", "ordered_list", "list_item", "definition_list",
                    "definition_description"})
#: Those of them a line a tab indents may stand in (:func:`listed_tab`), all the way up.
_ITEMS = frozenset({"bullet_list", "ordered_list", "list_item"})
#: Containers (lists, items, quotes) nested deeper than this go to the reference: markdown-it-py
#: stops parsing at 20 open tokens (``maxNesting``), the Rust parser reads on
#: (:mod:`~.rust_tree` refuses them); here they hold no place, as a page of lines each a tab
#: deeper than the last may nest a thousand, past Python's recursion.
MAX_DEPTH = 16
#: What each place takes: a top-level fence any line :func:`may_be_placed` lets through (none
#: can close it), a top-level paragraph or code block a line indented four columns, a fence in
#: a list item a line neither tabbed nor deep.
_ACCEPTS: dict[str, Callable[[str], bool]] = {
    "fence": lambda line: True,
    "top": lambda line: _INDENTED.match(line) is not None,
    "listed fence": lambda line: not tabbed_line(line) and not deep_line(line)}
