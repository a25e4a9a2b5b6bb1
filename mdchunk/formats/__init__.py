"""Formats: each reader turns one kind of document into the same blocks with exact spans;
``registry`` picks the reader, ``kinds`` is the table of block kinds and their seams."""

from .blocks import Block, Document, LineIndex
from .kinds import KINDS, SEAMS, Kind, Seam
from .markdown import parse_markdown
from .plaintext import parse_plain_text
from .qa import QAPair, looks_like_qa, parse_qa
from .registry import FORMATS, SUFFIXES, format_for

__all__ = [
           "FORMATS",
           "KINDS",
           "SEAMS",
           "SUFFIXES",
           "Block",
           "Document",
           "Kind",
           "LineIndex",
           "QAPair",
           "Seam",
           "format_for",
           "looks_like_qa",
           "parse_markdown",
           "parse_plain_text",
           "parse_qa",
]
