"""Which Markdown reader reads each corpus document: the Rust parser (markdown-it-pyrs) or the
reference (markdown-it-py), as the default chunk path chooses (on the text after hygiene), and
what sends documents to the reference.

    python bench/bench_readers.py            # the shared corpora and Chroma's corpora
    python bench/bench_readers.py --corpus DIR [--corpus DIR ...]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from corpus_sites import markdown_files, site_of  # noqa: E402

from mdchunk.formats.markdown_rs import parse_fast, refusals  # noqa: E402
from mdchunk.text import clean_text, document_text  # noqa: E402


def shares(folder: Path) -> tuple[int, int, int, int, Counter[str]]:
    """Documents and characters of ``folder``'s Markdown, those the Rust parser reads, and how
    many documents each construct sends to the reference."""
    docs = fast = chars = fast_chars = 0
    reasons: Counter[str] = Counter()
    site = site_of(folder)  # a documentation site's pages as the chunker reads them
    for path in markdown_files(folder):
        text = clean_text(document_text(path)).text
        docs, chars = docs + 1, chars + len(text)
        if parse_fast(text, site) is not None:
            fast, fast_chars = fast + 1, fast_chars + len(text)
        else:
            reasons.update(list(refusals(text, site)) or ["a heading that may use a link reference, or a node it has no rule for"])
    return docs, fast, chars, fast_chars, reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, action="append",
                        help="a folder of Markdown (repeatable; default: the shared corpora)")
    args = parser.parse_args()
    shared = REPO.parent / "shared"
    corpora = args.corpus or [*sorted(p for p in (shared / "corpora").iterdir() if p.is_dir()),
                              shared / "chroma" / "corpora"]
    print("| corpus | documents | read by markdown-it-pyrs | by markdown-it-py "
          "| characters by markdown-it-pyrs | what sends documents to markdown-it-py |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for folder in corpora:
        docs, fast, chars, fast_chars, reasons = shares(folder)
        name = folder.name if folder.name != "corpora" else f"{folder.parent.name}-corpora"
        why = ", ".join(f"{reason} {n}" for reason, n in reasons.most_common()) or "—"
        print(f"| {name} | {docs} | {fast} ({fast / docs:.0%}) | {docs - fast} "
              f"({(docs - fast) / docs:.0%}) | {fast_chars / chars:.0%} | {why} |", flush=True)


if __name__ == "__main__":
    main()
