"""mdchunk ÷ floor in CPU time on each shared corpus, quickly: each corpus read with its site
(``corpus_sites.py``), mdchunk (``Chunker.chunk``, 256/32) and the floor (markdown-it-py
parse + one tiktoken pass) interleaved in one process, the best of ``--reps`` passes each, and
the median of the ratios of the passes run side by side (a shared machine's speed drifts by a
third from one second to the next: each figure alone may mislead; both agreeing do not).
A quick check between the full ``bench_speed.py`` runs (issue 32's loaded figures).

    .venv/bin/python bench/floor_ratio.py [--reps 3] [CORPUS_NAME ...]
"""

from __future__ import annotations

import argparse
import gc
import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus_sites import markdown_files, site_of  # noqa: E402

CORPORA = HERE.parent.parent / "shared" / "corpora"


def pass_times(folder: Path, reps: int) -> list[tuple[float, float]]:
    """CPU seconds of mdchunk's pass and of the floor's over ``folder``, ``reps`` pairs run
    side by side."""
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

    def seconds(run: Callable[[], None]) -> float:
        gc.collect()
        started = time.process_time()
        run()
        return time.process_time() - started

    ours(), floor()  # warm-up
    return [(seconds(ours), seconds(floor)) for _ in range(reps)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpus folders (default: every one)")
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # an include with no root set says so once a page
    folders = [args.corpora / n for n in args.names] or sorted(
        p for p in args.corpora.iterdir() if p.is_dir())
    print("| corpus | site | mdchunk s (best) | floor s (best) | best ÷ best | median of pair "
          "ratios |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for folder in folders:
        pairs = pass_times(folder, args.reps)
        ours, floor = min(p[0] for p in pairs), min(p[1] for p in pairs)
        paired = statistics.median(a / b for a, b in pairs)
        print(f"| {folder.name} | {site_of(folder)} | {ours:.3f} | {floor:.3f} | "
              f"{ours / floor:.2f} | {paired:.2f} |", flush=True)


if __name__ == "__main__":
    main()
