"""Where the fast reader may read definition lists as markdown-it-py does (issue 32).

markdown-it-pyrs' ``deflist`` plugin is a port of mdit-py-plugins' (the reference's), quirks
included (a later term's definition starts on the term's line), and reads the same lists,
but for what :mod:`~.markdown_rs` leaves to the reference here:

- the order of the rules: markdown-it-py tries a setext heading before a definition list, the
  Rust parser after it, so a term whose definition runs on, without a blank line, to a line of
  ``=`` or ``-`` is a heading to the one and a list to the other (:func:`deflist_refusals`);
- where a definition's marker may interrupt a paragraph: markdown-it-py inside any block of a
  definition (its ``ddIndent`` stays set in a list or quote nested there), the Rust parser only
  directly inside one, so a line starting with ``:`` or ``~`` inside a list or quote in a
  definition may end its paragraph or read on lazily (:func:`marker_inside`);
- what the fast reader's line tests do not see behind a definition's marker: a quote opened on
  a definition's first line (:func:`~.quote_lines.lazy_quote` looks for lazy lines behind list
  markers and ``>`` s only), and lines that may nest sixteen containers deep when definitions
  count (each ``:`` opens two, the list and the definition), unless they are that deep
  without them (:func:`~.fenced_lines.deep_line`: the fast reader takes those only where no
  block rule reads their start, Hugo's JSON in a fence on a page of definitions).

``tests/test_markdown_rs.py`` holds both readers to the same Document on generated definition
lists in every position and nesting.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .fenced_lines import deep_line
from .markdown_it_parser import RULE_TRIGGERS

__all__ = ["HOLDERS", "deflist_refusals", "marker_inside"]

#: The Rust parser's nodes in a definition that hold paragraphs of their own.
HOLDERS = frozenset({"bullet_list", "ordered_list", "blockquote"})

# The patterns of a line's start are led by a line break and searched in the text after one
# (a ``(?:^|\n)`` lead is searched several times slower: no literal to skip to).
#: A definition's line: its ``:`` or ``~`` after indentation and quote markers, then a blank.
_DEFINITION = re.compile(r"\n[ \t>]*[:~][ \t]")
#: A line a setext heading may end with: ``=`` s or ``-`` s alone, after indentation and ``>``.
_UNDERLINE = re.compile(r"\n[ \t>]*(?:=+|-+)[ \t]*(?=\n|\Z)")
#: A quote opened on a definition's first line, after list markers or not.
_QUOTE_ON_DEFINITION = re.compile(r"\n[ \t>]*[:~][ \t]+(?:(?:[-*+:~]|[0-9]{1,9}[.)])[ \t]+)*>")
#: ``markdown_rs._DEEP_QUOTED`` with definitions' markers.
_DEEP = re.compile(r"\n(?:[ >]|(?:[-*+:~]|[0-9]{1,9}[.)])(?=[ \t\n])){16}")
#: A blank line, which ends a setext heading's lines (and every paragraph).
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n)")
#: A definition's marker on a line after the first (any line break).
_MARKER_AFTER_BREAK = re.compile(r"[\r\n][ \t>]*[:~][ \t]")


def deflist_refusals(text: str) -> Iterator[str]:
    """Why the Rust parser may read the definition lists of ``text`` (LF line breaks) otherwise
    than markdown-it-py, as far as its lines tell."""
    if not RULE_TRIGGERS["deflist"](text):
        return
    lines = "\n" + text  # every line after a line break
    if _definition_over_underline(lines):
        yield "a definition over a setext underline"
    if _QUOTE_ON_DEFINITION.search(lines):
        yield "a quote on a definition's line"
    if any(not deep_line(_line_at(lines, found.end())) for found in _DEEP.finditer(lines)):
        yield "definitions nested deep"


def _line_at(text: str, position: int) -> str:
    """The line of ``text`` that holds ``position`` (which no line break starts)."""
    end = text.find("\n", position)
    return text[text.rfind("\n", 0, position) + 1:end if end >= 0 else len(text)]


def _definition_over_underline(lines: str) -> bool:
    """Whether a run of ``lines`` (a line break before each) without a blank one holds a
    definition's line and, after it, a line of ``=`` or ``-`` (more than a setext heading over
    a term needs). From each definition's line to the end of its run, then on from there, so
    the search stays linear; the runs without a definition are skipped in one search."""
    pos = 0
    while (marker := _DEFINITION.search(lines, pos)) is not None:
        blank = _BLANK_LINE.search(lines, marker.end())
        run_end = blank.start() if blank is not None else len(lines)
        if _UNDERLINE.search(lines, marker.end() - 1, run_end):
            return True
        pos = run_end
    return False


def marker_inside(source: str, spans: Iterable[tuple[int, int]]) -> bool:
    """Whether a line after the first of any of ``spans`` (of ``source``, a definition's lists
    and quotes) starts with a definition's marker: markdown-it-py may end a paragraph there
    that the Rust parser reads on."""
    return any(_MARKER_AFTER_BREAK.search(source, start, end) for start, end in spans)
