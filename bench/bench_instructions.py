"""mdchunk ÷ floor in CPU instructions: a cross-check of bench_speed.py that no other job on a
shared machine can disturb.

Valgrind's callgrind counts the instructions a process executes. Each corpus is measured four
times in fresh processes: set-up only and set-up plus one pass, for mdchunk and for the floor
(markdown-it-py parse + one tiktoken pass, as in bench_speed.py); the difference is the pass.
Instructions are not time (Rust and C code retire more of them per cycle than the Python
interpreter does), so this compares mdchunk with the floor, not with the peers. A documentation
site's corpus is chunked with its ``site`` (``corpus_sites.py``: hugo-docs as Hugo, ory-docs as
Docusaurus), its ``.mdx`` pages included.

    .venv/bin/python bench/bench_instructions.py            # needs valgrind (apt install valgrind)
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from corpus_sites import site_of  # noqa: E402

_CHILD = r"""
import sys
from pathlib import Path
sys.path.insert(0, {repo!r})
sys.path.insert(0, {bench!r})
import mdchunk
from corpus_sites import markdown_files, site_of
from mdchunk.formats.markdown_it_parser import full_parser
folder = Path({folder!r})
texts = [p.read_text(encoding="utf-8-sig") for p in markdown_files(folder)]
config = mdchunk.ChunkerConfig(max_tokens=256, overlap_tokens=32, site=site_of(folder))
chunker = mdchunk.Chunker(config)
parser, counter = full_parser(), chunker.counter
warm = "# A\n\nWarm up. The parser and the tokenizer. " * 200
chunker.chunk(warm); parser.parse(warm); counter.count(warm)  # one-time set-up, for both
if {run!r} == "mdchunk":
    for text in texts:
        chunker.chunk(text)
elif {run!r} == "floor":
    for text in texts:
        parser.parse(text)
        counter.count(text)
"""


def instructions(folder: Path, run: str) -> int:
    code = _CHILD.format(repo=str(REPO), bench=str(REPO / "bench"), folder=str(folder), run=run)
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, action="append",
                        help="a folder of Markdown (repeatable; default: the shared corpora)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt install valgrind)")
    shared = REPO.parent / "shared"
    corpora = args.corpus or [*sorted(p for p in (shared / "corpora").iterdir() if p.is_dir()),
                              shared / "chroma" / "corpora"]
    print("| corpus | site | mdchunk M instructions | floor M instructions | mdchunk ÷ floor |")
    print("| --- | --- | ---: | ---: | ---: |")
    for folder in corpora:
        base = instructions(folder, "none")
        ours, floor = instructions(folder, "mdchunk") - base, instructions(folder, "floor") - base
        name = folder.name if folder.name != "corpora" else f"{folder.parent.name}-corpora"
        print(f"| {name} | {site_of(folder)} | {ours / 1e6:,.0f} | {floor / 1e6:,.0f} | {ours / floor:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
