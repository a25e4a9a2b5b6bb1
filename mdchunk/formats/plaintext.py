"""Plain text → blocks: headings found by a line classifier, paragraphs and lists between blanks.

Like every reader, it returns the same :class:`Block` s the Markdown parser does, so one packer
serves every format. Plain text has no syntax, so its headings come from a line classifier
(第一章 / 一、 / （一） / 1. / 1.1 / Chapter 2 / 附录 A / Appendix A: the first rule that applies
wins) and their levels from the nesting rules an outline reader uses; both are listed, with
examples, in ``docs/plaintext.md``."""

from __future__ import annotations

import re

from .blocks import Block, Document, Line, LineIndex, lines_of, tile

__all__ = ["heading_style", "parse_plain_text"]

_CN_NUM = "一二三四五六七八九十百千零〇两"
_HEADING_STYLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("chapter", re.compile(rf"^第[{_CN_NUM}\d]+[章篇卷部](?:分)?(?:\s|$|[：:])")),
    ("section", re.compile(rf"^第[{_CN_NUM}\d]+节(?:\s|$|[：:])")),
    ("appendix", re.compile(rf"^附录\s*[A-Za-z\d{_CN_NUM}]*(?:\s|$|[：:.．、])")),
    ("appendix", re.compile(r"^(?:Appendix|APPENDIX)\s+[A-Z\d]{1,3}\b")),
    ("chapter", re.compile(r"^(?:Chapter|CHAPTER|Part|PART)\s+[\dIVXLC]+\b")),
    ("cn_enum", re.compile(rf"^[{_CN_NUM}]+、")),
    ("cn_paren", re.compile(rf"^[（(][{_CN_NUM}]+[）)]")),
    ("decimal", re.compile(r"^\d+(?:\.\d+)+\.?\s+\S")),
    ("numbered", re.compile(r"^\d+\.\s+\S")),
)
_BULLET = re.compile(r"^[-*•·●○▪■◆]\s")
_STEP = re.compile(rf"^(?:第\s*[{_CN_NUM}\d]+\s*步|步骤\s*[{_CN_NUM}\d]+|(?:Step|STEP)\s+\d+\b)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·]|\d+[.)、]|[（(]\d+[）)]|[a-z][.)])\s*\S")
_SENTENCE_FINAL = tuple("。！？；，,.!?;:：")
_CLAUSE_MARKS = re.compile(r"[,;，；]")
_MAX_HEADING_CHARS = 60
#: A ``1. Title`` line of more words than this reads as a sentence (an instruction, a list item).
MAX_TITLE_WORDS = 8
_MAX_LEVEL = 6


def heading_style(line: str, before: str = "", after: str = "") -> str | None:
    """The numbering style of a heading line, or ``None`` for body text; ``before`` and
    ``after`` are the lines next to it (``""`` when blank or absent), which only a
    ``1. Title`` line looks at. Rules in the module's notes.

    >>> [heading_style(s) for s in ("1. Introduction", "1.2 Scope", "附录 A 术语",
    ...                             "1. Restart the service and check the logs.", "Step 1 Log in")]
    ['numbered', 'decimal', 'appendix', None, None]
    """
    text = line.strip()
    if not text or len(text) > _MAX_HEADING_CHARS or line[:1].isspace():
        return None
    if _BULLET.match(text) or _STEP.match(text):
        return None
    style = next((name for name, pattern in _HEADING_STYLES if pattern.match(text)), None)
    if style is None or text.endswith(_SENTENCE_FINAL):
        return None
    if style == "numbered" and _reads_as_sentence(text, before, after):
        return None
    return style


def _reads_as_sentence(text: str, before: str, after: str) -> bool:
    """A ``1. Title`` line that is an instruction or an item of a numbered list."""
    words = text.split()[1:]
    return (len(words) > MAX_TITLE_WORDS or bool(_CLAUSE_MARKS.search(text))
            or bool(_LIST_ITEM.match(before)) or bool(_LIST_ITEM.match(after)))


def _depth(style: str, text: str) -> int:
    """Levels a heading lies below its style's first level: 1.2.3 is two below 1."""
    if style not in ("decimal", "numbered"):
        return 0
    return text.split(maxsplit=1)[0].rstrip(".").count(".")


class _Outline:
    """Levels of numbering styles by the nesting rules (see the module's notes)."""

    def __init__(self) -> None:
        self.base: dict[str, int] = {}
        self.current = 0  # level of the last heading; 0 before the first

    def level(self, style: str, depth: int) -> int:
        if style == "appendix":
            level = 1
        else:
            key = "decimal" if style == "numbered" else style
            base = self.base.setdefault(key, self.current + 1 - depth)
            level = base + depth
        self.current = min(max(level, 1), _MAX_LEVEL)
        return self.current


def parse_plain_text(source: str) -> Document:
    """Headings by the line classifier; paragraphs and lists between blank lines.

    >>> doc = parse_plain_text("第一章 概述\\n本章介绍系统。\\n\\n"
    ...                       "1.1 要求\\n1. 登录服务器\\n2. 重启\\n\\n附录 A 术语\\n")
    >>> [(b.kind, b.level, b.title or doc.source[b.start:b.end])
    ...  for b in doc.blocks]  # doctest: +NORMALIZE_WHITESPACE
    [('heading', 1, '第一章 概述'), ('paragraph', 0, '本章介绍系统。'),
     ('heading', 2, '1.1 要求'), ('list', 0, '1. 登录服务器\\n2. 重启'),
     ('heading', 1, '附录 A 术语')]
    """
    outline = _Outline()
    blocks: list[Block] = []
    run: list[Line] = []

    def flush() -> None:
        if run:
            blocks.append(_text_block(source, run))
            run.clear()

    lines = lines_of(source)
    for i, line in enumerate(lines):
        before = lines[i - 1].text if i > 0 else ""
        after = lines[i + 1].text if i + 1 < len(lines) else ""
        style = heading_style(line.text, before, after)
        if style is not None:
            flush()
            title = " ".join(line.text.split())
            blocks.append(Block("heading", line.start, line.end,
                                level=outline.level(style, _depth(style, title)), title=title))
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
