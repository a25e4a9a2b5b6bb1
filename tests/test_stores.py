"""One factory opens every store (issue 44): :func:`mdchunk.index.stores.open_store` picks the
package by the scheme of ``db`` (:data:`~mdchunk.index.stores.STORES`), and indexing, search,
the server and the write lock all go through it. The in-memory store is registered as any
store would be, and a whole index-then-search runs on it with no Milvus and no model."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mdchunk import StoreError
from mdchunk.index import index_paths, search
from mdchunk.index.config import StoreConfig
from mdchunk.index.lock import index_lock, lock_path
from mdchunk.index.memory import MemoryStore
from mdchunk.index.stores import DEFAULT_STORE, STORES, open_store, store_package

from .conftest_milvus import HashEmbedder

PACKAGE = Path(__file__).resolve().parent.parent / "mdchunk"


def test_the_scheme_of_db_picks_the_store() -> None:
    assert store_package("memory://kb").__name__ == STORES["memory"]
    for db in ("./mdchunk.db", "kb.db", "http://127.0.0.1:19530", "https://h:443"):
        assert store_package(db).__name__ == DEFAULT_STORE
    one = open_store(StoreConfig("memory://a", "kb"))
    assert isinstance(one, MemoryStore) and one.collection == "kb"
    assert open_store(StoreConfig("memory://a", "kb")) is one  # the same index, this process
    assert open_store(StoreConfig("memory://b", "kb")) is not one


def test_a_store_without_a_local_file_is_not_file_locked(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with index_lock("memory://kb", "kb"):
        assert list(tmp_path.iterdir()) == []
    db = str(tmp_path / "lite.db")
    with index_lock(db, "kb"):
        assert lock_path(db).exists()  # a Milvus Lite file is locked beside it


def test_index_then_search_through_the_factory_alone(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "redis.md").write_text("# Redis\n\n## Eviction\n\nRedis evicts keys at maxmemory "
                                   "by the maxmemory-policy.\n", encoding="utf-8")
    (docs / "pg.md").write_text("# Postgres\n\n## Failover\n\nPromote the standby with "
                                "pg_ctl promote.\n", encoding="utf-8")
    embedder = HashEmbedder(8)
    db = f"memory://{tmp_path.name}"
    report = index_paths([docs], db=db, collection="kb", model=embedder, max_tokens=64)
    assert report.added == 2 and report.embedded_chunks > 0
    again = index_paths([docs], db=db, collection="kb", model=embedder, max_tokens=64)
    assert again.unchanged == 2 and again.added == 0  # incremental, as on Milvus
    hits = search("standby promote", db=db, collection="kb", model=embedder, mode="bm25", k=1)
    assert [h.doc_id for h in hits] == ["pg.md"] and "pg_ctl promote" in hits[0].text
    dense = search("standby promote", db=db, collection="kb", model=embedder, mode="dense")
    assert {h.doc_id for h in dense} == {"pg.md", "redis.md"}
    with pytest.raises(StoreError, match="no collection 'other'"):
        search("x", db=db, collection="other", mode="bm25")


def test_only_the_milvus_package_imports_pymilvus_or_knows_milvus_lite() -> None:
    """Everything Milvus-only lives under index/milvus/: no module elsewhere imports it or
    pymilvus (the registry names it as a string, imported when a store is opened)."""
    offenders = []
    for module in PACKAGE.rglob("*.py"):
        if "milvus" in module.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if any("milvus" in name for name in names):
                offenders.append(str(module.relative_to(PACKAGE)))
    assert offenders == []
