"""Matching lines (issue 34): does a hit's top match point at the evidence, and what does
computing matches cost?

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_highlights.py            # words only
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_highlights.py --units    # units too (a model)

For every retrieval bench question (``bench/retrieval/questions.jsonl`` and
``paraphrase.jsonl``), its document is chunked (leaves of 256 cl100k tokens, as the retrieval
bench does; ``--max-tokens``) and every leaf holding some of the evidence is taken as a hit. Its matches are
computed (:mod:`mdchunk.index.highlights`) and the **top match** (the best scored) is checked
against the evidence: does its span overlap an evidence span? Two baselines say what chance
and the old listing would give: the share of the hit's passages that overlap the evidence
(a passage picked at random), and the hit's first passage (what the listing's preview showed).

With ``--units`` the units of those leaves are embedded (and the query), by the model
``model="auto"`` picks (all-MiniLM-L6-v2 for English, USE multilingual for Chinese; both
offline), and the units path is measured the same way (a leaf without units: by words).

Cost: per question, the CPU time of computing the matches of ``k = 5`` hits (the evidence
leaf and the next leaves of its document), by words; the median over the questions.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_retrieval import (  # noqa: E402
    CORPORA,
    PARAPHRASE,
    QUESTIONS,
    Question,
    corpus_root,
    default_corpus_dir,
    load_questions,
    read_source,
)

from mdchunk import Chunk, Chunker, ChunkerConfig  # noqa: E402
from mdchunk.index.highlights import query_terms, term_matches, unit_matches  # noqa: E402
from mdchunk.index.store import SearchHit  # noqa: E402
from mdchunk.index.units import leaf_unit_spans, unit_id, unit_spans  # noqa: E402

K = 5


def hit_of(chunk: Chunk) -> SearchHit:
    """A leaf as a search returns it."""
    return SearchHit(1.0, chunk.id, chunk.doc_id, chunk.doc_id, "", chunk.section_path,
                     chunk.line_start, chunk.line_end, chunk.text, level=chunk.level,
                     start=chunk.start, end=chunk.end, marks=((0, len(chunk.text)),),
                     leaf_ids=(chunk.id,))


def overlaps(hit: SearchHit, span: tuple[int, int], evidence: Sequence[tuple[int, int]]) -> bool:
    a, b = hit.start + span[0], hit.start + span[1]
    return any(a < e and s < b for s, e in evidence)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", action="store_true", help="also the units path (a model)")
    parser.add_argument("--max-tokens", type=int, default=256, help="leaves' budget (cl100k)")
    parser.add_argument("--milvus", action="store_true",
                        help="also the share of a Milvus Lite search's time matches take")
    args = parser.parse_args()
    shared = default_corpus_dir()
    questions = [*load_questions(QUESTIONS, shared), *load_questions(PARAPHRASE, shared)]
    chunker = Chunker(ChunkerConfig(max_tokens=args.max_tokens, tokenizer="cl100k_base"))
    embed = _embedder() if args.units else None
    rows: dict[str, list[tuple[bool, bool, float, bool | None, bool | None]]] = {
        "lexical": [], "paraphrase": []}
    costs: list[float] = []
    for q in questions:
        leaves = _leaves(chunker, q, shared)
        held = [i for i, c in enumerate(leaves)
                if any(c.start < e and s < c.end for s, e in q.evidence)]
        terms = query_terms(q.question)
        for i in held:
            hit = hit_of(leaves[i])
            matches = term_matches(hit, terms)
            passages = unit_spans(hit.text)
            chance = (sum(overlaps(hit, p, q.evidence) for p in passages) / len(passages)
                      if passages else 0.0)
            first = bool(passages) and overlaps(hit, passages[0], q.evidence)
            best = max(matches, key=lambda m: m.score) if matches else None
            by_words = best is not None and overlaps(hit, (best.start, best.end), q.evidence)
            by_units = _units_top(hit, q, embed) if embed else None
            by_units = by_words if by_units is None and embed else by_units  # no units: words
            # words first, units where no passage shares a word with the question
            either = by_words if best is not None or by_units is None else by_units
            rows[q.style].append((by_words, first, chance, by_units, either))
        five = [hit_of(c) for c in leaves[held[0]:held[0] + K]] if held else []
        t0 = time.process_time()
        for _ in range(5):
            terms = query_terms(q.question)
            [dataclasses.replace(h, matches=term_matches(h, terms)) for h in five]
        costs.append((time.process_time() - t0) / 5)
    for style, got in rows.items():
        n = len(got)
        print(f"{style}: {n} hits holding evidence; top match overlaps it: by words "
              f"{100 * sum(r[0] for r in got) / n:.1f}%"
              + (f", by units {100 * sum(bool(r[3]) for r in got) / n:.1f}%, by words then "
                 f"units {100 * sum(bool(r[4]) for r in got) / n:.1f}%" if embed else "")
              + f"; first passage {100 * sum(r[1] for r in got) / n:.1f}%, a random passage "
              f"{100 * sum(r[2] for r in got) / n:.1f}%")
    print(f"matches of k={K} hits by words: median {1000 * statistics.median(costs):.2f} ms CPU, "
          f"p90 {1000 * statistics.quantiles(costs, n=10)[-1]:.2f} ms over {len(costs)} questions")
    if args.milvus:
        _store_latency([q for q in questions if q.corpus in RUNBOOKS], shared)
    return 0


RUNBOOKS = ("gitlab-com-runbooks", "openshift-runbooks")


class _HashEmbedder:
    """Vectors from text hashes: no model to load, so indexing the runbooks is quick; the
    ranking is BM25's and the hash's, which is all the timing needs."""

    name, dim, max_tokens, tokenizer = "bench/hash-64", 64, 512, "cl100k_base"

    def embed(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        import hashlib

        import numpy as np

        rows = [np.random.default_rng(int.from_bytes(hashlib.blake2b(t.encode()).digest()[:4],
                                                     "little")).standard_normal(self.dim)
                for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), self.dim)


def _store_latency(questions: Sequence[Question], shared: Path) -> None:
    """The runbook corpora indexed into a Milvus Lite file (default leaves, hash vectors); per
    question a hybrid k=5 search (matches included), then the matches of its hits computed
    again alone: wall times, interleaved, medians."""
    import tempfile

    from mdchunk.index import index_paths
    from mdchunk.index.config import SearchConfig
    from mdchunk.index.highlights import with_matches
    from mdchunk.index.milvus import MilvusStore
    from mdchunk.index.search import search_store

    emb = _HashEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/kb.db"
        index_paths([corpus_root(CORPORA[c], shared) for c in RUNBOOKS], db=db, model=emb)
        with MilvusStore(db, "mdchunk") as store:
            meta = store.check()
            searches, matching = [], []
            for q in questions:
                vector = emb.embed([q.question])[0]
                t0 = time.perf_counter()
                hits = search_store(store, q.question, vector, SearchConfig(k=K), index=meta)
                t1 = time.perf_counter()
                with_matches(hits, q.question, store=store, vector=vector, units=meta.units)
                t2 = time.perf_counter()
                searches.append(t1 - t0)
                matching.append(t2 - t1)
    share = statistics.median(m / s for m, s in zip(matching, searches, strict=True))
    print(f"Milvus Lite hybrid k={K} over the runbooks ({len(questions)} questions): search "
          f"median {1000 * statistics.median(searches):.1f} ms wall, its matches "
          f"{1000 * statistics.median(matching):.2f} ms, median share {100 * share:.1f}%")


def _leaves(chunker: Chunker, q: Question, shared: Path) -> list[Chunk]:
    source = read_source(corpus_root(CORPORA[q.corpus], shared) / q.doc)
    return chunker.chunk(source, q.doc)


def _embedder():  # type: ignore[no-untyped-def]
    """The model ``model="auto"`` picks per language: MiniLM for English, USE for Chinese."""
    from mdchunk.embedding import USE_MODEL, load_embedder

    return {"en": load_embedder(None), "zh": load_embedder(USE_MODEL)}


def _units_top(hit: SearchHit, q: Question, embed) -> bool | None:  # type: ignore[no-untyped-def]
    units = leaf_unit_spans(hit.text)
    if not units:
        return None  # a leaf of one unit has none: the words decide, as in a search
    vectors = embed[q.lang].embed([q.question, *(u for u, _ in units)])
    stored = {hit.id: {unit_id(hit.id, u): v for (u, _), v in zip(units, vectors[1:],
                                                                strict=True)}}
    matches = unit_matches(hit, vectors[0], stored)
    best = max(matches, key=lambda m: m.score) if matches else None
    return best is not None and overlaps(hit, (best.start, best.end), q.evidence)


if __name__ == "__main__":
    raise SystemExit(main())
