"""Question/answer files → one section per pair: the question heads its answer.
``question:`` / ``answer:`` in any case (or ``Q:``/``A:``, ``问题：``/``答案：``,
``问：``/``答：``), either colon width; the text before the first question goes to the
metadata (``qa_preamble``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .blocks import Block, Line, lines_of

__all__ = ["PREAMBLE_KEY", "QAPair", "looks_like_qa", "parse_qa"]

#: The metadata key that holds the text before the first question.
PREAMBLE_KEY = "qa_preamble"
#: A question may follow this many non-blank lines of preamble for a file to read as Q&A, and
#: its answer must open within as many lines after it.
SNIFF_LINES = 5

_INVISIBLE = "\ufeff\u200b\u2060"
_QUESTION = re.compile(rf"^[\s{_INVISIBLE}]*(?:question|q|问题|问)\s*[:：]", re.IGNORECASE)
_ANSWER = re.compile(r"^\s*(?:answer|a|答案|回答|答)\s*[:：]", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class QAPair:
    """One question (a heading-like block) and the answer blocks under it."""

    question: Block
    answer: tuple[Block, ...]


def looks_like_qa(source: str) -> bool:
    """Does a question open within the first few non-blank lines, and its answer soon after?

    >>> looks_like_qa("Exported 2024-03-01\\r\\rQUESTION: Why?\\rAnswer: Because.")
    True
    >>> looks_like_qa("Chapter 1\\nQ: is not answered here\\nText.")
    False
    """
    lines = [line for line in source[:20_000].splitlines() if line.strip()]
    for i, line in enumerate(lines[:SNIFF_LINES + 1]):
        if _QUESTION.match(line):
            return any(_ANSWER.match(after) for after in lines[i + 1:i + 1 + SNIFF_LINES])
    return False


def parse_qa(source: str) -> tuple[list[Block], list[QAPair]]:
    """Split a ``question:/answer:`` file into pairs; text before the first question is returned
    as loose blocks. Answers may span lines and blank-line-separated paragraphs.

    >>> loose, pairs = parse_qa("question: Why?\\nanswer: Because.\\n\\n"
    ...                        "问：为什么？\\n答：因为。\\n")
    >>> [(p.question.title, len(p.answer)) for p in pairs]
    [('Why?', 1), ('为什么？', 1)]
    """
    loose: list[Block] = []
    pairs: list[QAPair] = []
    question: list[Line] = []
    answer: list[list[Line]] = []
    state = "loose"
    loose_run: list[Line] = []

    def close_pair() -> None:
        if question:
            q_block = Block("question", question[0].start, question[-1].end, level=1,
                            title=_strip_marker(" ".join(line.text.strip() for line in question)))
            a_blocks = tuple(Block("answer", p[0].start, p[-1].end) for p in answer if p)
            pairs.append(QAPair(q_block, a_blocks))
        question.clear()
        answer.clear()

    for line in lines_of(source):
        if _QUESTION.match(line.text):
            close_pair()
            if loose_run:
                loose.append(Block("paragraph", loose_run[0].start, loose_run[-1].end))
                loose_run = []
            state = "question"
            question.append(line)
        elif state != "loose" and _ANSWER.match(line.text):
            state = "answer"
            answer.append([line])
        elif not line.text.strip():
            if state == "answer" and answer and answer[-1]:
                answer.append([])
        elif state == "question":
            question.append(line)
        elif state == "answer":
            answer[-1].append(line)
        else:
            loose_run.append(line)
    close_pair()
    if loose_run:
        loose.append(Block("paragraph", loose_run[0].start, loose_run[-1].end))
    return loose, pairs


def _strip_marker(text: str) -> str:
    return _QUESTION.sub("", text, count=1).strip()
