"""Incremental indexing and search end to end, with the bundled model and real Milvus (a Lite
file and a ``milvus-lite server``): what is embedded, what survives a crash, what is found."""

from __future__ import annotations

import logging
import re
import shutil
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mdchunk import Chunker
from mdchunk.errors import ConfigError, InputError, StoreError
from mdchunk.index import (
    chunker_config,
    config_fingerprint,
    detect_analyzer,
    index_config,
    index_paths,
    search,
)
from mdchunk.index.milvus import MilvusStore
from mdchunk.index.milvus.manifest import MilvusManifest
from mdchunk.index.rows import embed_hash
from mdchunk.index.store import SCHEMA_VERSION, IndexMeta, ManifestEntry
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


def snapshot(milvus: dict[str, str]) -> tuple[dict, dict, dict]:
    """Every chunk row (vectors rounded: batching may move the last bits), manifest entry and
    parent row; checks that they agree: the manifest counts each document's leaves, every
    parent a row points to is stored, and every parent's child_count is the rows pointing to
    it."""
    fields = ("id", "doc_id", "path", "title", "section_path", "level", "parent_id", "start",
              "end", "line_start", "line_end", "token_count", "text", "content_hash", "dense")
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        store._load()  # a Lite file written by another process opens with its collections released
        rows = store.rows(fields)
        manifest = store.manifest.entries()
        parent_rows = store.parent_rows()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate chunk rows"
    by_id = {r["id"]: {**r, "dense": tuple(np.round(r["dense"], 4))} for r in rows}
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["doc_id"]] = counts.get(r["doc_id"], 0) + 1
    for doc_id, entry in manifest.items():  # the manifest agrees with the rows
        assert not entry.pending and entry.chunk_count == counts.get(doc_id, 0)
    assert set(counts) <= set(manifest), "chunks of a document the manifest does not know"
    parents = {r["id"]: r for r in parent_rows}
    assert len(parents) == len(parent_rows), "duplicate parent rows"
    children: dict[str, int] = {}
    for r in [*rows, *parent_rows]:
        if r["parent_id"]:
            assert r["parent_id"] in parents, f"{r['id']} points to a missing parent"
            assert parents[r["parent_id"]]["doc_id"] == r["doc_id"]
            assert parents[r["parent_id"]]["level"] == r["level"] - 1
            children[r["parent_id"]] = children.get(r["parent_id"], 0) + 1
    assert {i: p["child_count"] for i, p in parents.items()} == \
        {i: children.get(i, 0) for i in parents}, "child_count is the rows pointing to a parent"
    assert {p["doc_id"] for p in parent_rows} <= set(manifest), "parents of an unknown document"
    return (by_id, {d: (e.content_hash, e.config, e.chunk_count) for d, e in manifest.items()},
            parents)


def expected_leaves(model, path: Path, doc_id: str, **kwargs) -> list:
    """The leaves an index built with ``kwargs`` (default settings otherwise) holds for a file."""
    settings = {"max_tokens": 512, "overlap_tokens": 64, "tokenizer": None, **kwargs}
    config = index_config(model, **settings)
    return [c for c in Chunker(config).chunk_file(path, doc_id=doc_id)
            if c.level == len(config.levels)]


def expected_embed_texts(model, path: Path, doc_id: str) -> set[str]:
    return {c.embed_text for c in expected_leaves(model, path, doc_id)}


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
    before_ids = {c.id for c in expected_leaves(model, pg, "docs/postgres_replication.md")}
    pg.write_text(EDITED, encoding="utf-8")
    after = expected_embed_texts(model, pg, "docs/postgres_replication.md")
    after_ids = {c.id for c in expected_leaves(model, pg, "docs/postgres_replication.md")}
    third = index_paths([corpus], model=counting, **milvus)
    assert (third.updated, third.unchanged) == (1, len(CORPUS) - 1)
    assert set(counting.texts) == after - before and 0 < len(counting.texts) < len(after)
    assert third.reused_chunks == len(after & before)
    # rows whose id and fields are unchanged are kept, not rewritten; here the edit changed the
    # one parent above every leaf (and a leaf's id hashes its parent's), so none is kept:
    # test_unchanged_rows_are_kept_not_rewritten edits a document with several parents
    assert third.kept_chunks == len(before_ids & after_ids)
    assert third.kept_chunks + third.written_chunks == len(after)
    rows, _, _ = snapshot(milvus)
    assert {r["content_hash"] for r in rows.values() if r["doc_id"].startswith("docs/postgres")} \
        == {embed_hash(t) for t in after}

    # a deleted file's chunks are gone
    (corpus / "docs/redis_memory.md").unlink()
    fourth = index_paths([corpus], model=counting, **milvus)
    assert fourth.deleted == 1 and fourth.embedded_chunks == 0
    rows, manifest, _ = snapshot(milvus)
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


# -- the hierarchy --------------------------------------------------------------------------

LEVELS = (1024, 256, 128)  # on the corpus: a page, its sections, each section in two leaves


def expected_tree(model, kb: Path, **kwargs) -> tuple[dict, dict]:
    """Leaves and parents (by id) of every corpus file, as an index with ``kwargs`` holds them."""
    config = index_config(model, **{"max_tokens": 512, "overlap_tokens": 64, "tokenizer": None,
                                    **kwargs})
    chunker = Chunker(config)
    chunks = [c for s in discover([kb]) for c in chunker.chunk_file(s.file, doc_id=s.doc_id)]
    leaves = {c.id: c for c in chunks if c.level == len(config.levels)}
    return leaves, {c.id: c for c in chunks if c.level < len(config.levels)}


def test_default_levels_grow_from_the_leaf_budget(model) -> None:
    config = index_config(model, max_tokens=512, overlap_tokens=64, tokenizer=None)
    leaf = model.max_tokens  # 512 capped at the model's window
    assert config.levels == (16 * leaf, 4 * leaf, leaf) and config.max_tokens == leaf
    assert index_config(model, max_tokens=128, overlap_tokens=16,
                        tokenizer=None).levels == (2048, 512, 128)
    assert index_config(model, max_tokens=512, overlap_tokens=64, tokenizer=None,
                        levels=[512, 128]).levels == (512, 128)
    # a named tokenizer keeps its budget (its leaves are checked against the window instead)
    assert index_config(model, max_tokens=512, overlap_tokens=64,
                        tokenizer="cl100k_base").levels == (8192, 2048, 512)


def test_levels_over_the_model_window_are_refused(tmp_path: Path, model) -> None:
    kb = write_corpus(tmp_path / "kb", {"a.md": "# A\n\nText.\n"})
    with pytest.raises(ConfigError) as err:
        index_paths([kb], db=str(tmp_path / "x.db"), model=model, levels=(2048, 512))
    message = str(err.value)
    assert "512" in message and f"window of {model.max_tokens}" in message.replace(
        f"{model.max_tokens}-token window", f"window of {model.max_tokens}")
    assert "\n" not in message
    for bad, words in [((128, 512), "decrease strictly"), ((256, 8), "too small"),
                       ((256, "x"), "must be an integer")]:
        with pytest.raises(ConfigError, match=words):  # checked before connecting
            index_paths([kb], db="http://127.0.0.1:9", model=model, levels=bad)


def test_an_index_of_an_older_schema_is_rebuilt(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """A collection written before parents existed (schema 1) matches in everything else; the
    next run rebuilds it instead of calling it foreign, and search refuses it until then."""
    kb = write_corpus(tmp_path / "kb", {"a.md": "# A\n\nSome text about replicas.\n"})
    emb, db = HashEmbedder(), str(tmp_path / "old.db")
    config = index_config(emb, max_tokens=512, overlap_tokens=64, tokenizer=None)
    old = IndexMeta(emb.name, emb.dim, config_fingerprint(config, emb), "standard", schema="1")
    with MilvusStore(db, "kb") as store:
        store.open(old)
        store.manifest.put([ManifestEntry("a.md", "stale", old.config, 1, "a.md")])
    with pytest.raises(StoreError, match="schema 1"):
        search("replicas", db=db, collection="kb", mode="bm25")
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        report = index_paths([kb], db=db, collection="kb", model=emb, analyzer="standard")
    assert report.rebuilt and report.added == 1 and "schema: 1 -> " + SCHEMA_VERSION in caplog.text
    hits = search("replicas", db=db, collection="kb", mode="bm25", expand="parent")
    assert [h.doc_id for h in hits] == ["a.md"]


def test_only_leaves_are_embedded_and_parents_are_stored(corpus: Path, milvus: dict[str, str],
                                                         model) -> None:
    counting = CountingEmbedder(model)
    report = index_paths([corpus], model=counting, levels=LEVELS, **milvus)
    leaves, parents = expected_tree(model, corpus, levels=LEVELS)
    assert report.levels == LEVELS and report.max_tokens == LEVELS[-1]
    assert {c.level for c in leaves.values()} == {3} and {1, 2} == {c.level for c in
                                                                    parents.values()}
    assert len(leaves) > len(parents) > len(CORPUS)  # a real three-level tree
    # only leaves are embedded and written to the chunk collection
    assert set(counting.texts) == {c.embed_text for c in leaves.values()}
    rows, _, stored = snapshot(milvus)
    assert set(rows) == set(leaves) and set(stored) == set(parents)
    assert report.written_chunks == len(leaves) and report.written_parents == len(parents)
    for i, row in rows.items():
        assert row["parent_id"] == leaves[i].parent_id and row["text"] == leaves[i].text
    for i, row in stored.items():
        chunk = parents[i]
        assert (row["level"], row["parent_id"] or None, row["start"], row["end"], row["text"],
                row["line_start"], row["line_end"], row["section_path"]) == \
            (chunk.level, chunk.parent_id, chunk.start, chunk.end, chunk.text, chunk.line_start,
             chunk.line_end, chunk.section_path)
        assert row["child_count"] == sum(1 for c in [*leaves.values(), *parents.values()]
                                         if c.parent_id == i) >= 1
    assert max(r["child_count"] for r in stored.values()) >= 2


def test_reindex_replaces_parents_and_deleting_a_file_removes_them(
        corpus: Path, milvus: dict[str, str], model) -> None:
    index_paths([corpus], model=model, levels=LEVELS, **milvus)
    _, old_parents = expected_tree(model, corpus, levels=LEVELS)
    (corpus / "docs/postgres_replication.md").write_text(EDITED, encoding="utf-8")
    report = index_paths([corpus], model=model, levels=LEVELS, **milvus)
    leaves, parents = expected_tree(model, corpus, levels=LEVELS)
    rows, _, stored = snapshot(milvus)
    assert set(rows) == set(leaves) and set(stored) == set(parents)  # nothing stale is left
    gone = set(old_parents) - set(parents)
    assert gone and all(old_parents[i].doc_id == "docs/postgres_replication.md" for i in gone)
    assert report.removed_parents == len(gone)
    assert report.written_parents == len(set(parents) - set(old_parents))
    edited = {i for i, c in parents.items() if c.doc_id == "docs/postgres_replication.md"}
    assert report.kept_parents == len(edited & set(old_parents))  # counted for written docs

    (corpus / "docs/redis_memory.md").unlink()
    index_paths([corpus], model=model, levels=LEVELS, **milvus)
    rows, _, stored = snapshot(milvus)
    assert all(r["doc_id"] != "docs/redis_memory.md" for r in [*rows.values(), *stored.values()])
    assert set(stored) == set(expected_tree(model, corpus, levels=LEVELS)[1])


def test_unchanged_rows_are_kept_not_rewritten(corpus: Path, milvus: dict[str, str],
                                               model) -> None:
    """With one parent a section, an edit in the middle section leaves the first section's
    parent and leaves as they were stored: they are neither rewritten nor re-embedded."""
    levels = (256, 128)
    index_paths([corpus], model=model, levels=levels, **milvus)
    pg = corpus / "docs/postgres_replication.md"
    doc = "docs/postgres_replication.md"
    before = expected_leaves(model, pg, doc, levels=levels)
    pg.write_text(EDITED, encoding="utf-8")
    after = expected_leaves(model, pg, doc, levels=levels)
    counting = CountingEmbedder(model)
    report = index_paths([corpus], model=counting, levels=levels, **milvus)
    kept = {c.id for c in before} & {c.id for c in after}
    assert report.kept_chunks == len(kept) >= 1
    assert report.written_chunks == len(after) - len(kept)
    assert report.kept_parents >= 1 and report.removed_parents >= 1
    assert set(counting.texts) == {c.embed_text for c in after} - {c.embed_text for c in before}


# -- interruption ---------------------------------------------------------------------------

CRASHES = [("embed", 0), ("embed", 2), ("upsert_chunks", 1), ("upsert_chunks", 3),
           ("delete_chunks", 1), ("manifest.put", 1), ("manifest.put", 3), ("delete_doc", 0),
           ("upsert_parents", 1), ("delete_parents", 0), ("delete_parents", 2)]


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
        rows, manifest, parents = snap
        return ({i: {**r, "path": r["path"].replace(root.as_posix(), "<kb>"),
                     "dense": None} for i, r in rows.items()}, manifest,
                {i: {**r, "path": r["path"].replace(root.as_posix(), "<kb>")}
                 for i, r in parents.items()})

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


def assert_hits_point_into_the_corpus(hits, k: int) -> None:
    """Every hit, not only the first: at most ``k``, best first, each once, and each one's
    text, offsets and lines are those of its document in the corpus."""
    assert len(hits) <= k and len({h.id for h in hits}) == len(hits)
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    for hit in hits:
        source = CORPUS[hit.doc_id]
        assert hit.text and hit.text == source[hit.start:hit.end], hit.id
        assert hit.line_start == source.count("\n", 0, hit.start) + 1, hit.id
        assert hit.line_end == source.count("\n", 0, hit.end - 1) + 1, hit.id  # its last character's


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_search_finds_the_expected_document(indexed: dict[str, str], mode: str) -> None:
    for query, expected in QUERIES:
        hits = search(query, mode=mode, k=3, **indexed)
        assert hits, (mode, query)
        assert hits[0].doc_id == expected, (mode, query, [h.doc_id for h in hits])
        assert_hits_point_into_the_corpus(hits, 3)


def test_search_hit_fields_and_path_prefix(indexed: dict[str, str]) -> None:
    hits = search("pg_ctl promote the standby", k=5, **indexed)
    top = hits[0]
    assert top.doc_id == "docs/postgres_replication.md"
    assert top.title == "PostgreSQL replication" and top.section_path.endswith("Failover")
    assert "pg_ctl promote" in top.text
    assert_hits_point_into_the_corpus(hits, 5)
    for hit in (h for h in hits if h.doc_id.endswith(".md")):  # every hit's, not only the top's
        title = re.search(r"^# (.+)$", CORPUS[hit.doc_id], re.MULTILINE).group(1)
        assert hit.path.endswith(hit.doc_id) and hit.leaf_ids == (hit.id,), hit.id
        assert hit.title == title and hit.section_path.split(" > ")[0] == title, hit.id
    assert all(h.doc_id.startswith("zh/") for h in search("standby", path_prefix="zh/", **indexed))
    notes = search("certificate", path_prefix="notes/a_b%", mode="bm25", **indexed)
    assert [h.doc_id for h in notes] == ["notes/a_b%c.txt"]
    assert search("certificate", path_prefix="notes/a_bx", mode="bm25", **indexed) == []
    weighted = search("pg_ctl promote the standby", weights=(0.7, 0.3), **indexed)
    assert weighted[0].doc_id == "docs/postgres_replication.md"


def leaf_texts(milvus: dict[str, str]) -> dict[str, str]:
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        return {r["id"]: r["text"] for r in store.rows(("id", "text"))}


def assert_marks_are_the_leaves(hits, leaves: dict[str, str]) -> None:
    for hit in hits:
        assert hit.leaf_ids and len(hit.marks) == len(hit.leaf_ids)
        for (a, b), leaf in zip(hit.marks, hit.leaf_ids):
            assert hit.text[a:b] == leaves[leaf], (hit.id, leaf)


def test_search_expand_parent(corpus: Path, milvus: dict[str, str], model) -> None:
    index_paths([corpus], model=model, levels=LEVELS, **milvus)
    leaves = leaf_texts(milvus)
    query = "pg_ctl promote the standby"
    plain = search(query, k=3, **milvus)
    assert [h.level for h in plain] == [3, 3, 3]
    assert all(h.marks == ((0, len(h.text)),) and h.leaf_ids == (h.id,) for h in plain)
    assert search(query, k=3, expand="none", **milvus) == plain  # the default
    for mode in ("hybrid", "bm25"):
        pool = search(query, k=9, mode=mode, **milvus)  # the 3k leaves "parent" starts from
        hits = search(query, k=3, mode=mode, expand="parent", **milvus)
        assert len(hits) == 3 and len({h.id for h in hits}) == 3  # deduplicated, k remain
        assert all(h.level == 2 for h in hits)
        assert_marks_are_the_leaves(hits, leaves)
        # each parent holds the pool's leaves under it, at the best one's score and rank
        expected: dict[str, list] = {}
        for leaf in pool:
            expected.setdefault(leaf.parent_id, []).append(leaf)
        assert [h.id for h in hits] == list(expected)[:3]
        for hit in hits:
            under = expected[hit.id]
            assert hit.score == pytest.approx(max(h.score for h in under))
            assert set(hit.leaf_ids) == {h.id for h in under}
            assert hit.line_start <= min(h.line_start for h in under)
        assert hits[0].doc_id == "docs/postgres_replication.md"
        assert "pg_ctl promote" in hits[0].text


def test_search_expand_auto_merges_at_the_ratio(tmp_path: Path, milvus: dict[str, str],
                                                model) -> None:
    """Two sections, Alpha in two leaves and Beta in three; BM25 finds exactly the leaves that
    hold the query's rare word. One leaf of two merges into its parent, one of three does not,
    two of three do."""
    def para(topic: str, extra: str = "") -> str:
        return (f"The {topic} service keeps its state on local disk and replicates it to two "
                f"peers. {extra}When a peer falls behind, the operator checks the replication "
                "log, compares the offsets and restarts the lagging peer only after the leader "
                "has written a snapshot. Every restart is recorded in the change calendar.")

    guide = ("# Storage guide\n\n## Alpha\n\n" + para("alpha", "Zebrafish counters live here. ")
             + "\n\n" + para("alpha-two") + "\n\n## Beta\n\n"
             + para("beta", "Zebrafish and quokka gauges live here. ") + "\n\n"
             + para("beta-two", "Quokka alarms fire here. ") + "\n\n" + para("beta-three") + "\n")
    kb = write_corpus(tmp_path / "kb", {"guide.md": guide})
    levels = (300, 120)
    index_paths([kb], model=model, levels=levels, overlap_tokens=0, **milvus)
    leaves, parents = expected_tree(model, kb, levels=levels, overlap_tokens=0)
    alpha, beta = sorted(parents.values(), key=lambda c: c.start)
    under = {p.id: sorted((c for c in leaves.values() if c.parent_id == p.id),
                          key=lambda c: c.start) for p in (alpha, beta)}
    assert [len(under[alpha.id]), len(under[beta.id])] == [2, 3]  # the case as built
    a1, b1, b2 = under[alpha.id][0], under[beta.id][0], under[beta.id][1]
    texts = {i: c.text for i, c in leaves.items()}

    zebra = search("zebrafish", mode="bm25", k=2, **milvus)
    assert {h.id for h in zebra} == {a1.id, b1.id}  # the only leaves with the word
    merged = search("zebrafish", mode="bm25", k=2, expand="auto", **milvus)
    by_id = {h.id: h for h in merged}
    assert set(by_id) == {alpha.id, b1.id}  # 1 of 2 >= 0.5 merges; 1 of 3 does not
    assert by_id[alpha.id].level == 1 and by_id[alpha.id].text == alpha.text
    assert by_id[alpha.id].leaf_ids == (a1.id,) and by_id[b1.id].level == 2
    assert by_id[alpha.id].score == pytest.approx(next(h.score for h in zebra if h.id == a1.id))
    assert_marks_are_the_leaves(merged, texts)

    quokka = search("quokka", mode="bm25", k=2, expand="auto", **milvus)
    assert [(h.id, h.leaf_ids) for h in quokka] == [(beta.id, (b1.id, b2.id))]  # 2 of 3
    assert (quokka[0].line_start, quokka[0].line_end) == (beta.line_start, beta.line_end)
    assert_marks_are_the_leaves(quokka, texts)
    parent = search("quokka", mode="bm25", k=2, expand="parent", **milvus)
    assert [h.id for h in parent] == [beta.id]


def test_one_level_index_hits_are_their_own_parents(corpus: Path, milvus: dict[str, str],
                                                    model) -> None:
    index_paths([corpus], model=model, levels=(200,), **milvus)
    rows, _, parents = snapshot(milvus)
    assert parents == {} and {r["level"] for r in rows.values()} == {1}
    # expanding starts from 3k leaves: with none to merge, the best k of them
    plain = search("redis evicts keys at maxmemory", k=9, **milvus)[:3]
    for expand in ("parent", "auto"):
        assert search("redis evicts keys at maxmemory", k=3, expand=expand, **milvus) == plain


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
    from mdchunk.index.milvus import MilvusStore

    empty = str(tmp_path / "empty.db")
    with pytest.raises(StoreError, match="empty.db: no index here"):  # and none made (issue 43)
        search("x", db=empty, collection="nope", mode="bm25")
    assert not (tmp_path / "empty.db").exists()
    MilvusStore(empty).close()  # an index file with no collection in it
    with pytest.raises(StoreError, match="no collection 'nope'"):
        search("x", db=empty, collection="nope", mode="bm25")
    with pytest.raises(ConfigError, match="mode="):
        search("x", db=str(tmp_path / "empty.db"), mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="k=0"):
        search("x", db=str(tmp_path / "empty.db"), k=0)
    with pytest.raises(ConfigError, match="expand='wide' must be 'none', 'parent' or 'auto'"):
        search("x", db=str(tmp_path / "empty.db"), expand="wide")  # type: ignore[arg-type]


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


def test_urls_and_anchors_are_stored_and_returned(corpus: Path, milvus: dict[str, str],
                                                  model) -> None:
    """With a base_url and a site, every row keeps its chunk's url and anchor, and search (plain
    and expanded) returns them: a hit links back to its place on the site."""
    base = "https://runbooks.example.com"
    index_paths([corpus], model=model, levels=LEVELS, base_url=base, site="mkdocs", **milvus)
    config = index_config(model, max_tokens=512, overlap_tokens=64, tokenizer=None, levels=LEVELS)
    chunker = Chunker(replace(config, base_url=base, site="mkdocs"))
    chunks = {c.id: c for s in discover([corpus])
              for c in chunker.chunk_file(s.file, doc_id=s.doc_id)}
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        rows = store.rows(("id", "url", "anchor")) + store.parent_rows(("id", "url", "anchor"))
    assert len(rows) == len(chunks)
    for row in rows:
        chunk = chunks[row["id"]]
        assert row["url"] == (chunk.url or "") and row["anchor"] == (chunk.anchor or "")
    assert all(row["url"].startswith(base + "/") for row in rows)
    for expand in ("none", "parent"):
        (hit,) = search("pg_ctl promote the standby", k=1, expand=expand, **milvus)
        assert hit.url == chunks[hit.id].url and hit.anchor == chunks[hit.id].anchor
        assert hit.url.startswith(base + "/postgres_replication/#")  # mkdocs: docs/ dropped


def test_bm25_reads_the_text_after_hygiene(tmp_path: Path, milvus: dict[str, str], model) -> None:
    """Issue 15: a zero-width space or a soft hyphen inside a word, as Windows exports leave
    them, neither splits nor hides the word from BM25, in the stored text or in the query; the
    hit's text stays verbatim."""
    kb = write_corpus(tmp_path / "kb", {
        "reset.md": "# Reset\n\nThe pass\u200bword reset needs the ad\u00admin console.\n",
        "other.md": "# Other\n\nNothing about accounts here, only disks and pools.\n"})
    index_paths([kb], model=model, **milvus)
    for query in ("password", "admin console", "pass\u200bword"):
        hits = search(query, mode="bm25", k=1, **milvus)
        assert [h.doc_id for h in hits] == ["reset.md"], query
    assert "pass\u200bword" in search("password", mode="bm25", k=1, **milvus)[0].text
