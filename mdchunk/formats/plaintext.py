"""Plain text → blocks: headings found by a line classifier, paragraphs and lists between blanks.

Like every reader, it only finds structure and returns the same :class:`Block` s the Markdown
parser does, so one packer serves every format. Plain text has no syntax to parse, so
its headings come from a line classifier (第一章 / 一、 / （一） / 1.1 / Chapter 2) with levels
given by the order in which each numbering style first appears, as an outline reader would.
"""

from __future__ import annotations

import re

from .blocks import Block, Document, Line, LineIndex, lines_of, tile

__all__ = ["read_plain_text"]

_CN_NUM = "一二三四五六七八九十百千零〇两"
_HEADING_STYLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("chapter", re.compile(rf"^第[{_CN_NUM}\d]+[章篇卷部](?:分)?(?:\s|$|[：:])")),
    ("section", re.compile(rf"^第[{_CN_NUM}\d]+节(?:\s|$|[：:])")),
    ("appendix", re.compile(r"^附录\s*[A-Za-z\d一二三四五六七八九十]*(?:\s|$|[：:])")),
    ("chapter", re.compile(r"^(?:Chapter|CHAPTER|Part|PART)\s+[\dIVXLC]+\b")),
    ("cn_enum", re.compile(rf"^[{_CN_NUM}]+、")),
    ("cn_paren", re.compile(rf"^[（(][{_CN_NUM}]+[）)]")),
    ("decimal", re.compile(r"^\d+(?:\.\d+)+\.?\s+\S")),
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·]|\d+[.)、]|[（(]\d+[）)]|[a-z][.)])\s*\S")
_SENTENCE_FINAL = tuple("。！？；，,.!?;:：")
_MAX_HEADING_CHARS = 60


def _heading_style(line: str) -> str | None:
    """The numbering style of a heading line, or None for body text."""
    text = line.strip()
    if not text or len(text) > _MAX_HEADING_CHARS or line[:1].isspace():
        return None
    for style, pattern in _HEADING_STYLES:
        if pattern.match(text):
            if style == "decimal":  # 1.1 / 1.2.1: the depth is part of the style
                return f"decimal{text.split()[0].rstrip('.').count('.')}"
            return None if text.endswith(_SENTENCE_FINAL) else style
    return None


def read_plain_text(source: str) -> Document:
    """Headings by the line classifier; paragraphs and lists between blank lines.

    >>> doc = read_plain_text("第一章 概述\\n本章介绍系统。\\n\\n"
    ...                       "1.1 要求\\n1. 登录服务器\\n2. 重启\\n")
    >>> [(b.kind, b.level, b.title or doc.source[b.start:b.end])
    ...  for b in doc.blocks]  # doctest: +NORMALIZE_WHITESPACE
    [('heading', 1, '第一章 概述'), ('paragraph', 0, '本章介绍系统。'),
     ('heading', 2, '1.1 要求'), ('list', 0, '1. 登录服务器\\n2. 重启')]
    """
    levels: dict[str, int] = {}
    blocks: list[Block] = []
    run: list[Line] = []

    def flush() -> None:
        if run:
            blocks.append(_text_block(source, run))
            run.clear()

    for line in lines_of(source):
        style = _heading_style(line.text)
        if style is not None:
            flush()
            level = levels.setdefault(style, min(len(levels) + 1, 6))
            blocks.append(Block("heading", line.start, line.end, level=level,
                                title=" ".join(line.text.split())))
        elif not line.text.strip():
            flush()
        else:
            run.append(line)
    flush()
    return Document(source, tuple(tile(source, blocks, 0, len(source))), None, LineIndex.of(source))


def _text_block(source: str, lines: list[Line]) -> Block:
    """A run of lines is a list when it starts with a list marker, else a paragraph."""
    start, end = lines[0].start, lines[-1].end
    if not _LIST_ITEM.match(lines[0].text):
        return Block("paragraph", start, end)
    items: list[Block] = []
    item_start = start
    for line in lines[1:]:
        if _LIST_ITEM.match(line.text):
            items.append(Block("item", item_start, _rstrip(source, item_start, line.start)))
            item_start = line.start
    items.append(Block("item", item_start, end))
    return Block("list", start, end, tuple(items))


def _rstrip(source: str, start: int, end: int) -> int:
    return start + len(source[start:end].rstrip())
