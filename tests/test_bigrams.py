"""CJK bigrams for BM25 (issue 31): what BM25 reads of a leaf and of a query gains every pair of
adjacent Han characters, so that a paraphrase the word segmenter cuts differently still shares
terms; the index records it, and search analyses the query the same way."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mdchunk.index.rows import cjk_bigrams, search_text

from .conftest_milvus import HashEmbedder

EMB = HashEmbedder(dim=16)


def test_bigrams_are_appended_to_what_bm25_reads_only_when_asked() -> None:
    assert cjk_bigrams("磁盘快满了，请扩容 disk") == ["磁盘", "盘快", "快满", "满了", "请扩", "扩容"]
    assert search_text("磁盘快满了") == "磁盘快满了"
    assert search_text("磁盘快满了", bigrams=True) == "磁盘快满了\n磁盘 盘快 快满 满了"
    assert search_text("disk almost full", bigrams=True) == "disk almost full"  # no Han: as is


@pytest.mark.slow
def test_a_bigram_index_matches_a_query_segmented_otherwise(milvus: dict[str, str],
                                                            tmp_path: Path,
                                                            caplog: pytest.LogCaptureFixture
                                                            ) -> None:
    from mdchunk.index import index_paths, search

    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "disk.md").write_text("# 磁盘告警\n\n根分区磁盘空间不足时，清理过期日志。\n",
                                encoding="utf-8")
    (kb / "cpu.md").write_text("# 处理器\n\n负载过高时，查看占用最高的进程。\n", encoding="utf-8")
    index_paths([kb], model=EMB, analyzer="jieba", bigrams=False, **milvus)
    query = "区磁"  # across jieba's words "分区" and "磁盘": no word of the page
    assert search(query, mode="bm25", k=2, **milvus) == []
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        report = index_paths([kb], model=EMB, analyzer="jieba", **milvus)  # the default
    assert report.rebuilt and "bigrams: False -> True" in caplog.text
    hits = search(query, mode="bm25", k=2, **milvus)
    assert hits and hits[0].doc_id == "disk.md"
