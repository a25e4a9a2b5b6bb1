"""What a search's filter costs (issue 34): hybrid search latency with a ``where`` filter against
the same search unfiltered, on the shared corpora indexed into one collection (the
multi-repository case the issue describes: runbooks and doc sites side by side).

    HF_HUB_OFFLINE=1 MDCHUNK_CORPORA=/work/shared/corpora .venv/bin/python bench/bench_filters.py \\
        [--rounds 25] [--db /tmp/filters.db] [--corpora DIR]

The vectors are a hash stand-in of the model's dimension (384), not a model's: what is
measured is the store's side (Milvus Lite, a filtered search against an unfiltered one), and
the query's own embedding, the same with or without a filter, is left out. Every filter and
the unfiltered search run in each round, interleaved, on the same queries; the figure is the
median of the rounds, in milliseconds, with the machine's load beside it (``os.getloadavg``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from mdchunk.index import index_paths  # noqa: E402
from mdchunk.index.config import SearchConfig  # noqa: E402
from mdchunk.index.milvus import MilvusStore  # noqa: E402
from mdchunk.index.search import search_store  # noqa: E402

#: The filters measured, by what they exercise.
FILTERS: dict[str, str | None] = {
    "none": None,
    "stored field (lang)": 'lang == "zh"',
    "path prefix (--path-prefix)": "@gitlab-com-runbooks/",
    "glob, exact as like": 'path ~ "gitlab-com-runbooks/**"',
    "glob, checked rows (* stops at /)": 'path ~ "hugo-docs/content/en/functions/*/*.md"',
    "metadata list (contains)": 'keywords contains "highlight"',
    "stored field (title ==)": 'title == "Host on Netlify"',
    "metadata scalar (==)": 'description == "Host your project on Netlify."',
    "combined": '(lang == "en" and not path ~ "hugo-docs/**") or keywords contains "process"',
}
QUERIES = ["how do I restart the service", "configure TLS certificates", "template functions",
           "replication lag alert", "消息发送失败怎么办"]


class HashEmbedder:
    """Deterministic unit vectors from text hashes, at a real model's dimension."""

    def __init__(self, dim: int = 384) -> None:
        self.name, self.dim = f"bench/hash-{dim}", dim
        self.max_tokens, self.tokenizer = 512, "cl100k_base"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = [np.random.default_rng(int.from_bytes(hashlib.blake2b(
            t.encode()).digest()[:4], "little")).standard_normal(self.dim) for t in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def config_of(where: str | None) -> SearchConfig:
    if where is not None and where.startswith("@"):
        return SearchConfig(k=5, path_prefix=where[1:])
    return SearchConfig(k=5, where=where)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=os.environ.get("MDCHUNK_CORPORA",
                                                            "/work/shared/corpora"))
    parser.add_argument("--db", default="/tmp/mdchunk-bench-filters.db")
    parser.add_argument("--rounds", type=int, default=25)
    args = parser.parse_args(argv)
    embedder = HashEmbedder()
    started = time.perf_counter()
    report = index_paths([args.corpora], db=args.db, collection="filters", model=embedder,
                         analyzer="jieba")
    print(f"indexed {report.total} documents ({report.written_chunks} leaves written) in "
          f"{time.perf_counter() - started:.1f}s")
    vectors = {q: embedder.embed([q])[0] for q in QUERIES}
    times: dict[str, list[float]] = {name: [] for name in FILTERS}
    kept: dict[str, int] = {}
    with MilvusStore(args.db, "filters") as store:
        meta = store.check()
        rows = store.count()
        for name, where in FILTERS.items():  # once each before timing: loads, caches
            kept[name] = len(search_store(store, QUERIES[0], vectors[QUERIES[0]],
                                          config_of(where), index=meta))
        for _ in range(args.rounds):
            for name, where in FILTERS.items():
                config = config_of(where)
                began = time.perf_counter()
                for query in QUERIES:
                    search_store(store, query, vectors[query], config, index=meta)
                times[name].append((time.perf_counter() - began) / len(QUERIES) * 1000)
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    base = statistics.median(times["none"])
    print(f"\n{rows} leaves; hybrid search, k=5; median of {args.rounds} rounds x "
          f"{len(QUERIES)} queries; load {load}\n")
    print("| filter | expression | ms per search | vs unfiltered | hits (first query) |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, where in FILTERS.items():
        median = statistics.median(times[name])
        shown = "" if where is None else (f"--path-prefix {where[1:]}" if where.startswith("@")
                                          else f"`{where}`")
        print(f"| {name} | {shown} | {median:.1f} | {median / base:.2f}x | {kept[name]} |")


if __name__ == "__main__":
    main()
