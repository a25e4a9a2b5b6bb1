"""Search-time variants on the styles study's kept collections (issue 31): fusions, unit
scoring and query expansion, measured on the same collections without indexing again.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_search.py --studies styles \\
        --index-args=--units --keep /tmp/styles-units          # index once, keep the files
    HF_HUB_OFFLINE=1 .venv/bin/python bench/search_variants.py --keep /tmp/styles-units \\
        [--variants hybrid hybrid-units ...] [--questions paraphrase] [--out FILE.md]

Every variant goes through :func:`mdchunk.index.search.search_store` (what ``search`` calls
once the query is embedded) on the kept Milvus Lite collection, with a :class:`SearchConfig`
and an :class:`IndexMeta` of its own (units on or off: a collection indexed with units holds
the very leaves one without holds, so both are measured on it). The store's answers are
memoised per query, so twenty variants cost little more than one. A question is complete@5
as in :mod:`search_styles`; tokens are the five hits' ``cl100k_base`` tokens.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bench_retrieval as br
import search_styles

TOP_K = 5


class MemoStore:
    """A store whose read answers are remembered per arguments: variants that ask the same
    side the same thing (most of them) are answered once."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._seen: dict[Any, Any] = {}

    def _memo(self, name: str, key: Any, call: Callable[[], Any]) -> Any:
        if (name, key) not in self._seen:
            self._seen[name, key] = call()
        return self._seen[name, key]

    def search(self, query: Any, *, limit: int, where: Any = None) -> Any:
        vector = getattr(query, "vector", None)
        key = (type(query).__name__, getattr(query, "text", None),
               None if vector is None else tuple(float(x) for x in vector), limit)
        return self._memo("search", key, lambda: self._store.search(query, limit=limit,
                                                                     where=where))

    def search_units(self, query: Any, *, limit: int, where: Any = None) -> Any:
        key = (tuple(float(x) for x in query.vector), limit)
        return self._memo("units", key, lambda: self._store.search_units(query, limit=limit,
                                                                         where=where))

    def leaf_rows(self, ids: Sequence[str], *, where: Any = None) -> list[dict[str, Any]]:
        if where is not None:  # filtered rows are not the memo's
            return list(self._store.leaf_rows(ids, where=where))
        missing = [i for i in ids if ("row", i) not in self._seen]
        for row in self._store.leaf_rows(missing) if missing else ():
            self._seen["row", row["id"]] = row
        return [self._seen["row", i] for i in ids if ("row", i) in self._seen]

    def metadata_keys(self) -> Any:
        return self._store.metadata_keys()

    def unit_vectors(self, leaf_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        missing = [i for i in leaf_ids if ("uv", i) not in self._seen]
        found = self._store.unit_vectors(missing) if missing else {}
        for i in missing:
            self._seen["uv", i] = found.get(i)
        return {i: self._seen["uv", i] for i in leaf_ids if self._seen["uv", i] is not None}

    def parents(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        return list(self._store.parents(ids))


#: A variant: (store, query, vector, index meta, language) -> the k hits.
Variant = Callable[[Any, str, Sequence[float], Any, str], list[Any]]


def configured(mode: str, units: bool, **search: Any) -> Variant:
    """A variant that is a search configuration (and units on or off)."""
    from mdchunk.index.config import SearchConfig
    from mdchunk.index.search import search_store

    config = SearchConfig(k=TOP_K, mode=mode, **search)  # type: ignore[arg-type]

    def run(store: Any, query: str, vector: Sequence[float], meta: Any, lang: str) -> list[Any]:
        return search_store(store, query, vector, config,
                            index=dataclasses.replace(meta, units=units))
    return run


def unit_setting(variant: Variant, weight: float = 0.5, depth: int = 2) -> Variant:
    """``variant`` with units scored by ``weight`` of the best unit's cosine (the rest the
    leaf's own), from ``depth`` candidates per hit of each list."""
    import importlib

    search = importlib.import_module("mdchunk.index.search")

    def run(store: Any, query: str, vector: Sequence[float], meta: Any, lang: str) -> list[Any]:
        saved = search.UNIT_WEIGHT, search.UNIT_DEPTH
        search.UNIT_WEIGHT, search.UNIT_DEPTH = weight, depth
        try:
            return variant(store, query, vector, meta, lang)
        finally:
            search.UNIT_WEIGHT, search.UNIT_DEPTH = saved
    return run


# --------------------------------------------------------------------------------------------
# Fusions tried (pure, as in mdchunk.index.fusion; registered there for the run)


def zscore_fusion(lists: Sequence[Any], weights: Sequence[float]) -> list[tuple[Any, float]]:
    """Each list's scores as z-scores over its candidates (CombSUM with z-score
    normalisation); a key missing from a list counts that list's lowest z."""
    import statistics

    normalised: list[tuple[float, dict[Any, float], float]] = []
    for ranked, weight in zip(lists, weights, strict=True):
        values = [s for _, s in ranked]
        if not values:
            continue
        mean, sd = statistics.fmean(values), statistics.pstdev(values) or 1.0
        zs = {key: (score - mean) / sd for key, score in ranked}
        normalised.append((weight, zs, min(zs.values())))
    keys = dict.fromkeys(key for _, zs, _ in normalised for key in zs)
    scores = {key: sum(w * zs.get(key, floor) for w, zs, floor in normalised) for key in keys}
    return sorted(scores.items(), key=lambda item: -item[1])


def tmm_fusion(lists: Sequence[Any], weights: Sequence[float]) -> list[tuple[Any, float]]:
    """Scores over the list's best, from a theoretical minimum of 0 (Bruch et al. 2023's
    TMM): a flat list stays flat instead of being spread over [0, 1]."""
    scores: dict[Any, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        if not ranked:
            continue
        top = max(s for _, s in ranked) or 1.0
        for key, score in ranked:
            scores[key] = scores.get(key, 0.0) + weight * max(score, 0.0) / top
    return sorted(scores.items(), key=lambda item: -item[1])


def register_fusions() -> None:
    from mdchunk.index import fusion

    extra = {"zscore": zscore_fusion, "tmm": tmm_fusion}
    fusion._METHODS.update(extra)  # type: ignore[arg-type]
    fusion.FUSIONS = (*fusion.FUSIONS, *extra)  # type: ignore[assignment]


# --------------------------------------------------------------------------------------------
# Pseudo-relevance feedback (no model: the first pass's best leaves)


def first_pass(store: Any, query: str, vector: Sequence[float], meta: Any, mode: str,
               units: bool, depth: int = 30) -> list[Any]:
    """The first search's leaves (hybrid fused as before issue 31's change: score 0.3/0.7)."""
    from mdchunk.index.fusion import Fusion
    from mdchunk.index.rows import search_text
    from mdchunk.index.search import collapse_identical, leaf_hits

    return collapse_identical(leaf_hits(store, mode, search_text(query, bigrams=meta.bigrams),
                                        vector, where=None, limit=depth, units=units,
                                        fusion=Fusion("score", (0.3, 0.7))))


def rocchio(vector: Sequence[float], rows: Sequence[dict[str, Any]], beta: float) -> list[float]:
    """The query's unit vector plus ``beta`` times the mean of the leaves' unit vectors."""
    import numpy as np

    q = np.asarray(vector, dtype=np.float32)
    q /= np.linalg.norm(q) or 1.0
    if not rows:
        return q.tolist()
    m = np.asarray([r["dense"] for r in rows], dtype=np.float32)
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    out = q + beta * m.mean(axis=0)
    return (out / (np.linalg.norm(out) or 1.0)).tolist()


_WORD = None


def terms(text: str) -> list[str]:
    """Words as the analyzers roughly see them: Latin words lowercased, Chinese by jieba."""
    import re

    import jieba

    global _WORD
    if _WORD is None:
        _WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{2,}|[\u4e00-\u9fff]{2,}")
    out = []
    for token in _WORD.findall(text):
        if token[0].isascii():
            out.append(token.lower().strip(".-"))
        else:
            out += [w for w in jieba.lcut(token) if len(w) >= 2]
    return out


def rm3_terms(query: str, feedback: Sequence[Any], pool: Sequence[Any], n: int) -> list[str]:
    """The ``n`` terms that weigh most in the feedback leaves (relative frequency, summed),
    times their rarity among the candidate ``pool`` (a local idf), not in the query."""
    import math
    from collections import Counter

    asked = set(terms(query)) | set(query.lower().split())
    df: Counter[str] = Counter()
    for hit in pool:
        df.update(set(terms(hit.text)))
    weight: Counter[str] = Counter()
    for hit in feedback:
        words = terms(hit.text)
        for word, count in Counter(words).items():
            weight[word] += count / max(len(words), 1)
    ranked = sorted(((w * math.log(1 + len(pool) / df[t]), t) for t, w in weight.items()
                     if t not in asked), reverse=True)
    return [t for _, t in ranked[:n]]


def prf(mode: str, units: bool, *, dense_beta: float = 0.0, rm3: int = 0, m: int = 3,
        first: str = "hybrid", **search: Any) -> Variant:
    """Search again with the query expanded from the first pass's best ``m`` leaves: its
    vector moved towards theirs (Rocchio, ``dense_beta``), ``rm3`` of their terms added."""
    inner = configured(mode, units, **search)

    def run(store: Any, query: str, vector: Sequence[float], meta: Any, lang: str) -> list[Any]:
        pool = first_pass(store, query, vector, meta, first, units)
        top = pool[:m]
        if dense_beta:
            vector = rocchio(vector, store.leaf_rows([h.id for h in top]), dense_beta)
        if rm3:
            query = query + " " + " ".join(rm3_terms(query, top, pool, rm3))
        return inner(store, query, vector, meta, lang)
    return run


def peak_head(variant: Variant, head: int) -> Variant:
    """``variant`` with ``peaked`` reading the first ``head`` hits of each list, not ten."""
    import importlib

    fusion = importlib.import_module("mdchunk.index.fusion")

    def run(store: Any, query: str, vector: Sequence[float], meta: Any, lang: str) -> list[Any]:
        saved, fusion.PEAK_HEAD = fusion.PEAK_HEAD, head
        try:
            return variant(store, query, vector, meta, lang)
        finally:
            fusion.PEAK_HEAD = saved
    return run


#: The fusion that was the default before this study (score fusion, BM25 0.7).
BEFORE = {"fusion": "score", "weights": (0.3, 0.7)}


def variants() -> dict[str, Variant]:
    """Every variant this study knows, by name. ``hybrid`` is the default fusion of the code
    measured; every other fusion is named (``score@0.3,0.7`` was the default before)."""
    out: dict[str, Variant] = {
        "dense": configured("dense", False),
        "dense-units": configured("dense", True),
        "bm25": configured("bm25", False),
    }
    for weight in (0.25, 0.75, 1.0):
        out[f"dense-units-w{weight}"] = unit_setting(configured("dense", True), weight)
        out[f"score-units-w{weight}@0.3,0.7"] = unit_setting(
            configured("hybrid", True, **BEFORE), weight)
        out[f"score-units-w{weight}@0.5,0.5"] = unit_setting(
            configured("hybrid", True, fusion="score", weights=(0.5, 0.5)), weight)
    out["dense-units-d4"] = unit_setting(configured("dense", True), depth=4)
    out["score-units-d4@0.3,0.7"] = unit_setting(configured("hybrid", True, **BEFORE), depth=4)
    for head in (5, 20):
        out[f"peaked-head{head}@1,1"] = peak_head(configured("hybrid", False, fusion="peaked"),
                                                  head)
    for units in (False, True):
        tag = "-units" if units else ""
        out[f"hybrid{tag}"] = configured("hybrid", units)
        for w in ((0.3, 0.7), (0.5, 0.5), (0.6, 0.4), (0.7, 0.3)):
            out[f"score{tag}@{w[0]},{w[1]}"] = configured("hybrid", units, fusion="score",
                                                         weights=w)
        for w in ((1.0, 1.0), (2.0, 1.0), (1.0, 2.0)):
            out[f"rrf{tag}@{w[0]:g},{w[1]:g}"] = configured("hybrid", units, fusion="rrf",
                                                           weights=w)
        for method in ("zscore", "tmm", "peaked"):
            for w in ((1.0, 1.0), (0.6, 0.4), (0.4, 0.6)):
                out[f"{method}{tag}@{w[0]:g},{w[1]:g}"] = configured(
                    "hybrid", units, fusion=method, weights=w)
        for beta in (0.5, 1.0):
            out[f"prf-dense{tag}-b{beta}"] = prf("dense", units, dense_beta=beta, first="dense")
            out[f"prf-dense{tag}-b{beta}-h"] = prf("dense", units, dense_beta=beta)
            out[f"prf-score{tag}-b{beta}"] = prf("hybrid", units, dense_beta=beta, **BEFORE)
        out[f"prf-bm25{tag}-rm3"] = prf("bm25", units, rm3=10)
        out[f"prf-score{tag}-rm3"] = prf("hybrid", units, rm3=10, **BEFORE)
        out[f"prf-score{tag}-both"] = prf("hybrid", units, dense_beta=0.5, rm3=10, **BEFORE)
    return out


def main(argv: list[str] | None = None) -> int:
    from mdchunk.embedding import load_embedder, recorded_backend
    from mdchunk.index.milvus import MilvusStore

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", type=Path, required=True, help="the styles study's --keep folder")
    ap.add_argument("--corpus-dir", type=Path, default=br.default_corpus_dir())
    ap.add_argument("--corpus", help="only these corpora, comma-separated")
    ap.add_argument("--questions", default="all")
    ap.add_argument("--variants", nargs="*", help="names, space-separated (default: all)")
    ap.add_argument("--out", type=Path, help="markdown; a JSON record beside it")
    args = ap.parse_args(argv)
    register_fusions()
    known = variants()
    names = args.variants or list(known)
    unknown = [name for name in names if name not in known]
    if unknown:
        ap.error(f"unknown variants {', '.join(unknown)}; known: {', '.join(known)}")
    corpora = args.corpus.split(",") if args.corpus else None
    questions, _ = search_styles.select_questions(args.corpus_dir, corpora, args.questions)
    import peers

    encoding = peers.load_encoding()
    start = search_styles.load_averages()
    results: dict[str, dict[str, tuple[bool, int]]] = {}
    for corpus in dict.fromkeys(q.corpus for q in questions):
        db = args.keep / f"styles-{corpus}.db"
        if not db.exists():
            print(f"  {corpus}: no kept database, skipped", flush=True)
            continue
        spec = br.CORPORA[corpus]
        root = br.corpus_root(spec, args.corpus_dir)
        with MilvusStore(str(db), search_styles.collection_name(corpus)) as milvus:
            meta = milvus.check()
            embedder = load_embedder(meta.model, recorded_backend(meta.backend))
            store = MemoStore(milvus)
            for q in (q for q in questions if q.corpus == corpus):
                source = br.read_source(root / q.doc)
                chars = br.evidence_chars(source, q.evidence)
                vector = embedder.embed([q.question])[0]
                results[q.id] = {}
                for name in names:
                    hits = known[name](store, q.question, vector, meta, q.lang)
                    spans = [(h.start, h.end) for h in hits if h.doc_id == q.doc]
                    tokens = sum(len(encoding.encode(h.text, disallowed_special=()))
                                 for h in hits)
                    results[q.id][name] = (br.covers(spans, chars), tokens)
        print(f"  {corpus} done", flush=True)
    text = table(questions, results, names, start)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
        args.out.with_suffix(".json").write_text(json.dumps(results) + "\n", encoding="utf-8")
    return 0


def table(questions: Sequence[br.Question], results: dict[str, dict[str, tuple[bool, int]]],
          names: Sequence[str], start: str) -> str:
    """complete@5 (and mean tokens) per style and language, a row per variant."""
    groups: dict[tuple[str, str], list[br.Question]] = {}
    for q in questions:
        if q.id in results:
            groups.setdefault((q.style, q.lang), []).append(q)
    keys = sorted(groups)
    lines = [f"Load averages {start} at the start, {search_styles.load_averages()} at the end.",
             "", "| variant | " + " | ".join(f"{s} {lang} ({len(groups[s, lang])})"
                                           for s, lang in keys)
             + " | " + " | ".join(f"tokens {s} {lang}" for s, lang in keys) + " |",
             "|---|" + "---:|" * (2 * len(keys))]
    for name in names:
        cells = []
        for key in keys:
            qs = groups[key]
            cells.append(f"{100 * sum(results[q.id][name][0] for q in qs) / len(qs):.1f}")
        for key in keys:
            qs = groups[key]
            cells.append(f"{sum(results[q.id][name][1] for q in qs) / len(qs):.0f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
