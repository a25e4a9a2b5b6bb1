"""Benchmark of `mdchunk.index`: what indexing costs beyond the model, re-indexing an unchanged
tree, and hybrid search latency, on a temporary Milvus Lite file.

    .venv/bin/python bench/bench_index.py [--corpus ../shared/corpora] [--queries 100]

Prints a Markdown table and writes JSON to bench/results/ (gitignored). Targets: indexing
overhead over the model alone <= 15 %; an unchanged re-index embeds nothing.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from mdchunk.embedding import SentenceTransformerEmbedder

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # mdchunk is imported from this checkout, inside the functions

TARGET_OVERHEAD = 0.15


class TimedEmbedder:
    """Wraps an embedder, keeping every text it embeds and the time spent embedding."""

    def __init__(self, inner: SentenceTransformerEmbedder) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.max_tokens, self.tokenizer = inner.max_tokens, inner.tokenizer
        self.backend = getattr(inner, "backend", "torch")  # what the index records
        self.export = getattr(inner, "export", "")
        self.texts: list[str] = []
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        vectors = self.inner.embed(texts)
        self.seconds += time.perf_counter() - started
        self.texts.extend(texts)
        return vectors


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def pick_queries(db: str, n: int) -> list[str]:
    """``n`` queries drawn from the index itself: section names and opening words of chunks."""
    from mdchunk.index.milvus import MilvusStore

    with MilvusStore(db, "bench") as store:
        rows = store.rows(("id", "section_path", "text"))
    rng = random.Random(42)
    rng.shuffle(rows)
    queries = []
    for i, row in enumerate(rows):
        if i % 2 and row["section_path"]:
            queries.append(row["section_path"].split(" > ")[-1])
        else:
            queries.append(" ".join(row["text"].split()[:8]))
        if len(queries) == n:
            break
    return queries


def main(argv: list[str] | None = None) -> int:
    from mdchunk.embedding import SentenceTransformerEmbedder
    from mdchunk.index import index_paths, search

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora")
    parser.add_argument("--model", default=None, help="model name or path (default: bundled)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus}: no such directory")

    started = time.perf_counter()
    model = SentenceTransformerEmbedder(args.model)
    load_s = time.perf_counter() - started
    model.embed(["warm-up: the first forward pass allocates buffers"] * 4)

    with tempfile.TemporaryDirectory(prefix="mdchunk-bench-") as tmp:
        db = str(Path(tmp) / "bench.db")
        load_before = os.getloadavg()[0]
        timed = TimedEmbedder(model)
        cpu = time.process_time()
        first = index_paths([args.corpus], db=db, collection="bench", model=timed)
        index_cpu_s = time.process_time() - cpu
        # the model alone, on exactly the texts the run embedded, in one call
        started, cpu = time.perf_counter(), time.process_time()
        model.embed(timed.texts)
        model_alone_s = time.perf_counter() - started
        model_alone_cpu_s = time.process_time() - cpu
        load_after = os.getloadavg()[0]

        again = TimedEmbedder(model)
        second = index_paths([args.corpus], db=db, collection="bench", model=again)

        queries = pick_queries(db, args.queries)
        search(queries[0], db=db, collection="bench", model=model)  # warm-up (opens the client)
        latencies = []
        for query in queries:
            t = time.perf_counter()
            search(query, db=db, collection="bench", model=model, k=5, mode="hybrid")
            latencies.append((time.perf_counter() - t) * 1000)

    docs = first.added + first.updated + first.unchanged
    overhead = first.seconds / model_alone_s - 1
    # CPU seconds of this process (all threads, Milvus Lite's included): unlike wall time, they
    # do not grow when other processes compete for the cores.
    overhead_cpu = index_cpu_s / model_alone_cpu_s - 1
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
        "corpus": str(args.corpus), "model": model.name, "device": model.device,
        "documents": docs, "chunks": first.written_chunks, "max_tokens": first.max_tokens,
        "analyzer": first.analyzer, "model_load_s": round(load_s, 2),
        "first_index_s": round(first.seconds, 2), "embed_inside_run_s": round(timed.seconds, 2),
        "model_alone_s": round(model_alone_s, 2), "overhead_pct": round(100 * overhead, 1),
        "first_index_cpu_s": round(index_cpu_s, 2), "model_alone_cpu_s": round(model_alone_cpu_s, 2),
        "overhead_cpu_pct": round(100 * overhead_cpu, 1),
        "load_average_before_after": [round(load_before, 2), round(load_after, 2)],
        "cores": os.cpu_count(),
        "overhead_target_pct": 100 * TARGET_OVERHEAD,
        "reindex_s": round(second.seconds, 3),
        "reindex_pct_of_first": round(100 * second.seconds / first.seconds, 2),
        "reindex_embeddings": second.embedded_chunks, "reindex_unchanged": second.unchanged,
        "queries": len(latencies), "search_mode": "hybrid",
        "search_p50_ms": round(statistics.median(latencies), 1),
        "search_p95_ms": round(percentile(latencies, 0.95), 1),
    }
    rows = [
        ("documents / chunks", f"{docs} / {first.written_chunks} (≤ {first.max_tokens} tokens)"),
        ("first index (model loaded beforehand)", f"{result['first_index_s']} s"),
        ("  of which embedding", f"{result['embed_inside_run_s']} s"),
        ("model alone, same texts", f"{result['model_alone_s']} s"),
        ("overhead over the model, wall", f"{result['overhead_pct']} % (target ≤ 15 %)"),
        ("overhead over the model, CPU time", f"{result['overhead_cpu_pct']} % "
                                              f"({result['first_index_cpu_s']} s vs "
                                              f"{result['model_alone_cpu_s']} s)"),
        ("re-index, unchanged tree", f"{result['reindex_s']} s = {result['reindex_pct_of_first']} % "
                                     f"of first, {second.embedded_chunks} embeddings"),
        (f"hybrid search, {len(latencies)} queries", f"p50 {result['search_p50_ms']} ms, "
                                                      f"p95 {result['search_p95_ms']} ms"),
        ("model load", f"{result['model_load_s']} s ({model.name}, {model.device})"),
        ("load average before / after", f"{load_before:.2f} / {load_after:.2f} "
                                        f"on {os.cpu_count()} cores (other work skews wall times)"),
    ]
    print("| measure | value |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"bench_index-{datetime.now():%Y%m%d-%H%M%S}.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nJSON: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
