"""``:::`` containers (Docusaurus admonitions, MyST colon fences) for the fast reader (issue 32).

The Rust parser has no container rule, and the pages of a Docusaurus site hold one on almost
every page that warns or notes anything: 42 of Ory's 150 pages went to markdown-it-py for them
alone, 29% of its characters. markdown-it-py's rule (mdit-py-plugins' ``container``) finds a
container's lines without reading what they hold: from an opening line (three colons or more,
then a name that :func:`~.markdown_it_parser.valid_container_name` accepts) to the first line
of as many colons or more and nothing else; the lines between are read as a document of their
own. So the fast reader finds the same lines (:func:`container_lines`), has the Rust parser read
the page with those two lines blanked (:func:`blank_markers`), and makes the nodes between them
the container's children, provided no node crosses a marker line and no HTML block, which the
opening line would not end, stands right before it (:meth:`.rust_tree.TreeReader.contained`).

Ory's steps hold them too, a ``:::note`` indented under ``1. Step`` (six more pages, 6% of its
characters): the rule runs in the item as at the top level, its columns counted from the
item's content column. So an indented opening line is taken where the line above is blank and
the item that holds it (a top-level list's, as the Rust parser reads the page) starts its
content at a column that makes the rule read it, and its closing line, as the container's
(:func:`_listed_columns`); its nodes between are the container's children as above
(:meth:`.rust_tree.TreeReader.listed_item`). Lines led by colons in a fence at the top level
are its content, which no rule but the fence's reads (two more of Ory's pages hold their tabs
of examples in one): they are left to the fence the Rust parser finds there
(:func:`_fence_end`). ``tests/test_markdown_rs.py`` holds both readers to the same Document on
generated pages of containers among every other block, at the top level, in list items and in
fences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .fenced_lines import indent_columns
from .markdown_it_parser import valid_container_name

__all__ = ["MARKER", "Containers", "Listed", "blank_markers", "container_lines",
           "listed_containers"]

#: What the marker lines start with: the rule wants three markers at least.
MARKER = ":::"
#: A marker after a list item's, a quote's or a definition's marker: the rule opens (or closes)
#: a container inside that block, which this module does not place.
_NESTED_MARKER = re.compile(r"[ \t]*(?:(?:[>:~*+-]|[0-9]{1,9}[.)])[ \t]*)+" + MARKER)
#: A fence's opening line, unindented: three backticks or tildes or more.
_FENCE = re.compile(r"`{3,}|~{3,}")
#: A definition's line (mdit-py-plugins' ``deflist``: its marker, then a space or tab).
_DEFINITION = re.compile(r"[ \t]*[:~][ \t]")


class Containers(NamedTuple):
    """What :func:`container_lines` finds: each container's ``(opening, closing)`` lines, and
    each fence at the top level that holds lines led by colons, which are its content, not
    containers, to markdown-it-py (Ory's tabs of examples in a ````` ````mdx-code-block `````
    fence): ``(its opening line, the last of them)``."""

    pairs: list[tuple[int, int]]
    fenced: list[tuple[int, int]]


def container_lines(lines: Sequence[str]) -> Containers | None:
    """The containers in ``lines`` (the page after its front matter, LF line breaks), as
    markdown-it-py's rule finds them at the top level or, for an indented opening line, in a
    top-level list's item (:func:`listed_containers` says in which items), and the fences that
    hold colons outside them (:func:`_fence_end`); ``None`` where this cannot tell: a marker
    line after a list item's, a quote's or a definition's marker (where the rule reads a
    container inside it), an indented one that :func:`_listed_columns` cannot place in any
    item, a container unclosed or nested. Colons that open nothing (a name the rule does not
    take, or none) outside a container are a paragraph's text to markdown-it-py, as to the Rust
    parser: the rule that would read them declines them."""
    marked = [number for number, line in enumerate(lines)
              if MARKER in line or "```" in line or "~~~" in line]
    found = Containers([], [])
    index = 0
    while index < len(marked):
        line = lines[marked[index]]
        fence_end = _fence_end(lines, marked, index)
        if fence_end is not None:
            held = [number for number in marked[index + 1:fence_end] if MARKER in lines[number]]
            if held:
                found.fenced.append((marked[index], held[-1]))
            index = fence_end + 1
            continue
        if not line.lstrip(" \t").startswith(MARKER):
            if _NESTED_MARKER.match(line):
                return None
            index += 1
            continue
        text = line.lstrip(" \t")
        colons = len(text) - len(text.lstrip(":"))
        if not valid_container_name(text[colons:], text[:colons]):
            index += 1  # colons that open nothing: a paragraph's text to both readers
            continue
        indented = line[0] != ":"
        if indented and line.lstrip(" ")[0] != ":":
            return None  # a tab before the colons: which column they stand at is not told here
        closing = _closing_line(lines, marked, index, colons, indented)
        if closing is None:
            return None
        pair = (marked[index], marked[closing])
        if indented and not _listed_columns(lines, *pair):
            return None
        found.pairs.append(pair)
        index = closing + 1
    return found


def _fence_end(lines: Sequence[str], marked: Sequence[int], opening: int) -> int | None:
    """Where among the ``marked`` lines the fence opened at ``marked[opening]`` closes (at
    the first line of three columns' indentation at most and as many of its backticks or tildes
    or more, and spaces or tabs only; ``len(marked)`` when none does), if the line opens one
    at the top level: three backticks or tildes or more, unindented (so in no list item, a
    container's lines aside), the backticks' info string without one. Outside a container
    (:func:`container_lines` asks only there), the fence's lines are its content to
    markdown-it-py, so the container rule never sees colons there; the Rust parser's tree must
    hold the same fence (:meth:`~.rust_tree.TreeReader.fenced_alike`), or the page goes to
    the reference."""
    line = lines[marked[opening]]
    fence = _FENCE.match(line)
    if fence is None or (line[0] == "`" and "`" in line[fence.end():]):
        return None
    run = fence.group()
    for index in range(opening + 1, len(marked)):
        text = lines[marked[index]]
        closing = text.lstrip(" ")
        if len(text) - len(closing) < 4 and closing.startswith(run) and not closing.lstrip(
                run[0]).strip(" \t"):
            return index
    return len(marked)


def _closing_line(lines: Sequence[str], marked: Sequence[int], opening: int, colons: int,
                  indented: bool) -> int | None:
    """Which of the ``marked`` lines (those holding ``:::``) closes the container opened at
    ``marked[opening]`` with ``colons`` colons: the first of as many colons or more and spaces
    only, after spaces where the opening line is ``indented`` (in a list item) and after none
    where not; ``None`` when another marker line comes first (a container nested, or colons
    the rule reads otherwise, after a block's marker too) or none comes."""
    for index in range(opening + 1, len(marked)):
        line = lines[marked[index]]
        if not line.lstrip(" \t").startswith(MARKER):
            if _NESTED_MARKER.match(line):
                return None
            continue
        text = line.lstrip(" ") if indented else line
        count = len(text) - len(text.lstrip(":"))
        return index if count >= colons and not text[count:].strip(" ") else None
    return None


class Listed(NamedTuple):
    """A container opened by an indented line: in a top-level list's item, provided the item's
    content starts at one of ``columns`` (see :func:`_listed_columns`)."""

    opening: int
    closing: int
    columns: range


def listed_containers(lines: Sequence[str], containers: Sequence[tuple[int, int]]
                      ) -> tuple[list[tuple[int, int]], list[Listed]]:
    """``containers`` (:func:`container_lines`) parted into those at the top level and those
    opened by an indented line, in a list item."""
    top = [pair for pair in containers if lines[pair[0]][0] == ":"]
    if len(top) == len(containers):
        return top, []
    return top, [Listed(opening, closing, _listed_columns(lines, opening, closing))
                 for opening, closing in containers if lines[opening][0] != ":"]


def _listed_columns(lines: Sequence[str], opening: int, closing: int) -> range:
    """The content columns ``c`` of a top-level list's item that make markdown-it-py's rule read
    ``lines[opening]`` (indented) in the item as the opening line of a container that
    ``lines[closing]`` closes, with the lines between as its content, as the Rust parser reads
    them in the item with both lines blanked; empty when none does (or this cannot tell).

    Where the line above the opening one is blank, every block the item holds there has ended
    in both readers but a fence or an HTML block that runs on past blank lines (a node across
    the blanked line to the Rust parser: :meth:`~.rust_tree.TreeReader.contained` refuses it),
    and a nested item whose content starts two columns past ``c`` or more: an opening line
    indented ``c`` or ``c + 1`` is in the item, at a block's start, outside the nested one. Of
    the rules markdown-it-py tries there, the table rule would take the line for a header
    were it to hold a pipe (refused) and the code rule wants four columns past ``c``; the
    container rule comes next, and takes it. It looks for the closing line from the next line
    on: the first of as many colons or more (:func:`_closing_line`: the next line led by
    colons), up to three columns past ``c``, unless a line with text less indented than ``c``
    comes first, ending the item. The lines between are read as a document of their own that
    ends at the closing line, as the Rust parser's nodes between the two blank lines are read,
    unless one runs on across the closing line (refused as above). After it, the item reads on
    at a block's start in both. A definition list above that reads on through a blank line
    would take the opening line for a term over a definition's line (refused)."""
    above = lines[opening - 1] if opening else "not blank"
    if above.strip(" \t") or "|" in lines[opening] or any(
            _DEFINITION.match(line) for line in lines[opening + 1:opening + 3]):
        return range(0)
    inside = [indent_columns(line) for line in lines[opening + 1:closing] if line.strip(" \t")]
    if not inside:
        return range(0)
    indent, closing_indent = indent_columns(lines[opening]), indent_columns(lines[closing])
    return range(max(indent - 1, closing_indent - 3, 2), min(indent, closing_indent, *inside) + 1)


def blank_markers(lines: Sequence[str], containers: Sequence[tuple[int, int]]) -> list[str]:
    """``lines`` with each container's opening and closing line left empty: the nodes the Rust
    parser finds between them are the container's children."""
    blanked = list(lines)
    for opening, closing in containers:
        blanked[opening] = blanked[closing] = ""
    return blanked
