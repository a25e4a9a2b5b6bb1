"""`mdchunk index` of each runbook corpus from an empty database, as a user runs it: wall and CPU
seconds and peak memory of the whole process, for this checkout and for an earlier revision
(issue 25: before and after the int8 embedder).

    .venv/bin/python bench/bench_end_to_end.py [--before 935b725] [--corpus ../shared/corpora]

Each run is a fresh ``python -m mdchunk.cli index CORPUS --db NEW.db`` with the checkout (or a
``git worktree`` of ``--before``) first on ``PYTHONPATH``, timed by ``os.wait4`` (user + system
CPU of that process and its threads, its own peak RSS). ``--cold`` adds a run of this checkout
with an empty ``MDCHUNK_CACHE``, so that the model's ONNX export is made on the way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPORA = ("gitlab-com-runbooks", "openshift-runbooks")


@dataclass(frozen=True, slots=True)
class Run:
    side: str
    corpus: str
    wall: float
    cpu: float
    peak_mb: float
    report: str


def run_mdchunk(checkout: Path, *args: str, cwd: Path, env: dict[str, str] | None = None
                ) -> tuple[str, float, float, float]:
    """Run ``mdchunk ARGS`` as a process of its own, with ``checkout`` first on ``PYTHONPATH``:
    (its output, wall s, CPU s, peak RSS MB); a failed run ends the bench with its output."""
    environ = {**os.environ, "PYTHONPATH": str(checkout), "HF_HUB_OFFLINE": "1", **(env or {})}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "mdchunk.cli", *args], env=environ, cwd=cwd,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{checkout}: mdchunk {' '.join(args)} failed:\n{output}")
    return output, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def index_once(checkout: Path, corpus: Path, work: Path, side: str,
               env: dict[str, str] | None = None) -> Run:
    """One ``mdchunk index`` of ``corpus`` into a new database, measured."""
    db = work / f"{side}-{corpus.name}.db"
    shutil.rmtree(db, ignore_errors=True)
    output, wall, cpu, peak = run_mdchunk(checkout, "index", str(corpus), "--db", str(db),
                                          cwd=work, env=env)
    report = next((line for line in output.splitlines() if line.startswith("added ")), "")
    return Run(side, corpus.name, wall, cpu, peak, report)


@contextmanager
def checkout_of(rev: str, work: Path) -> Iterator[Path]:
    """A detached worktree of ``rev``, removed afterwards."""
    folder = work / f"checkout-{rev}"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(folder),
                    rev], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)],
                       check=False)


def table(runs: list[Run]) -> str:
    lines = ["| corpus | side | wall s | CPU s | peak RSS MB | report |",
             "|---|---|---:|---:|---:|---|"]
    lines += [f"| {r.corpus} | {r.side} | {r.wall:.1f} | {r.cpu:.1f} | {r.peak_mb:.0f} | "
              f"{r.report} |" for r in runs]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora")
    ap.add_argument("--before", default="935b725",
                    help="the revision to compare with (default: the release before issue 25)")
    ap.add_argument("--cold", action="store_true",
                    help="also a first run of this checkout with an empty ONNX cache")
    args = ap.parse_args(argv)
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="mdchunk-e2e-") as tmp:
        work = Path(tmp)
        with checkout_of(args.before, work) as before:
            runs += [index_once(before, args.corpus / c, work, f"before ({args.before})")
                     for c in CORPORA]
        runs += [index_once(REPO, args.corpus / c, work, "after") for c in CORPORA]
        if args.cold:
            runs.append(index_once(REPO, args.corpus / CORPORA[0], work, "after, first run",
                                   {"MDCHUNK_CACHE": str(work / "cache")}))
    print(table(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
