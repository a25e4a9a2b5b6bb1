"""Sentence, line and word seams inside a span of text (CJK and Latin).

A sentence ends at 。！？；… and their fullwidth kin, at Latin ``.!?`` followed by a space or
the end, and at a line break; closing quotes and brackets stay with it; abbreviations and
decimals are not ends. No sentence ends inside a code span (:func:`code_spans`), in any
reader's text."""

from __future__ import annotations

import re
from bisect import bisect_right

from .inline import code_spans, inline_spans

__all__ = ["SentenceIndex", "code_spans", "line_spans", "sentence_spans", "word_spans"]

Span = tuple[int, int]

_CLOSERS = re.escape("”’\"')）]】」』》〉*_`~")
_SENTENCE_END = re.compile(
    rf"""
    [。！？；｡︒….!?\r\n]      # the first character: a pattern that starts with a character
                                # class is searched by a fast scan (2.5× the speed of branches)
    (?:
      (?<=[。！？；｡︒])[{_CLOSERS}]*               # CJK terminators end a sentence at once
    | (?<=…)…*[{_CLOSERS}]*                       # so do ellipses
    | (?<=\.)\.\.[{_CLOSERS}]*
    | (?<=[.!?])(?P<latin>[.!?]*)[{_CLOSERS}]*(?=\s|$)  # Latin ones need a space (or the end)
    | (?<=\r)\n?                                  # a line break ends whatever it follows
    | (?<=\n)
    )
    """,
    re.VERBOSE,
)
_ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "etc", "vs", "cf", "al", "approx", "ca", "fig", "figs", "no", "nos", "vol",
     "pp", "p", "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "inc", "ltd", "co", "corp",
     "dept", "est", "min", "max", "resp", "incl", "excl", "viz"]
)
_WORD = re.compile(r"\S+")
#: A line's text (between line breaks: ``\r\n``, ``\r`` or ``\n``) up to its last non-blank
#: character: ``\S`` is ``not str.isspace()``, what ``rstrip`` keeps.
_SHOWN_LINE = re.compile(r"[^\r\n]*\S")


_LONGEST_ABBREVIATION = max(map(len, _ABBREVIATIONS))
#: The word a period closes: back to a blank or an opening bracket or quote.
_WORD_BEFORE = re.compile(r"[^\s(\[{“‘\"']*\Z")


def _is_abbreviation(text: str, dot: int) -> bool:
    """Is the period at ``dot`` the end of an abbreviation or an initial ("e.g.", "J.")?"""
    begin = max(0, dot - _LONGEST_ABBREVIATION - 1)
    word = _WORD_BEFORE.search(text, begin, dot)
    if word is None or (word.start() == begin and begin > 0):
        return False  # longer than any abbreviation
    word_text = word.group().lower()
    return word_text in _ABBREVIATIONS or (len(word_text) == 1 and word_text.isalpha())


def _trimmed(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _spans_between(text: str, cuts: list[int], start: int, end: int) -> list[Span]:
    spans = []
    for a, b in zip([start, *cuts], [*cuts, end]):
        span = _trimmed(text, a, b)
        if span:
            spans.append(span)
    return spans


def _sentence_cuts(text: str, start: int, end: int, code: list[Span],
                   inline: list[Span]) -> list[tuple[int, bool]]:
    """Where the sentences of ``text[start:end]`` end, given its ``code`` spans and its
    ``inline`` constructs (:func:`~.inline.inline_spans`: no sentence ends inside a link or
    emphasis either), each with whether a line break ends it (a break inside a sentence, to
    whole sentences): one scan serves both kinds of sentence."""
    code_starts = [a for a, _ in code]
    inline = inline if inline != code else []  # constructs besides code spans
    inline_starts = [a for a, _ in inline]
    cuts = []
    for match in _SENTENCE_END.finditer(text, start, end):
        dot = match.start()
        if match.group("latin") == "" and text[dot] == "." and _is_abbreviation(text, dot):
            continue  # a lone period that closes "e.g" or an initial
        cut = match.end()
        if code:
            k = bisect_right(code_starts, dot)  # the code spans after the terminator
            if k and dot < code[k - 1][1]:
                continue  # the terminator is code
            if k < len(code) and code_starts[k] < cut:
                cut = code_starts[k]  # the closing marks ran into a code span: it opens the next
        if inline:
            k = bisect_right(inline_starts, cut - 1)
            if k and cut < inline[k - 1][1]:
                continue  # inside a link, an image, emphasis or an HTML element
        cuts.append((cut, text[dot] in "\r\n"))
    return cuts


def _ends(cuts: list[tuple[int, bool]], at_line_breaks: bool) -> list[int]:
    """The cuts of :func:`_sentence_cuts` that end sentences, line breaks among them or not."""
    return [cut for cut, at_break in cuts if at_line_breaks or not at_break]


def sentence_spans(text: str, start: int = 0, end: int | None = None, *,
                   at_line_breaks: bool = True) -> list[Span]:
    """Sentences of ``text[start:end]``, as spans of ``text`` without surrounding blanks.

    A line break ends a sentence for cutting (a cut there splits no word), but hard-wrapped
    prose breaks lines inside sentences; ``at_line_breaks=False`` gives whole sentences only,
    ended by punctuation, which is what overlap repeats (guarantee 5).

    >>> t = "Use e.g. v3.14 here. 然后重启服务。完成！\\nNext line"
    >>> [t[a:b] for a, b in sentence_spans(t)]
    ['Use e.g. v3.14 here.', '然后重启服务。', '完成！', 'Next line']
    >>> t = "服务在凌晨\\n重启。日志\\n正常。"
    >>> [t[a:b] for a, b in sentence_spans(t, at_line_breaks=False)]
    ['服务在凌晨\\n重启。', '日志\\n正常。']
    >>> t = "End with `.` or `)`. 完成。`ratio` 参数"
    >>> [t[a:b] for a, b in sentence_spans(t)]
    ['End with `.` or `)`.', '完成。', '`ratio` 参数']
    """
    end = len(text) if end is None else end
    code = code_spans(text, start, end)
    cuts = _sentence_cuts(text, start, end, code, inline_spans(text, start, end, code))
    return _spans_between(text, _ends(cuts, at_line_breaks), start, end)


def line_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Non-blank lines of ``text[start:end]``, keeping their indentation.

    >>> t = "a\\r\\n  b\\n\\nc"
    >>> [t[a:b] for a, b in line_spans(t)]
    ['a', '  b', 'c']
    """
    end = len(text) if end is None else end
    return [line.span() for line in _SHOWN_LINE.finditer(text, start, end)]  # blank lines: none


def word_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Runs of non-blank characters; a CJK run without spaces is one "word" (cut by tokens later).

    >>> [m for m in word_spans("ab  cd")]
    [(0, 2), (4, 6)]
    """
    end = len(text) if end is None else end
    return [m.span() for m in _WORD.finditer(text, start, end)]


class SentenceIndex:
    """The sentences of a document's paragraphs, each paragraph scanned once (a long paragraph
    cut into many chunks is asked for them again and again)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._spans: dict[Span, list[Span]] = {}
        self._bounds: dict[Span, tuple[list[int], frozenset[int]]] = {}
        self._code: dict[Span, list[Span]] = {}
        self._inline: dict[Span, list[Span]] = {}
        self._cuts: dict[Span, list[tuple[int, bool]]] = {}

    def code(self, start: int, end: int) -> list[Span]:
        """:func:`code_spans` of ``source[start:end]``, found once for both kinds of sentence."""
        key = (start, end)
        code = self._code.get(key)
        if code is None:
            code = self._code[key] = code_spans(self.source, start, end)
        return code

    def inline(self, start: int, end: int) -> list[Span]:
        """:func:`~.inline.inline_spans` of ``source[start:end]``, found once."""
        key = (start, end)
        spans = self._inline.get(key)
        if spans is None:
            spans = self._inline[key] = inline_spans(self.source, start, end,
                                                     self.code(start, end))
        return spans

    def _sentences(self, start: int, end: int, at_line_breaks: bool) -> list[Span]:
        """A paragraph's sentences, from one scan however many times and ways it is asked."""
        key = (start, end)
        cuts = self._cuts.get(key)
        if cuts is None:
            cuts = self._cuts[key] = _sentence_cuts(self.source, start, end,
                                                    self.code(start, end), self.inline(start, end))
        return _spans_between(self.source, _ends(cuts, at_line_breaks), start, end)

    def spans(self, start: int, end: int) -> list[Span]:
        """:func:`sentence_spans` of ``source[start:end]``."""
        key = (start, end)
        spans = self._spans.get(key)
        if spans is None:
            spans = self._spans[key] = self._sentences(start, end, True)
        return spans

    def bounds(self, start: int, end: int) -> tuple[list[int], frozenset[int]]:
        """Starts (ascending) and the set of ends of the *whole* sentences of
        ``source[start:end]``: ended by punctuation, not by a line break (see
        :func:`sentence_spans`)."""
        key = (start, end)
        found = self._bounds.get(key)
        if found is None:
            spans = self._sentences(start, end, False)
            found = self._bounds[key] = ([a for a, _ in spans], frozenset(b for _, b in spans))
        return found
