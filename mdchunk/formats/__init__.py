"""Formats: each reader turns one kind of document into the same blocks with exact spans;
``registry`` picks the reader, ``kinds`` is the table of block kinds and their seams."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .blocks import Block, Document, LineIndex
    from .kinds import KINDS, SEAMS, Kind, Seam
    from .markdown import parse_markdown
    from .plaintext import parse_plain_text
    from .qa import QAPair, looks_like_qa, parse_qa
    from .registry import FORMATS, SUFFIXES, format_for

__all__ = ["FORMATS", "KINDS", "SEAMS", "SUFFIXES", "Block", "Document", "Kind", "LineIndex",
           "QAPair", "Seam", "format_for", "looks_like_qa", "parse_markdown", "parse_plain_text",
           "parse_qa"]

__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(["Block", "Document", "LineIndex"], ".blocks"),
    **dict.fromkeys(["KINDS", "SEAMS", "Kind", "Seam"], ".kinds"),
    "parse_markdown": ".markdown",
    "parse_plain_text": ".plaintext",
    **dict.fromkeys(["QAPair", "looks_like_qa", "parse_qa"], ".qa"),
    **dict.fromkeys(["FORMATS", "SUFFIXES", "format_for"], ".registry"),
})
