"""The ``front_matter`` token mdit-py-plugins' rule makes, built without markdown-it-py.

The fast reader (:mod:`.markdown_rs`) needs the front matter's token as the reference's parse
makes it, and where the lines after it start. Running markdown-it-py's block parser on the
front matter to get it cost about 40% of the fast reader's time on a Hugo page: its
``StateBlock`` walks every character in Python before the rule looks at a line. The rule only
compares lines, so this module compares them as it does (:func:`_closes`) and fills in the token
as it does (:func:`split_front_matter`); ``tests/test_front_matter_token.py`` holds the two to
the same token over generated front matter, every fixture and the corpora.

What the rule reads, on markdown-it's normalised text (CR and CRLF made LF, NUL made U+FFFD):
the first line starts with three dashes or more (anything may follow them); the block closes at
the first later line that is either ``...`` at its start (spaces and tabs after it) or at least as
many dashes as opened it, indented less than an indented code block's four columns, spaces and
tabs after them. The token's content is the lines between, its map the lines it covers.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from .blocks import LineIndex

__all__ = ["split_front_matter"]

#: A line that may close front matter (after the first): dashes or YAML's ``...``, alone.
_MAY_CLOSE = re.compile(r"\n[ \t]*(?:-{3,}|\.{3})[ \t]*(?=\n|\Z)")
#: markdown-it's normalisation of line breaks, applied before its rules see the text.
_LINE_BREAK = re.compile(r"\r\n?")
_DASHES = re.compile(r"-*")
#: The columns a tab advances to (a multiple of), as markdown-it counts indentation.
_TAB_STOP = 4
#: The indentation (in columns) of an indented code block's line, which closes nothing.
_CODE_INDENT = 4


def split_front_matter(source: str) -> tuple[int, Token] | None:
    """Where the text after ``source``'s front matter starts, and the token the
    ``front_matter`` rule makes for it, when the first line that may close it
    (:data:`_MAY_CLOSE`) is where the rule closes it; ``None`` when ``source`` opens none, no
    line may close it, or that line does not (an indented ``...``, too few dashes, a code
    block's line): the rule might close later or not at all, and the caller leaves the
    document to the reference."""
    text = _LINE_BREAK.sub("\n", source) if "\r" in source else source
    opening = _DASHES.match(text)
    if opening is None or opening.end() < 3:
        return None
    closing = _MAY_CLOSE.search(text)
    if closing is None or not _closes(text[closing.start() + 1:closing.end()], opening.end()):
        return None
    lines = text.count("\n", 0, closing.start()) + 2  # the closing line's number, plus one
    # the lines between; none (an empty slice) when the closing line is the second
    content = text[text.find("\n") + 1:closing.start()]
    token = Token("front_matter", "", 0, map=[0, lines], markup="---", block=True, hidden=True,
                  content=content.replace("\0", "\ufffd") if "\0" in content else content)
    if text is not source:  # CR line breaks: the line's start in the source as written
        return LineIndex.of(source).offset(lines), token
    return min(closing.end() + 1, len(source)), token


def _closes(line: str, dashes: int) -> bool:
    """Whether ``line`` (one :data:`_MAY_CLOSE` matched) closes front matter opened by
    ``dashes`` dashes, as the rule decides: ``...`` at the line's start, or enough dashes
    indented less than a code block."""
    if line.startswith("..."):
        return True
    text = line.lstrip(" \t")
    if not text.startswith("-") or _columns(line[:len(line) - len(text)]) >= _CODE_INDENT:
        return False
    return len(text) - len(text.lstrip("-")) >= dashes


def _columns(indentation: str) -> int:
    """The columns of spaces and tabs, each tab to the next tab stop."""
    column = 0
    for char in indentation:
        column += _TAB_STOP - column % _TAB_STOP if char == "\t" else 1
    return column
