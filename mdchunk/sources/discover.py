"""Finding the documents under the paths a user names, with their ids.

Kept apart from indexing so that ``mdchunk chunk`` can walk a folder without importing the
embedding or Milvus extras.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import InputError, MissingFileError
from ..formats.registry import SUFFIXES

__all__ = ["SUFFIXES", "Source", "discover"]


@dataclass(frozen=True, slots=True)
class Source:
    """A file to index: its id (relative to the root it was found under) and display path."""

    doc_id: str
    path: str
    file: Path


def discover(paths: Iterable[str | Path]) -> list[Source]:
    """Every indexable file under ``paths``, sorted; hidden files and folders are skipped.

    A directory's files get ids relative to it; a file named directly gets its own name. A
    path that does not exist, or a folder with no document in it, raises
    :class:`~mdchunk.InputError` before anything is read: an unmounted or mistyped folder must
    not look like a knowledge base whose documents were all deleted (``mdchunk index`` would
    remove them from the index).
    """
    found: dict[str, Source] = {}
    for given in paths:
        root = Path(given)
        if root.is_file():
            candidates = [Source(root.name, root.as_posix(), root)]
        elif root.is_dir():
            candidates = list(_walk(root))
            if not candidates:
                raise InputError(f"{given}: no documents in this folder (looked for "
                                 f"{', '.join(sorted(SUFFIXES))}; hidden files are skipped)")
        else:
            raise MissingFileError(f"{given}: no such file or directory")
        for source in candidates:
            seen = found.get(source.doc_id)
            if seen is not None and seen.file.resolve() != source.file.resolve():
                raise InputError(f"{source.file}: same document id {source.doc_id!r} as "
                                 f"{seen.file}; index the two folders into separate collections")
            found[source.doc_id] = source
    return [found[d] for d in sorted(found)]


def _walk(root: Path) -> Iterator[Source]:
    for file in sorted(root.rglob("*")):
        rel = file.relative_to(root)
        if file.suffix.lower() in SUFFIXES and not any(p.startswith(".") for p in rel.parts) \
                and file.is_file():
            yield Source(rel.as_posix(), (PurePosixPath(root.as_posix()) / rel).as_posix(), file)
