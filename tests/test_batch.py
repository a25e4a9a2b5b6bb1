"""mdchunk.sources.batch.chunk_paths: same chunks with one or two workers, input order kept, bad files named."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from mdchunk import Chunker, ChunkerConfig, InputError
from mdchunk.sources import batch
from mdchunk.sources.batch import chunk_paths

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CONFIG = ChunkerConfig(max_tokens=128, overlap_tokens=16)


@pytest.fixture()
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Fixture files plus many small ones; small tasks, so that two workers get several each."""
    monkeypatch.setattr(batch, "_TASK_BYTES", 4096)
    paths = sorted(p for p in FIXTURES.iterdir() if p.is_file())  # not fixtures/includes
    for i in range(40):
        small = tmp_path / "small" / f"note-{i:02d}.md"
        small.parent.mkdir(exist_ok=True)
        small.write_text(f"# Note {i}\n\n" + "Some words here. " * (i * 7 + 1) + "\n\n- a\n- b\n",
                         encoding="utf-8")
        paths.append(small)
    # larger than a task on its own, placed between small files
    big = tmp_path / "big.md"
    big.write_text(("## Part\n\n" + "A sentence of prose. " * 100 + "\n\n") * 8, encoding="utf-8")
    paths.insert(len(paths) // 2, big)
    return paths


def _flatten(results):
    return [(p, [c.to_dict() for c in chunks]) for p, chunks in results]


def test_workers_give_same_chunks_in_input_order(corpus: list[Path]) -> None:
    one = _flatten(chunk_paths(corpus, CONFIG, workers=1))
    two = _flatten(chunk_paths(iter(corpus), CONFIG, workers=2))
    assert [p for p, _ in one] == corpus
    assert [p for p, _ in two] == corpus
    assert one == two


def test_matches_chunker_and_doc_id_is_relative_to_root(corpus: list[Path]) -> None:
    root = FIXTURES.parent
    fixture = corpus[0]
    [(path, chunks)] = list(chunk_paths([fixture], CONFIG, workers=2, root=root))
    expected = Chunker(CONFIG).chunk_file(fixture, doc_id=fixture.relative_to(root).as_posix())
    assert path == fixture
    assert chunks == expected
    assert {c.doc_id for c in chunks} == {f"fixtures/{fixture.name}"}


def test_doc_id_function_sets_ids_as_one_worker_would(corpus: list[Path]) -> None:
    names = {p: f"kb/{i}-{p.name}" for i, p in enumerate(corpus[:6])}
    two = list(chunk_paths(corpus[:6], CONFIG, workers=2, doc_id=names.__getitem__))
    chunker = Chunker(CONFIG)
    for path, chunks in two:
        assert chunks == chunker.chunk_file(path, doc_id=names[path])


@pytest.mark.parametrize("workers", [1, 2])
def test_invalid_file_reports_its_name_after_earlier_files(corpus: list[Path], tmp_path: Path,
                                                           workers: int) -> None:
    bad = tmp_path / "broken.md"
    bad.write_bytes(b"# Title\n\n\xff\xfe not utf-8\n")
    paths = [*corpus[:5], bad, *corpus[5:]]
    seen: list[Path] = []
    with pytest.raises(InputError, match="broken.md"):
        for path, _ in chunk_paths(paths, CONFIG, workers=workers):
            seen.append(path)
    assert seen == corpus[:5]


def test_missing_file_reports_its_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nowhere.md"):
        list(chunk_paths([tmp_path / "nowhere.md"], CONFIG, workers=2))


def test_bad_front_matter_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "meta.md"
    bad.write_text("---\ntitle: [unclosed\n---\n\n# T\n\nBody.\n", encoding="utf-8")
    with pytest.raises(InputError, match="meta.md"):
        list(chunk_paths([bad], CONFIG, workers=2, root=tmp_path))


def test_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="workers"):
        list(chunk_paths([], CONFIG, workers=0))


def test_stopping_early_shuts_the_pool_down(corpus: list[Path]) -> None:
    before = set(multiprocessing.active_children())
    results = chunk_paths(corpus, CONFIG, workers=2)
    first = next(results)
    assert set(multiprocessing.active_children()) - before, "the pool's workers are running"
    results.close()  # cancels pending tasks and joins the workers without hanging
    assert first[0] == corpus[0]
    assert set(multiprocessing.active_children()) - before == set(), "its workers are joined"
    with pytest.raises(StopIteration):
        next(results)
