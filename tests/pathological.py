"""Pathological documents, each a function of a size: what one odd file in an index build can be.

Shared by the tests (small sizes, guarantees checked) and ``bench/bench_pathological.py`` (full
sizes, doubled to show time grows linearly). ``size`` is the document's rough length in
characters; the nesting depths and counts the issue names are reached at the bench's sizes.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["KINDS", "NEWLINES", "document"]


def _paragraph_without_punctuation(size: int) -> str:
    return "word " * (size // 5)


def _one_latin_line(size: int) -> str:
    return "abcdefghij" * (size // 10)


def _one_cjk_line(size: int) -> str:
    return "服务重启日志检查" * (size // 8)


def _list_items(size: int) -> str:
    return "".join(f"- item {i}\n" for i in range(size // 12))


def _nested(marker: str, size: int) -> str:
    """Lines nested ``depth`` deep (10,000 at the bench's sizes), as many as fit ``size``."""
    depth = max(1, min(10_000, size // 4))
    line = marker * depth + "x\n"
    return line * max(1, size // len(line))


def _nested_lists(size: int) -> str:
    return _nested("- ", size)


def _nested_quotes(size: int) -> str:
    return _nested("> ", size)


def _table_rows(size: int) -> str:
    return "| a | b |\n|---|---|\n" + "".join(f"| {i} | v{i} |\n" for i in range(size // 14))


def _empty_headings(size: int) -> str:
    return "".join(f"## H{i}\n\n" for i in range(size // 9))


def _nested_empty_headings(size: int) -> str:
    return "".join("#" * (i % 6 + 1) + f" H{i}\n\n" for i in range(size // 9))


def _unclosed_fence(size: int) -> str:
    return "```\n" + "code line here\n" * (size // 15)


def _tiny_sections(size: int) -> str:
    return "".join(f"## S{i}\n\nline {i}\n\n- a\n- b\n\n" for i in range(size // 30))


def _comments_in_containers(size: int) -> str:
    """A translated page that keeps the original of each list item and quote in a comment of
    several lines (a Hugo site's zh-cn pages)."""
    return "".join(f"- 检查节点 {i}。\n  <!--\n  Check node {i}\n  and its pods.\n  -->\n\n"
                   f"> 注意 {i}。\n> <!-- Back up {i}\n> first. -->\n\n" for i in range(size // 90))


def _odd_characters(size: int) -> str:
    return "text \x00 👩‍👩‍👧‍👦 \ud800 more. 🇺🇳 e\u0301 " * (size // 36)


#: name -> document of about ``size`` characters.
KINDS: dict[str, Callable[[int], str]] = {
    "paragraph without punctuation": _paragraph_without_punctuation,
    "one Latin line": _one_latin_line,
    "one CJK line": _one_cjk_line,
    "list items": _list_items,
    "nested lists": _nested_lists,
    "nested blockquotes": _nested_quotes,
    "table rows": _table_rows,
    "empty headings": _empty_headings,
    "nested empty headings": _nested_empty_headings,
    "unclosed fence": _unclosed_fence,
    "tiny sections": _tiny_sections,
    "comments in containers": _comments_in_containers,
    "NUL, lone surrogates, emoji": _odd_characters,
}

#: Each kind is also run with these line endings.
NEWLINES = {"LF": "\n", "CRLF": "\r\n", "CR": "\r"}


def document(kind: str, size: int, newline: str = "\n") -> str:
    """The ``kind`` document of about ``size`` characters with ``newline`` line endings."""
    text = KINDS[kind](size)
    return text if newline == "\n" else text.replace("\n", newline)
