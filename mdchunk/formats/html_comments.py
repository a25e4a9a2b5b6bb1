"""An HTML comment inside a list item or a quote runs to its ``-->``, blank lines and all.

CommonMark (goldmark, commonmark.js, GitHub) reads such a comment, blank lines inside it and the
container going on after them, as one HTML block the page does not show; markdown-it's
``html_block`` stops at the blank line, which would put the rest of the comment in
``embed_text`` (the zh-cn pages of a Hugo site keep each English original that way).
:func:`html_block` is markdown-it's rule with that case read as CommonMark reads it."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_block import html_block as markdown_it_html_block
from markdown_it.rules_block.state_block import StateBlock

__all__ = ["comment_blocks_plugin", "html_block"]


def html_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's HTML block rule; a comment that it ended at a blank line inside a
    container runs on to the line holding its ``-->`` when every line up to there is blank
    or indented into the container (else the block stays as markdown-it ends it)."""
    if silent or not markdown_it_html_block(state, start_line, end_line, silent):
        return silent and markdown_it_html_block(state, start_line, end_line, silent)
    token = state.tokens[-1]
    if not token.content.startswith("<!--") or "-->" in token.content:
        return True
    line = state.line
    if line >= end_line or not state.isEmpty(line):
        return True  # ended by a less indented line: the container ended there too
    while line < end_line:
        if not state.isEmpty(line):
            if state.sCount[line] < state.blkIndent:
                return True  # the container ends before the comment closes
            text = state.src[state.bMarks[line] + state.tShift[line]:state.eMarks[line]]
            if "-->" in text:
                line += 1
                state.line = line
                assert token.map is not None
                token.map = [token.map[0], line]
                token.content = state.getLines(start_line, line, state.blkIndent, True)
                return True
        line += 1
    return True


def comment_blocks_plugin(md: MarkdownIt) -> None:
    """Put :func:`html_block` in the place of markdown-it's rule (the same name and chains)."""
    md.block.ruler.at("html_block", html_block,
                      {"alt": ["paragraph", "reference", "blockquote"]})
