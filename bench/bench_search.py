"""Search through mdchunk's own index (issue 24): hit@5 per language, model, fusion and analyzer.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_search.py                # the full study
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_search.py --out bench/results/search.md
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_search.py --studies styles \\
        --out bench/results/styles.md [--corpus rocketmq-zh] [--questions paraphrase]

``bench_retrieval.py`` compares chunkers under one model and a numpy BM25; this one measures
what a user of ``mdchunk index`` / ``mdchunk search`` gets: the corpora of the retrieval bench
(its hand-written questions and evidence spans) are indexed with :func:`mdchunk.index_paths`
into Milvus Lite and searched through the store, leaves only, exactly as ``search`` ranks them
(``DEFAULT_DEPTH`` candidates a side, identical texts collapsed, the top 5 judged).
A question is a hit when the top 5 leaves' spans cover its whole evidence.

Three studies, each in one run on the same texts:

* **models**: dense, BM25 and hybrid for all-MiniLM-L6-v2, USE multilingual and ``auto``
  (the model :mod:`mdchunk.index.language` picks for the corpus), per language, on each corpus
  alone and on the English and Chinese doc pages indexed together (a bilingual site);
* **fusions**: RRF, weighted RRF and min-max score fusion of the same dense and BM25 lists, at
  several weights;
* **analyzers**: BM25 alone over the leaves with Milvus's filters (``removepunct``, ``stop``,
  ``stemmer``, ``cnalphanumonly``/``alphanumonly``, ``length``), on the chunk's ``text`` or
  its ``embed_text``, each variant a collection of its own.

A fourth, not in the default, is issue 31's (``--studies styles``, :mod:`search_styles`): each
corpus indexed alone by ``mdchunk index`` with the defaults and every question (both styles,
``lexical`` and ``paraphrase``) asked through ``search`` in each mode; complete@5, tokens of the
five hits, indexing time and index size, per style and language. ``--corpus`` and
``--questions`` run a subset; corpora absent here are skipped.

Embeddings are cached on disk by model and text hash, so only the first run pays for them;
chunks per CPU second of each model are measured on texts not in the cache (``--speed``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench_retrieval as br  # noqa: E402

from mdchunk.embedding import vector_kind  # noqa: E402
from mdchunk.index.config import DEFAULT_DEPTH  # noqa: E402
from mdchunk.index.fusion import DEFAULT_FUSION, Fusion, fuse  # noqa: E402

TOP_K = 5
#: Leaves each side of the hybrid study draws per hit (what search drew before its pool had a
#: fixed depth, issue 46), so that the study's figures stay comparable with earlier runs.
CANDIDATES_PER_HIT = 3
MODELS = {"minilm": None, "use": "use-multilingual"}
#: What is indexed together: each corpus alone, and the bilingual doc site.
CORPUS_SETS: dict[str, tuple[str, ...]] = {
    "docs-en": ("docs-en",),
    "docs-zh": ("docs-zh",),
    "docs-mixed": ("docs-en", "docs-zh"),
    "gitlab-com-runbooks": ("gitlab-com-runbooks",),
    "openshift-runbooks": ("openshift-runbooks",),
}
FUSIONS = {
    "rrf": Fusion("rrf", (1.0, 1.0)),
    "rrf d.3": Fusion("rrf", (0.3, 0.7)),
    "rrf d.7": Fusion("rrf", (0.7, 0.3)),
    "score": Fusion("score", (1.0, 1.0)),
    "score d.3": Fusion("score", (0.3, 0.7)),
    "score d.7": Fusion("score", (0.7, 0.3)),
}


# --------------------------------------------------------------------------------------------
# Embeddings, cached


class CachedEmbedder:
    """An embedder whose vectors are kept on disk by text hash (one ``.npz`` per model)."""

    def __init__(self, inner: Any, cache: Path) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.max_tokens, self.tokenizer = inner.max_tokens, inner.tokenizer
        cache.mkdir(parents=True, exist_ok=True)
        self.backend = str(getattr(inner, "backend", "torch"))
        self.export = str(getattr(inner, "export", ""))
        kind = vector_kind(inner)  # torch and numpy: the old file
        self.file = cache / (f"search-{self.name.replace('/', '--')}"
                             + (f"--{kind}" if kind else "") + ".npz")
        self.known: dict[str, np.ndarray] = {}
        if self.file.exists():
            with np.load(self.file) as data:
                self.known = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self.fresh = 0
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        todo = sorted({k: i for i, k in enumerate(keys) if k not in self.known}.values())
        if todo:
            started = time.process_time()
            vectors = self.inner.embed([texts[i] for i in todo])
            self.seconds += time.process_time() - started
            self.fresh += len(todo)
            self.known.update((keys[i], v) for i, v in zip(todo, vectors, strict=True))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = self.known[key]
        return out

    def save(self) -> None:
        if self.fresh:
            keys = list(self.known)
            np.savez(self.file, keys=np.array(keys, dtype="U64"),
                     vectors=np.stack([self.known[k] for k in keys]))

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CachedEmbedder) and other.name == self.name


# --------------------------------------------------------------------------------------------
# Corpora staged as one folder each


@dataclass(slots=True)
class Staged:
    folder: Path
    questions: list[br.Question]
    sources: dict[str, str]  # doc id -> text as read


def stage(name: str, parts: Sequence[str], questions: list[br.Question], shared: Path,
          into: Path) -> Staged:
    """Copy the documents of ``parts`` under one folder, so that doc ids are their paths."""
    folder = into / name
    sources: dict[str, str] = {}
    for part in parts:
        spec = br.CORPORA[part]
        root = br.corpus_root(spec, shared)
        for rel in br.corpus_files(spec, shared):
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, target)
            sources[rel] = br.read_source(root / rel)
    return Staged(folder, [q for q in questions if q.corpus in parts], sources)


# --------------------------------------------------------------------------------------------
# Judging a ranked list of leaves


Leaf = tuple[str, int, int, str]  # doc id, start, end, text


def top_leaves(ranked: Sequence[str], leaves: dict[str, Leaf], k: int = TOP_K) -> list[Leaf]:
    """The first ``k`` leaves of ``ranked`` whose text an earlier one does not have (as
    :func:`mdchunk.index.search.collapse_identical` does)."""
    seen: set[str] = set()
    out: list[Leaf] = []
    for key in ranked:
        leaf = leaves[key]
        if leaf[3] in seen:
            continue
        seen.add(leaf[3])
        out.append(leaf)
        if len(out) == k:
            break
    return out


def is_hit(q: br.Question, staged: Staged, top: Sequence[Leaf]) -> bool:
    chars = br.evidence_chars(staged.sources[q.doc], q.evidence)
    return br.covers([(a, b) for d, a, b, _ in top if d == q.doc], chars)


# --------------------------------------------------------------------------------------------
# Studies


@dataclass(slots=True)
class Table:
    """hit@5 per (row, column) and language: ``hits[row][col][lang] = [hits, questions]``."""

    hits: dict[str, dict[str, dict[str, list[int]]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(
            lambda: [0, 0]))))

    def add(self, row: str, col: str, lang: str, hit: bool) -> None:
        cell = self.hits[row][col][lang]
        cell[0] += hit
        cell[1] += 1

    def markdown(self, title: str) -> str:
        cols = list(dict.fromkeys(c for r in self.hits.values() for c in r))
        lines = [f"#### {title}", "", "| | " + " | ".join(cols) + " |",
                 "|---|" + "---:|" * len(cols)]
        for row, by_col in self.hits.items():
            cells = []
            for col in cols:
                parts = [f"{lang} {100 * h / n:.1f}" for lang, (h, n) in
                         sorted(by_col[col].items()) if n]
                cells.append(" / ".join(parts))
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def search_lists(store: Any, embedder: Any, questions: Sequence[br.Question], depth: int
                 ) -> tuple[dict[str, list[tuple[str, float]]], dict[str, list[tuple[str, float]]],
                            dict[str, Leaf]]:
    """Each question's dense and BM25 lists (``depth`` leaves each), and the leaves met."""
    from mdchunk.index.rows import search_text
    from mdchunk.index.store import DenseQuery, TextQuery

    vectors = embedder.embed([q.question for q in questions])
    dense, bm25, leaves = {}, {}, {}
    for q, vector in zip(questions, vectors, strict=True):
        sides = ((DenseQuery(vector), dense), (TextQuery(search_text(q.question)), bm25))
        for query, out in sides:
            hits = store.search(query, limit=depth)
            out[q.id] = [(h.id, h.score) for h in hits]
            leaves.update((h.id, (h.doc_id, h.start, h.end, h.text)) for h in hits)
    return dense, bm25, leaves


def model_study(staged: dict[str, Staged], embedders: dict[str, CachedEmbedder], db: Path,
                models: Table, fusions: Table) -> dict[str, str]:
    """Index every corpus set with every model; judge dense, BM25 and every fusion."""
    from mdchunk.index import index_paths
    from mdchunk.index.language import survey
    from mdchunk.index.milvus import MilvusStore
    from mdchunk.sources import discover

    depth = DEFAULT_DEPTH  # as search() asks each side
    chosen: dict[str, str] = {}
    for name, corpus in staged.items():
        auto = survey(discover([corpus.folder])).model
        chosen[name] = next(label for label, e in embedders.items() if e.name == auto)
        for label, embedder in embedders.items():
            collection = f"{name}_{label}".replace("-", "_")
            started = time.perf_counter()
            index_paths([corpus.folder], db=str(db), collection=collection,
                                model=embedder)
            print(f"  {name} / {label}: indexed in {time.perf_counter() - started:.1f} s",
                  flush=True)
            with MilvusStore(str(db), collection) as store:
                store.check()
                dense, bm25, leaves = search_lists(store, embedder, corpus.questions, depth)
            rows = [f"{name} {label}"]
            if label == chosen[name]:
                rows.append(f"{name} auto (= {label})")
            for q in corpus.questions:
                for row in rows:
                    for mode, lists in (("dense", dense), ("bm25", bm25)):
                        top = top_leaves([k for k, _ in lists[q.id]], leaves)
                        models.add(row, mode, q.lang, is_hit(q, corpus, top))
                    for fname, fusion in FUSIONS.items():
                        fused = fuse(dense[q.id], bm25[q.id], fusion)
                        hit = is_hit(q, corpus, top_leaves([k for k, _ in fused], leaves))
                        fusions.add(row, fname, q.lang, hit)
                        if fusion == DEFAULT_FUSION:
                            models.add(row, f"hybrid ({fname}, the default)", q.lang, hit)
    return chosen


#: BM25 analyzers tried (Milvus analyzer params); the query goes through the same one.
ANALYZER_VARIANTS: dict[str, dict[str, dict[str, Any]]] = {
    "en": {
        "standard+lowercase": {"tokenizer": "standard", "filter": ["lowercase"]},
        "+stop": {"tokenizer": "standard",
                  "filter": ["lowercase", {"type": "stop", "stop_words": ["_english_"]}]},
        "+stem": {"tokenizer": "standard",
                  "filter": ["lowercase", {"type": "stemmer", "language": "english"}]},
        "+stop+stem": {"tokenizer": "standard",
                       "filter": ["lowercase", {"type": "stop", "stop_words": ["_english_"]},
                                  {"type": "stemmer", "language": "english"}]},
        "+stop+stem+length": {"tokenizer": "standard",
                              "filter": ["lowercase",
                                         {"type": "stop", "stop_words": ["_english_"]},
                                         {"type": "stemmer", "language": "english"},
                                         {"type": "length", "max": 40}]},
    },
    "zh": {
        "jieba+lowercase": {"tokenizer": "jieba", "filter": ["lowercase"]},
        "+removepunct": {"tokenizer": "jieba", "filter": ["lowercase", "removepunct"]},
        "+cnalphanumonly": {"tokenizer": "jieba", "filter": ["lowercase", "cnalphanumonly"]},
        "+removepunct+stop+stem": {"tokenizer": "jieba",
                                   "filter": ["lowercase", "removepunct",
                                              {"type": "stop", "stop_words": ["_english_"]},
                                              {"type": "stemmer", "language": "english"}]},
        "+cnalphanumonly+stop+stem": {"tokenizer": "jieba",
                                      "filter": ["lowercase", "cnalphanumonly",
                                                 {"type": "stop", "stop_words": ["_english_"]},
                                                 {"type": "stemmer", "language": "english"}]},
    },
}


def filters_applied(db: Path) -> dict[str, bool]:
    """Does this Milvus apply an analyzer's filters? Each filter gets a document and a query
    that match only if it is applied (a stem, a stop word, a punctuation mark)."""
    from pymilvus import DataType, Function, FunctionType, MilvusClient

    probes = {  # filter: (documents, query, the id it must find first, or None: find nothing)
        "stemmer": ({"type": "stemmer", "language": "english"},
                    ["the servers were running hot", "a quick note"], "run", 0),
        "stop": ({"type": "stop", "stop_words": ["_english_"]},
                 ["the a an", "a quick note"], "the", None),
        "removepunct": ("removepunct", ["数据库，故障", "hello"], "，", None),
    }
    client = MilvusClient(str(db))
    applied = {}
    for number, (name, (spec, docs, query, expected)) in enumerate(probes.items()):
        collection = f"probe_{number}"
        tokenizer = "jieba" if name == "removepunct" else "standard"
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.INT64, is_primary=True)
        schema.add_field("body", DataType.VARCHAR, max_length=1000, enable_analyzer=True,
                         analyzer_params={"tokenizer": tokenizer, "filter": ["lowercase", spec]})
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(Function(name="bm25", function_type=FunctionType.BM25,
                                     input_field_names=["body"], output_field_names=["sparse"]))
        index = client.prepare_index_params()
        index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        client.create_collection(collection, schema=schema, index_params=index)
        client.insert(collection, [{"id": i, "body": d} for i, d in enumerate(docs)])
        client.flush(collection)
        found = [hit["id"] for hit in client.search(collection, [query], anns_field="sparse",
                                                    limit=2,
                                                    search_params={"metric_type": "BM25"})[0]]
        applied[name] = (found[:1] == [expected]) if expected is not None else not found
        client.drop_collection(collection)
    client.close()
    return applied


def leaves_of(corpus: Staged, embedder: Any) -> list[Any]:
    """The leaves ``index_paths`` makes of the corpus for this model (same config)."""
    from mdchunk import Chunker
    from mdchunk.index import index_config

    config = index_config(embedder, max_tokens=512, overlap_tokens=64, tokenizer=None)
    chunker = Chunker(config)
    leaves = []
    for rel in corpus.sources:
        leaves.extend(c for c in chunker.chunk_file(corpus.folder / rel, doc_id=rel)
                      if c.level == len(config.levels or (1,)))
    return leaves


def analyzer_study(staged: dict[str, Staged], embedder: Any, db: Path, table: Table) -> None:
    """BM25 alone, per analyzer variant and indexed field, each a fresh collection."""
    from pymilvus import DataType, Function, FunctionType, MilvusClient

    from mdchunk.index.rows import search_text

    client = MilvusClient(str(db))
    depth = TOP_K * CANDIDATES_PER_HIT
    for name, corpus in staged.items():
        leaves = leaves_of(corpus, embedder)
        langs = {q.lang for q in corpus.questions}
        variants = {f"{lang}:{v}": p for lang in sorted(langs)
                    for v, p in ANALYZER_VARIANTS[lang].items()}
        for variant, params in variants.items():
            for field_name in ("text", "embed_text"):
                collection = f"bm25_{len(table.hits)}_{abs(hash((name, variant, field_name)))}"
                schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
                schema.add_field("id", DataType.INT64, is_primary=True)
                schema.add_field("body", DataType.VARCHAR, max_length=65535,
                                 enable_analyzer=True, analyzer_params=params)
                schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
                schema.add_function(Function(name="bm25", function_type=FunctionType.BM25,
                                             input_field_names=["body"],
                                             output_field_names=["sparse"]))
                index = client.prepare_index_params()
                index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
                client.create_collection(collection, schema=schema, index_params=index)
                rows = [{"id": i, "body": search_text(getattr(c, field_name))[:60000]}
                        for i, c in enumerate(leaves)]
                for i in range(0, len(rows), 512):
                    client.insert(collection, rows[i:i + 512])
                client.flush(collection)
                client.load_collection(collection)
                by_id = {str(i): (c.doc_id, c.start, c.end, c.text) for i, c in enumerate(leaves)}
                for q in corpus.questions:
                    if not variant.startswith(q.lang):
                        continue
                    result = client.search(collection, [search_text(q.question)],
                                           anns_field="sparse", limit=depth,
                                           search_params={"metric_type": "BM25"})
                    ranked = [str(hit["id"]) for hit in result[0]]
                    table.add(f"{name} {variant.split(':', 1)[1]}", field_name, q.lang,
                              is_hit(q, corpus, top_leaves(ranked, by_id)))
                client.drop_collection(collection)
        print(f"  analyzers: {name} done", flush=True)
    client.close()


def speed_study(embedders: dict[str, CachedEmbedder], texts: Sequence[str]) -> str:
    """Chunks per CPU second of each model on the same texts (not cached)."""
    lines = ["#### Chunks per CPU second (same leaves, not cached)", "",
             "| model | chunks | CPU s | chunks / CPU s |", "|---|---:|---:|---:|"]
    for label, embedder in embedders.items():
        inner = embedder.inner
        inner.embed(list(texts[:8]))  # load the weights first
        started = time.process_time()
        inner.embed(list(texts))
        spent = time.process_time() - started
        lines.append(f"| {label} ({inner.name}) | {len(texts)} | {spent:.1f} | "
                     f"{len(texts) / spent:.1f} |")
    return "\n".join(lines)


def window_study(staged: dict[str, Staged], use: CachedEmbedder, db: Path, table: Table) -> None:
    """Dense and hybrid hit@5 of USE with its leaves at several budgets (cl100k_base tokens):
    what :data:`mdchunk.embedding.multilingual.WINDOW` was chosen from."""
    from mdchunk.index import index_paths
    from mdchunk.index.milvus import MilvusStore

    depth = DEFAULT_DEPTH
    default = use.max_tokens
    try:
        for budget in (128, 256, 512):
            use.max_tokens = budget
            for name, corpus in staged.items():
                collection = f"window_{budget}_{name}".replace("-", "_")
                index_paths([corpus.folder], db=str(db), collection=collection, model=use)
                with MilvusStore(str(db), collection) as store:
                    store.check()
                    dense, bm25, leaves = search_lists(store, use, corpus.questions, depth)
                for q in corpus.questions:
                    top = top_leaves([k for k, _ in dense[q.id]], leaves)
                    table.add(name, f"dense @{budget}", q.lang, is_hit(q, corpus, top))
                    fused = fuse(dense[q.id], bm25[q.id], DEFAULT_FUSION)
                    table.add(name, f"hybrid @{budget}", q.lang,
                              is_hit(q, corpus, top_leaves([k for k, _ in fused], leaves)))
    finally:
        use.max_tokens = default


def size_study(staged: dict[str, Staged], embedders: dict[str, CachedEmbedder], tmp: Path
               ) -> str:
    """Bytes on disk of a Milvus Lite index of each corpus set per model (its own file)."""
    from mdchunk.index import index_paths

    lines = ["#### Index size (Milvus Lite file, after the run's flush)", "",
             "| corpus | model | leaves | MB |", "|---|---|---:|---:|"]
    for name, corpus in staged.items():
        for label, embedder in embedders.items():
            db = tmp / f"size-{name}-{label}.db"
            report = index_paths([corpus.folder], db=str(db), model=embedder)
            files = [db] if db.is_file() else [f for f in db.rglob("*") if f.is_file()]
            size = sum(f.stat().st_size for f in files)
            lines.append(f"| {name} | {label} | {report.written_chunks} | {size / 1e6:.1f} |")
    return "\n".join(lines)


def index_studies(args: argparse.Namespace, studies: set[str], tmp: Path) -> list[str]:
    """The studies of issue 24 (models, analyzers, window, size, speed) on the lexical
    questions, through ``index_paths``."""
    from mdchunk.embedding import load_embedder

    questions = br.load_questions(br.QUESTIONS, args.corpus_dir)
    # MDCHUNK_BENCH_BACKEND=onnx-int8 measures the int8 embedder (issue 25); torch by default
    backend = os.environ.get("MDCHUNK_BENCH_BACKEND", "torch")
    embedders = {label: CachedEmbedder(load_embedder(spec, backend), args.cache)  # type: ignore[arg-type]
                 for label, spec in MODELS.items()}
    parts = [f"Questions: {len(questions)}; sets: {', '.join(args.sets)}."]
    staged = {name: stage(name, CORPUS_SETS[name], questions, args.corpus_dir, tmp)
              for name in args.sets}
    db = tmp / "bench.db"
    if "models" in studies:
        models, fusions = Table(), Table()
        model_study(staged, embedders, db, models, fusions)
        parts += [models.markdown("hit@5 by model and mode"),
                  fusions.markdown("hit@5 by fusion (dense, BM25 weights)")]
    if "analyzers" in studies:
        analyzers = Table()
        analyzer_study(staged, embedders["use"], tmp / "bm25.db", analyzers)
        parts.append(analyzers.markdown("BM25 hit@5 by analyzer and indexed field"))
        probe = filters_applied(tmp / "probe.db")
        parts.append("Filters this Milvus applies (a probe each): " + ", ".join(
            f"{name} {'yes' if done else 'no'}" for name, done in probe.items()) + ".")
    if "window" in studies:
        windows = Table()
        window_study(staged, embedders["use"], tmp / "window.db", windows)
        parts.append(windows.markdown("USE: hit@5 by leaf budget (cl100k_base tokens)"))
    if "size" in studies:
        parts.append(size_study(staged, embedders, tmp))
    if "speed" in studies:
        largest = max(staged.values(), key=lambda c: sum(map(len, c.sources.values())))
        texts = [c.embed_text for c in leaves_of(largest, embedders["use"])]
        parts.append(speed_study(embedders, texts))
    for embedder in embedders.values():
        embedder.save()
    return parts


def styles_part(args: argparse.Namespace, tmp: Path) -> str:
    """Issue 31's study (:mod:`search_styles`): every corpus alone, through the CLI's index
    and ``search``; its JSON is written beside ``--out``."""
    import search_styles

    corpora = args.corpus.split(",") if args.corpus else None
    questions, skipped = search_styles.select_questions(args.corpus_dir, corpora, args.questions)
    for name in skipped:
        print(f"  skipped {name}: its documents are not under {args.corpus_dir}", flush=True)
    if not questions:
        return "No question to ask (corpora absent, or nothing matches --questions/--corpus)."
    search_styles.weighted_modes(args.weights)
    if args.depth:
        search_styles.SEARCH_OPTIONS["depth"] = args.depth
    if args.links == "text":
        search_styles.CLI_PRELUDE = (f"import sys; sys.path.insert(0, {str(HERE)!r}); "
                                     "import link_text; link_text.install(); ")
    search_styles.write_settings(tmp / "run", args.setting or [])
    names = list(dict.fromkeys(q.corpus for q in questions))
    staged = {name: stage(name, (name,), questions, args.corpus_dir, tmp / "styles")
              for name in names}
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    text, record = search_styles.styles_study(questions, staged, tmp, args.label, skipped,
                                              shlex.split(args.index_args), args.keep)
    if args.out:
        record_file = args.out.with_suffix(".json")
        record_file.parent.mkdir(parents=True, exist_ok=True)
        record_file.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                               encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus-dir", type=Path, default=br.default_corpus_dir(),
                    help="the shared corpora (default: $MDCHUNK_CORPORA or ../shared/corpora)")
    ap.add_argument("--sets", nargs="*", default=list(CORPUS_SETS))
    ap.add_argument("--cache", type=Path,
                    default=Path(tempfile.gettempdir()) / "mdchunk-bench-search")
    ap.add_argument("--studies", default="models,analyzers,window,size,speed",
                    help="comma-separated; 'styles' (issue 31) is not in the default")
    ap.add_argument("--corpus", help="styles: only these corpora, comma-separated")
    ap.add_argument("--questions", default="all",
                    help="styles: all, a style (lexical, paraphrase), a language (en, zh), or "
                         "question ids and id prefixes, comma-separated (rz-,hu-01)")
    ap.add_argument("--label", default="this run",
                    help="styles: what the figures are, e.g. 'before, measured under load'")
    ap.add_argument("--weights", help="styles: hybrid also at these DENSE,BM25 weights, "
                                      "';'-separated (0.5,0.5;0.7,0.3)")
    ap.add_argument("--setting", action="append",
                    help="styles: a chunker option for mdchunk index, as a TOML line of an "
                         "mdchunk.toml (lead_in = true); repeatable")
    ap.add_argument("--depth", type=int,
                    help="styles: search with this candidate pool (default: search's own)")
    ap.add_argument("--links", choices=("as-written", "text"), default="as-written",
                    help="styles: 'text' indexes each link as the page reads it, [text](url) "
                         "as text (bench/link_text.py)")
    ap.add_argument("--index-args", default="",
                    help="styles: flags added to every `mdchunk index`, e.g. '--units'")
    ap.add_argument("--keep", type=Path,
                    help="styles: keep each corpus's database in this folder and reuse it when "
                         "a later run indexes it with the same command (search-time variants)")
    ap.add_argument("--out", type=Path,
                    help="the markdown; the styles study writes its JSON beside it (.json)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    studies = set(args.studies.split(","))
    parts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        if studies - {"styles"}:
            parts += index_studies(args, studies, Path(tmp))
        if "styles" in studies:
            parts.append(styles_part(args, Path(tmp)))
    text = "\n\n".join(parts)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
