"""The first half of an indexing run: compare every file's hash and the chunker config with the
manifest and decide what to write, what is unchanged and what is gone. With an include root, a
page's hash covers the files it may include, so a changed example re-embeds its pages."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..chunks.includes import IncludeRoot
from ..errors import InputError, MissingFileError
from ..sources import Source
from ..text.decode import decode_bytes
from .store import ManifestEntry

__all__ = ["IndexPlan", "plan_index"]


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """What a run will do, decided before anything is written: the documents to (re)write with
    their file hashes and whether the index knows them, the unchanged ones, the gone ones."""

    write: list[tuple[Source, str, bool]]
    unchanged: list[str]
    gone: list[str]
    #: Files that could not even be read to hash them, with the error and what the index keeps
    #: of them (nothing is written for them; a vanished one is among ``gone`` with ``prune``).
    failed: list[tuple[Source, InputError, str]] = field(default_factory=list)


def plan_index(sources: Sequence[Source], manifest: dict[str, ManifestEntry], fingerprint: str,
               *, prune: bool, includes: IncludeRoot | None = None) -> IndexPlan:
    """Compare every file's hash (with ``includes``, and the files it includes) and the chunker
    config with the manifest."""
    write: list[tuple[Source, str, bool]] = []
    unchanged: list[str] = []
    failed: list[tuple[Source, InputError, str]] = []
    present: set[str] = set()
    for source in sources:
        entry = manifest.get(source.doc_id)
        try:
            data = source.file.read_bytes()
        except OSError as exc:
            vanished = isinstance(exc, FileNotFoundError)
            reason = ("no such file or directory" if vanished
                      else (exc.strerror or str(exc) or type(exc).__name__).lower())
            error_type = MissingFileError if vanished else InputError
            error = error_type(f"{source.file}: cannot read: {reason}")
            if entry is None:
                action = "not indexed"
            elif vanished and prune:
                action = "removed from the index, as a deleted file is"
            else:
                action = "the version indexed before is kept"
                present.add(source.doc_id)
            failed.append((source, error, action))
            continue
        present.add(source.doc_id)
        digest = _file_hash(data) if includes is None else page_digest(data, source, includes)
        if entry and not entry.pending and entry.content_hash == digest \
                and entry.config == fingerprint:
            unchanged.append(source.doc_id)
        else:
            write.append((source, digest, entry is not None))
    gone = sorted(set(manifest) - present) if prune else []
    return IndexPlan(write, unchanged, gone, failed)


def _file_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def page_digest(data: bytes, source: Source, includes: IncludeRoot) -> str:
    """A page's hash with what it includes: its bytes' hash when it includes nothing (or
    cannot be decoded: chunking it will say why)."""
    own = _file_hash(data)
    try:
        text = decode_bytes(data, str(source.file)).text
    except InputError:
        return own
    included = includes.digest(text, source.file)
    return _file_hash(f"{own}:{included}".encode()) if included else own
