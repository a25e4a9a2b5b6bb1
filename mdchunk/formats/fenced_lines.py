"""Lines the fast reader may take only inside a fence: tabs where they may count as columns,
and lines nested deep (issue 32).

Tabs expand to columns, which markdown-it-py and the Rust parser may count apart, so a tab
used to send the whole page to the reference: the Go and shell code of site pages, and the
``* [cmd](link)\t - what it does`` lines of generated CLI pages, sent 35 of Ory's 150 pages
there. A line that starts with sixteen spaces or list markers may nest lists and quotes past
markdown-it-py's ``maxNesting``, where the two parsers part, so it sent the page there too: the
Java code of RocketMQ's pages, indented four levels inside its fences, sent 14 of its 83.

Both are read alike where no block rule reads the line's start at all: inside a fence the Rust
parser finds at the top level, opened at the start of its line. (A tab inside a line's text,
after its first word, is read alike anywhere: no block rule counts the columns after it.)
:mod:`~.markdown_rs` asks :func:`lines_to_fence` before it parses and :func:`inside_fences` of
the tree it got; ``tests/test_markdown_rs.py`` holds both readers to the same Document on
generated pages with tabs and deep lines everywhere.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["deep_line", "inside_fences", "lines_to_fence", "tabbed_line"]

#: A line whose tabs all stand inside its text: after spaces and list markers (spaces after
#: them), a word or a link's ``[``, and no tab before that word's first character; no pipe (a
#: table's row, whose cells each parser trims) and no ``]:`` (a link reference definition,
#: whose blanks each parser skips) in it.
_INNER_TAB = re.compile(r"(?![^\n]*\]:)[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*[A-Za-z\[]"
                        r"[^\t|]*?[^\s|]\t[^|]*\Z")
#: A line that starts with 16 or more spaces, list markers and ``>`` s, as deep nesting needs:
#: each list level takes two of them (``- `` or its indentation), each quote one.
_DEEP = re.compile(r"(?:[ >]|(?:[-*+]|[0-9]{1,9}[.)])(?=[ ]|\Z)){16}")


def tabbed_line(line: str) -> bool:
    """Whether ``line`` holds a tab that may count as columns (not only inside its text)."""
    return "\t" in line and not _INNER_TAB.match(line)


def deep_line(line: str) -> bool:
    """Whether ``line`` starts deep enough to nest lists and quotes past ``maxNesting``."""
    return _DEEP.match(line) is not None


def lines_to_fence(lines: Sequence[str], needs_fence: Callable[[str], bool]) -> list[int] | None:
    """The numbers of the ``lines`` that ``needs_fence``, when each may be inside a fence: after a
    line that starts with three backticks or tildes, and starting with neither itself (blanks
    aside), so that it can close no fence; ``None`` when one may not."""
    numbers, opened = [], False
    for number, line in enumerate(lines):
        if needs_fence(line):
            if not opened or line.lstrip(" \t")[:1] in ("`", "~"):
                return None
            numbers.append(number)
        opened = opened or line.startswith(("```", "~~~"))
    return numbers


def inside_fences(lines: Sequence[str], numbers: Sequence[int], nodes: Sequence[Any],
                  byte_starts: Sequence[int]) -> bool:
    """Whether every one of the ``lines`` (the text the Rust parser read) numbered ``numbers``
    (ascending, from :func:`lines_to_fence`) lies after the first line of a fence that parser
    found at the top level, opened at the start of its line.

    Then both parsers read alike: the text before such a fence holds no such line outside
    fences before it, so both open the fence on the same line; both close it on the same line,
    which is none of them (none starts with a backtick or a tilde); what follows starts at the
    top level in both; and no block rule reads the start of any of them."""
    fences = []
    for node in nodes:
        if node.name == "fence" and node.srcmap is not None:
            first = bisect_right(byte_starts, node.srcmap[0]) - 1
            last = bisect_right(byte_starts, max(node.srcmap[0], node.srcmap[1] - 1)) - 1
            if lines[first].startswith(("```", "~~~")):
                fences.append((first + 1, last))
    fence = iter(fences)
    inside = next(fence, None)
    for number in numbers:
        while inside is not None and inside[1] < number:
            inside = next(fence, None)
        if inside is None or number < inside[0]:
            return False
    return True
