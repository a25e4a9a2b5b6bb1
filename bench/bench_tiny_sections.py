"""Does a document of many tiny sections chunk at the speed of ordinary Markdown of the same
size (issue #13)?

The ``tiny sections`` document of ``tests/pathological.py`` (a heading, a line and a two-item
list, again and again: seven lines per 30 characters) against the real runbooks (every ``*.md``
of the corpora, concatenated in path order) cut to the same size. Each chunker runs on both,
best of ``--repeat`` runs by CPU time (``time.process_time``: other processes on the machine
do not count); the report gives MB/s and how many times slower the tiny sections are.

    python bench/bench_tiny_sections.py [--size 300000] [--repeat 5] [--peers]

Rows: mdchunk as it is, the floor (markdown-it-py parse and one tiktoken pass), and with
``--peers`` the peers of ``bench/peers.py``. It also prints how many chunks mdchunk makes of each: top-level sections never share a chunk.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from peers import PEER_NAMES, make_adapters  # noqa: E402

import mdchunk  # noqa: E402
from tests.pathological import document  # noqa: E402

MAX_TOKENS, OVERLAP = 256, 32


def runbooks(corpora: Path, size: int) -> str:
    """The corpora's Markdown files, concatenated in path order, cut to ``size`` characters."""
    parts, total = [], 0
    for path in sorted(corpora.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text if text.endswith("\n") else text + "\n")
        total += len(parts[-1])
        if total >= size:
            break
    return "".join(parts)[:size]


def best_time(run: Callable[[str], object], text: str, repeat: int) -> float:
    """The shortest CPU time of ``repeat`` runs (after one untimed run)."""
    run(text)
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        run(text)
        best = min(best, time.process_time() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=300_000, help="characters of each document")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs; the best counts")
    parser.add_argument("--corpus", type=Path, default=Path(
        os.environ.get("MDCHUNK_CORPORA") or ROOT.parent / "shared" / "corpora"))
    parser.add_argument("--peers", action="store_true", help="also the peers of bench/peers.py")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        parser.error(f"no corpora at {args.corpus} (set --corpus or MDCHUNK_CORPORA)")
    tiny = document("tiny sections", args.size)[:args.size]
    real = runbooks(args.corpus, args.size)
    adapters = make_adapters(["mdchunk", "floor", *(PEER_NAMES if args.peers else ())],
                             MAX_TOKENS, OVERLAP)
    rows: list[tuple[str, Callable[[str], object]]] = [("mdchunk", adapters["mdchunk"].run)]
    rows += [(a.label, a.run) for name, a in adapters.items() if name != "mdchunk"]
    print(f"tiny sections {len(tiny):,} chars, runbooks {len(real):,} chars; "
          f"best of {args.repeat}, CPU s (process_time)")
    counts = [len(adapters["mdchunk"].run(text)) for text in (tiny, real)]
    print(f"mdchunk chunks: tiny {counts[0]:,}, runbooks {counts[1]:,} "
          f"({counts[0] / counts[1]:.1f}x as many)\n")
    print("| chunker | tiny sections s | MB/s | runbooks s | MB/s | tiny is slower by |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, run in rows:
        t_tiny = best_time(run, tiny, args.repeat)
        t_real = best_time(run, real, args.repeat)
        print(f"| {label} | {t_tiny:.3f} | {len(tiny) / 1e6 / t_tiny:.2f} | {t_real:.3f} | "
              f"{len(real) / 1e6 / t_real:.2f} | {t_tiny / t_real * len(real) / len(tiny):.2f}x |",
              flush=True)
    return 0


if __name__ == "__main__":
    mdchunk.chunk_markdown("# warm up\n\nthe tokenizer loads once.\n")
    sys.exit(main())
