"""Authoring help for ``questions.jsonl``: find evidence by exact substring, fill in offsets.

    python bench/retrieval/author.py find CORPUS DOC "exact text"      # offsets of each match
    python bench/retrieval/author.py fill DRAFT.jsonl [--into questions.jsonl]
    python bench/retrieval/author.py check          # verify questions.jsonl and paraphrase.jsonl

A draft line is a question whose evidence items give, instead of ``start``/``end``/``text``:

* ``{"quote": "exact text"}`` - the text must occur in the document (add ``"nth": k`` when it
  occurs more than once: the k-th occurrence, from 0); or
* ``{"from": "exact text", "to": "exact text"}`` - from the start of the first to the end of
  the first occurrence of the second after it (``"nth"`` picks the occurrence of ``from``).

``fill`` replaces them with offsets into the document as :func:`mdchunk.text.document_text`
reads it, and stops with the list of every item it could not place (absent, or ambiguous
without ``nth``). With ``--into``, the filled questions are appended to that file (ids must be
new); otherwise they are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))

import bench_retrieval as br  # noqa: E402


def occurrences(source: str, needle: str) -> list[int]:
    found, at = [], source.find(needle)
    while at >= 0:
        found.append(at)
        at = source.find(needle, at + 1)
    return found


def place(source: str, item: dict) -> tuple[int, int]:
    """``(start, end)`` of a draft evidence item; ``ValueError`` says why it cannot be placed."""
    nth = item.get("nth")
    needle = item["quote"] if "quote" in item else item["from"]
    hits = occurrences(source, needle)
    if not hits:
        raise ValueError(f"not found: {needle[:70]!r}")
    if nth is None and len(hits) > 1:
        raise ValueError(f"{len(hits)} occurrences (give nth): {needle[:70]!r}")
    if nth is not None and nth >= len(hits):
        raise ValueError(f"only {len(hits)} occurrences: {needle[:70]!r}")
    start = hits[nth or 0]
    if "quote" in item:
        return start, start + len(needle)
    end = source.find(item["to"], start + len(needle))
    if end < 0:
        raise ValueError(f"'to' not found after 'from': {item['to'][:70]!r}")
    return start, end + len(item["to"])


def fill(rows: list[dict], shared: Path) -> list[dict]:
    errors = []
    out = []
    for row in rows:
        spec = br.CORPORA[row["corpus"]]
        source = br.read_source(br.corpus_root(spec, shared) / row["doc"])
        evidence = []
        for item in row["evidence"]:
            if "start" in item:
                evidence.append(item)
                continue
            try:
                start, end = place(source, item)
            except ValueError as exc:
                errors.append(f"{row['id']}: {exc}")
                continue
            evidence.append({"start": start, "end": end, "text": source[start:end]})
        done = {**row, "evidence": sorted(evidence, key=lambda e: e["start"])}
        done.setdefault("lang", spec.lang)
        out.append({k: done[k] for k in ("id", "corpus", "doc", "question", "evidence", "kind",
                                          "lang", "style") if k in done})
    if errors:
        raise SystemExit("could not place:\n  " + "\n  ".join(errors))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus-dir", type=Path, default=br.default_corpus_dir())
    sub = ap.add_subparsers(dest="command", required=True)
    find = sub.add_parser("find")
    find.add_argument("corpus", choices=sorted(br.CORPORA))
    find.add_argument("doc")
    find.add_argument("text")
    draft = sub.add_parser("fill")
    draft.add_argument("draft", type=Path)
    draft.add_argument("--into", type=Path)
    sub.add_parser("check")
    args = ap.parse_args(argv)
    shared = args.corpus_dir
    if args.command == "find":
        spec = br.CORPORA[args.corpus]
        source = br.read_source(br.corpus_root(spec, shared) / args.doc)
        for at in occurrences(source, args.text):
            end = at + len(args.text)
            print(json.dumps({"start": at, "end": end, "text": source[at:end]},
                             ensure_ascii=False))
            print(f"   context: {source[max(0, at - 40):end + 40]!r}")
        return 0
    if args.command == "check":
        for path in (br.QUESTIONS, br.PARAPHRASE):
            questions = br.load_questions(path, shared)
            print(f"{path.name}: {len(questions)} questions, all evidence matches its document")
        return 0
    rows = [json.loads(x) for x in args.draft.read_text(encoding="utf-8").splitlines()
            if x.strip()]
    filled = fill(rows, shared)
    lines = [json.dumps(r, ensure_ascii=False) for r in filled]
    if args.into:
        existing = set()
        if args.into.exists():
            existing = {json.loads(x)["id"] for x in args.into.read_text().splitlines()
                        if x.strip()}
        clash = [r["id"] for r in filled if r["id"] in existing]
        if clash:
            raise SystemExit(f"ids already in {args.into}: {clash}")
        with args.into.open("a", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in lines))
        print(f"appended {len(lines)} questions to {args.into}")
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
