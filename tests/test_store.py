"""The Milvus store on a real Milvus Lite file and a real ``milvus-lite server``: schema, BM25
with the standard and jieba analyzers, recorded metadata and the errors a user sees."""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import sys
import time

import numpy as np
import pytest

from mdchunk import Chunk
from mdchunk.errors import DependencyError, StoreError
from mdchunk.index.milvus import ANALYZERS, MilvusStore
from mdchunk.index.milvus.collections import defined
from mdchunk.index.milvus.filters import expression, path_prefix
from mdchunk.index.rows import PARENT_FIELDS, chunk_row, embed_hash, parent_row
from mdchunk.index.search import leaf_hits
from mdchunk.index.store import (
    ANALYZER_NAMES,
    SCHEMA_VERSION,
    IndexMeta,
    ManifestEntry,
    PathPrefix,
    TextQuery,
)

from .conftest_milvus import HashEmbedder, free_port

pytestmark = pytest.mark.slow

EMB = HashEmbedder(dim=8)


def make_chunk(doc_id: str, index: int, text: str, section: str = "S", level: int = 3,
               parent_id: str | None = None) -> Chunk:
    return Chunk(id=f"{doc_id}#{level}.{index}" if level != 3 else f"{doc_id}#{index}",
                 doc_id=doc_id, index=index, level=level, parent_id=parent_id,
                 text=text, start=0, end=len(text), line_start=1, line_end=1 + text.count("\n"),
                 headings=[section], section_path=section, embed_text=f"{section}\n\n{text}",
                 token_count=len(text.split()), kinds=["paragraph"])


def rows_for(chunks: list[Chunk], path: str | None = None) -> list[dict]:
    vectors = EMB.embed([c.embed_text for c in chunks])
    return [chunk_row(c, path=path or c.doc_id, file_type="md", title="T", vector=v)
            for c, v in zip(chunks, vectors)]


def meta(analyzer: str = "standard", dim: int = 8, model: str = EMB.name) -> IndexMeta:
    """A meta as Milvus records it (its analyzer's params filled in)."""
    return defined(IndexMeta(model=model, dim=dim, config="cfg1", analyzer=analyzer))


@pytest.fixture()
def store(milvus):
    with MilvusStore(milvus["db"], milvus["collection"]) as s:
        yield s
        s.drop()


DOCS = [
    make_chunk("docs/pg.md", 0, "The replica lag grows when the standby cannot replay WAL fast enough."),
    make_chunk("docs/pg.md", 1, "Promote the standby after the primary is lost."),
    make_chunk("docs/a_b.md", 0, "Redis evicts keys when used memory reaches maxmemory."),
    make_chunk("docs/axb.md", 0, "Redis keys expire by TTL."),
    make_chunk("docs/100%.md", 0, "Certificate rotation every ninety days."),
]


def test_open_records_meta_and_reopen_keeps_rows(store: MilvusStore) -> None:
    assert store.meta() is None
    assert store.open(meta()) is True
    assert store.meta() == meta()
    store.upsert_chunks(rows_for(DOCS))
    assert store.open(meta()) is False  # same meta: nothing recreated
    assert store.count() == len(DOCS)
    assert store.parent_rows() == []  # the parents' collection exists, empty


def test_interrupted_creation_is_finished_by_next_open(store: MilvusStore,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        def crash(self) -> None:
            raise KeyboardInterrupt("simulated crash after create_collection")

        patch.setattr(MilvusStore, "_ensure_indexes", crash)
        with pytest.raises(KeyboardInterrupt):
            store.open(meta())
    assert store.meta() == meta()  # the collection exists, without its indexes
    assert store.open(meta()) is False
    store.upsert_chunks(rows_for(DOCS))
    assert store.search(TextQuery("replica lag"), limit=1)[0].id == "docs/pg.md#0"


def test_upsert_is_idempotent_and_delete_by_doc(store: MilvusStore) -> None:
    store.open(meta())
    rows = rows_for(DOCS)
    store.upsert_chunks(rows)
    store.upsert_chunks(rows[:2])
    assert store.count() == len(DOCS)
    stored = store.doc_chunks("docs/pg.md", vectors=True)
    assert {r["id"] for r in stored} == {"docs/pg.md#0", "docs/pg.md#1"}
    assert {r["content_hash"] for r in stored} == {embed_hash(c.embed_text) for c in DOCS[:2]}
    assert np.allclose(stored[0]["dense"], next(r["dense"] for r in rows if r["id"] == stored[0]["id"]))
    store.delete_doc("docs/pg.md")
    store.delete_chunks(["docs/a_b.md#0"])
    assert sorted(r["id"] for r in store.rows()) == ["docs/100%.md#0", "docs/axb.md#0"]


def test_parents_round_trip_and_delete_doc(store: MilvusStore) -> None:
    store.open(meta())
    top = make_chunk("docs/pg.md", 0, "Replication.\n\nThe replica lag grows.\n\nPromote.",
                     level=1)
    mid = make_chunk("docs/pg.md", 0, "The replica lag grows.\n\nPromote.", level=2,
                     parent_id=top.id)
    other = make_chunk("docs/a_b.md", 0, "Redis evicts keys.", level=2)
    rows = [parent_row(c, path=c.doc_id, file_type="md", title="T", child_count=n)
            for c, n in ((top, 1), (mid, 2), (other, 1))]
    store.upsert_parents(rows)
    store.upsert_parents(rows[:1])  # idempotent
    assert sorted(r["id"] for r in store.parent_rows(("id",))) == sorted(r["id"] for r in rows)
    got = {r["id"]: r for r in store.doc_parents("docs/pg.md")}
    assert set(got) == {top.id, mid.id}
    assert got[mid.id] == {f: rows[1][f] for f in PARENT_FIELDS}
    assert got[mid.id]["parent_id"] == top.id and got[top.id]["parent_id"] == ""
    assert got[mid.id]["child_count"] == 2 and got[mid.id]["text"] == mid.text
    # fetched by id for a search: unknown ids are left out, quotes are literal
    assert {r["id"] for r in store.parents([mid.id, "nope", 'x"y', mid.id])} == {mid.id}
    assert store.parents([]) == []
    # leaves carry their parent; deleting a document removes leaves and parents
    leaves = [make_chunk("docs/pg.md", 0, "The replica lag grows.", parent_id=mid.id),
              make_chunk("docs/a_b.md", 0, "Redis evicts keys.", parent_id=other.id)]
    store.upsert_chunks(rows_for(leaves))
    assert {r["id"]: r["parent_id"] for r in store.doc_chunks("docs/pg.md", vectors=False)} == \
        {leaves[0].id: mid.id}
    hit = store.search(TextQuery("replica lag"), limit=1)[0]
    assert (hit.id, hit.parent_id, hit.level, hit.marks, hit.leaf_ids) == \
        (leaves[0].id, mid.id, 3, ((0, len(leaves[0].text)),), (leaves[0].id,))
    store.delete_doc("docs/pg.md")
    assert [r["id"] for r in store.parent_rows(("id",))] == [other.id]
    assert [r["id"] for r in store.rows(("id",))] == [leaves[1].id]
    store.delete_parents([other.id])
    assert store.parent_rows() == []


def test_a_leaf_without_parent_is_stored_with_an_empty_one(store: MilvusStore) -> None:
    store.open(meta())
    store.upsert_chunks(rows_for(DOCS[:1]))
    assert store.doc_chunks("docs/pg.md", vectors=False)[0]["parent_id"] == ""
    assert store.search(TextQuery("replica"), limit=1)[0].parent_id is None


def test_older_schema_is_rebuilt_and_refused_by_search(store: MilvusStore,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    old = defined(IndexMeta(model=EMB.name, dim=8, config="cfg1", analyzer="standard",
                            schema="1"))
    store.open(old)
    store.upsert_chunks(rows_for(DOCS))
    store.manifest.put([ManifestEntry("docs/pg.md", "h", "cfg1", 2, "docs/pg.md")])
    assert store.meta() == old  # an older mdchunk's collection is still recognised as ours
    with pytest.raises(StoreError) as err:
        store.check()
    assert "schema 1" in str(err.value) and "mdchunk index" in str(err.value)
    with pytest.raises(StoreError, match="schema: 1 -> " + SCHEMA_VERSION):
        store.open(meta(), rebuild=False)
    assert store.count() == len(DOCS)
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        assert store.open(meta()) is True
    assert "schema: 1 -> " + SCHEMA_VERSION in caplog.text
    assert store.meta() == meta() and store.count() == 0 and store.manifest.entries() == {}
    assert store.check() == meta()


def test_manifest_round_trip(store: MilvusStore) -> None:
    store.open(meta())
    entries = [ManifestEntry("a.md", "h1", "cfg1", 3, "kb/a.md"),
               ManifestEntry('we"ird\\.md', "", "cfg1", 0, "kb/x.md")]
    store.manifest.put(entries)
    got = store.manifest.entries()
    assert got == {e.doc_id: e for e in entries}
    assert got['we"ird\\.md'].pending and not got["a.md"].pending
    store.manifest.delete(["a.md"])
    assert set(store.manifest.entries()) == {'we"ird\\.md'}


@pytest.mark.parametrize("mode", ["hybrid", "dense", "bm25"])
def test_search_modes(store: MilvusStore, mode: str) -> None:
    store.open(meta())
    store.upsert_chunks(rows_for(DOCS))
    query = "replica lag standby"
    vector = EMB.embed([DOCS[0].embed_text])[0]  # the dense side points at the same chunk
    hits = leaf_hits(store, mode, query, vector, where=None, limit=3)
    assert hits[0].id == "docs/pg.md#0"
    assert hits[0].section_path == "S" and hits[0].line_start == 1 and hits[0].text == DOCS[0].text
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))


def test_path_prefix_is_literal(store: MilvusStore) -> None:
    store.open(meta())
    store.upsert_chunks(rows_for(DOCS, path=None))

    def docs(prefix: str) -> set[str]:
        hits = store.search(TextQuery("redis keys certificate replica"), limit=10,
                            where=PathPrefix(prefix))
        return {h.doc_id for h in hits}

    assert docs("docs/a_") == {"docs/a_b.md"}  # "_" is not a wildcard
    assert docs("docs/100%") == {"docs/100%.md"}  # nor is "%"
    assert docs("docs/1000") == set()
    assert docs("docs/") == {d.doc_id for d in DOCS}


def test_jieba_analyzer_bm25(store: MilvusStore) -> None:
    store.open(meta(analyzer="jieba"))
    chunks = [make_chunk("zh/cpu.md", 0, "服务器CPU负载过高时，先用top命令找出占用处理器最多的进程。"),
              make_chunk("zh/disk.md", 0, "磁盘空间不足时，清理过期的日志文件。"),
              make_chunk("en/pg.md", 0, "The replica lag grows on the standby.")]
    store.upsert_chunks(rows_for(chunks))
    for query, expected in [("CPU负载过高", "zh/cpu.md"), ("日志文件", "zh/disk.md"),
                            ("replica lag", "en/pg.md")]:
        hits = store.search(TextQuery(query), limit=3)
        assert hits and hits[0].doc_id == expected, query


def test_mismatch_refused_and_untouched(store: MilvusStore) -> None:
    store.open(meta())
    store.upsert_chunks(rows_for(DOCS))
    with pytest.raises(StoreError) as err:
        store.open(meta(dim=16, model="other/model"), rebuild=False)
    assert "dim: 8 -> 16" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(StoreError, match="dim 8"):
        store.check(model="other/model", dim=16)
    assert store.meta() == meta() and store.count() == len(DOCS)


def test_mismatch_rebuilds_when_allowed(store: MilvusStore, caplog: pytest.LogCaptureFixture) -> None:
    store.open(meta())
    store.upsert_chunks(rows_for(DOCS))
    store.manifest.put([ManifestEntry("docs/pg.md", "h", "cfg1", 2, "docs/pg.md")])
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        assert store.open(meta(dim=16)) is True
    assert "rebuilding collection" in caplog.text
    assert store.meta() == meta(dim=16) and store.count() == 0 and store.manifest.entries() == {}


def test_foreign_collection_is_refused(milvus) -> None:
    from pymilvus import MilvusClient

    client = MilvusClient(milvus["db"], dedicated=True)
    client.create_collection(milvus["collection"], dimension=4)
    try:
        with (MilvusStore(milvus["db"], milvus["collection"]) as s,
              pytest.raises(StoreError, match="not created by this version of mdchunk")):
            s.open(meta())
        assert client.has_collection(milvus["collection"])
    finally:
        client.drop_collection(milvus["collection"])
        client.close()


def test_text_over_varchar_limit_is_refused() -> None:
    chunk = make_chunk("big.md", 0, "x" * 70000)
    with pytest.raises(StoreError, match="big.md:1"):
        chunk_row(chunk, path="big.md", file_type="md", title="", vector=[0.0] * 8)


def test_path_prefix_filter_text() -> None:
    assert path_prefix("") == "" == expression(PathPrefix("")) == expression(None)
    assert path_prefix('a"b') == ('(doc_id >= "a\\"b" and doc_id < "a\\"c") or '
                                  '(path >= "a\\"b" and path < "a\\"c")')
    assert expression(PathPrefix('a"b')) == path_prefix('a"b')


def test_unreachable_server_is_a_fast_one_line_error() -> None:
    uri = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(StoreError) as err:
        MilvusStore(uri, "kb", timeout=3).meta()
    assert uri in str(err.value) and "\n" not in str(err.value)
    assert time.monotonic() - started < 10


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pymilvus", None)
    with pytest.raises(DependencyError, match=r"pip install 'mdchunk\[milvus\]'"):
        MilvusStore("x.db")


def test_the_analyzer_is_recorded_by_its_params() -> None:
    """A collection records its analyzer's definition, not only its name: one built under
    another definition (or before it was recorded) differs, so the next run rebuilds it.
    Milvus defines every analyzer a store must offer (issue 44: the params are Milvus's)."""
    assert tuple(ANALYZERS) == ANALYZER_NAMES
    now = defined(IndexMeta(model="m", dim=8, config="c", analyzer="jieba"))
    assert json.loads(now.analysis) == ANALYZERS["jieba"]
    assert IndexMeta.from_properties(now.properties()) == now
    older = {k: v for k, v in now.properties().items() if k != "mdchunk.analysis"}
    before = IndexMeta.from_properties(older)
    assert before is not None and before != now
    assert any(d.startswith("analysis: (not recorded) -> ") for d in before.differences(now))
    redefined = dataclasses.replace(now, analysis='{"tokenizer":"jieba"}')
    assert redefined.differences(now) == [f'analysis: {{"tokenizer":"jieba"}} -> {now.analysis}']
