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
opening line would not end, stands right before it (``_TreeReader.contained`` in
:mod:`.markdown_rs`); lines that look like a container's inside a top-level fence are the
fence's code to both (:func:`outside_fences`). ``tests/test_markdown_rs.py`` holds both readers
to the same Document on generated pages of containers among every other block.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from .markdown_it_parser import valid_container_name

__all__ = ["MARKER", "blank_markers", "container_lines", "outside_fences"]

#: What the marker lines start with: the rule wants three markers at least.
MARKER = ":::"
#: A marker after a list item's, a quote's or a definition's marker: the rule opens (or closes)
#: a container inside that block, which this module does not place.
_NESTED_MARKER = re.compile(r"[ \t]*(?:(?:[>:~*+-]|[0-9]{1,9}[.)])[ \t]*)+" + MARKER)


def container_lines(lines: Sequence[str]) -> list[tuple[int, int]] | None:
    """``(opening, closing)`` line numbers of each container in ``lines`` (the page after its
    front matter, LF line breaks), as markdown-it-py's rule finds them at the top level;
    ``None`` where this cannot tell: a marker line indented (the rule takes up to three spaces,
    in lists and quotes too) or after a list item's, a quote's or a definition's marker (where
    the rule reads a container inside it), a container unclosed or nested, colons that open
    nothing."""
    marked = [number for number, line in enumerate(lines) if MARKER in line]
    found: list[tuple[int, int]] = []
    index = 0
    while index < len(marked):
        line = lines[marked[index]]
        if not line.lstrip(" \t").startswith(MARKER):
            if _NESTED_MARKER.match(line):
                return None
            index += 1
            continue
        colons = len(line) - len(line.lstrip(":"))
        if colons < len(MARKER) or not valid_container_name(line[colons:], line[:colons]):
            return None
        closing = _closing_line(lines, marked, index, colons)
        if closing is None:
            return None
        found.append((marked[index], marked[closing]))
        index = closing + 1
    return found


def _closing_line(lines: Sequence[str], marked: Sequence[int], opening: int, colons: int
                  ) -> int | None:
    """Which of the ``marked`` lines (those holding ``:::``) closes the container opened at
    ``marked[opening]`` with ``colons`` colons: the first of as many colons or more and spaces
    only; ``None`` when another marker line comes first (a container nested, or colons the rule
    reads otherwise, after a block's marker too) or none comes."""
    for index in range(opening + 1, len(marked)):
        line = lines[marked[index]]
        if not line.lstrip(" \t").startswith(MARKER):
            if _NESTED_MARKER.match(line):
                return None
            continue
        count = len(line) - len(line.lstrip(":"))
        return index if count >= colons and not line[count:].strip(" ") else None
    return None


def blank_markers(lines: Sequence[str], containers: Sequence[tuple[int, int]]) -> list[str]:
    """``lines`` with each container's opening and closing line left empty: the nodes the Rust
    parser finds between them are the container's children."""
    blanked = list(lines)
    for opening, closing in containers:
        blanked[opening] = blanked[closing] = ""
    return blanked


def outside_fences(containers: Sequence[tuple[int, int]], nodes: Sequence[Any],
                   byte_starts: Sequence[int], lines: Sequence[str]) -> list[tuple[int, int]]:
    """The ``containers`` but those whose marker lines both lie inside one top-level fence, past
    its first line and before its last, that the Rust parser found (``nodes``: the top level of
    the ``lines`` it read, markers blanked, their lines starting at ``byte_starts``) opened at
    the start of its line (Ory's pages show MDX that notes in a fence of four backticks).

    Both parsers read that fence from the same line: the text before it is read alike (what
    the fast reader takes), and a fence's opening line is no marker line. It ends at the same
    line: its closing line is the first after it that closes it, none of the marker lines, so
    blanking them moves nothing. markdown-it-py's container rule never reads a line inside it
    (its block parser goes on after the fence's last line), so they are the fence's code, as
    they are to the Rust parser: no container, and the fence's code goes unread (a code block
    is its lines)."""
    fences = []
    for node in nodes:
        if node.name == "fence" and node.srcmap is not None:
            first = bisect_right(byte_starts, node.srcmap[0]) - 1
            last = bisect_right(byte_starts, max(node.srcmap[0], node.srcmap[1] - 1)) - 1
            if lines[first].startswith(("```", "~~~")):
                fences.append((first, last))
    return [(opening, closing) for opening, closing in containers
            if not any(first < opening and closing < last for first, last in fences)]
