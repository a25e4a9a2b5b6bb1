"""Incremental indexing and search end to end, with the bundled model and real Milvus (a Lite
file and a ``milvus-lite server``): what is embedded, what survives a crash, what is found."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from mdchunk import Chunker
from mdchunk.errors import ConfigError, InputError, StoreError
from mdchunk.index import (
    chunker_config,
    config_fingerprint,
    detect_analyzer,
    index_paths,
    search,
)
from mdchunk.index.milvus import MilvusManifest, MilvusStore
from mdchunk.index.store import embed_hash
from mdchunk.sources import discover

from .conftest_milvus import (
    CORPUS,
    CountingEmbedder,
    HashEmbedder,
    free_port,
    write_corpus,
)

pytestmark = pytest.mark.slow

EDITED = CORPUS["docs/postgres_replication.md"].replace(
    "Promote the standby with pg_ctl promote", "Promote the standby with pg_ctl promote -w")


def snapshot(milvus: dict[str, str]) -> tuple[dict, dict]:
    """Every chunk row (vectors rounded: batching may move the last bits) and manifest entry."""
    fields = ("id", "doc_id", "path", "title", "section_path", "start", "end", "line_start",
              "line_end", "token_count", "text", "content_hash", "dense")
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        rows = store.rows(fields)
        manifest = store.manifest.entries()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate chunk rows"
    by_id = {r["id"]: {**r, "dense": tuple(np.round(r["dense"], 4))} for r in rows}
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["doc_id"]] = counts.get(r["doc_id"], 0) + 1
    for doc_id, entry in manifest.items():  # the manifest agrees with the rows
        assert not entry.pending and entry.chunk_count == counts.get(doc_id, 0)
    assert set(counts) <= set(manifest), "chunks of a document the manifest does not know"
    return by_id, {d: (e.content_hash, e.config, e.chunk_count) for d, e in manifest.items()}


def expected_embed_texts(model, path: Path, doc_id: str) -> set[str]:
    config = chunker_config(model, max_tokens=512, overlap_tokens=64, tokenizer=None)
    return {c.embed_text for c in Chunker(config).chunk_file(path, doc_id=doc_id)}


# -- discovery and configuration ------------------------------------------------------------

def test_discover_ids_paths_and_skips(tmp_path: Path) -> None:
    kb = write_corpus(tmp_path / "kb")
    (kb / ".git").mkdir()
    (kb / ".git" / "notes.md").write_text("# hidden\n")
    (kb / "image.png").write_bytes(b"\x89PNG")
    sources = discover([kb])
    assert [s.doc_id for s in sources] == sorted(CORPUS)
    assert sources[0].path == f"{kb.as_posix()}/{sources[0].doc_id}"
    single = discover([kb / "zh" / "cpu_load.md"])
    assert [(s.doc_id, s.path) for s in single] == [("cpu_load.md", (kb / "zh/cpu_load.md").as_posix())]
    with pytest.raises(InputError, match="no such file"):
        discover([tmp_path / "missing"])
    other = write_corpus(tmp_path / "other", {"docs/redis_memory.md": "# Other\n"})
    with pytest.raises(InputError, match="same document id 'docs/redis_memory.md'"):
        discover([kb, other])


def test_detect_analyzer(tmp_path: Path) -> None:
    en = write_corpus(tmp_path / "en", {k: v for k, v in CORPUS.items() if not k.startswith("zh")})
    assert detect_analyzer(discover([en])) == "standard"
    assert detect_analyzer(discover([write_corpus(tmp_path / "all")])) == "jieba"


def test_model_window_caps_the_budget(model, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="mdchunk.index"):
        config = chunker_config(model, max_tokens=512, overlap_tokens=64, tokenizer=None)
    assert config.max_tokens == model.max_tokens and config.tokenizer == model.tokenizer
    assert "chunking to 254 of its own tokens" in caplog.text
    assert chunker_config(model, max_tokens=128, overlap_tokens=16, tokenizer=None).max_tokens == 128
    # the fingerprint names the model, not the machine-specific path of its tokenizer
    renamed = CountingEmbedder(model)
    renamed.tokenizer = "/elsewhere/model"
    assert config_fingerprint(config, model) == config_fingerprint(
        chunker_config(renamed, max_tokens=512, overlap_tokens=64, tokenizer=None), renamed)


def test_foreign_tokenizer_chunks_over_the_window_are_refused(tmp_path: Path, model) -> None:
    long = "# Big\n\n" + " ".join(f"Sentence {i} explains one more configuration knob."
                                  for i in range(200))
    kb = write_corpus(tmp_path / "kb", {"big.md": long})
    with pytest.raises(ConfigError, match=r"big.md:\d+: a chunk of \d+ .* exceeds"):
        index_paths([kb], db=str(tmp_path / "x.db"), model=model, tokenizer="cl100k_base",
                    max_tokens=512, overlap_tokens=0)


# -- incremental behaviour ------------------------------------------------------------------

def test_incremental_runs(corpus: Path, milvus: dict[str, str], model,
                          caplog: pytest.LogCaptureFixture) -> None:
    counting = CountingEmbedder(model)
    first = index_paths([corpus], model=counting, **milvus)
    assert (first.added, first.updated, first.deleted, first.unchanged) == (len(CORPUS), 0, 0, 0)
    assert first.analyzer == "jieba" and first.max_tokens == model.max_tokens
    total = first.written_chunks
    assert first.embedded_chunks == len(set(counting.texts)) == total > len(CORPUS)
    clean = snapshot(milvus)

    counting.texts.clear()
    second = index_paths([corpus], model=counting, **milvus)
    assert (second.added, second.updated, second.unchanged, second.embedded_chunks) == \
        (0, 0, len(CORPUS), 0)
    assert counting.texts == [] and snapshot(milvus) == clean

    # one section of one file changes: only that file's new chunks are embedded
    pg = corpus / "docs/postgres_replication.md"
    before = expected_embed_texts(model, pg, "docs/postgres_replication.md")
    pg.write_text(EDITED, encoding="utf-8")
    after = expected_embed_texts(model, pg, "docs/postgres_replication.md")
    third = index_paths([corpus], model=counting, **milvus)
    assert (third.updated, third.unchanged) == (1, len(CORPUS) - 1)
    assert set(counting.texts) == after - before and 0 < len(counting.texts) < len(after)
    assert third.reused_chunks == len(after & before)
    # rows whose id and fields are unchanged are kept, not rewritten
    assert third.kept_chunks >= 1 and third.kept_chunks + third.written_chunks == len(after)
    rows, _ = snapshot(milvus)
    assert {r["content_hash"] for r in rows.values() if r["doc_id"].startswith("docs/postgres")} \
        == {embed_hash(t) for t in after}

    # a deleted file's chunks are gone
    (corpus / "docs/redis_memory.md").unlink()
    fourth = index_paths([corpus], model=counting, **milvus)
    assert fourth.deleted == 1 and fourth.embedded_chunks == 0
    rows, manifest = snapshot(milvus)
    assert "docs/redis_memory.md" not in manifest
    assert all(r["doc_id"] != "docs/redis_memory.md" for r in rows.values())

    # a changed chunker config rebuilds the collection, and says so
    counting.texts.clear()
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        fifth = index_paths([corpus], model=counting, max_tokens=128, overlap_tokens=16, **milvus)
    assert fifth.rebuilt and "rebuilding collection" in caplog.text
    assert fifth.added == len(CORPUS) - 1 and fifth.embedded_chunks == fifth.written_chunks
    assert max(r["token_count"] for r in snapshot(milvus)[0].values()) <= 128


def test_prune_false_keeps_documents_not_given(corpus: Path, milvus: dict[str, str], model) -> None:
    index_paths([corpus], model=model, **milvus)
    report = index_paths([corpus / "zh"], model=model, prune=False, **milvus)
    assert report.deleted == 0
    assert len(snapshot(milvus)[1]) == len(CORPUS) + 2  # zh files also under their own ids


# -- interruption ---------------------------------------------------------------------------

CRASHES = [("embed", 0), ("embed", 2), ("upsert_chunks", 1), ("upsert_chunks", 3),
           ("delete_chunks", 1), ("manifest.put", 1), ("manifest.put", 3), ("delete_doc", 0)]


def _crash_on(monkeypatch: pytest.MonkeyPatch, method: str, after: int) -> None:
    """Make ``MilvusStore.<method>`` (or ``MilvusManifest.<method>`` for ``manifest.<method>``)
    raise on its call number ``after`` (0-based)."""
    owner: type = MilvusStore
    if method.startswith("manifest."):
        owner, method = MilvusManifest, method.removeprefix("manifest.")
    original = getattr(owner, method)
    calls = {"n": 0}

    def flaky(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] > after:
            raise KeyboardInterrupt(f"simulated crash in {method}")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, method, flaky)


def _edit(kb: Path) -> None:
    """An edit that updates, deletes and adds documents."""
    (kb / "docs/postgres_replication.md").write_text(EDITED, encoding="utf-8")
    (kb / "docs/redis_memory.md").unlink()
    (kb / "ops/k8s_pods.md").write_text(CORPUS["ops/k8s_pods.md"].replace("OOMKilled", "Evicted"))
    (kb / "new.md").write_text("# New page\n\nFresh content about backups and restores.\n")


@pytest.mark.parametrize(("method", "after"), CRASHES)
@pytest.mark.parametrize("stage", ["first", "update"])
def test_interrupted_run_then_rerun_equals_clean_run(
        tmp_path: Path, milvus: dict[str, str], model, monkeypatch: pytest.MonkeyPatch,
        stage: str, method: str, after: int) -> None:
    kb = write_corpus(tmp_path / "kb")
    if stage == "update":
        index_paths([kb], model=model, batch_chunks=2, **milvus)
        _edit(kb)
    with monkeypatch.context() as patch:
        embedder = model
        if method == "embed":
            embedder = CountingEmbedder(model, fail_after=after)
        else:
            _crash_on(patch, method, after)
        try:
            index_paths([kb], model=embedder, batch_chunks=2, **milvus)
        except (KeyboardInterrupt, RuntimeError):
            pass  # the crash; some steps may not be reached in a small stage
    index_paths([kb], model=model, batch_chunks=2, **milvus)
    rerun = snapshot(milvus)

    clean_kb = write_corpus(tmp_path / "clean")
    clean_milvus = {"db": str(tmp_path / "clean.db"), "collection": "kb"}
    if stage == "update":
        index_paths([clean_kb], model=model, **clean_milvus)
        _edit(clean_kb)
    index_paths([clean_kb], model=model, **clean_milvus)
    clean = snapshot(clean_milvus)

    def comparable(snap, root: Path):
        rows, manifest = snap
        return ({i: {**r, "path": r["path"].replace(root.as_posix(), "<kb>"),
                     "dense": None} for i, r in rows.items()}, manifest)

    assert comparable(rerun, kb) == comparable(clean, clean_kb)
    for i, row in rerun[0].items():
        assert np.allclose(row["dense"], clean[0][i]["dense"], atol=1e-3)


# -- search ---------------------------------------------------------------------------------

QUERIES = [
    ("the standby falls behind the primary and WAL piles up", "docs/postgres_replication.md"),
    ("redis evicts keys at maxmemory", "docs/redis_memory.md"),
    ("服务器CPU负载过高", "zh/cpu_load.md"),
    ("磁盘空间不足 日志文件", "zh/disk_full.md"),
]


@pytest.fixture()
def indexed(corpus: Path, milvus: dict[str, str], model) -> dict[str, str]:
    index_paths([corpus], model=model, **milvus)
    return milvus


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_search_finds_the_expected_document(indexed: dict[str, str], mode: str) -> None:
    for query, expected in QUERIES:
        hits = search(query, mode=mode, k=3, **indexed)
        assert hits, (mode, query)
        assert hits[0].doc_id == expected, (mode, query, [h.doc_id for h in hits])
        assert hits[0].text and hits[0].line_start >= 1 and hits[0].line_end >= hits[0].line_start


def test_search_hit_fields_and_path_prefix(indexed: dict[str, str]) -> None:
    hits = search("pg_ctl promote the standby", k=5, **indexed)
    top = hits[0]
    assert top.doc_id == "docs/postgres_replication.md"
    assert top.title == "PostgreSQL replication" and top.section_path.endswith("Failover")
    assert "pg_ctl promote" in top.text
    assert all(h.doc_id.startswith("zh/") for h in search("standby", path_prefix="zh/", **indexed))
    notes = search("certificate", path_prefix="notes/a_b%", mode="bm25", **indexed)
    assert [h.doc_id for h in notes] == ["notes/a_b%c.txt"]
    assert search("certificate", path_prefix="notes/a_bx", mode="bm25", **indexed) == []
    weighted = search("pg_ctl promote the standby", weights=(0.7, 0.3), **indexed)
    assert weighted[0].doc_id == "docs/postgres_replication.md"


def test_model_mismatch_is_refused_and_index_untouched(indexed: dict[str, str], corpus: Path
                                                       ) -> None:
    before = snapshot(indexed)
    other = HashEmbedder(dim=16)
    with pytest.raises(StoreError) as err:
        search("replica lag", model=other, **indexed)
    assert "dim 384" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(StoreError, match="built differently"):
        index_paths([corpus], model=other, rebuild=False, **indexed)
    assert snapshot(indexed) == before
    assert search("replica lag", mode="bm25", **indexed)  # BM25 needs no model


def test_search_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no collection 'nope'"):
        search("x", db=str(tmp_path / "empty.db"), collection="nope", mode="bm25")
    with pytest.raises(ConfigError, match="mode="):
        search("x", db=str(tmp_path / "empty.db"), mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="k=0"):
        search("x", db=str(tmp_path / "empty.db"), k=0)


def test_unreachable_server(corpus: Path) -> None:
    uri = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    for call in (lambda: index_paths([corpus], db=uri, model=HashEmbedder()),
                 lambda: search("x", db=uri, mode="bm25")):
        with pytest.raises(StoreError) as err:
            call()
        assert uri in str(err.value) and "\n" not in str(err.value)
    assert time.monotonic() - started < 20


def test_db_file_is_portable_between_folders(corpus: Path, tmp_path: Path, model) -> None:
    """A Lite index copied elsewhere still knows its documents (nothing re-embedded)."""
    db = tmp_path / "a.db"
    index_paths([corpus], db=str(db), model=model)
    shutil.copytree(db, tmp_path / "b.db") if db.is_dir() else shutil.copy(db, tmp_path / "b.db")
    again = index_paths([corpus], db=str(tmp_path / "b.db"), model=model)
    assert again.embedded_chunks == 0 and again.unchanged == len(CORPUS)


def test_progress_reports_documents_and_embedded_chunks(tmp_path: Path, model) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\nSome text about topic {i}.\n")
    seen: list[tuple[int, int, str, int]] = []
    index_paths([docs], db=str(tmp_path / "p.db"), model=model,
                progress=lambda *args: seen.append(args))
    assert [s[:2] for s in seen] == [(1, 3), (2, 3), (3, 3)]
    assert seen[-1][3] == 3 and {s[2] for s in seen} == {"d0.md", "d1.md", "d2.md"}
