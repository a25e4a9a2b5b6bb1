"""Bad input (issue 13): binary, undecodable, empty, unreadable and vanishing files, folders
without documents, through ``chunk_file``, the command line and the indexer.

``chunk_file`` raises an :class:`~mdchunk.InputError` that names the file and the problem; the
command line names each bad file on one line, goes on with the others, counts the failures at
the end and exits 1. Tests usually run as root here, where ``chmod 000`` does not stop a read:
an unreadable file is then simulated by making ``Path.read_bytes`` raise ``PermissionError``
for it (as the kernel would); as another user the file is really made unreadable.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mdchunk
from mdchunk import InputError, chunk_markdown
from mdchunk.cli import app
from mdchunk.errors import MissingFileError

runner = CliRunner()
# the module, not the Typer app that mdchunk.cli exports under the same name
chunk_commands = importlib.import_module("mdchunk.cli.chunk_commands")

GOOD = "# Good\n\nA page that chunks fine.\n"


def bad_files(folder: Path) -> dict[str, str]:
    """Write one file of each bad kind (and good ones); returns name -> expected message."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a_good.md").write_text(GOOD, encoding="utf-8")
    (folder / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "latin1.md").write_bytes("# Café\n\nCrème brûlée.\n".encode("latin-1"))
    (folder / "utf16.txt").write_bytes("# Hi\n".encode("utf-16")[:-1])  # cut mid-character
    (folder / "empty.md").write_bytes(b"")
    (folder / "blank.txt").write_text("\n   \n\n", encoding="utf-8")
    (folder / "z_good.txt").write_text("Plain text that chunks fine.\n", encoding="utf-8")
    return {"binary.md": "looks binary (NUL bytes), not Markdown or text",
            "latin1.md": "not valid UTF-8 (line 1, column 6, byte offset 5: b'\\xe9') "
                         "nor GB18030 Chinese",
            "utf16.txt": "not valid UTF-16LE after its byte order mark (byte 10: truncated data)"}


@contextmanager
def unreadable(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make ``path`` unreadable: chmod 000, or (as root, whom chmod does not stop) a
    ``PermissionError`` from ``Path.read_bytes`` and ``Path.open`` for that file."""
    if os.geteuid() != 0:
        path.chmod(0)
        try:
            yield
        finally:
            path.chmod(0o644)
        return
    target = path.resolve()
    real_read, real_open = Path.read_bytes, Path.open

    def read_bytes(self: Path) -> bytes:
        if self.resolve() == target:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    def open_(self: Path, *args, **kwargs):
        if self.resolve() == target:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Path, "read_bytes", read_bytes)
        patch.setattr(Path, "open", open_)
        yield


# -- chunk_file -------------------------------------------------------------------------------

def test_chunk_file_names_the_file_and_the_problem(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    expected = bad_files(tmp_path)
    for name, message in expected.items():
        with pytest.raises(InputError) as info:
            mdchunk.chunk_file(tmp_path / name)
        assert str(info.value).startswith(f"{tmp_path / name}: {message}")
    with pytest.raises(MissingFileError, match=r"gone\.md: cannot read: no such file"):
        mdchunk.chunk_file(tmp_path / "gone.md")
    with pytest.raises(InputError, match=r"folder\.md: cannot read: is a directory"):
        (tmp_path / "folder.md").mkdir()
        mdchunk.chunk_file(tmp_path / "folder.md")
    with unreadable(tmp_path / "a_good.md", monkeypatch), \
            pytest.raises(InputError, match=r"a_good\.md: cannot read: permission denied"):
        mdchunk.chunk_file(tmp_path / "a_good.md")
    assert mdchunk.chunk_file(tmp_path / "a_good.md")  # readable again


def test_empty_and_blank_files_have_no_chunks_and_are_not_errors(tmp_path: Path) -> None:
    bad_files(tmp_path)
    assert mdchunk.chunk_file(tmp_path / "empty.md") == []
    assert mdchunk.chunk_file(tmp_path / "blank.txt") == []
    assert mdchunk.chunk_file(tmp_path / "empty.md", levels=(256, 128)) == []
    (tmp_path / "bom.md").write_bytes(b"\xef\xbb\xbf")
    assert mdchunk.chunk_file(tmp_path / "bom.md") == []


def test_a_folder_without_documents_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "logo.png").write_bytes(b"\x89PNG")
    (tmp_path / "pics" / ".hidden.md").write_text(GOOD)
    for command in ("chunk", "index"):
        result = runner.invoke(app, [command, str(tmp_path / "pics"), "--db",
                                     str(tmp_path / "x.db")][:2 if command == "chunk" else 4])
        assert result.exit_code == 1, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            f"mdchunk: error: {tmp_path / 'pics'}: no documents in this folder (looked for ")
    assert not (tmp_path / "x.db").exists()  # refused before the index was opened


# -- the command line -------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_chunk_goes_on_past_bad_files(tmp_path: Path, workers: int) -> None:
    expected = bad_files(tmp_path / "kb")
    result = runner.invoke(app, ["chunk", str(tmp_path / "kb"), "--workers", str(workers)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert lines[:-1] == [f"mdchunk: error: {tmp_path / 'kb' / name}: {message}"
                          + ("; convert it, e.g. iconv -f <its encoding> -t UTF-8"
                             if name == "latin1.md" else
                             "; convert it, e.g. iconv -f UTF-16LE -t UTF-8"
                             if name == "utf16.txt" else "")
                          for name, message in sorted(expected.items())]
    assert lines[-1] == ("mdchunk: error: 3 of 7 files failed (each named above); "
                         "the other 4 were chunked")
    doc_ids = [json.loads(line)["doc_id"] for line in result.stdout.splitlines()]
    assert sorted(set(doc_ids)) == ["a_good.md", "z_good.txt"]  # empty files: no chunks


def test_chunk_of_good_and_empty_files_exits_0(tmp_path: Path) -> None:
    bad_files(tmp_path)
    result = runner.invoke(app, ["chunk", str(tmp_path / "a_good.md"), str(tmp_path / "empty.md"),
                                 str(tmp_path / "blank.txt")])
    assert result.exit_code == 0 and result.stderr == ""
    assert len(result.stdout.splitlines()) == 1


def test_chunk_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad_files(tmp_path)
    with unreadable(tmp_path / "a_good.md", monkeypatch):
        result = runner.invoke(app, ["chunk", str(tmp_path / "a_good.md"),
                                     str(tmp_path / "z_good.txt")])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        f"mdchunk: error: {tmp_path / 'a_good.md'}: cannot read: permission denied",
        "mdchunk: error: 1 of 2 files failed (each named above); the other 1 was chunked"]
    assert [json.loads(line)["doc_id"] for line in result.stdout.splitlines()] == ["z_good.txt"]


def test_chunk_file_deleted_between_discovery_and_reading(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    bad_files(tmp_path / "kb")
    real = chunk_commands._sources

    def then_delete(*args):
        found = real(*args)
        (tmp_path / "kb" / "a_good.md").unlink()
        return found

    monkeypatch.setattr(chunk_commands, "_sources", then_delete)
    result = runner.invoke(app, ["chunk", str(tmp_path / "kb" / "a_good.md"),
                                 str(tmp_path / "kb" / "z_good.txt")])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[0] == (
        f"mdchunk: error: {tmp_path / 'kb' / 'a_good.md'}: cannot read: no such file or directory")
    assert [json.loads(line)["doc_id"] for line in result.stdout.splitlines()] == ["z_good.txt"]


def test_inspect_bad_and_empty_files(tmp_path: Path) -> None:
    expected = bad_files(tmp_path)
    for name, message in expected.items():
        result = runner.invoke(app, ["inspect", str(tmp_path / name)])
        assert result.exit_code == 1
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            f"mdchunk: error: {tmp_path / name}: {message}")
    empty = runner.invoke(app, ["inspect", str(tmp_path / "empty.md"), "--html",
                                str(tmp_path / "e.html")])
    assert empty.exit_code == 0 and "0 chunks" in empty.stdout
    gone = runner.invoke(app, ["inspect", str(tmp_path / "gone.md")])
    assert gone.exit_code == 1 and gone.stderr.strip() == \
        f"mdchunk: error: {tmp_path / 'gone.md'}: cannot read: no such file or directory"


# -- the indexer ------------------------------------------------------------------------------

def _index(kb: Path, milvus: dict[str, str], model, **kwargs):
    from mdchunk.index import index_paths

    errors: list[str] = []
    report = index_paths([kb], model=model, on_error=lambda e: errors.append(str(e)),
                         batch_chunks=2, **milvus, **kwargs)
    assert errors == report.failed
    return report


def _manifest(milvus: dict[str, str]) -> dict:
    from .test_index import snapshot

    return snapshot(milvus)[1]  # snapshot also checks rows, parents and manifest agree


@pytest.mark.slow
def test_index_goes_on_past_bad_files(tmp_path: Path, milvus: dict[str, str], model) -> None:
    from .conftest_milvus import write_corpus

    kb = write_corpus(tmp_path / "kb")
    expected = bad_files(kb / "bad")
    report = _index(kb, milvus, model)
    assert report.failed == [f"{kb / 'bad' / name}: {message}" + (
        "; convert it, e.g. iconv -f <its encoding> -t UTF-8" if name == "latin1.md" else
        "; convert it, e.g. iconv -f UTF-16LE -t UTF-8" if name == "utf16.txt" else "")
        + "; not indexed" for name, message in sorted(expected.items())]
    manifest = _manifest(milvus)
    assert not any(k.endswith(tuple(expected)) for k in manifest)  # no entry left pending
    assert manifest["bad/empty.md"][2] == manifest["bad/blank.txt"][2] == 0  # empty: no chunks
    assert manifest["bad/a_good.md"][2] == 1 and "docs/redis_memory.md" in manifest
    assert report.added == report.total - 3 and report.total == len(manifest) + 3
    again = _index(kb, milvus, model)  # the bad files are reported again, nothing else changes
    assert again.unchanged == len(manifest) and len(again.failed) == 3
    assert _manifest(milvus) == manifest


@pytest.mark.slow
def test_index_keeps_the_last_good_version_of_a_file_it_cannot_read(
        tmp_path: Path, milvus: dict[str, str], model, monkeypatch: pytest.MonkeyPatch) -> None:
    from .conftest_milvus import write_corpus
    from .test_index import snapshot

    kb = write_corpus(tmp_path / "kb")
    _index(kb, milvus, model)
    before = snapshot(milvus)
    page = kb / "docs/redis_memory.md"
    page.write_bytes(page.read_bytes().replace(b"Redis memory", "Redis mémoire".encode("latin-1")))
    report = _index(kb, milvus, model)  # undecodable: fails when chunked, after it was hashed
    assert len(report.failed) == 1 and report.failed[0].startswith(f"{page}: not valid UTF-8")
    assert report.failed[0].endswith("; the version indexed before is kept")
    assert snapshot(milvus) == before
    page.write_text("# Redis\n\nFixed.\n", encoding="utf-8")
    with unreadable(page, monkeypatch):  # unreadable: fails when hashed
        report = _index(kb, milvus, model)
    assert report.failed == [f"{page}: cannot read: permission denied; "
                             "the version indexed before is kept"]
    assert snapshot(milvus) == before
    report = _index(kb, milvus, model)  # readable again: replaced
    assert not report.failed and report.updated == 1
    assert snapshot(milvus)[1]["docs/redis_memory.md"][2] == 1


@pytest.mark.slow
@pytest.mark.parametrize("when", ["before hashing", "before chunking"])
def test_index_removes_a_file_deleted_during_the_run(
        tmp_path: Path, milvus: dict[str, str], model, monkeypatch: pytest.MonkeyPatch,
        when: str) -> None:
    from mdchunk.index import indexer

    from .conftest_milvus import write_corpus

    kb = write_corpus(tmp_path / "kb")
    _index(kb, milvus, model)
    kept = _manifest(milvus)
    page = kb / "docs/redis_memory.md"
    page.write_text("# Redis\n\nChanged, so that the run rewrites it.\n", encoding="utf-8")
    (kb / "new.md").write_text(GOOD, encoding="utf-8")
    stage = "discover" if when == "before hashing" else "plan_index"
    real = getattr(indexer, stage)

    def then_delete(*args, **kwargs):
        result = real(*args, **kwargs)
        page.unlink()
        (kb / "new.md").unlink()
        return result

    monkeypatch.setattr(indexer, stage, then_delete)
    report = _index(kb, milvus, model)
    assert report.failed == [
        f"{page}: cannot read: no such file or directory; removed from the index, as a deleted "
        "file is",
        f"{kb / 'new.md'}: cannot read: no such file or directory; not indexed"]
    assert report.deleted == 1
    manifest = _manifest(milvus)
    assert set(manifest) == set(kept) - {"docs/redis_memory.md"}
    monkeypatch.undo()
    assert _index(kb, milvus, model).unchanged == len(manifest)


@pytest.mark.slow
def test_a_pending_entry_of_a_bad_file_is_removed(tmp_path: Path, milvus: dict[str, str],
                                                  model) -> None:
    from mdchunk.index.milvus import MilvusStore
    from mdchunk.index.store import ManifestEntry

    from .conftest_milvus import write_corpus

    kb = write_corpus(tmp_path / "kb")
    _index(kb, milvus, model)
    with MilvusStore(milvus["db"], milvus["collection"]) as store:  # as an interrupted run leaves
        entry = store.manifest.entries()["docs/redis_memory.md"]
        store.manifest.put([ManifestEntry(entry.doc_id, "", entry.config, 0, entry.path)])
    (kb / "docs/redis_memory.md").write_bytes(b"\x00binary now")
    report = _index(kb, milvus, model)
    assert report.failed == [f"{kb / 'docs/redis_memory.md'}: looks binary (NUL bytes), not "
                             "Markdown or text; its rows, left half-written by an interrupted "
                             "run, were removed"]
    assert "docs/redis_memory.md" not in _manifest(milvus)


@pytest.mark.slow
def test_index_cli_names_each_bad_file_and_exits_1(tmp_path: Path) -> None:
    bad_files(tmp_path / "kb")
    result = runner.invoke(app, ["index", str(tmp_path / "kb"), "--db", str(tmp_path / "kb.db")])
    assert result.exit_code == 1, result.output
    assert "added 4, updated 0, deleted 0, unchanged 0 documents" in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 4 and all(line.endswith("; not indexed") for line in lines[:3])
    assert lines[0].startswith(f"mdchunk: error: {tmp_path / 'kb' / 'binary.md'}: looks binary")
    assert lines[-1] == ("mdchunk: error: 3 of 7 files failed (each named above); "
                         "the other 4 were indexed")
    assert "Traceback" not in result.output


def test_empty_and_blank_input_give_no_chunks() -> None:
    assert chunk_markdown("") == [] and chunk_markdown(" \n\t\n") == []
