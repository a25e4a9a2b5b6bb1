"""The collection-wide embedding cache (each distinct embed text embedded once per collection)
and search collapsing hits of the same text, on Milvus Lite and on a server."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mdchunk.index import index_paths, search
from mdchunk.index.cache import VectorCache
from mdchunk.index.milvus import MilvusStore

from .conftest_milvus import CountingEmbedder, HashEmbedder, write_corpus
from .test_index import snapshot

pytestmark = pytest.mark.slow

LEVELS = (512, 48)
#: The same admonition closes every page: a chunk of its own, with the same embed text.
FOOTER = ("## Support\n\nIf this runbook did not solve the problem, page the on-call database "
          "engineer through the incident tool and attach the output of every command you ran.\n")
PAGES = {
    f"pages/{name}.md": f"{intro}\n\n{FOOTER}"
    for name, intro in [
        ("backups", "Nightly backups run at two in the morning and write to the archive bucket; "
                    "a failed backup raises an alert within the hour."),
        ("restores", "Restoring a table means fetching the newest base backup and replaying the "
                     "write-ahead log up to the minute before the mistake."),
        ("replicas", "A lagging replica is taken out of the load balancer automatically and "
                     "rejoins when its replay lag falls under ten seconds."),
    ]
}


def _leaves_by_text(milvus: dict[str, str]) -> dict[str, list[dict]]:
    rows, _, _ = snapshot(milvus)
    by_hash: dict[str, list[dict]] = {}
    for row in rows.values():
        by_hash.setdefault(row["content_hash"], []).append(row)
    return by_hash


def test_a_text_shared_by_pages_is_embedded_once(tmp_path: Path,
                                                milvus: dict[str, str]) -> None:
    kb = write_corpus(tmp_path / "kb", PAGES)
    counting = CountingEmbedder(HashEmbedder())
    # One document per write group: without the cache, each group would embed the footer again.
    first = index_paths([kb], model=counting, levels=LEVELS, batch_chunks=1, **milvus)
    by_hash = _leaves_by_text(milvus)
    leaves = sum(len(rows) for rows in by_hash.values())
    shared = [rows for rows in by_hash.values() if len(rows) > 1]
    assert len(shared) == 1 and len(shared[0]) == len(PAGES)  # the footer, on every page
    assert shared[0][0]["text"].startswith("## Support")
    assert len(counting.texts) == len(set(counting.texts)) == len(by_hash)
    assert first.embedded_chunks == len(by_hash)
    assert first.cached_chunks == leaves - len(by_hash) == len(PAGES) - 1
    assert len({row["dense"] for row in shared[0]}) == 1  # one vector for all of them

    # A new page with the footer later: its footer comes from the collection, not the model.
    counting.texts.clear()
    (kb / "pages/failover.md").write_text(
        "Failover promotes the healthiest replica and repoints the pooler.\n\n" + FOOTER,
        encoding="utf-8")
    second = index_paths([kb], model=counting, levels=LEVELS, **milvus)
    assert second.added == 1 and second.cached_chunks == 1
    assert not any(t.startswith("## Support") or "## Support" in t for t in counting.texts)
    assert second.embedded_chunks == len(counting.texts) >= 1


def test_cache_prefers_this_runs_memory_then_the_store(tmp_path: Path) -> None:
    kb = write_corpus(tmp_path / "kb", PAGES)
    db = str(tmp_path / "c.db")
    index_paths([kb], db=db, collection="kb", model=HashEmbedder(), levels=LEVELS)
    footer = next(r for r in MilvusStore(db, "kb").rows(("id", "text", "content_hash", "dense"))
                  if r["text"].startswith("## Support"))
    with MilvusStore(db, "kb") as store:
        store._load()
        cache = VectorCache(store, memory=2)
        found = cache.lookup([footer["content_hash"], "0" * 32])
        assert list(found) == [footer["content_hash"]]
        assert np.allclose(found[footer["content_hash"]], footer["dense"])
        cache.remember({"a": [1.0], "b": [2.0], "c": [3.0]})  # bounded: "a" is forgotten
        assert cache.lookup(["b", "c"]) == {"b": [2.0], "c": [3.0]}
        assert cache.lookup(["a"]) == {}


def test_search_collapses_hits_of_the_same_text(tmp_path: Path,
                                                milvus: dict[str, str]) -> None:
    kb = write_corpus(tmp_path / "kb", PAGES)
    model = HashEmbedder()
    index_paths([kb], model=model, levels=LEVELS, **milvus)
    for mode in ("bm25", "dense", "hybrid"):
        # Six leaves, four distinct texts: all four, the footer once, whatever the scores.
        hits = search("page the on-call database engineer incident tool", model=model, k=5,
                      mode=mode, **milvus)  # type: ignore[arg-type]
        texts = [h.text for h in hits]
        assert len(texts) == len(set(texts)) == len(PAGES) + 1, mode
        footers = [h for h in hits if h.text.startswith("## Support")]
        assert len(footers) == 1, mode
        if mode == "bm25":  # the footer is the best BM25 match, and keeps its place
            assert hits[0] is footers[0]
    parents = search("page the on-call engineer", model=model, k=5, mode="bm25",
                     expand="parent", **milvus)
    assert len({h.text for h in parents}) == len(parents) >= len(PAGES)  # pages differ
