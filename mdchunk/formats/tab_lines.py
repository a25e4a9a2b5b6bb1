"""Where the fast reader may take a page with tab characters (issue 32).

Tabs expand to columns, which markdown-it-py and the Rust parser may count apart, so a tab
used to send the whole page to the reference: the Go and shell code of site pages, and the
``* [cmd](link)\t - what it does`` lines of generated CLI pages, sent 35 of Ory's 150 pages
there. A tab is read alike where no block rule counts columns across it: inside a line's text
(after its first word), and inside a fence the Rust parser finds at the top level, opened at
the start of its line. :mod:`~.markdown_rs` asks :func:`tab_lines` before it parses and
:func:`tabs_inside_fences` of the tree it got; ``tests/test_markdown_rs.py`` holds both
readers to the same Document on generated pages with tabs everywhere.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

__all__ = ["tab_lines", "tabs_inside_fences"]

#: A line whose tabs all stand inside its text: after spaces and list markers (spaces after
#: them), a word or a link's ``[``, and no tab before that word's first character; no pipe (a
#: table's row, whose cells each parser trims) and no ``]:`` (a link reference definition,
#: whose blanks each parser skips) in it.
_INNER_TAB = re.compile(r"(?![^\n]*\]:)[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*[A-Za-z\[]"
                        r"[^\t|]*?[^\s|]\t[^|]*\Z")


def tab_lines(lines: Sequence[str]) -> list[int] | None:
    """The numbers of the ``lines`` that hold a tab where it may count as columns, when each may
    be inside a fence: after a line that starts with three backticks or tildes, and starting
    with neither itself (blanks aside), so that it can close no fence; ``None`` when one may
    not. A tab inside a line's text (:data:`_INNER_TAB`) is none of these: no block rule
    counts the columns after a line's first word."""
    numbers, opened = [], False
    for number, line in enumerate(lines):
        if "\t" in line and not _INNER_TAB.match(line):
            if not opened or line.lstrip(" \t")[:1] in ("`", "~"):
                return None
            numbers.append(number)
        opened = opened or line.startswith(("```", "~~~"))
    return numbers


def tabs_inside_fences(lines: Sequence[str], nodes: Sequence[Any], byte_starts: Sequence[int]
                        ) -> bool:
    """Whether every one of the ``lines`` (the text the Rust parser read) that holds a tab lies
    after the first line of a fence that parser found at the top level, opened at the start of
    its line (:func:`tab_lines`).

    Then both parsers read alike: the text before such a fence holds no tab outside fences
    before it, so both open the fence on the same line; both close it on the same line, which
    holds no tab (no line with one starts with a backtick or a tilde); what follows starts at
    the top level in both; and no column of a line with a tab is ever counted."""
    tabs = tab_lines(lines)
    if tabs is None:
        return False
    fences = []
    for node in nodes:
        if node.name == "fence" and node.srcmap is not None:
            first = bisect_right(byte_starts, node.srcmap[0]) - 1
            last = bisect_right(byte_starts, max(node.srcmap[0], node.srcmap[1] - 1)) - 1
            if lines[first].startswith(("```", "~~~")):
                fences.append((first + 1, last))
    fence = iter(fences)
    inside = next(fence, None)
    for number in tabs:
        while inside is not None and inside[1] < number:
            inside = next(fence, None)
        if inside is None or number < inside[0]:
            return False
    return True
