"""Reading included files: the include root, what a reference may read under it, and the one
warning a run gives for each file it could not include.

:mod:`mdchunk.formats.includes` finds the references of a page and puts their text in; this is
the I/O beside it. A reference is read only under the include root (``includes=``, the config
key ``includes``): a path that leaves it (``../../etc/passwd``, a link out of it) is refused
unread. A file that is missing, refused, undecodable or asked for with no root set stays its
short visible line (``code sample: pods/pod.yaml``) and is logged once per file per
:class:`IncludeRoot` (a :class:`~mdchunk.chunks.chunker.Chunker` has one: a run; the workers
of :func:`mdchunk.sources.batch.chunk_paths` send theirs back, and the run says each once),
never raised.
Files are decoded as documents are (:mod:`mdchunk.text.decode`) and cleaned as they are
(:mod:`mdchunk.text.clean`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import ChunkerConfig
from ..errors import InputError
from ..formats import Document
from ..formats.blocks import Markup
from ..formats.includes import Include, find_includes, referenced_paths, splice_includes
from ..text import clean_text, decode_document
from .reading import Reading, markdown_reading

__all__ = ["IncludeRoot", "with_includes"]

log = logging.getLogger(__name__)


class IncludeRoot:
    """Where included files are read from (``None``: nowhere), and which files a run has
    already said it could not include."""

    def __init__(self, root: str | os.PathLike[str] | None) -> None:
        self.root = None if root is None else Path(root).resolve()
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, object]:  # a lock does not pickle: a copy gets its own
        return {"root": self.root, "warned": set(self._warned)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.root = state["root"]
        self._warned = set(state["warned"])
        self._lock = threading.Lock()

    def resolve(self, path: str, page: Path | None = None, relative: bool = False
                ) -> Path | None:
        """The file ``path`` names under the root (a raw-loader import's ``./`` against the
        page's folder, when that lies under the root); ``None`` when it would leave the root."""
        if self.root is None:
            return None
        base = self.root
        if relative and page is not None:
            folder = page.resolve().parent
            if folder.is_relative_to(self.root):
                base = folder
        target = (base / path.lstrip("/\\")).resolve()
        return target if target.is_relative_to(self.root) else None

    def text(self, include: Include, doc_id: str, page: Path | None = None) -> str | None:
        """The text ``include`` puts in the page, or ``None`` (said once per file)."""
        if self.root is None:
            self._warn(include.path, f"{doc_id or '<text>'}: {include.shown} not included: no "
                                     "include root set (includes= or --includes)")
            return None
        target = self.resolve(include.path, page, include.relative)
        if target is None:
            self._warn(include.path, f"{doc_id or '<text>'}: {include.shown} not included: the "
                                     f"path leaves the include root {self.root}")
            return None
        try:
            text = decode_document(target).text
        except InputError as exc:
            reason = str(exc).removeprefix(f"{target}: ")
            self._warn(str(target), f"{doc_id or '<text>'}: {include.shown} not included: "
                                    f"{target}: {reason}")
            return None
        return clean_text(text).text

    def digest(self, text: str, page: Path | None = None) -> str:
        """A digest of every file ``text`` may include as it is now (empty when none), so an
        index sees a page change when a file it includes does."""
        if self.root is None:
            return ""
        h = hashlib.blake2b(digest_size=16)
        found = False
        for path in referenced_paths(text):
            # from the root, and from the page's folder (a raw-loader ``./`` import): each file
            # once, though both name the same one whenever the page is not under the root
            targets = dict.fromkeys(t for relative in (False, True)
                                    if (t := self.resolve(path, page, relative)) is not None)
            for target in targets:
                found = True
                h.update(str(target).encode("utf-8", "surrogatepass") + b"\x00")
                try:
                    h.update(target.read_bytes())
                except OSError:
                    h.update(b"\x01missing")
                h.update(b"\x00")
        return h.hexdigest() if found else ""

    def note(self, key: str, message: str) -> None:
        """Log ``message`` unless this root already said something of ``key``."""
        self._warn(key, message)

    def _warn(self, key: str, message: str) -> None:
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        log.warning("%s", message, extra={"include": key})


def with_includes(reading: Reading, root: IncludeRoot, doc_id: str,
                  metadata: Mapping[str, Any] | None, config: ChunkerConfig,
                  page: Path | None = None) -> Reading:
    """A Markdown reading with its includes' text put in: the expanded page read again, its
    positions mapped back to the page's (:class:`~mdchunk.formats.includes.Expansion`);
    references left out (no root, a missing file, one inside a line of text) keep their
    visible line."""
    doc = reading.doc
    if not _may_include(doc.source):
        return reading
    found, extra = find_includes(doc)
    if not found:
        return _with_markup(reading, doc, extra)
    texts: dict[int, str] = {}
    for include in found:
        if not include.standalone:  # inside a line of text: it stays its visible line
            if root.root is not None:
                root.note(include.path, f"{doc_id or '<text>'}: {include.shown} not included: "
                                        "it shares its line with text")
            continue
        text = root.text(include, doc_id, page)
        if text is not None:
            texts[include.start] = text
    expanded = splice_includes(doc.source, found, texts)
    if expanded is None:
        return _with_markup(reading, doc, extra)
    source, expansion = expanded
    again = markdown_reading(source, doc_id, metadata, config)
    _, left = find_includes(again.doc)
    again = _with_markup(again, again.doc, left)
    return replace(again, origin=reading.origin, expansion=expansion, page_source=doc.source,
                   page_lines=doc.lines, metadata=reading.metadata)


def _may_include(source: str) -> bool:
    return "8<" in source or "{{" in source or "raw-loader" in source


def _with_markup(reading: Reading, doc: Document, extra: list[Markup]) -> Reading:
    if not extra:
        return reading
    return replace(reading, doc=replace(doc, markup=tuple(sorted((*doc.markup, *extra)))))
