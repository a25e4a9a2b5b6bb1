"""Finding the documents under the paths a user names, with their ids, without importing the
embedding or Milvus extras. Folders are walked top-down so that an ignored folder is never
entered; gitignore-style patterns (:mod:`pathspec`) serve ``--glob``, ``--exclude`` and the
``.gitignore`` files alike."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import InitVar, dataclass, field
from pathlib import Path, PurePosixPath

import pathspec

from ..errors import InputError, MissingFileError
from ..formats.registry import SUFFIXES

__all__ = ["SUFFIXES", "Selection", "Source", "discover"]


@dataclass(frozen=True, slots=True)
class Source:
    """A file to index: its id (relative to the root it was found under) and display path."""

    doc_id: str
    path: str
    file: Path


@dataclass(frozen=True, slots=True)
class Selection:
    """Which files of a folder are documents.

    ``glob``: gitignore-style patterns, relative to the folder walked; when given, a file is taken
    when one matches instead of by :data:`SUFFIXES` (``include=`` is its deprecated name).
    ``exclude``: patterns whose files and folders are left out. ``gitignore``: honour the
    ``.gitignore`` files up to the repository root. Hidden files are always skipped; files named
    directly are always taken.

    >>> Selection(glob=("*.md",)).takes("docs/a.md"), Selection().takes("a.rst")
    (True, False)"""

    glob: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    include: InitVar[Sequence[str] | None] = None
    _glob: pathspec.GitIgnoreSpec | None = field(init=False, repr=False, compare=False)
    _exclude: pathspec.GitIgnoreSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self, include: Sequence[str] | None) -> None:
        if include is not None:
            warnings.warn("Selection(include=...) is deprecated: it is glob= now",
                          DeprecationWarning, stacklevel=3)
            object.__setattr__(self, "glob", (*self.glob, *include))
        object.__setattr__(self, "glob", tuple(self.glob))
        object.__setattr__(self, "exclude", tuple(self.exclude))
        object.__setattr__(self, "_glob", pathspec.GitIgnoreSpec.from_lines(self.glob)
                           if self.glob else None)
        object.__setattr__(self, "_exclude", pathspec.GitIgnoreSpec.from_lines(self.exclude))

    def takes(self, rel: str) -> bool:
        """Whether the file at ``rel`` (POSIX, relative to the walked folder) is a document,
        before any ``.gitignore``."""
        if self._exclude.match_file(rel):
            return False
        if self._glob is not None:
            return self._glob.match_file(rel)
        return PurePosixPath(rel).suffix.lower() in SUFFIXES

    def prunes(self, rel_dir: str) -> bool:
        """Whether a whole folder is excluded (its files need not be looked at)."""
        return self._exclude.match_file(rel_dir + "/")


def discover(paths: Iterable[str | Path], selection: Selection | None = None) -> list[Source]:
    """Every document under ``paths``, sorted by id (relative to a folder given; a file's own
    name). A missing path, or a folder with no document in it, raises
    :class:`~mdchunk.InputError` before anything is read: an unmounted folder must not look like
    a knowledge base whose documents were all deleted."""
    selection = selection or Selection()
    found: dict[str, Source] = {}
    for given in paths:
        root = Path(given)
        if root.is_file():
            candidates = [Source(root.name, root.as_posix(), root)]
        elif root.is_dir():
            candidates = list(_walk(root, selection))
            if not candidates:
                looked = (f"files matching {', '.join(selection.glob)}" if selection.glob
                          else ", ".join(sorted(SUFFIXES)))
                skipped = ["hidden files"]
                skipped += ["--exclude"] if selection.exclude else []
                skipped += [".gitignore"] if selection.gitignore else []
                raise InputError(f"{given}: no documents in this folder (looked for {looked}; "
                                 f"skipped {', '.join(skipped)})")
        else:
            raise MissingFileError(f"{given}: no such file or directory")
        for source in candidates:
            seen = found.get(source.doc_id)
            if seen is not None and seen.file.resolve() != source.file.resolve():
                raise InputError(f"{source.file}: same document id {source.doc_id!r} as "
                                 f"{seen.file}; index the two folders into separate collections")
            found[source.doc_id] = source
    return [found[d] for d in sorted(found)]


@dataclass(frozen=True, slots=True)
class _Ignore:
    """One ``.gitignore``: its patterns apply to paths relative to its folder."""

    folder: Path
    spec: pathspec.GitIgnoreSpec

    def verdict(self, path: Path, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a ``!`` pattern; None: not mentioned."""
        try:
            rel = path.relative_to(self.folder).as_posix()
        except ValueError:
            return None
        return self.spec.check_file(rel + "/" if is_dir else rel).include


def _ignored(ignores: Sequence[_Ignore], path: Path, is_dir: bool) -> bool:
    """Git's rule: the deepest ``.gitignore`` that mentions a path decides."""
    ignored = False
    for ignore in ignores:
        verdict = ignore.verdict(path, is_dir)
        if verdict is not None:
            ignored = verdict
    return ignored


def _read_ignore(folder: Path) -> list[_Ignore]:
    try:
        lines = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [_Ignore(folder, pathspec.GitIgnoreSpec.from_lines(lines))]


def _parent_ignores(root: Path) -> list[_Ignore]:
    """The ``.gitignore`` files above ``root`` up to its repository's top (none outside a
    repository), outermost first."""
    chain: list[Path] = []
    for folder in root.resolve().parents:
        chain.append(folder)
        if (folder / ".git").exists():
            return [i for f in reversed(chain) for i in _read_ignore(f)]
    return []


def _walk(root: Path, selection: Selection) -> Iterator[Source]:
    base = root.resolve()
    ignores = _parent_ignores(root) if selection.gitignore else []
    # The ignore files that apply in each folder walked: its parents' plus its own.
    inherited: dict[str, list[_Ignore]] = {"": ignores}
    found: list[tuple[str, Path]] = []
    for folder, dirs, files in os.walk(base):
        here = Path(folder)
        rel_here = here.relative_to(base).as_posix()
        rel_here = "" if rel_here == "." else rel_here
        active = inherited.pop(rel_here, ignores)
        if selection.gitignore:
            active = active + _read_ignore(here)
        kept = []
        for name in sorted(dirs):
            rel = f"{rel_here}/{name}" if rel_here else name
            if name.startswith(".") or selection.prunes(rel) or \
                    (active and _ignored(active, here / name, is_dir=True)):
                continue
            kept.append(name)
            inherited[rel] = active
        dirs[:] = kept
        for name in files:
            rel = f"{rel_here}/{name}" if rel_here else name
            if name.startswith(".") or not selection.takes(rel):
                continue
            if active and _ignored(active, here / name, is_dir=False):
                continue
            if (here / name).is_file():
                found.append((rel, root / rel))
    for rel, file in sorted(found):
        yield Source(rel, (PurePosixPath(root.as_posix()) / rel).as_posix(), file)
