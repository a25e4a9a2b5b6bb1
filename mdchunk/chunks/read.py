"""The one way mdchunk reads a document, whoever asks (the chunker, ``inspect``, ``chunk
--stats``, the adapters): decoded, its format picked, cleaned, parsed with the config's site
and its includes put in. The :class:`~.reading.Reading` it returns holds the blocks the chunker
packs, so that what ``inspect`` flags is what the chunks were cut from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import ChunkerConfig
from ..errors import InputError
from ..formats import format_for
from ..formats.registry import ReaderChoice, reader_for
from ..text import ENCODING_KEY, clean_text, decode_document
from .includes import IncludeRoot, include_run, with_includes
from .reading import READERS, Origin, Reading

__all__ = ["read", "read_file"]


def read(text: str, doc_id: str, metadata: Mapping[str, Any] | None, config: ChunkerConfig,
         *, reader: ReaderChoice = "markdown", includes: IncludeRoot | None = None,
         page: Path | None = None) -> Reading | None:
    """``text`` read as the chunker reads it; ``None`` when it is blank.

    ``reader`` is a format's name (``markdown``, ``text``, ``qa``) or ``auto`` (from the extension
    of ``doc_id``, Markdown without one). With ``config.clean`` the reader reads the text after
    hygiene, and the reading keeps the way back to ``text``. ``includes`` is the include root (a
    new one on ``config.includes`` when not given); ``page`` is the page's file, against whose
    folder an MDX raw-loader import is read."""
    if not isinstance(text, str):
        raise InputError(f"{doc_id or '<text>'}: expected str, got {type(text).__name__}")
    fmt = reader_for(reader, doc_id, text)
    cleaned = clean_text(text) if config.clean else None
    body = text if cleaned is None else cleaned.text
    if not body.strip():
        return None
    reading = READERS[fmt](body, doc_id, metadata, config)
    origin = None if cleaned is None else Origin.of(cleaned)
    if origin is not None:
        reading = replace(reading, origin=origin)
    if fmt != "markdown":
        return reading
    root = includes if includes is not None else IncludeRoot(config.includes)
    with include_run():  # a call of its own, or part of the caller's (a batch, an index run)
        return with_includes(reading, root, doc_id, metadata, config, page)


def read_file(path: Path, config: ChunkerConfig, doc_id: str | None = None,
              metadata: Mapping[str, Any] | None = None, *,
              includes: IncludeRoot | None = None) -> Reading | None:
    """The file ``path`` read as :meth:`~mdchunk.chunks.chunker.Chunker.chunk_file` reads it:
    decoded (its encoding in ``metadata["source_encoding"]``), read by the reader its
    extension and content call for (:func:`~mdchunk.formats.registry.format_for`), then as
    :func:`read` reads a text. ``doc_id`` defaults to the path."""
    decoded = decode_document(path)
    text = decoded.text
    return read(text, path.as_posix() if doc_id is None else doc_id,
                {ENCODING_KEY: decoded.encoding, **(metadata or {})}, config,
                reader=format_for(path.suffix, text), includes=includes, page=path)
