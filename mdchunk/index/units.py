"""The units of a leaf (sentences, list items, table rows with their header, groups of code
lines), embedded beside it: a long leaf embeds as an average of its topics, so a dense search
scores a leaf by its own vector and its best unit's, still returning the leaf. A unit's id is its
leaf's id and its text hashed (:func:`unit_id`); headings, hidden text and units too short to
mean anything are left out."""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import Any

from ..text import clean_text
from ..text.sentences import sentence_spans
from .rows import embed_hash

__all__ = ["CODE_LINES", "MAX_UNITS", "MIN_CHARS", "Span", "leaf_unit_spans", "leaf_units",
           "unit_id", "unit_spans"]

#: Where a passage lies in a leaf's text: ``(start, end)`` character offsets.
Span = tuple[int, int]

#: Lines of code embedded together (a line alone is rarely a question's answer).
CODE_LINES = 8
#: Units shorter than this (after hygiene; a CJK character counts two, as it says about as
#: much as a short word) are left out: "Note:", "1.", a lone brace.
MIN_CHARS = 12
#: At most this many units per leaf, the first ones (a leaf of hundreds of table rows would
#: otherwise cost hundreds of vectors).
MAX_UNITS = 48

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_ITEM = re.compile(r"^\s*([-*+]|\d{1,9}[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
#: An HTML comment block's first line (CommonMark's HTML block of type 2: up to three spaces,
#: then ``<!--``); the block ends at the line holding ``-->``.
_COMMENT = re.compile(r"^ {0,3}<!--")


def unit_id(leaf_id: str, text: str) -> str:
    """A unit's id: its leaf's and its text's (the same sentence in two leaves is two units)."""
    return embed_hash(f"{leaf_id}\0{text}")


def leaf_units(text: str, *, page_start: bool = False) -> list[str]:
    """The units of a leaf's ``text``, in order, each once, without blanks around them; none
    when the leaf is a single unit. ``page_start``: the leaf begins its page, so a front
    matter it opens with is no unit."""
    return [unit for unit, _ in leaf_unit_spans(text, page_start=page_start)]


def leaf_unit_spans(text: str, *, page_start: bool = False) -> list[tuple[str, Span]]:
    """:func:`leaf_units`, each with where it lies in ``text`` (``text[a:b]`` is the unit
    before hygiene and blanks are folded, a table row without its header): what a hit's
    matching lines are drawn from (:mod:`.highlights`). A unit said twice keeps its first."""
    units: dict[str, Span] = {}
    for unit, span in _raw_units(text, page_start=page_start):
        cleaned = clean_text(unit).text.strip()
        if _width(cleaned) >= MIN_CHARS and cleaned not in units:
            units[cleaned] = span
    return list(units.items())[:MAX_UNITS] if len(units) > 1 else []


def unit_spans(text: str, *, page_start: bool = False) -> list[Span]:
    """Where every passage of ``text`` a unit could be lies, in order, none left out for being
    short, repeated or many; code line by line rather than in groups (a command is one line)."""
    return [span for _, span in _raw_units(text, code_lines=1, page_start=page_start)]


def _width(text: str) -> int:
    """Characters, a wide (CJK) one counted twice."""
    return len(text) + sum(1 for ch in text if ch >= "\u2e80")


class _Lines:
    """The lines of a leaf (as :meth:`str.splitlines` cuts them) and where each starts in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines()
        self.starts = list(accumulate(map(len, text.splitlines(keepends=True)), initial=0))

    def span(self, first: int, last: int) -> Span:
        """From line ``first``'s first non-blank character to the end of line ``last``'s text."""
        line = self.lines[first]
        return (self.starts[first] + len(line) - len(line.lstrip()),
                self.starts[last] + len(self.lines[last].rstrip()))

    def joined(self, first: int, end: int, sep: str, *, strip: bool = False
               ) -> tuple[str, list[int]]:
        """Lines ``first`` to ``end`` joined by ``sep`` (each stripped if asked), and the offset
        in the leaf of each of its characters (a separator stands at its line's end)."""
        pieces: list[str] = []
        offsets: list[int] = []
        for j in range(first, end):
            line = self.lines[j]
            piece = line.strip() if strip else line
            at = self.starts[j] + (len(line) - len(line.lstrip()) if strip else 0)
            pieces.append(piece)
            offsets.extend(range(at, at + len(piece)))
            offsets.append(at + len(piece))
        return sep.join(pieces), offsets


def _raw_units(text: str, code_lines: int = CODE_LINES, page_start: bool = False
               ) -> Iterator[tuple[str, Span]]:
    """Units by kind of line (code fences, tables, list items, headings, prose), each with its
    span in ``text``; none of a front matter (when ``text`` starts its page) or an HTML comment
    block."""
    leaf = _Lines(text)
    lines = leaf.lines
    i = 0
    if page_start and text.startswith("---"):  # from the line after the front matter
        i = _front_matter_lines(text)
    while i < len(lines):
        line = lines[i]
        if _COMMENT.match(line):  # to the end of the line that closes it
            closed = text.find("-->", leaf.starts[i] + line.find("<!--") + 4)
            i = bisect_right(leaf.starts, len(text) if closed < 0 else closed)
        elif _FENCE.match(line):
            end = _fence_end(lines, i)
            yield from _code_groups(leaf, i + 1, end, code_lines)
            i = end + 1
        elif line.lstrip().startswith("|"):
            end = _run_end(lines, i, lambda s: s.lstrip().startswith("|"))
            yield from _table_rows(leaf, i, end)
            i = end
        elif _ITEM.match(line):
            end = _run_end(lines, i + 1, lambda s: bool(s.strip()) and not _ITEM.match(s)
                           and not _FENCE.match(s) and s[:1].isspace())
            yield from _prose(*leaf.joined(i, end, " ", strip=True))
            i = end
        elif _HEADING.match(line) or not line.strip():
            i += 1
        else:
            end = _run_end(lines, i + 1, lambda s: bool(s.strip()) and not _ITEM.match(s)
                           and not _FENCE.match(s) and not _HEADING.match(s)
                           and not s.lstrip().startswith("|") and not _COMMENT.match(s))
            yield from _prose(*leaf.joined(i, end, "\n"))
            i = end


def _run_end(lines: list[str], start: int, belongs: Callable[[str], bool]) -> int:
    """The index after the run of lines from ``start`` that ``belongs`` keeps."""
    end = start
    while end < len(lines) and belongs(lines[end]):
        end += 1
    return end


def _fence_end(lines: list[str], start: int) -> int:
    """The closing fence's line (or the last line, when the leaf cuts the block)."""
    for j in range(start + 1, len(lines)):
        if _FENCE.match(lines[j]):
            return j
    return len(lines)


def _code_groups(leaf: _Lines, first: int, end: int, size: int) -> Iterator[tuple[str, Span]]:
    """Every ``size`` non-blank lines of the code between lines ``first`` and ``end``,
    together."""
    kept = [j for j in range(first, end) if leaf.lines[j].strip()]
    for i in range(0, len(kept), size):
        group = kept[i:i + size]
        yield "\n".join(leaf.lines[j] for j in group), leaf.span(group[0], group[-1])


def _table_rows(leaf: _Lines, first: int, end: int) -> Iterator[tuple[str, Span]]:
    """Each body row of a table with its header row before it (a row alone has no names);
    its span is the row's alone."""
    body = [j for j in range(first, end) if not _TABLE_RULE.match(leaf.lines[j])]
    if len(body) < 2:
        yield from ((leaf.lines[j], leaf.span(j, j)) for j in body)
        return
    header = leaf.lines[body[0]].strip()
    for j in body[1:]:
        yield f"{header} {leaf.lines[j].strip()}", leaf.span(j, j)


def _prose(text: str, offsets: list[int]) -> Iterator[tuple[str, Span]]:
    """The sentences of a paragraph, their blanks (hard-wrapped lines among them) one space,
    each with its span in the leaf (``offsets`` maps the paragraph's characters to it)."""
    for a, b in sentence_spans(text, at_line_breaks=False):
        yield " ".join(text[a:b].split()), (offsets[a], offsets[b - 1] + 1)


def _front_matter_lines(text: str) -> int:
    """The lines the front matter opening ``text`` takes (0 where it has none), as the page's
    reader finds it (mdit-py-plugins' front matter rule, alone: nothing else is parsed)."""
    first = _front_matter_reader().parse(text)[:1]
    return first[0].map[1] if first and first[0].type == "front_matter" and first[0].map else 0


@functools.cache
def _front_matter_reader() -> Any:
    """A parser of front matter alone, made once (each page's first leaf asks it)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    return MarkdownIt("zero").use(front_matter_plugin)
