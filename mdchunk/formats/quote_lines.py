"""Blockquotes the fast reader may take: those with no line after them that the two parsers
may read on with apart (issue 32).

markdown-it-py ends a quoted paragraph where an ordered list from 2 starts (``2. two``), the
Rust parser reads on lazily; elsewhere the two read a quote's lazy lines alike. So a page goes
to the reference only where a quote's line with text is followed by a line outside it that
neither ends the quote in both parsers nor starts, like every line up to the next blank one,
with a word (:func:`lazy_quote`). ``tests/test_markdown_rs.py`` holds both readers to the same
Document on generated pages of quote lines and the lines around them.
"""

from __future__ import annotations

import re

__all__ = ["QUOTE_MARKERS", "first_quote", "lazy_quote"]

#: A blockquote's line, its text starting with ``>`` (after list markers too), and the line
#: after it, after a line break: markdown-it-py ends a quoted paragraph where an ordered list
#: from 2 starts, the Rust parser reads on lazily, so a quote with a line after it that may
#: read on lazily (:func:`lazy_quote`) stays with the reference.
_QUOTE = re.compile(r"\n(?P<markers>[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*(?:>[ ]*)+)"
                    r"(?P<text>[^\n]*)\n(?P<next>[^\n]*)")
#: A line that starts a block interrupting a paragraph in both parsers (an ATX heading, a
#: thematic break, a fence, a bullet item with text, a ``:::`` container's marker, which the
#: fast reader reads as a blank line): after a quote's line, it is no lazy line.
_ENDS_A_QUOTE = re.compile(r"[ ]{0,3}(?:#{1,6}(?:[ \t]|$)|(?:-[ \t]*){3,}$|(?:\*[ \t]*){3,}$"
                           r"|(?:_[ \t]*){3,}$|```|~~~|[-*+][ \t]+\S)|:::", re.M)
#: A line that starts with a word: a lazy line both parsers read on with.
_WORD_FIRST = re.compile(r"[ ]*[^\W\d_]")
#: The list markers and ``>`` s a line starts with.
QUOTE_MARKERS = re.compile(r"[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*(?:>[ ]*)+")
#: A quote's line (after a line break), its markers.
_MARKED_QUOTE = re.compile(r"\n" + QUOTE_MARKERS.pattern)


def first_quote(lines: str) -> int:
    """Where the first quote's line of ``lines`` (LF line breaks, one before the first) starts,
    its line break, as ``_MARKED_QUOTE.search(lines)`` finds it; -1 where none is. Only the
    lines that hold a ``>`` are tried, each once: most pages have few, and one search led by a
    line break tries every line (issue 32: 2.3 ms over Ory's pages, their ``>`` s in HTML and
    code; 0.4 ms so)."""
    at = lines.find(">")
    while at >= 0:
        start = lines.rfind("\n", 0, at)
        if _MARKED_QUOTE.match(lines, start):
            return start
        end = lines.find("\n", at)
        at = lines.find(">", end) if end >= 0 else -1
    return -1


def lazy_quote(lines: str, start: int = 0) -> bool:
    """Whether a quote's line in ``lines`` (LF line breaks, one before the first) has a line
    after it that may read on lazily where the parsers may part: one not blank that does not
    start with the same markers or more (list markers and ``>`` s, spaces aside), after a
    quote's line with text, unless they read on alike (:func:`_read_on_alike`). (Issue 32: Hugo
    pages quote notes and alerts, and every quote went to the reference.) From ``start`` on,
    where no quote's line is before (:func:`first_quote`)."""
    pos = start
    while (found := _QUOTE.search(lines, pos)) is not None:
        if (found["text"].strip() and found["next"].strip()
                and not _within(found["markers"], found["next"])
                and not _read_on_alike(lines, found.start("next"))):
            return True
        pos = found.start("next") - 1  # the next line may be a quote's line too
    return False


def _read_on_alike(lines: str, start: int) -> bool:
    """Whether the parsers read alike from the line at ``start`` on, a line that may read on
    lazily after a quote's: it ends the quote in both (:data:`_ENDS_A_QUOTE`), or it and every
    line up to a blank one start with a word, lazy lines in both (they part at a line that
    starts with a digit: markdown-it-py ends the paragraph at ``2. two``, the Rust parser reads
    on; issue 32: RocketMQ's notes are quoted, and a line of text follows them)."""
    if _ENDS_A_QUOTE.match(lines, start):
        return True
    end = lines.find("\n\n", start)
    run = lines[start:end if end >= 0 else len(lines)]
    return all(_WORD_FIRST.match(line) for line in run.split("\n") if line.strip())


def _within(markers: str, line: str) -> bool:
    """Whether ``line`` starts with ``markers`` (a quote's line's list markers and ``>`` s) or
    more ``>`` s after them, spaces aside: it is inside every quote that line is."""
    found = QUOTE_MARKERS.match(line)
    return found is not None and found[0].replace(" ", "").startswith(markers.replace(" ", ""))
