"""MkDocs Material content tabs (pymdownx ``tabbed``) as a markdown-it block rule.

A tab is its marker line, ``=== "Label"`` (``===!`` starts a new group, ``===+`` marks the tab
shown first), then the lines indented four columns deeper, blank lines among them: its body,
parsed as Markdown. Tabs that follow one another are one group. The rule gives
``content_tabs_open``/``content_tab_open`` (``meta["label"]``) tokens, which :mod:`.markdown`
reads as a ``tabs`` block of ``tab`` children. Plain Markdown reads the same lines as a
paragraph and an indented code block, so the rule is on only for ``site="mkdocs"``."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

__all__ = ["CONTENT_TAB_LINE", "content_tabs_plugin", "may_hold_content_tabs"]

#: A tab's marker line, after its indentation: ``=== "Label"``, ``===! "Label"``, ``===+ …``.
CONTENT_TAB_LINE = re.compile(r'={3}(?P<flags>!\+|\+!|!|\+)?[ ]+"(?P<label>.*)"[ ]*')

#: A marker anywhere in a document: ``===``, flags, a space and the label's quote.
_ANY_MARKER = re.compile(r'={3}[!+]{0,2}[ ]+"')


def may_hold_content_tabs(source: str) -> bool:
    """Whether the rule may act on ``source``: every document it acts on passes, and the
    parser may leave the rule out for the others (:func:`~.markdown_it_parser.unused_rules`)."""
    return bool(_ANY_MARKER.search(source))


#: How much deeper than its marker a tab's body is indented.
_BODY_INDENT = 4


def _marker(state: StateBlock, line: int, column: int | None = None) -> re.Match[str] | None:
    """The marker on ``line`` when it starts there: up to three columns into the block (a list
    item's text may start left of where Python-Markdown reads its four columns), at
    ``column`` when one is given (the group's first marker's)."""
    if line >= state.lineMax:
        return None
    indent = state.sCount[line]
    if not 0 <= indent - state.blkIndent < 4 or (column is not None and indent != column):
        return None
    start = state.bMarks[line] + state.tShift[line]
    if not state.src.startswith("===", start):
        return None
    return CONTENT_TAB_LINE.fullmatch(state.src, start, state.eMarks[line])


def _body_end(state: StateBlock, line: int, end_line: int, body: int) -> int:
    """The line after the last of the tab's body (the lines after ``line`` indented ``body``
    columns or more; blank lines inside it, not after it)."""
    end = line + 1
    next_line = line + 1
    while next_line < end_line:
        if state.isEmpty(next_line):
            next_line += 1
            continue
        if state.sCount[next_line] < body:
            break
        next_line += 1
        end = next_line
    return end


def content_tabs(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    first = _marker(state, start_line)
    if first is None:
        return False
    if silent:
        return True
    group = state.push("content_tabs_open", "div", 1)
    group.block = True
    line, end = start_line, start_line + 1
    column = state.sCount[start_line]
    marker: re.Match[str] | None = first
    while marker is not None:
        end = _body_end(state, line, end_line, column + _BODY_INDENT)
        tab = state.push("content_tab_open", "div", 1)
        tab.block = True
        tab.markup = "===" + (marker["flags"] or "")
        tab.meta = {"label": marker["label"]}
        tab.map = [line, end]
        old_parent, old_line_max, old_indent = state.parentType, state.lineMax, state.blkIndent
        state.parentType = "content_tab"
        state.lineMax = end
        state.blkIndent = column + _BODY_INDENT
        state.md.block.tokenize(state, line + 1, end)
        state.parentType, state.lineMax, state.blkIndent = old_parent, old_line_max, old_indent
        state.push("content_tab_close", "div", -1).block = True
        following = end
        while following < end_line and state.isEmpty(following):
            following += 1
        marker = _marker(state, following, column) if following < end_line else None
        if marker is not None and "!" in (marker["flags"] or ""):
            marker = None  # ``===!`` starts a group of its own
        line = following
    group.map = [start_line, end]
    state.push("content_tabs_close", "div", -1).block = True
    state.line = end
    return True


def content_tabs_plugin(md: MarkdownIt) -> None:
    """Add the ``content_tabs`` block rule (before fences, as the admonition rule is; it ends a
    paragraph, quote or list as a marker line does in Python-Markdown)."""
    md.block.ruler.before("fence", "content_tabs", content_tabs,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})
