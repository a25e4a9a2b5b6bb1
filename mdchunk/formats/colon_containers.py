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
:mod:`.markdown_rs`). ``tests/test_markdown_rs.py`` holds both readers to the same Document
on generated pages of containers among every other block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .markdown_it_parser import valid_container_name

__all__ = ["MARKER", "blank_markers", "container_lines"]

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
