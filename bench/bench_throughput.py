"""Embedding throughput: plain ``SentenceTransformer.encode``, mdchunk's length-sorted,
token-budgeted batches on torch, and the same batches on the model's ONNX export, fp32 and
int8 (issue 25), on the same chunks, in the same run.

    .venv/bin/python bench/bench_throughput.py [--corpus ../shared/corpora] [--rounds 2]
                          [--sides plain,sorted,onnx,onnx-int8,onnx-int8-pool] [--limit N]

The chunks are the leaves an index of the corpus embeds (distinct embed texts). Both clocks
are read: CPU time of this process (all threads: torch's and onnxruntime's intra-op pools both
count) and wall time, round after round in rotating order, so that other processes sharing
the cores move no side more than another; the load average is read before and after (figures
taken under load are labelled so). Each side's chunks per CPU second and per wall second are
compared with plain torch ``encode``; the int8 vectors are compared with the fp32 ONNX ones and
with torch's (minimum and mean cosine), and each ONNX side's vectors alone with its vectors in
the run's batches (largest difference: issue 32 batches int8 because it is nil). Targets:
length-sorted torch >= 1.3x plain encode; int8 ONNX >= 3x in CPU time and >= 2.5x in wall
time (issue 32). Prints a Markdown table; writes JSON to bench/results/throughput.json.
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # mdchunk is imported from this checkout, inside the functions
from tables import save_and_print  # noqa: E402  (bench/, this script's folder)

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TARGET = 1.3
INT8_TARGET = 3.0
INT8_WALL_TARGET = 2.5
SIDES = ("plain", "sorted", "onnx", "onnx-int8", "onnx-int8-pool")
#: Each side's backend; ``onnx-int8-pool`` is int8 run as before issue 32's last change: one
#: forward pass at a time, its operators split over every core by onnxruntime's (sleeping) pool,
#: against the default of one thread a pass and a pass a core, side by side.
BACKEND = {"plain": "torch", "sorted": "torch", "onnx-int8-pool": "onnx-int8"}


def leaf_texts(corpus: Path, limit: int | None) -> list[str]:
    """The distinct embed texts an index of ``corpus`` embeds, in document order."""
    from mdchunk.chunks import Chunker
    from mdchunk.embedding import SentenceTransformerEmbedder
    from mdchunk.index.build_config import index_config
    from mdchunk.sources import discover

    embedder = SentenceTransformerEmbedder(backend="torch")
    config = index_config(embedder, max_tokens=512, overlap_tokens=64, tokenizer=None)
    chunker = Chunker(config)
    texts: dict[str, None] = {}
    for source in discover([corpus]):
        for chunk in chunker.chunk_file(source.file, doc_id=source.doc_id):
            if chunk.level == len(config.levels or ()):
                texts[chunk.embed_text] = None
    out = list(texts)
    return out[:limit] if limit else out


def _pooled(embedder: Any) -> Callable[[list[str]], np.ndarray]:
    """``embedder.embed`` as it ran before passes went side by side: a session of its own
    whose intra-op pool has a thread per core, one pass at a time."""
    from mdchunk.embedding import length_batches
    from mdchunk.embedding.onnx_runtime import Export, OnnxSession, available_cores

    session = OnnxSession(Export(embedder._export.folder), quantized=True,
                          threads=available_cores(), workers=1)

    def embed(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
        encodings = session.encodings(texts)
        batches = length_batches([len(e.ids) for e in encodings], embedder.batch_tokens)
        for batch, vectors in session.encode_batches(encodings, batches):
            out[batch] = vectors
        return out

    return embed


def cpu_seconds(run: Callable[[], np.ndarray]) -> tuple[float, float, np.ndarray]:
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = run()
    return time.process_time() - cpu, time.perf_counter() - wall, vectors


def _cosines(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    rows = np.sum(a * b, axis=1)
    return {"min": round(float(rows.min()), 6), "mean": round(float(rows.mean()), 6)}


def measure(sides: list[str], texts: list[str], rounds: int) -> dict[str, object]:
    """Every side on ``texts``, ``rounds`` times in rotating order."""
    import torch

    from mdchunk.embedding import SentenceTransformerEmbedder, length_batches

    embedders = {side: SentenceTransformerEmbedder(
        backend=BACKEND.get(side, side))  # type: ignore[arg-type]
        for side in sides}
    model = embedders[sides[0]]._load() if "plain" in sides else None
    runs: dict[str, Callable[[], np.ndarray]] = {}
    for side, embedder in embedders.items():
        if side == "plain":
            assert model is not None
            runs[side] = lambda: model.encode(texts, batch_size=32, normalize_embeddings=True,
                                              convert_to_numpy=True, show_progress_bar=False)
            embedder.embed(texts[:16])  # warm-up: the first passes allocate buffers
            continue
        if embedder.backend != embedder.wanted:
            raise SystemExit(f"{side}: fell back to {embedder.backend}")
        embed = _pooled(embedder) if side == "onnx-int8-pool" else embedder.embed
        runs[side] = functools.partial(embed, texts)
        embed(texts[:16])
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    wall: dict[str, list[float]] = {side: [] for side in sides}
    vectors: dict[str, np.ndarray] = {}
    for r in range(rounds):
        for side in sides[r % len(sides):] + sides[:r % len(sides)]:
            c, w, vectors[side] = cpu_seconds(runs[side])
            cpu[side].append(c)
            wall[side].append(w)
            logging.info("%s round %d: %.1f CPU s, %.1f s", side, r, c, w)
    any_torch = embedders[sides[0]]
    lengths = any_torch.token_lengths(texts)
    n = len(texts) * rounds
    per_cpu = {side: n / sum(cpu[side]) for side in sides}
    base = per_cpu.get("plain")
    cosines: dict[str, dict[str, float]] = {}
    pairs = [("onnx-int8", "onnx"), ("onnx-int8", "sorted"), ("onnx", "sorted"),
             ("sorted", "plain"), ("onnx-int8-pool", "onnx-int8")]
    for a, b in pairs:
        if a in vectors and b in vectors:
            cosines[f"{a} vs {b}"] = _cosines(vectors[a], vectors[b])
    batch_free: dict[str, float] = {}
    for side in ("onnx", "onnx-int8"):  # issue 32: a vector must not depend on its batch
        if side in embedders:
            alone = np.vstack([embedders[side].embed([t]) for t in texts[:64]])
            batch_free[side] = float(np.max(np.abs(alone - vectors[side][:64])))
    sessions = [e._session() for e in embedders.values()]
    workers = next((s.workers for s in sessions if s is not None), None)
    per_wall = {side: n / sum(wall[side]) for side in sides}
    wall_base = per_wall.get("plain")
    return {
        "texts": len(texts), "rounds": rounds, "torch_threads": torch.get_num_threads(),
        "mean_tokens": round(float(np.mean(lengths)), 1), "max_tokens": max(lengths),
        "batch_tokens": any_torch.batch_tokens, "onnx_passes_at_once": workers,
        "sorted_batches": len(length_batches(lengths, any_torch.batch_tokens)),
        "plain_batches": -(-len(texts) // 32),
        "sides": [{"side": side, "cpu_s": [round(x, 2) for x in cpu[side]],
                   "wall_s": [round(x, 2) for x in wall[side]],
                   "chunks_per_cpu_s": round(per_cpu[side], 2),
                   "ratio_to_plain": round(per_cpu[side] / base, 3) if base else None,
                   "chunks_per_wall_s": round(per_wall[side], 2),
                   "wall_ratio_to_plain": (round(per_wall[side] / wall_base, 3)
                                           if wall_base else None)}
                  for side in sides],
        "cosines": cosines,
        "alone_vs_batched_max_abs": batch_free,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="first N texts only")
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for noisy in ("sentence_transformers", "httpx", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus}: no such directory")
    sides = args.sides.split(",")
    if not set(sides) <= set(SIDES):
        parser.error(f"--sides takes {', '.join(SIDES)}")
    texts = leaf_texts(args.corpus, args.limit)
    load_before = os.getloadavg()
    result = measure(sides, texts, args.rounds)
    load_after = os.getloadavg()
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()} {os.cpu_count()} cores",
              "cores_available": len(os.sched_getaffinity(0)),
              "load_average": {"before": [round(x, 2) for x in load_before],
                               "after": [round(x, 2) for x in load_after]},
              "corpus": str(args.corpus), **result,
              "targets": {"sorted": TARGET, "onnx-int8": INT8_TARGET,
                          "onnx-int8 wall": INT8_WALL_TARGET}}
    rows = result["sides"]
    assert isinstance(rows, list)
    save_and_print(args.out, "throughput.json", report,
                   ["side", "chunks", "CPU s per round", "wall s per round", "chunks/CPU s",
                    "vs plain torch, CPU", "vs plain torch, wall"],
                   [[r["side"], result["texts"], " + ".join(map(str, r["cpu_s"])),
                     " + ".join(map(str, r["wall_s"])), r["chunks_per_cpu_s"],
                     _times(r["ratio_to_plain"]), _times(r["wall_ratio_to_plain"])]
                    for r in rows])
    verdict = "LOADED: the ratios to torch are not a quiet machine's" if _loaded(report) \
        else "quiet"
    print(f"\nload average (1, 5, 15 min) before {report['load_average']['before']}, "
          f"after {report['load_average']['after']}, on {report['cores_available']} cores: "
          f"{verdict}")
    if result["onnx_passes_at_once"]:
        print(f"ONNX: {result['onnx_passes_at_once']} forward passes at once, one thread each")
    for pair, c in result["cosines"].items():  # type: ignore[attr-defined]
        print(f"cosine {pair}: min {c['min']}, mean {c['mean']}")
    for side, gap in result["alone_vs_batched_max_abs"].items():  # type: ignore[attr-defined]
        print(f"{side}: a vector alone against in the run's batches, largest difference {gap:.1e}")
    targets = (("sorted", "ratio_to_plain", TARGET), ("onnx-int8", "ratio_to_plain", INT8_TARGET),
               ("onnx-int8", "wall_ratio_to_plain", INT8_WALL_TARGET))
    for side, key, target in targets:
        row = next((r for r in rows if r["side"] == side), None)
        if row and row[key]:
            met = float(row[key]) >= target
            clock = "wall" if key.startswith("wall") else "CPU"
            print(f"target {side} >= {target}x plain torch ({clock}): "
                  f"{'met' if met else 'NOT met'}"
                  f"{' in a loaded run: no verdict, run it on a quiet machine' if _loaded(report) else ''}")
    return 0


def _loaded(report: dict[str, object]) -> bool:
    """Whether the 1-minute load average, before or after, exceeded the cores the run had:
    other work then took CPU time from torch's spinning threads more than from onnxruntime's
    sleeping ones, and flattered every ONNX ratio (issue 32)."""
    load = report["load_average"]
    assert isinstance(load, dict)
    return max(load["before"][0], load["after"][0]) > float(str(report["cores_available"]))


def _times(ratio: object) -> str:
    return f"{ratio}x" if ratio else ""


if __name__ == "__main__":
    raise SystemExit(main())
