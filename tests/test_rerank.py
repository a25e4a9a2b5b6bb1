"""Search's optional reranking stage (issue 31): any ``(query, texts) -> scores`` callable, or a
local cross-encoder, reorders the fused candidates before ``k`` are kept and before they are
widened; it never brings in a leaf the candidates did not hold, and off it changes nothing.

No real reranker can be had here (nothing is downloaded): the cross-encoder is a tiny BERT with
random weights built in the test, which shows the loading and calling path, not the quality."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from mdchunk.embedding import CrossEncoderReranker, load_reranker
from mdchunk.errors import ConfigError, DependencyError
from mdchunk.index.config import SearchConfig
from mdchunk.index.search import leaf_hits, rerank_hits, search_store

from .test_cli_flags import _captured, app, runner
from .test_store_interface import LEAVES, QUERY, MemoryStore, leaf
from .tiny_models import tiny_cross_encoder


@pytest.fixture()
def store() -> MemoryStore:
    s = MemoryStore()
    s.upsert_chunks(LEAVES)
    return s


class Reverse:
    """A fake reranker that scores the candidates in reverse of the order it is given them, and
    remembers what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def __call__(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls.append((query, list(texts)))
        return [float(i) for i in range(len(texts))]


def test_a_reranker_that_reverses_the_order_reverses_the_hits(store: MemoryStore) -> None:
    plain = search_store(store, "redis keys", QUERY, SearchConfig(mode="hybrid", k=4))
    reverse = Reverse()
    reranked = search_store(store, "redis keys", QUERY, SearchConfig(mode="hybrid", k=4, rerank=reverse))
    # the default fusion's order (peaked: test_store_interface), then exactly its reverse
    assert [h.id for h in plain] == ["d", "c", "a", "b"]
    assert [h.id for h in reranked] == ["b", "a", "c", "d"]
    assert [h.score for h in reranked] == [3.0, 2.0, 1.0, 0.0]  # the reranker's own scores
    # asked once, with the query as given and each passage under its section's path
    [(query, passages)] = reverse.calls
    assert query == "redis keys"
    assert passages == [f"S\n\n{h.text}" for h in plain]


def test_reranking_comes_before_k_are_kept_and_adds_nothing(store: MemoryStore) -> None:
    candidates = leaf_hits(store, "bm25", "redis keys", None, where=None,
                           limit=3)
    assert [h.id for h in candidates] == ["c", "d", "b"]
    [top] = search_store(store, "redis keys", None, SearchConfig(mode="bm25", k=1, rerank=Reverse()))
    assert top.id == "b"  # the last candidate, which plain search would not have kept
    # whatever a reranker says, the hits are among the candidates: "a" never matched the text
    everything = search_store(store, "redis keys", None, SearchConfig(mode="bm25", k=5,
                              rerank=lambda q, texts: [len(t) for t in texts]))
    assert {h.id for h in everything} == {"b", "c", "d"}


def test_reranking_comes_before_widening(store: MemoryStore) -> None:
    store.upsert_chunks([leaf("e", "redis keys", (0.0, 1.0), doc_id="ops/e.md",
                              parent_id="p", start=8)])
    store.upsert_parents([{**leaf("p", "Redis.\n\nredis keys", (0, 0), doc_id="ops/e.md"),
                           "child_count": 1}])

    def e_first(query: str, texts: Sequence[str]) -> list[float]:
        return [1.0 if t.endswith("\nredis keys") else 0.0 for t in texts]

    (top, *_) = search_store(store, "redis keys", None, SearchConfig(mode="bm25", k=2, expand="parent",
                             rerank=e_first))
    assert (top.id, top.leaf_ids, top.score) == ("p", ("e",), 1.0)


def test_off_by_default_and_nothing_is_called(store: MemoryStore) -> None:
    assert SearchConfig().rerank is None
    assert search_store(store, "redis keys", QUERY, SearchConfig(mode="hybrid", k=3)) == \
        search_store(store, "redis keys", QUERY, SearchConfig(mode="hybrid", k=3, rerank=None))
    reverse = Reverse()
    assert rerank_hits(reverse, "q", []) == [] and reverse.calls == []


@pytest.mark.parametrize(("scores", "message"), [
    ([1.0], "returned 1 scores for 3 texts"),
    (["high", 1, 2], "no number"),
    ([float("nan"), 1, 2], "not finite"),
])
def test_a_reranker_that_answers_wrongly_is_refused(store: MemoryStore, scores: list[object],
                                                     message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        search_store(store, "redis keys", None, SearchConfig(mode="bm25", k=3,
                     rerank=lambda q, texts: scores))  # type: ignore[arg-type,return-value]


def test_the_config_takes_a_name_a_folder_or_a_callable(tmp_path: Path) -> None:
    assert SearchConfig(rerank="BAAI/bge-reranker-base").rerank == "BAAI/bge-reranker-base"
    assert SearchConfig(rerank=tmp_path).rerank == str(tmp_path)  # type: ignore[arg-type]
    reverse = Reverse()
    assert SearchConfig(rerank=reverse).rerank is reverse
    for bad in ("", 3):
        with pytest.raises(ConfigError, match="rerank="):
            SearchConfig(rerank=bad)  # type: ignore[arg-type]


def test_a_callable_is_its_own_reranker_and_a_missing_model_is_said_at_once(
        tmp_path: Path) -> None:
    reverse = Reverse()
    assert load_reranker(reverse) is reverse
    with pytest.raises(DependencyError, match="nothing is downloaded"):
        load_reranker(str(tmp_path / "no-such-reranker"))
    assert isinstance(load_reranker(tmp_path), CrossEncoderReranker)  # a folder: loaded later


def test_the_command_line_takes_rerank(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _captured(monkeypatch, "search")
    result = runner.invoke(app, ["search", "q", "--rerank", "BAAI/bge-reranker-base"])
    assert result.exit_code == 0, result.output
    assert calls[-1].rerank == "BAAI/bge-reranker-base"
    assert runner.invoke(app, ["search", "q"]).exit_code == 0
    assert calls[-1].rerank is None


@pytest.mark.slow
def test_a_local_cross_encoder_reranks(store: MemoryStore, tmp_path: Path) -> None:
    folder = tiny_cross_encoder(tmp_path)
    reranker = load_reranker(str(folder))
    texts = ["redis keys evicted", "promote the standby"]
    scores = reranker("why are keys evicted", texts)
    assert len(scores) == 2 and all(isinstance(s, float) for s in scores)
    assert reranker("why are keys evicted", texts) == pytest.approx(scores)  # deterministic
    plain = search_store(store, "redis keys", QUERY, SearchConfig(mode="hybrid", k=4))
    reranked = search_store(store, "redis keys", QUERY, SearchConfig(mode="hybrid", k=4, rerank=reranker))
    assert {h.id for h in reranked} == {h.id for h in plain}
    assert [h.score for h in reranked] == sorted((h.score for h in reranked), reverse=True)
    assert reranker("q", []) == []


@pytest.mark.slow
def test_the_command_line_reranks_the_pool_with_a_local_cross_encoder(tmp_path: Path) -> None:
    """End to end: ``mdchunk search --rerank FOLDER`` over a Milvus Lite index reads the whole
    pool (``--depth`` candidates) with the cross-encoder and keeps the ``-k`` it scores best,
    each with the cross-encoder's score."""
    import json

    from mdchunk.index import index_paths
    from mdchunk.index.milvus import MilvusStore

    from .conftest_milvus import HashEmbedder, write_corpus

    folder = tiny_cross_encoder(tmp_path)
    db = str(tmp_path / "index.db")
    index_paths([write_corpus(tmp_path / "kb")], db=db, collection="kb", model=HashEmbedder())
    query = "engineer dashboards incident"
    with MilvusStore(db, "kb") as store:
        pool = search_store(store, query, None, SearchConfig(mode="bm25", k=6, depth=6))
    reranker = load_reranker(str(folder))
    scores = reranker(query, [f"{h.section_path}\n\n{h.text}" for h in pool])
    best = sorted(zip(scores, (h.id for h in pool), strict=True), reverse=True)[:2]
    shown = runner.invoke(app, ["search", query, "--db", db, "--collection", "kb", "--mode",
                                "bm25", "-k", "2", "--depth", "6", "--rerank", str(folder),
                                "--json"])
    assert shown.exit_code == 0, shown.output
    hits = [json.loads(line) for line in shown.stdout.splitlines()]
    assert [(pytest.approx(h["score"], abs=1e-5), h["id"]) for h in hits] == \
        [(pytest.approx(s, abs=1e-5), i) for s, i in best]
