"""Duplicates collapsed and one hit per page (issue 34): the near-duplicate threshold measured
on the shared corpora, and what collapsing does to the retrieval bench.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_collapse.py --study threshold \\
        [--out bench/results/collapse-threshold.md] [--pairs bench/results/collapse-pairs.md]
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_collapse.py --study search \\
        [--out bench/results/collapse-search.md] [--corpus gitlab-com-runbooks,...] [--keep DIR]

**threshold**: every shared corpus is chunked as ``mdchunk index FOLDER`` chunks it (the
model ``auto`` picks for the corpus, its default budgets, ``--site`` where the corpus is one
generator's pages) and its leaves compared two by two: how many groups of identical passages
(:func:`mdchunk.index.collapse.passage_key`) it holds, the distribution of the Jaccard
similarity of word-shingle sets (:func:`~mdchunk.index.collapse.shingles`) among the pairs
that are not identical, and how many near-duplicate groups (pairs joined transitively) each
threshold makes. Every pair is scored exactly (a sparse product of the leaves' shingle
incidence matrix), none sampled. ``--pairs`` writes pairs of each similarity band side by side
(their differing lines), to read whether they are true duplicates.

**search**: the styles study's corpora (:mod:`search_styles`) indexed once each by the CLI,
and every question of the retrieval bench asked through :func:`mdchunk.index.search` in hybrid
mode with ``k=5`` four ways on the same index (collapsing is search-time): ``--no-collapse``,
collapsed (the default), and collapsed with two and with one hit per page. Per variant: the CPU
seconds of the call, hit@5 (a hit lies in the evidence's document and overlaps the evidence),
complete@5 (the five spans cover it), how many of each question's five slots show a passage
already shown above them (identical or nearly), how many distinct pages the five hits are from,
and how often collapsing frees a slot that a new page takes.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_retrieval as br  # noqa: E402

from mdchunk.index.collapse import (  # noqa: E402
    NEAR_DUPLICATE,
    passage_key,
    shingles,
    similarity,
)

#: The shared corpora the threshold is measured on, each as ``mdchunk index`` is given it.
SHARED = {"gitlab-com-runbooks": ("", None, None), "openshift-runbooks": ("", None, None),
          "rocketmq-docs": ("", None, None), "hugo-docs": ("content", "hugo", "content/en"),
          "ory-docs": ("docs", "docusaurus", None)}
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
BANDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def load_averages() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


# --------------------------------------------------------------------------------------------
# The threshold


def corpus_leaves(folder: Path, site: tuple[str, str, str | None]) -> list[Any]:
    """The leaves ``mdchunk index FOLDER`` makes of the corpus, with every default."""
    from mdchunk import ChunkerConfig
    from mdchunk.embedding import load_embedder
    from mdchunk.index.build_config import chosen_model, leveled_config
    from mdchunk.index.engine import Preparer
    from mdchunk.index.language import AUTO, survey
    from mdchunk.sources import discover

    sources = discover([folder])
    embedder = load_embedder(chosen_model(AUTO, None, survey(sources)), None)
    fields: dict[str, Any] = {}
    if site[1]:
        fields["site"] = site[1]
        if site[2]:
            fields["includes"] = str(folder / site[2])
    chunker = leveled_config(embedder, ChunkerConfig(**fields), True)
    preparer = Preparer(chunker)
    leaves = []
    for source in sources:
        _, doc = preparer.prepared(source, "", False)
        if not isinstance(doc, Exception):
            leaves += doc.leaves
    print(f"  {folder.name}: {len(sources)} documents, {len(leaves)} leaves "
          f"({embedder.name}, leaves of {chunker.max_tokens} tokens)", flush=True)
    return leaves


def pair_similarities(keys: Sequence[str]) -> list[tuple[int, int, float]]:
    """``(i, j, jaccard)`` of every pair ``i < j`` of passages that share a shingle and are
    not the same passage."""
    import numpy as np
    from scipy import sparse

    sets = [shingles(k) for k in keys]
    vocab: dict[str, int] = {}
    rows, cols = [], []
    for i, words in enumerate(sets):
        for w in words:
            rows.append(i)
            cols.append(vocab.setdefault(w, len(vocab)))
    m = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                          shape=(len(sets), len(vocab)))
    shared = (m @ m.T).tocoo()
    sizes = np.array([len(s) for s in sets], dtype=np.float32)
    out = []
    for i, j, n in zip(shared.row, shared.col, shared.data, strict=True):
        if i < j and keys[i] != keys[j]:
            out.append((int(i), int(j), float(n / (sizes[i] + sizes[j] - n))))
    return out


def components(n: int, pairs: Sequence[tuple[int, int]]) -> list[list[int]]:
    """The groups of two or more that ``pairs`` join (transitively)."""
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[root(a)] = root(b)
    groups: dict[int, list[int]] = defaultdict(list)
    for x in range(n):
        groups[root(x)].append(x)
    return [g for g in groups.values() if len(g) > 1]


def side_by_side(a: Any, b: Any, alike: float) -> str:
    """A pair as a reader checks it: where each lies, and the lines that differ."""
    diff = [line for line in difflib.unified_diff(a.text.splitlines(), b.text.splitlines(),
                                                  lineterm="", n=0)
            if not line.startswith(("---", "+++"))]
    shown = "\n".join(diff[:12]) + ("\n…" if len(diff) > 12 else "")
    return (f"- **{alike:.3f}** `{a.doc_id}:{a.line_start}-{a.line_end}` vs "
            f"`{b.doc_id}:{b.line_start}-{b.line_end}`\n\n```diff\n{shown}\n```\n")


def threshold_study(shared: Path, pairs_out: Path | None) -> str:
    lines = ["#### Identical and near-duplicate leaves in the shared corpora", "",
             f"Load averages at the start: {load_averages()}.", "",
             "| corpus | leaves | identical groups | leaves repeated | "
             + " | ".join(f"J≥{t} groups (leaves)" for t in THRESHOLDS) + " |",
             "|---|---:|---:|---:|" + "---:|" * len(THRESHOLDS)]
    bands: dict[str, Counter[int]] = {}
    samples: list[str] = []
    for name, site in SHARED.items():
        folder = shared / name
        if not folder.is_dir():
            print(f"  {name}: absent, skipped")
            continue
        leaves = corpus_leaves(folder, site)
        keys = [passage_key(c.text) for c in leaves]
        same = Counter(keys)
        identical = [n for n in same.values() if n > 1]
        scored = pair_similarities(keys)
        bands[name] = Counter(min(int(j * 10), 9) for _, _, j in scored if j >= BANDS[0])
        index_of: dict[str, int] = {}
        joined = [(i, index_of.setdefault(k, i)) for i, k in enumerate(keys)]
        cells = []
        for t in THRESHOLDS:
            near = [(i, j) for i, j, s in scored if s >= t]
            groups = components(len(keys), [*joined, *near])
            cells.append(f"{len(groups)} ({sum(len(g) - 1 for g in groups)})")
        lines.append(f"| {name} | {len(leaves)} | {len(identical)} | "
                     f"{sum(n - 1 for n in identical)} | " + " | ".join(cells) + " |")
        by_band: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
        for i, j, s in scored:
            if s >= 0.5:
                by_band[min(int(s * 10), 9)].append((i, j, s))
        for band in sorted(by_band):
            picked = by_band[band][:: max(1, len(by_band[band]) // 4)][:4]
            samples.append(f"### {name}, J {band / 10:.1f}-{(band + 1) / 10:.1f} "
                           f"({len(by_band[band])} pairs)\n")
            samples += [side_by_side(leaves[i], leaves[j], s) for i, j, s in picked]
    lines += ["", "A group: leaves joined by identical passages and by pairs at or above the "
              "threshold (transitively); in brackets, the leaves beyond the first of each group "
              "(what collapsing could remove). Identical: the same passage_key.", "",
              "Pairs of different passages by Jaccard similarity of 3-word shingles:", "",
              "| corpus | " + " | ".join(f"{b:.1f}-{b + 0.1:.1f}" for b in BANDS[:-1]) + " |",
              "|---|" + "---:|" * (len(BANDS) - 1)]
    for name, counts in bands.items():
        lines.append(f"| {name} | " + " | ".join(str(counts[int(b * 10)])
                                                for b in BANDS[:-1]) + " |")
    lines.append(f"\nLoad averages at the end: {load_averages()}.")
    if pairs_out is not None:
        pairs_out.parent.mkdir(parents=True, exist_ok=True)
        pairs_out.write_text("\n".join(samples), encoding="utf-8")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The retrieval bench with and without collapsing

VARIANTS: dict[str, dict[str, Any]] = {"no-collapse": {"collapse": False},
                                       "collapse": {"collapse": True},
                                       "collapse, per page 2": {"collapse": True, "per_page": 2},
                                       "collapse, per page 1": {"collapse": True, "per_page": 1}}


def repeated_slots(hits: Sequence[Any]) -> int:
    """Hits whose passage (identical, or nearly at :data:`NEAR_DUPLICATE`) one above shows."""
    seen: list[tuple[str, frozenset[str]]] = []
    repeated = 0
    for hit in hits:
        key = passage_key(hit.text)
        words = shingles(key)
        if any(key == k or similarity(words, w) >= NEAR_DUPLICATE for k, w in seen):
            repeated += 1
        seen.append((key, words))
    return repeated


def judge(question: Any, hits: Sequence[Any], chars: Any) -> dict[str, Any]:
    spans = [(h.start, h.end) for h in hits if h.doc_id == question.doc]
    hit = any(bool(((chars >= a) & (chars < b)).any()) for a, b in spans)
    return {"hit": hit, "complete": br.covers(spans, chars), "repeated": repeated_slots(hits),
            "pages": len({h.doc_id for h in hits}), "ids": [h.id for h in hits],
            "docs": [h.doc_id for h in hits]}


def search_study(shared: Path, corpora: Sequence[str] | None, keep: Path | None) -> str:
    """The search study; in ``keep`` (its indexes kept for the next run, whose ``mdchunk
    index`` then finds every document unchanged), else in a temporary folder."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        return _search_study(shared, corpora, keep)
    with tempfile.TemporaryDirectory(prefix="collapse-") as tmp_name:
        return _search_study(shared, corpora, Path(tmp_name))


def _search_study(shared: Path, corpora: Sequence[str] | None, tmp: Path) -> str:
    import bench_search as bs
    import search_styles as ss

    from mdchunk.index import search

    questions, missing = ss.select_questions(shared, corpora, "all")
    names = list(dict.fromkeys(q.corpus for q in questions))
    results: dict[str, dict[str, dict[str, Any]]] = {}
    load_start = load_averages()
    (tmp / "run").mkdir(exist_ok=True)
    for name in names:
        staged = bs.stage(name, (name,), questions, shared, tmp / "staged")
        ix = ss.index_corpus(name, staged, tmp)
        db = tmp / f"styles-{name}.db"
        embedder, _, _ = ss.query_embedder(db, ix.collection)
        mine = [q for q in questions if q.corpus == name]
        for q in mine:
            chars = br.evidence_chars(staged.sources[q.doc], q.evidence)
            results[q.id] = {}
            for variant, options in VARIANTS.items():
                started = time.process_time()
                hits = search(q.question, db=str(db), collection=ix.collection, k=5,
                              model=embedder, **options)
                cpu = time.process_time() - started
                results[q.id][variant] = {**judge(q, hits, chars), "cpu": cpu}
        print(f"  {name}: indexed in {ix.wall_s:.0f} s; {len(mine)} questions", flush=True)
    return search_tables(questions, results, missing, load_start)


def search_tables(questions: Sequence[Any], results: dict[str, dict[str, dict[str, Any]]],
                  missing: Sequence[str], load_start: str) -> str:
    lines = ["#### The retrieval bench, hybrid, k=5, on one index per corpus", "",
             f"Load averages: {load_start} at the start, {load_averages()} at the end. "
             f"Questions: {len(questions)}; corpora absent: {', '.join(missing) or 'none'}.", "",
             "| corpus | questions | variant | hit@5 | complete@5 | repeated slots | "
             "pages in top 5 (mean) | CPU ms a search |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    by_corpus: dict[str, list[Any]] = defaultdict(list)
    for q in questions:
        by_corpus[q.corpus].append(q)
    for corpus, mine in [*sorted(by_corpus.items()), ("all", list(questions))]:
        for variant in VARIANTS:
            rows = [results[q.id][variant] for q in mine]
            n = len(rows)
            lines.append(
                f"| {corpus} | {n} | {variant} | {100 * sum(r['hit'] for r in rows) / n:.1f} | "
                f"{100 * sum(r['complete'] for r in rows) / n:.1f} | "
                f"{sum(r['repeated'] for r in rows)} of {5 * n} | "
                f"{sum(r['pages'] for r in rows) / n:.2f} | "
                f"{1000 * sum(r['cpu'] for r in rows) / n:.0f} |")
    freed = sum(1 for q in questions
                if len(set(results[q.id]["collapse"]["docs"])
                       - set(results[q.id]["no-collapse"]["docs"])) > 0)
    changed = {v: sum(1 for q in questions
                      if results[q.id][v]["hit"] != results[q.id]["no-collapse"]["hit"]
                      or results[q.id][v]["complete"] != results[q.id]["no-collapse"]["complete"])
               for v in VARIANTS if v != "no-collapse"}
    lines += ["", f"Collapsing freed a slot that a new page took in {freed} of "
              f"{len(questions)} questions; questions whose hit@5 or complete@5 changed against "
              "no-collapse: " + ", ".join(f"{v} {n}" for v, n in changed.items()) + "."]
    for v in VARIANTS:
        if v != "no-collapse":
            lost = [q.id for q in questions if results[q.id]["no-collapse"]["complete"]
                    and not results[q.id][v]["complete"]]
            won = [q.id for q in questions if results[q.id][v]["complete"]
                   and not results[q.id]["no-collapse"]["complete"]]
            lines.append(f"{v}: complete without it and not with it {len(lost)} "
                         f"({', '.join(lost) or 'none'}); the other way {len(won)} "
                         f"({', '.join(won) or 'none'}).")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--study", choices=("threshold", "search"), required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--pairs", type=Path)
    parser.add_argument("--corpus", help="comma-separated corpora (search study)")
    parser.add_argument("--keep", type=Path, help="keep the search study's indexes here")
    args = parser.parse_args(argv)
    shared = br.default_corpus_dir()
    if args.study == "threshold":
        text = threshold_study(shared, args.pairs)
    else:
        text = search_study(shared, args.corpus.split(",") if args.corpus else None,
                            args.keep)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
