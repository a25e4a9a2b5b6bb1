"""mdchunk ÷ floor in CPU time on each shared corpus, quickly: each corpus read with its site
(``corpus_sites.py``), mdchunk (``Chunker.chunk``, 256/32) and the floor (markdown-it-py
parse + one tiktoken pass) interleaved in one process, the best of ``--reps`` passes each, and
the median of the ratios of the passes run side by side; page by page: each page chunked and
read by the floor back to back (the floor first on every other pass), the sum of each page's
fastest time for either (a shared machine's speed drifts by a third from one second to the
next; a slow moment spoils one page's reading, which the others' fastest outweigh); and paired:
each page's median ratio, weighted by its floor time (:func:`paired_ratio`). Each pass reads
fresh copies of the pages, as a real run reads them from disk (:func:`_fresh`).
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus_sites import markdown_files, site_of  # noqa: E402

CORPORA = HERE.parent.parent / "shared" / "corpora"


def _fresh(text: str) -> str:
    """A new string equal to ``text``, as a page read from disk is: CPython keeps the UTF-8 form
    of a non-ASCII string once a Rust extension (tiktoken, the fast parser) has asked for it,
    so a string read again pass after pass is converted once; on rocketmq-docs that spared the
    floor's tiktoken pass 13 ms (a seventh) that a real run pays (``bench_speed.py`` reads each
    file afresh)."""
    return (text + "\0")[:-1]


def page_times(folder: Path, reps: int) -> list[tuple[list[float], list[float]]]:
    """CPU seconds of mdchunk and of the floor on each page of ``folder``: for each of ``reps``
    passes, the pages in turn, each chunked and read by the floor back to back, so that the two
    meet the same moment of a machine whose speed drifts; the floor first on every other pass,
    as whichever runs second finds the page's tokens warm in the processor's caches (tiktoken's
    table of merges: worth several per cent to the floor when it always ran second)."""
    import mdchunk
    from mdchunk.formats.markdown_it_parser import full_parser

    texts = [p.read_text(encoding="utf-8-sig") for p in markdown_files(folder)]
    chunker = mdchunk.Chunker(mdchunk.ChunkerConfig(max_tokens=256, overlap_tokens=32,
                                                    site=site_of(folder)))
    full, counter = full_parser(), chunker.counter
    clock = time.process_time

    def floor(text: str) -> float:
        started = clock()
        full.parse(text)
        counter.count(text)
        return clock() - started

    def ours(text: str) -> float:
        started = clock()
        chunker.chunk(text)
        return clock() - started

    def one_pass(floor_first: bool) -> tuple[list[float], list[float]]:
        mine, floors = [], []
        gc.collect()
        for text in texts:
            ours_copy, floor_copy = _fresh(text), _fresh(text)
            if floor_first:
                floors.append(floor(floor_copy))
                mine.append(ours(ours_copy))
            else:
                mine.append(ours(ours_copy))
                floors.append(floor(floor_copy))
        return mine, floors

    one_pass(False)  # warm-up
    return [one_pass(floor_first=rep % 2 == 1) for rep in range(reps)]


def paired_ratio(passes: list[tuple[list[float], list[float]]]) -> float:
    """Each page's median ratio over the passes (mdchunk ÷ the floor, measured back to back:
    a slow moment slows both), weighted by the page's median floor time."""
    pages = range(len(passes[0][0]))
    ratios = [statistics.median(p[0][i] / p[1][i] for p in passes if p[1][i] > 0) for i in pages]
    weights = [statistics.median(p[1][i] for p in passes) for i in pages]
    return sum(r * w for r, w in zip(ratios, weights)) / sum(weights)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="corpus folders (default: every one)")
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # an include with no root set says so once a page
    folders = [args.corpora / n for n in args.names] or sorted(
        p for p in args.corpora.iterdir() if p.is_dir())
    print("| corpus | site | mdchunk s (best pass) | floor s (best pass) | best ÷ best | median "
          "of pass ratios | page by page | paired |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for folder in folders:
        passes = page_times(folder, args.reps)
        sums = [(sum(ours), sum(floor)) for ours, floor in passes]
        best_ours, best_floor = min(p[0] for p in sums), min(p[1] for p in sums)
        paired = statistics.median(a / b for a, b in sums)
        # each page at its fastest, for either: a slow second spoils one reading, not the sum
        pages = len(passes[0][0])
        by_page = (sum(min(p[0][i] for p in passes) for i in range(pages))
                   / sum(min(p[1][i] for p in passes) for i in range(pages)))
        print(f"| {folder.name} | {site_of(folder)} | {best_ours:.3f} | {best_floor:.3f} | "
              f"{best_ours / best_floor:.2f} | {paired:.2f} | {by_page:.2f} | "
              f"{paired_ratio(passes):.2f} |", flush=True)


if __name__ == "__main__":
    main()
