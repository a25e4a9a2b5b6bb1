"""What text hygiene and encoding detection cost (issue 15).

For every document of the runbook corpora and Chroma's corpora: CPU time of chunking with
``clean=True`` (the default) and ``clean=False``, in the same run, best of ``--reps``; then the
same on a dirty copy of each document (a zero-width space every 40 characters, a soft hyphen
every 97, a decomposed accent every 113: every stretch is remapped and one line in three is
normalised cluster by cluster). Last, decoding a 0.7 MB GB18030 file (UTF-8 tried, GB18030 and
charset-normalizer) against decoding the same text as UTF-8.

    PYTHONPATH=. .venv/bin/python bench/bench_hygiene.py [--corpus DIR] [--extra-corpus DIR]
        [--reps N]

CPU time (``time.process_time``) on a shared machine; ratios are what to compare.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import mdchunk
from mdchunk.text import decode_document

ROOT = Path(__file__).resolve().parent.parent


def dirty(text: str) -> str:
    out = []
    for i, ch in enumerate(text):
        out.append(ch)
        if i % 40 == 39:
            out.append("\u200b")
        if i % 97 == 96:
            out.append("\u00ad")
        if i % 113 == 112:
            out.append("e\u0301")
    return "".join(out)


def best(reps: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(reps):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def chunk_all(texts: list[str], clean: bool) -> Callable[[], object]:
    return lambda: [mdchunk.chunk_markdown(t, max_tokens=256, overlap_tokens=32, clean=clean)
                    for t in texts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--extra-corpus", type=Path,
                        default=ROOT.parent / "shared" / "chroma" / "corpora")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    docs = [p for folder in (args.corpus, args.extra_corpus) if folder.is_dir()
            for p in sorted(folder.rglob("*.md"))]
    if not docs:
        raise SystemExit(f"no documents under {args.corpus} or {args.extra_corpus}")
    texts = [decode_document(p).text for p in docs]
    size = sum(map(len, texts)) / 1e6
    print(f"{len(docs)} documents, {size:.1f} M characters; 256-token budget, 32 overlap")
    for label, corpus in (("as they are", texts), ("dirty copy", [dirty(t) for t in texts])):
        times = {clean: best(args.reps, chunk_all(corpus, clean)) for clean in (True, False)}
        print(f"{label:12s} clean=True {times[True]:7.2f}s  clean=False {times[False]:7.2f}s  "
              f"ratio {times[True] / times[False]:.3f}")
    chinese = (ROOT / "fixtures" / "manual.zh.txt").read_text(encoding="utf-8")
    chinese = chinese * (700_000 // len(chinese))
    with tempfile.TemporaryDirectory() as folder:
        gb, utf8 = Path(folder) / "gb.txt", Path(folder) / "utf8.txt"
        gb.write_bytes(chinese.encode("gb18030"))
        utf8.write_bytes(chinese.encode("utf-8"))
        assert decode_document(gb).encoding == "gb18030"
        t_gb = best(args.reps, lambda: decode_document(gb))
        t_utf8 = best(args.reps, lambda: decode_document(utf8))
    print(f"decoding {len(chinese) / 1e3:.0f} k characters: GB18030 (detected) {t_gb * 1e3:.1f} ms,"
          f" UTF-8 {t_utf8 * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
