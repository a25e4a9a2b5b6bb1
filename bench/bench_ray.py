"""The Ray engine's scaling from 1 to 2 embedding workers: a corpus indexed from scratch into a
fresh Milvus Lite file by the bundled model on a local Ray cluster, once per worker count, and
once by the single-process indexer for reference.

    .venv/bin/python bench/bench_ray.py [--corpus ../shared/corpora/openshift-runbooks]
                                        [--workers 1,2] [--cpus 2]

Wall-clock seconds (the work is spread over processes, so this process's CPU time says
nothing): on a machine whose cores other work shares, read them with the load average printed
beside them. Prints a Markdown table; writes JSON to bench/results/ray.json.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tables import save_and_print  # noqa: E402  (bench/, this script's folder)

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        default=REPO.parent / "shared" / "corpora" / "openshift-runbooks")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    import ray

    from mdchunk.index import index_paths
    from mdchunk.index.distributed import RayEngine

    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}})
    rows = []
    try:
        runs: list[tuple[str, RayEngine | None]] = [("local (1 process)", None)]
        runs += [(f"ray, {n} worker{'s' if n > 1 else ''}", RayEngine(workers=n))
                 for n in map(int, args.workers.split(","))]
        for name, engine in runs:
            with tempfile.TemporaryDirectory() as tmp:
                load = os.getloadavg()[0]
                started = time.perf_counter()
                report = index_paths([args.corpus], db=str(Path(tmp) / "r.db"),
                                     collection="r", engine=engine)
                seconds = time.perf_counter() - started
            rows.append({"run": name, "documents": report.added,
                         "chunks": report.written_chunks, "embedded": report.embedded_chunks,
                         "seconds": round(seconds, 1),
                         "chunks_per_s": round(report.embedded_chunks / seconds, 2),
                         "load_average": round(load, 1)})
            logging.warning("%s", rows[-1])
    finally:
        ray.shutdown()
    print(f"corpus {args.corpus}, Ray cluster of {args.cpus} CPUs\n")
    save_and_print(args.out, "ray.json", rows,
                   ["run", "documents", "chunks embedded", "seconds", "chunks/s", "load average"],
                   [[r["run"], r["documents"], r["embedded"], r["seconds"], r["chunks_per_s"],
                     r["load_average"]] for r in rows])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
