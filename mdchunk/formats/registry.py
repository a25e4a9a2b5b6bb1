"""Which reader reads a file: by its extension, else by its content, else as plain text.

One table, read in order: the first format that claims a file reads it. ``mdchunk chunk`` and
``mdchunk index`` walk folders for the extensions named here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .qa import looks_like_qa

__all__ = [
    "FORMATS",
    "MARKDOWN_SUFFIXES",
    "SUFFIXES",
    "TEXT_SUFFIXES",
    "Format",
    "FormatName",
    "format_for",
]

FormatName = Literal["markdown", "qa", "text"]

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".mkd", ".mdown"})
TEXT_SUFFIXES = frozenset({".txt", ".text"})


@dataclass(frozen=True, slots=True)
class Format:
    """A reader's claim on files: by extension, or by a look at the text."""

    name: FormatName
    suffixes: frozenset[str] = frozenset()
    sniff: Callable[[str], bool] | None = None

    def claims(self, suffix: str, text: str) -> bool:
        return suffix in self.suffixes or (self.sniff is not None and self.sniff(text))


#: In order: Markdown by extension; a question/answer file by its first line; anything else is
#: plain text (headings from the line classifier).
FORMATS: tuple[Format, ...] = (
    Format("markdown", MARKDOWN_SUFFIXES),
    Format("qa", sniff=looks_like_qa),
    Format("text", TEXT_SUFFIXES, sniff=lambda text: True),
)

#: File endings mdchunk reads when it walks a folder.
SUFFIXES = frozenset().union(*(f.suffixes for f in FORMATS))


def format_for(suffix: str, text: str) -> FormatName:
    """The format of a file with extension ``suffix`` (any case) and content ``text``.

    >>> (format_for(".MD", "question: a"), format_for(".txt", "Q: why?\\nA: because"),
    ...  format_for(".log", "x"))
    ('markdown', 'qa', 'text')
    """
    suffix = suffix.lower()
    return next(f.name for f in FORMATS if f.claims(suffix, text))
