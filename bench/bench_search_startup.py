"""`mdchunk search` on a small index as a user runs it, a whole process each time: wall and CPU
seconds and peak memory, with both default models, for this checkout and an earlier one
(issue 43: a search that answers in about a second).

    .venv/bin/python bench/bench_search_startup.py [--before 9cb4d6f | --before-path DIR]
                                                   [--runs 7]

Two indexes are built once, by this checkout, from the fixtures: all of them (Chinese among
them, so ``auto`` picks USE multilingual and the jieba analyzer) and the English-only Markdown
ones (all-MiniLM-L6-v2 on onnx-int8, the standard analyzer). Each search is a fresh
``python -m mdchunk.cli search QUERY --db DB`` with a checkout first on ``PYTHONPATH``, timed by
``os.wait4`` (user + system CPU of the process and its threads, its own peak RSS); the two
checkouts alternate run by run (A B A B), so that a change of load hits both, and the figures
are medians. One untimed search per side and model comes first: it fills the caches a first
search writes (jieba's dictionary, USE's parsed tokenizer, the ONNX export's check record).
The load average before and after is printed with the table: a figure from a loaded machine
says so.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from bench_end_to_end import checkout_of, run_mdchunk  # bench/, this script's folder

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
#: One question a model, in its index's language.
QUERIES = {"use-multilingual": "磁盘空间不足怎么办", "all-MiniLM-L6-v2": "how do I replace a failed disk"}
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True, slots=True)
class Run:
    side: str
    model: str
    wall: float
    cpu: float
    peak_mb: float


def english_fixtures(target: Path) -> Path:
    """The fixtures' Markdown pages without a CJK character, copied into ``target``."""
    target.mkdir(parents=True)
    for path in sorted(FIXTURES.glob("*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if not _CJK.search(text):
            shutil.copy(path, target / path.name)
    return target


def build_indexes(work: Path) -> dict[str, Path]:
    """The two indexes, by model, built by this checkout."""
    corpora = {"use-multilingual": FIXTURES,
               "all-MiniLM-L6-v2": english_fixtures(work / "english")}
    built = {}
    for model, corpus in corpora.items():
        db = work / f"{model}.db"
        output, *_ = run_mdchunk(REPO, "index", str(corpus), "--db", str(db), cwd=work)
        report = next(line for line in output.splitlines() if line.startswith("added "))
        if model not in report:
            raise SystemExit(f"the index of {corpus} was not built with {model}: {report}")
        print(f"{model}: {report}", file=sys.stderr)
        built[model] = db
    return built


def search_runs(sides: dict[str, Path], indexes: dict[str, Path], runs: int, work: Path
                ) -> list[Run]:
    """``runs`` timed searches a side and model, the sides alternating, after one untimed."""
    measured: list[Run] = []
    for model, db in indexes.items():
        args = ("search", QUERIES[model], "--db", str(db), "-k", "5")
        for checkout in sides.values():
            run_mdchunk(checkout, *args, cwd=work)  # fills the caches a first search writes
        for _ in range(runs):
            for side, checkout in sides.items():
                _, wall, cpu, peak = run_mdchunk(checkout, *args, cwd=work)
                measured.append(Run(side, model, wall, cpu, peak))
    return measured


def table(runs: list[Run]) -> str:
    lines = ["| model | side | runs | wall s (median) | CPU s (median) | peak RSS MB |",
             "|---|---|---:|---:|---:|---:|"]
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.model, run.side), []).append(run)
    for (model, side), group in groups.items():
        lines.append(f"| {model} | {side} | {len(group)} | "
                     f"{statistics.median(r.wall for r in group):.2f} | "
                     f"{statistics.median(r.cpu for r in group):.2f} | "
                     f"{max(r.peak_mb for r in group):.0f} |")
    return "\n".join(lines)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="a revision to compare with (a git worktree of it)")
    ap.add_argument("--before-path", type=Path,
                    help="a checkout to compare with, as it is (instead of --before)")
    ap.add_argument("--runs", type=int, default=7, help="timed searches a side and model")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mdchunk-startup-") as tmp:
        work = Path(tmp)
        indexes = build_indexes(work)
        started = load()
        worktree: AbstractContextManager[Path | None] = (
            checkout_of(args.before, work) if args.before else nullcontext(None))
        with worktree as folder:
            sides = {"this checkout": REPO}
            before = folder or args.before_path
            if before is not None:
                sides[f"before ({args.before or before})"] = Path(before)
            runs = search_runs(sides, indexes, args.runs, work)
    print(table(runs))
    print(f"\nload average (1, 5, 15 min) before: {started}; after: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
