"""The units of a leaf, embedded beside it for multi-vector search (issue 31).

A sentence encoder asked to embed a 512-token leaf embeds an average of its topics, and a
question about one fact in it lands far away. A multi-vector index also embeds the leaf's
*units*: its sentences, list items, table rows (each with the table's header) and groups of
code lines, the seams the planner cuts at; a dense search then scores a leaf by its own vector
and its best unit's together (:func:`mdchunk.index.search.unit_scored`) and still returns the
leaf, so the context shown stays the leaf.

Units are read from the leaf's text line by line, the same way every time (a unit's id is its
leaf's id and its text hashed, :func:`unit_id`): headings are left out (the leaf's breadcrumb
already says them), a unit too short to mean anything alone is left out, and a leaf that is
one unit has none (its own vector is that unit's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..text import clean_text
from ..text.sentences import sentence_spans
from .rows import embed_hash

__all__ = ["CODE_LINES", "MAX_UNITS", "MIN_CHARS", "leaf_units", "unit_id"]

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


def unit_id(leaf_id: str, text: str) -> str:
    """A unit's id: its leaf's and its text's (the same sentence in two leaves is two units)."""
    return embed_hash(f"{leaf_id}\0{text}")


def leaf_units(text: str) -> list[str]:
    """The units of a leaf's ``text``, in order, each once, without blanks around them; none
    when the leaf is a single unit."""
    units: list[str] = []
    for unit in _raw_units(text.splitlines()):
        cleaned = clean_text(unit).text.strip()
        if _width(cleaned) >= MIN_CHARS and cleaned not in units:
            units.append(cleaned)
    return units[:MAX_UNITS] if len(units) > 1 else []


def _width(text: str) -> int:
    """Characters, a wide (CJK) one counted twice."""
    return len(text) + sum(1 for ch in text if ch >= "\u2e80")


def _raw_units(lines: list[str]) -> Iterator[str]:
    """Units by kind of line: code fences, tables, list items, headings, prose."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            end = _fence_end(lines, i)
            yield from _code_groups(lines[i + 1:end])
            i = end + 1
        elif line.lstrip().startswith("|"):
            end = _run_end(lines, i, lambda s: s.lstrip().startswith("|"))
            yield from _table_rows(lines[i:end])
            i = end
        elif _ITEM.match(line):
            end = _run_end(lines, i + 1, lambda s: bool(s.strip()) and not _ITEM.match(s)
                           and not _FENCE.match(s) and s[:1].isspace())
            yield from _prose(" ".join(s.strip() for s in lines[i:end]))
            i = end
        elif _HEADING.match(line) or not line.strip():
            i += 1
        else:
            end = _run_end(lines, i + 1, lambda s: bool(s.strip()) and not _ITEM.match(s)
                           and not _FENCE.match(s) and not _HEADING.match(s)
                           and not s.lstrip().startswith("|"))
            yield from _prose("\n".join(lines[i:end]))
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


def _code_groups(code: list[str]) -> Iterator[str]:
    """Every :data:`CODE_LINES` non-blank lines of a code block, together."""
    kept = [line for line in code if line.strip()]
    for i in range(0, len(kept), CODE_LINES):
        yield "\n".join(kept[i:i + CODE_LINES])


def _table_rows(rows: list[str]) -> Iterator[str]:
    """Each body row of a table with its header row before it (a row alone has no names)."""
    body = [row for row in rows if not _TABLE_RULE.match(row)]
    if len(body) < 2:
        yield from body
        return
    header = body[0].strip()
    for row in body[1:]:
        yield f"{header} {row.strip()}"


def _prose(text: str) -> Iterator[str]:
    """The sentences of a paragraph, their blanks (hard-wrapped lines among them) one space."""
    for a, b in sentence_spans(text, at_line_breaks=False):
        yield " ".join(text[a:b].split())
