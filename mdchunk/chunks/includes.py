"""Reading included files: the I/O beside :mod:`mdchunk.formats.includes`, which finds a page's
references and puts their text in.

A reference is read only under the include root: a path that leaves it (``../../etc/passwd``,
a link out of it) is refused unread. A file missing, refused, undecodable or asked for with no
root set stays its short visible line, never raised; each is named at debug level, and the
call ends with one warning that counts them (:func:`include_run`; workers and Ray tasks send
theirs back to the call's run)."""

from __future__ import annotations

import hashlib
import logging
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config import ChunkerConfig
from ..errors import InputError
from ..formats import Document
from ..formats.blocks import Markup
from ..formats.includes import Include, find_includes, referenced_paths, splice_includes
from ..text import clean_text, decode_document
from .reading import Reading, markdown_reading

__all__ = ["IncludeRoot", "LeftOut", "include_run", "with_includes"]

log = logging.getLogger(__name__)

#: Why an include was left out, as the summary says it (the root's folder goes after two).
NO_ROOT = "no include root set (pass --includes DIR, or includes= in Python)"
OUTSIDE = "leaving the include root"
UNREADABLE = "missing or unreadable under"
INLINE = "sharing their line with text"


@dataclass(slots=True)
class LeftOut:
    """The includes one call left out: key (a file, or a reference when no root is set) ->
    why (one of the reasons above) and the line that names it."""

    say: bool = True
    notes: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, key: str, reason: str, message: str) -> None:
        """Keep a note the first time a key comes up; name it at debug level if this run
        says what it left out."""
        if key in self.notes:
            return
        self.notes[key] = (reason, message)
        if self.say:
            log.debug("%s", message, extra={"include": key})

    def summary(self) -> str:
        """One line: how many, why, what to do.

        >>> run = LeftOut(say=False)
        >>> run.add("a.yaml", NO_ROOT, "p.md: code sample: a.yaml not included: …")
        >>> run.add("b.yaml", NO_ROOT, "q.md: code sample: b.yaml not included: …")
        >>> print(run.summary().replace("; ", ";\\n"))
        2 includes not put in: no include root set (pass --includes DIR, or includes= in Python);
        --verbose (or the debug log) names each
        """
        reasons = Counter(reason for reason, _ in self.notes.values())
        count = sum(reasons.values())
        why = "; ".join(reason if len(reasons) == 1 else f"{n} {reason}"
                        for reason, n in reasons.items())
        return (f"{count} include{'s' if count != 1 else ''} not put in: {why}; --verbose (or "
                "the debug log) names each")


_current: ContextVar[LeftOut | None] = ContextVar("mdchunk_include_run", default=None)


@contextmanager
def include_run(*, say: bool = True) -> Iterator[LeftOut]:
    """A call that reads pages: each include it leaves out is noted once, and when it ends one
    warning counts them (:meth:`LeftOut.summary`). A run inside another is part of it (a batch's
    pages, each read by a call of its own, say one line for the batch); ``say=False`` keeps the
    notes for the caller (a worker process sends them to its parent's run: :func:`note_all`)."""
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    run = LeftOut(say)
    _current.set(run)
    try:
        yield run
    finally:
        _current.set(None)
    if say and run.notes:
        log.warning("%s", run.summary())


def note_all(notes: Iterable[tuple[str, tuple[str, str]]]) -> None:
    """Add notes kept elsewhere (a worker's :class:`LeftOut`) to the current run."""
    with include_run() as run:
        for key, (reason, message) in notes:
            run.add(key, reason, message)


class IncludeRoot:
    """Where included files are read from (``None``: nowhere)."""

    def __init__(self, root: str | os.PathLike[str] | None) -> None:
        self.root = None if root is None else Path(root).resolve()

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
        """The text ``include`` puts in the page, or ``None`` (noted in the call's run)."""
        if self.root is None:
            self.note(include.path, NO_ROOT, f"{doc_id or '<text>'}: {include.shown} not "
                                             "included: no include root set (includes= or "
                                             "--includes)")
            return None
        target = self.resolve(include.path, page, include.relative)
        if target is None:
            self.note(include.path, f"{OUTSIDE} {self.root}",
                      f"{doc_id or '<text>'}: {include.shown} not included: the path leaves "
                      f"the include root {self.root}")
            return None
        try:
            text = decode_document(target).text
        except InputError as exc:
            reason = str(exc).removeprefix(f"{target}: ")
            self.note(str(target), f"{UNREADABLE} {self.root}",
                      f"{doc_id or '<text>'}: {include.shown} not included: {target}: {reason}")
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

    @staticmethod
    def note(key: str, reason: str, message: str) -> None:
        """Note an include left out, in the run of the call under way (one of its own when
        none is)."""
        with include_run() as run:
            run.add(key, reason, message)


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
                root.note(include.path, INLINE, f"{doc_id or '<text>'}: {include.shown} not "
                                                "included: it shares its line with text")
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
