"""Pathological inputs: does chunking time stay linear in the size of the document?

Each kind of ``tests/pathological.py`` (a 10 MB paragraph without punctuation, one 5 MB line of
Latin or CJK, 100,000 list items, lists and quotes nested 10,000 deep, a 50,000-row table,
10,000 empty headings flat and nested, an unclosed fence, NUL bytes, lone surrogates and emoji)
is chunked at half its size and at its full size, with LF, CRLF and lone-CR line endings; the
report prints the least CPU time of ``--reps`` runs of each (``time.process_time``: other
processes on the machine do not count) and their ratio. Linear time gives about 2; a ratio of 4 is quadratic. Each run is also
checked: every non-blank character covered, every chunk within the budget.

    python bench/bench_pathological.py [--quick] [--kinds K1,K2] [--newlines LF,CRLF,CR] [--reps 2]

``--quick`` divides every size by 8 (a few minutes); the full run takes about twenty.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mdchunk  # noqa: E402
from tests.audit import uncovered  # noqa: E402
from tests.pathological import KINDS, NEWLINES, document  # noqa: E402

MAX_TOKENS, OVERLAP = 256, 32

#: Full size of each kind, in characters (the sizes the issue names).
SIZES: dict[str, int] = {
    "paragraph without punctuation": 10_000_000,
    "one Latin line": 5_000_000,
    "one CJK line": 5_000_000,
    "list items": 1_200_000,  # 100,000 items
    "nested lists": 4_000_000,  # lines nested 10,000 deep
    "nested blockquotes": 4_000_000,
    "table rows": 700_000,  # 50,000 rows
    "empty headings": 90_000,  # 10,000 headings
    "nested empty headings": 90_000,
    "unclosed fence": 5_000_000,
    "tiny sections": 1_000_000,
    "comments in containers": 1_000_000,  # 11,000 items and quotes, each with a comment
    "NUL, lone surrogates, emoji": 2_000_000,
}


def timed(text: str) -> tuple[float, list[mdchunk.Chunk]]:
    gc.collect()  # what earlier runs left behind is not this run's to walk
    started = time.process_time()
    chunks = mdchunk.chunk_markdown(text, max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP)
    return time.process_time() - started, chunks


def fastest(half: str, full: str, reps: int) -> tuple[float, float, list[mdchunk.Chunk]]:
    """The least CPU time of ``reps`` runs of each document, half and full alternated: one
    reading of each let a slow moment of a shared machine (±10% from one second to the next)
    pass for a departure from linear time (a single run gave 2.52 for twice the size where
    the next gave 2.05); a run under a second is repeated at least three times."""
    t_half = t_full = float("inf")
    chunks: list[mdchunk.Chunk] = []
    done = 0
    while done < reps or (done < 3 and t_full < 1.0):
        t_half = min(t_half, timed(half)[0])
        chunks = []  # the last run's chunks are checked; none is kept alive while one runs
        seconds, chunks = timed(full)
        t_full = min(t_full, seconds)
        done += 1
    return t_half, t_full, chunks


def checked(text: str, chunks: list[mdchunk.Chunk]) -> str:
    """``ok``, or what broke: a chunk over budget, or text no chunk holds."""
    if any(c.token_count > MAX_TOKENS for c in chunks):
        return "over budget"
    if uncovered(text, [(c.start, c.end) for c in chunks]):
        return "text lost"
    return "ok"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes divided by 8")
    parser.add_argument("--kinds", default="", help="comma-separated kinds (default: all)")
    parser.add_argument("--newlines", default="LF,CRLF,CR", help="LF, CRLF and/or CR")
    parser.add_argument("--reps", type=int, default=2, help="runs of each size; the least counts")
    args = parser.parse_args(argv)
    wanted = args.kinds.split(",")  # a kind whose name holds commas is named whole
    kinds = [k for k in KINDS if not args.kinds or k in wanted or k == args.kinds]
    newlines = args.newlines.split(",")
    mdchunk.chunk_markdown("# warm up\n\nthe tokenizer loads once.\n")
    print("| kind | line ends | size | CPU s | half size | CPU s | ratio | MB/s | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    worst = 0.0
    for kind in kinds:
        size = SIZES[kind] // (8 if args.quick else 1)
        for name in newlines:
            half = document(kind, size // 2, NEWLINES[name])
            full = document(kind, size, NEWLINES[name])
            t_half, t_full, chunks = fastest(half, full, args.reps)
            ratio = t_full / max(t_half, 1e-3)
            worst = max(worst, ratio)
            print(f"| {kind} | {name} | {len(full) / 1e6:.2f} MB | {t_full:.2f} | "
                  f"{len(half) / 1e6:.2f} MB | {t_half:.2f} | {ratio:.2f} | "
                  f"{len(full) / 1e6 / max(t_full, 1e-3):.2f} | {checked(full, chunks)} |",
                  flush=True)
    print(f"\nworst doubling ratio: {worst:.2f} (2 is linear, 4 quadratic)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
