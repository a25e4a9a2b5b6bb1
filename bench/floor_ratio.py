"""mdchunk ÷ floor in CPU time on each shared corpus, quickly: each corpus read with its site
(``corpus_sites.py``), mdchunk (``Chunker.chunk``, 256/32) and the floor (markdown-it-py
parse + one tiktoken pass) interleaved in one process, the best of ``--reps`` passes each.
A quick check between the full ``bench_speed.py`` runs (issue 32's loaded figures).

    .venv/bin/python bench/floor_ratio.py [--reps 3] [CORPUS_NAME ...]
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus_sites import markdown_files, site_of  # noqa: E402

CORPORA = HERE.parent.parent / "shared" / "corpora"


def best_times(folder: Path, reps: int) -> tuple[float, float]:
    """The best CPU seconds of mdchunk's pass and of the floor's over ``folder``."""
    import mdchunk
    from mdchunk.formats.markdown_it_parser import full_parser

    texts = [p.read_text(encoding="utf-8-sig") for p in markdown_files(folder)]
    chunker = mdchunk.Chunker(mdchunk.ChunkerConfig(max_tokens=256, overlap_tokens=32,
                                                    site=site_of(folder)))
    full, counter = full_parser(), chunker.counter

    def ours() -> None:
        for text in texts:
            chunker.chunk(text)

    def floor() -> None:
        for text in texts:
            full.parse(text)
            counter.count(text)

    ours(), floor()  # warm-up
    best = {ours: float("inf"), floor: float("inf")}
    for _ in range(reps):
        for run in (ours, floor):
            gc.collect()
            started = time.process_time()
            run()
            best[run] = min(best[run], time.process_time() - started)
    return best[ours], best[floor]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpus folders (default: every one)")
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # an include with no root set says so once a page
    folders = [args.corpora / n for n in args.names] or sorted(
        p for p in args.corpora.iterdir() if p.is_dir())
    print("| corpus | site | mdchunk s | floor s | mdchunk ÷ floor |")
    print("| --- | --- | ---: | ---: | ---: |")
    for folder in folders:
        ours, floor = best_times(folder, args.reps)
        print(f"| {folder.name} | {site_of(folder)} | {ours:.3f} | {floor:.3f} | "
              f"{ours / floor:.2f} |", flush=True)


if __name__ == "__main__":
    main()
