"""Which files of a folder are documents: extensions, --glob, --exclude and .gitignore files
(nested, negated, and above the folder up to the repository's top)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdchunk.errors import InputError
from mdchunk.sources import Selection, discover


def _write(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n\nText.\n")


def _ids(root: Path, selection: Selection | None = None) -> list[str]:
    return [s.doc_id for s in discover([root], selection)]


def test_nested_gitignores_decide_as_git_does(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("*.log.md\ngenerated/\n")
    docs = repo / "docs"
    _write(docs, "a.md", "b.log.md", "generated/x.md", "sub/keep.log.md", "sub/c.md",
           "sub/deep/d.md", "notes.txt", "image.png")
    (docs / "sub" / ".gitignore").write_text("!keep.log.md\ndeep/\n")
    # the repository's .gitignore applies from above the folder walked
    assert _ids(docs) == ["a.md", "notes.txt", "sub/c.md", "sub/keep.log.md"]
    assert _ids(docs, Selection(gitignore=False)) == [
        "a.md", "b.log.md", "generated/x.md", "notes.txt", "sub/c.md", "sub/deep/d.md",
        "sub/keep.log.md"]


def test_gitignore_outside_a_repository_is_not_read_from_above(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.md\n")  # no .git: not this folder's repository
    _write(tmp_path / "docs", "a.md")
    assert _ids(tmp_path / "docs") == ["a.md"]


def test_globs_replace_extensions_and_excludes_prune(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "b.rst", "guide/c.md", "guide/d.mdx", "vendor/e.md", ".hidden/f.md")
    assert _ids(tmp_path) == ["a.md", "guide/c.md", "guide/d.mdx", "vendor/e.md"]
    assert _ids(tmp_path, Selection(glob=("*.rst", "guide/*.mdx"))) == ["b.rst", "guide/d.mdx"]
    assert _ids(tmp_path, Selection(exclude=("vendor/", "*.mdx"))) == ["a.md", "guide/c.md"]
    assert _ids(tmp_path, Selection(glob=("**/*.md",), exclude=("guide/**",))) == [
        "a.md", "vendor/e.md"]


def test_include_is_the_deprecated_name_of_glob(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "b.rst")
    with pytest.warns(DeprecationWarning, match="glob="):
        old = Selection(include=("*.rst",))
    assert old == Selection(glob=("*.rst",)) and _ids(tmp_path, old) == ["b.rst"]


def test_files_named_directly_are_always_taken(tmp_path: Path) -> None:
    _write(tmp_path, "a.rst")
    assert [s.doc_id for s in discover([tmp_path / "a.rst"], Selection(exclude=("*.rst",)))] == [
        "a.rst"]


def test_everything_excluded_is_an_error_naming_why(tmp_path: Path) -> None:
    _write(tmp_path, "a.md")
    with pytest.raises(InputError, match=r"no documents in this folder .*skipped hidden files, "
                                         r"--exclude, \.gitignore"):
        discover([tmp_path], Selection(exclude=("*.md",)))
