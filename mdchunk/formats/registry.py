"""Which reader reads a document: one table, read in order, the first format that claims a file
(by its extension, else its content, else as plain text) reading it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal, get_args

from ..errors import ConfigError
from .qa import looks_like_qa

__all__ = ["FORMATS", "MARKDOWN_SUFFIXES", "SUFFIXES", "TEXT_SUFFIXES", "Format", "FormatName",
           "ReaderChoice", "format_for", "reader_for"]

FormatName = Literal["markdown", "qa", "text"]
#: What a ``reader=`` keyword takes: a format's name, or ``auto`` (:func:`reader_for`).
ReaderChoice = Literal["auto", "markdown", "qa", "text"]

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

_BY_NAME: dict[str, FormatName] = {f.name: f.name for f in FORMATS}

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


def reader_for(choice: str, doc_id: str, text: str) -> FormatName:
    """The format that reads ``text`` when ``choice`` names a reader: that one, or for
    ``auto`` the format of a file named ``doc_id`` (:func:`format_for`); a document id without
    an extension is Markdown, as the frameworks' documents mostly are.

    >>> (reader_for("auto", "faq.txt", "Q: why?\\nA: because"), reader_for("auto", "", "x"),
    ...  reader_for("text", "a.md", "x"))
    ('qa', 'markdown', 'text')
    """
    if choice == "auto":
        suffix = PurePath(doc_id).suffix
        return format_for(suffix, text) if suffix else "markdown"
    named = _BY_NAME.get(choice)
    if named is None:
        raise ConfigError(f"reader={choice!r} must be one of "
                          + ", ".join(repr(c) for c in get_args(ReaderChoice)))
    return named
