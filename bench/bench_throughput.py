"""Embedding throughput: mdchunk's length-sorted, token-budgeted batches against plain
``SentenceTransformer.encode`` on the same chunks, in the same run, with the same loaded model.

    .venv/bin/python bench/bench_throughput.py [--corpus ../shared/corpora] [--rounds 2]
                                               [--backends torch,onnx] [--limit N]

The chunks are the leaves an index of the corpus embeds (distinct embed texts). Time is CPU
time of this process (all threads), measured round after round in alternating order, so that
other processes sharing the cores move neither side more than the other. ``onnx`` is measured
where sentence-transformers' ONNX backend is installed (``pip install 'mdchunk[onnx]'``) and
skipped with a note otherwise. Target: length-sorted batching >= 1.3x plain encode (torch).
Prints a Markdown table; writes JSON to bench/results/throughput.json.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # mdchunk is imported from this checkout, inside the functions
from tables import save_and_print  # noqa: E402  (bench/, this script's folder)

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TARGET = 1.3


def leaf_texts(corpus: Path, limit: int | None) -> list[str]:
    """The distinct embed texts an index of ``corpus`` embeds, in document order."""
    from mdchunk.chunks import Chunker
    from mdchunk.index.build_config import index_config
    from mdchunk.index.embed import SentenceTransformerEmbedder
    from mdchunk.sources import discover

    embedder = SentenceTransformerEmbedder()
    config = index_config(embedder, max_tokens=512, overlap_tokens=64, tokenizer=None)
    chunker = Chunker(config)
    texts: dict[str, None] = {}
    for source in discover([corpus]):
        for chunk in chunker.chunk_file(source.file, doc_id=source.doc_id):
            if chunk.level == len(config.levels or ()):
                texts[chunk.embed_text] = None
    out = list(texts)
    return out[:limit] if limit else out


def cpu_seconds(run: Callable[[], np.ndarray]) -> tuple[float, float, np.ndarray]:
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = run()
    return time.process_time() - cpu, time.perf_counter() - wall, vectors


def measure(backend: str, texts: list[str], rounds: int) -> dict[str, object]:
    from mdchunk.index.embed import SentenceTransformerEmbedder, length_batches

    embedder = SentenceTransformerEmbedder(backend=backend)  # type: ignore[arg-type]
    model = embedder._load()
    embedder.embed(texts[:16])  # warm-up: the first passes allocate buffers
    model.encode(texts[:16], batch_size=32)
    sides: dict[str, Callable[[], np.ndarray]] = {
        "plain": lambda: model.encode(texts, batch_size=32, normalize_embeddings=True,
                                      convert_to_numpy=True, show_progress_bar=False),
        "sorted": lambda: embedder.embed(texts),
    }
    cpu: dict[str, list[float]] = {"plain": [], "sorted": []}
    wall: dict[str, list[float]] = {"plain": [], "sorted": []}
    vectors: dict[str, np.ndarray] = {}
    for r in range(rounds):
        for side in (("plain", "sorted") if r % 2 == 0 else ("sorted", "plain")):
            c, w, vectors[side] = cpu_seconds(sides[side])
            cpu[side].append(c)
            wall[side].append(w)
            logging.info("%s %s round %d: %.1f CPU s, %.1f s", backend, side, r, c, w)
    agreement = float(np.min(np.sum(vectors["plain"] * vectors["sorted"], axis=1)))
    lengths = embedder.token_lengths(texts)
    batches = length_batches(lengths, embedder.batch_tokens)
    plain_cpu, sorted_cpu = sum(cpu["plain"]), sum(cpu["sorted"])
    n = len(texts) * rounds
    return {
        "backend": backend, "texts": len(texts), "rounds": rounds,
        "mean_tokens": round(float(np.mean(lengths)), 1), "max_tokens": max(lengths),
        "batch_tokens": embedder.batch_tokens, "sorted_batches": len(batches),
        "plain_batches": -(-len(texts) // 32),
        "plain_cpu_s": [round(x, 2) for x in cpu["plain"]],
        "sorted_cpu_s": [round(x, 2) for x in cpu["sorted"]],
        "plain_wall_s": [round(x, 2) for x in wall["plain"]],
        "sorted_wall_s": [round(x, 2) for x in wall["sorted"]],
        "plain_chunks_per_cpu_s": round(n / plain_cpu, 2),
        "sorted_chunks_per_cpu_s": round(n / sorted_cpu, 2),
        "speedup": round(plain_cpu / sorted_cpu, 3),
        "min_cosine_plain_vs_sorted": round(agreement, 6),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="first N texts only")
    parser.add_argument("--backends", default="torch,onnx")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for noisy in ("sentence_transformers", "httpx", "optimum", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus}: no such directory")
    texts = leaf_texts(args.corpus, args.limit)
    results: list[dict[str, object]] = []
    notes: list[str] = []
    for backend in args.backends.split(","):
        from importlib.util import find_spec

        if backend == "onnx" and (find_spec("onnxruntime") is None or find_spec("optimum") is None):
            notes.append("onnx: not installed (pip install 'mdchunk[onnx]'), not measured")
            continue
        results.append(measure(backend, texts, args.rounds))
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()} {os.cpu_count()} cores",
              "load_average": round(os.getloadavg()[0], 2), "corpus": str(args.corpus),
              "results": results, "notes": notes, "target": TARGET}
    save_and_print(args.out, "throughput.json", report,
                   ["backend", "chunks", "mean tokens", "plain encode chunks/CPU s",
                    "length-sorted chunks/CPU s", "speed-up", "batches plain/sorted",
                    "min cosine"],
                   [[r["backend"], r["texts"], r["mean_tokens"], r["plain_chunks_per_cpu_s"],
                     r["sorted_chunks_per_cpu_s"], f"{r['speedup']}x",
                     f"{r['plain_batches']}/{r['sorted_batches']}",
                     r["min_cosine_plain_vs_sorted"]] for r in results])
    for note in notes:
        print(f"\n{note}")
    torch_result = next((r for r in results if r["backend"] == "torch"), None)
    if torch_result is not None:
        ok = float(torch_result["speedup"]) >= TARGET  # type: ignore[arg-type]
        print(f"\ntarget >= {TARGET}x (torch): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
