"""Inline constructs of prose: spans no seam falls inside while another seam is left (a chunk
ending ``![Image`` and the next starting ``text](https://…)`` leave both halves useless).
:func:`inline_spans` finds links, images, code spans, emphasis and inline HTML cheaply, by
CommonMark's rules simplified, each looked for only where its opening character is. A cut
inside one is left to the rung below (never inside a destination: :func:`destinations`) only
when it alone exceeds the budget."""

from __future__ import annotations

import re

__all__ = ["code_spans", "destinations", "image_destinations", "inline_spans", "merged_words"]

Span = tuple[int, int]

#: Characters an inline construct other than a code span starts with.
_OPENERS = re.compile(r"[\[*_~<]")
#: An inline HTML element's opening tag (void or self-closing tags end at their ``>``).
_TAG = re.compile(r"<([A-Za-z][\w-]*)(?:\s(?:[^<>\"']|\"[^\"]*\"|'[^']*')*)?(/?)>")
_VOID = frozenset({"br", "img", "input", "hr", "wbr", "source", "meta", "link", "area", "col"})
#: An autolink or an HTML comment: no seam inside either.
_AUTOLINK_OR_COMMENT = re.compile(r"<(?:[A-Za-z][\w+.-]{1,31}:[^\s<>]*"
                                  r"|!--(?:[^-]|-[^-]|--[^>])*--)>")
_EMPHASIS = re.compile(r"\*+|_+|~~")


def code_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Code spans of ``text[start:end]``, backticks included, by CommonMark's rule (6.1).

    A backtick string (a maximal run of backticks) opens a code span that the next backtick
    string of exactly the same length closes; runs of other lengths in between are code. A
    string no such run follows is literal text, and the scan goes on after it. Outside code a
    backslash escapes a backtick (``\\```` is a literal backtick, and the rest of its run may
    open a span); inside code a backslash is literal. Only the inline level within the span
    given: the block structure (which lines are one paragraph) is the reader's. Autolinks and
    raw HTML, which CommonMark lets hold backticks, are not looked for.

    >>> t = "Use `a.b` or ``x ` y``, not \\\\`this\\\\` nor ```this`"
    >>> [t[a:b] for a, b in code_spans(t)]
    ['`a.b`', '``x ` y``']
    """
    end = len(text) if end is None else end
    pos = text.find("`", start, end)
    if pos < 0:
        return []  # the common case costs one search
    spans: list[Span] = []
    outside = start  # where the text outside code resumed (backslashes escape there)
    # Once a search for a closer has run to the end, where the last run of each length starts
    # (markdown-it's cache): an opener with no run of its length after it is literal at once.
    last: dict[int, int] | None = None
    while pos >= 0:
        run_end = pos + 1
        while run_end < end and text[run_end] == "`":
            run_end += 1
        escapes = 0
        while pos - escapes > outside and text[pos - escapes - 1] == "\\":
            escapes += 1
        opener = pos + escapes % 2  # an escaped first backtick is literal
        length = run_end - opener
        if length and (last is None or last.get(length, -1) > opener):
            seen: dict[int, int] = {}
            tick = text.find("`", run_end, end)
            while tick >= 0:
                after = tick + 1
                while after < end and text[after] == "`":
                    after += 1
                if after - tick == length:
                    break
                seen[after - tick] = tick
                tick = text.find("`", after, end)
            if tick >= 0:
                spans.append((opener, after))
                outside = run_end = after
            else:
                last = seen
        pos = text.find("`", run_end, end)
    return spans


def inline_spans(text: str, start: int = 0, end: int | None = None,
                 code: list[Span] | None = None) -> list[Span]:
    """The outermost inline constructs of ``text[start:end]``, in order, none overlapping;
    ``code`` its code spans when they are known.

    >>> t = "See ![Image text](https://x.org/a.png) and **bold words** `a b` <kbd>Ctrl C</kbd>."
    >>> [t[a:b] for a, b in inline_spans(t)]
    ['![Image text](https://x.org/a.png)', '**bold words**', '`a b`', '<kbd>Ctrl C</kbd>']
    """
    end = len(text) if end is None else end
    code = code_spans(text, start, end) if code is None else code
    if not _OPENERS.search(text, start, end):
        return code
    found = list(code)
    pos = start
    for a, b in [*code, (end, end)]:  # the text between code spans
        found += _outside_code(text, pos, a, end)
        pos = b
    return _outermost(found)


def destinations(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The ``](destination "title")`` parts of the links and images of ``text[start:end]``:
    never cut, even inside a link that alone exceeds the budget."""
    end = len(text) if end is None else end
    out = []
    pos = text.find("](", start, end)
    while pos >= 0:
        close = _paren_end(text, pos + 1, end)
        if close > 0:
            out.append((pos, close))
            pos = close
        pos = text.find("](", pos + 1, end)
    return out


def image_destinations(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The ``(destination "title")`` or ``[label]`` of each image of ``text[start:end]`` that no
    other construct holds: a page shows the picture (its alt text to a reader that cannot see
    it), never the address it loads it from.

    >>> t = 'A ![Diagram](https://x.org/a.png "t") and ![b][ref], not `![c](d.png)`'
    >>> [t[a:b] for a, b in image_destinations(t)]
    ['(https://x.org/a.png "t")', '[ref]']
    """
    end = len(text) if end is None else end
    if text.find("![", start, end) < 0:
        return []  # most prose: one search
    out = []
    for a, b in inline_spans(text, start, end):
        if text.startswith("![", a):
            close = _bracket_end(text, a + 1, b)
            if 0 < close < b:
                out.append((close, b))
    return out


def merged_words(text: str, words: list[Span], spans: list[Span]) -> list[Span]:
    """``words`` (ordered spans) with those that meet one of ``spans`` (ordered) made one."""
    if not spans:
        return words
    out: list[Span] = []
    k = 0
    for a, b in words:
        while k < len(spans) and spans[k][1] <= a:
            k += 1
        if out and k < len(spans) and spans[k][0] < a and out[-1][1] > spans[k][0]:
            out[-1] = (out[-1][0], b)  # this word and the one before lie in one construct
        else:
            out.append((a, b))
    return out


def _outside_code(text: str, start: int, end: int, reach: int) -> list[Span]:
    """The constructs that open between two code spans (``text[start:end]``) and close
    before ``reach`` (a link's text may hold code); none is looked for inside one found (only
    the outermost matter), nor ends further than :data:`_REACH` from where it starts."""
    found: list[Span] = []
    for match in _OPENERS.finditer(text, start, end):
        pos = match.start()
        if (found and pos < found[-1][1]) or (pos > start and text[pos - 1] == "\\"):
            continue
        char = text[pos]
        limit = min(reach, pos + _REACH)
        if char == "[":
            span = _link(text, pos, start, limit)
        elif char == "<":
            span = _html(text, pos, limit)
        else:
            span = _emphasis(text, pos, limit)
        if span is not None:
            found.append(span)
    return found


#: How far a construct may reach: one longer than any budget is cut inside anyway, and an
#: unclosed opener in a long paragraph must not cost a scan to its end.
_REACH = 4096


def _bracket_end(text: str, pos: int, end: int) -> int:
    """After the ``]`` that closes the ``[`` at ``pos`` (nested brackets counted, escapes
    skipped); ``-1`` when none does."""
    return _closing(text, pos, end, "[]", quotes="")


def _paren_end(text: str, pos: int, end: int) -> int:
    """After the ``)`` that closes the ``(`` at ``pos`` (quoted titles and nested
    parentheses followed); ``-1`` when none does."""
    return _closing(text, pos, end, "()", quotes="\"'")


def _closing(text: str, pos: int, end: int, pair: str, quotes: str) -> int:
    """After the ``pair[1]`` that closes the ``pair[0]`` at ``pos``: nested pairs counted,
    escapes skipped, ``quotes`` (at the first depth) followed to their end; ``-1`` when none
    does before ``end`` or a blank line (which ends any inline construct)."""
    opening, closing = pair[0], pair[1]
    depth, i = 0, pos
    while i < end:
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char in quotes and depth == 1:
            i = text.find(char, i + 1, end)
            if i < 0:
                return -1
        elif char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        elif char == "\n" and text.startswith("\n", i + 1):
            return -1
        i += 1
    return -1


def _link(text: str, pos: int, start: int, end: int) -> Span | None:
    """A link or image at ``[`` (``![…](…)``, ``[…](…)``, ``[…][ref]``)."""
    close = _bracket_end(text, pos, end)
    if close < 0 or close >= end or text[close] not in "([":
        return None
    after = _paren_end(text, close, end) if text[close] == "(" else _bracket_end(text, close, end)
    if after < 0:
        return None
    begin = pos - 1 if pos > start and text[pos - 1] == "!" else pos
    return begin, after


def _html(text: str, pos: int, end: int) -> Span | None:
    """An autolink, a comment, or an inline HTML element from its opening tag to its closing
    one (a void or self-closing tag alone)."""
    special = _AUTOLINK_OR_COMMENT.match(text, pos, end)
    if special is not None:
        return special.span()
    tag = _TAG.match(text, pos, end)
    if tag is None:
        return None
    name = tag[1]
    if tag[2] or name.lower() in _VOID:
        return tag.span()
    closing = re.compile(rf"<(/?){re.escape(name)}\b[^<>]*>")
    depth = 1
    for match in closing.finditer(text, tag.end(), end):
        depth += -1 if match[1] else (0 if match[0].endswith("/>") else 1)
        if depth == 0:
            return pos, match.end()
    return tag.span()


def _emphasis(text: str, pos: int, end: int) -> Span | None:
    """Emphasis (``*a b*``, ``**a b**``, ``_a b_``, ``~~a b~~``) whose delimiter run at ``pos``
    opens it: not followed by a blank, and for ``_`` not inside a word; closed by the next run
    of the same characters and length that is not preceded by a blank (and for ``_`` not
    followed by a word character), before a blank line."""
    run = _EMPHASIS.match(text, pos, end)
    if run is None or (pos > 0 and text[pos - 1] == text[pos]):
        return None
    delim = run.group()
    after = run.end()
    if after >= end or text[after].isspace():
        return None
    if delim[0] == "_" and pos > 0 and text[pos - 1].isalnum():
        return None
    search = after
    while True:
        close = text.find(delim, search, end)
        if close < 0:
            return None
        blank = text.find("\n\n", search, close)
        if blank >= 0:
            return None
        stop = close + len(delim)
        longer = stop < end and text[stop] == delim[0]
        if not longer and not text[close - 1].isspace() and not (
                delim[0] == "_" and stop < end and text[stop].isalnum()):
            return pos, stop
        search = close + 1
        while search < end and text[search] == delim[0]:
            search += 1


def _outermost(spans: list[Span]) -> list[Span]:
    """``spans`` sorted, those inside another dropped and those that overlap made one."""
    out: list[Span] = []
    for a, b in sorted(spans):
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
