"""Retrieval benchmark (issue #12): does the whole evidence of a question lie in the top 5 chunks?

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_retrieval.py            # full run
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_retrieval.py --quick    # smoke test: a third of it
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_retrieval.py --out bench/results/retrieval.md
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_retrieval.py --update-doc   # BENCHMARKS.md

Questions are written by hand (``bench/retrieval/questions.jsonl``): each names a corpus, a
document and one or more evidence spans (character offsets into the document as
:func:`mdchunk.text.document_text` returns it; the text is stored too and checked at load).

Every chunker (mdchunk and the peers of ``bench/peers.py``) chunks every document of a corpus
at 256 tokens (cl100k_base) with a 32-token overlap where it has one. Per chunker and corpus,
the chunks are ranked for each question two ways:

* **dense**: all-MiniLM-L6-v2 (the model mdchunk bundles), cosine similarity of unit vectors;
* **BM25**: Okapi BM25 (k1 = 1.2, b = 0.75, IDF ``log(1 + (N - df + 0.5) / (df + 0.5))``) in
  numpy, with Milvus Lite's analyzers: English ``\\w+`` on lowercased text (its ``standard``),
  Chinese ``jieba.cut_for_search`` lowercased (its ``jieba`` default mode), tokens without a
  letter or digit dropped.

mdchunk's chunks are embedded and indexed by their ``embed_text`` (breadcrumb + text, what
mdchunk's own index embeds) and located by their ``start``/``end``; a peer's chunks by the text
it returns, located in the source by :func:`peers.locate` (a chunk found nowhere covers
nothing).

A question is a **hit** when the union of the top-5 chunks' source spans covers every
non-blank character of every evidence span; the **single-chunk** variant asks for one chunk
of the top 5 that covers them all. Embeddings are cached on disk by content hash.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

MAX_TOKENS = 256
OVERLAP = 32
TOP_K = 5
K1, B = 1.2, 0.75
CHUNKERS = ("mdchunk", "langchain", "llamaindex", "semantic", "chonkie")
PEERS = CHUNKERS[1:]
KINDS = ("table", "code", "procedure", "list", "callout", "prose")
QUESTIONS = HERE / "retrieval" / "questions.jsonl"
#: Questions in the asker's own words (issue 31), over the shared corpora.
PARAPHRASE = HERE / "retrieval" / "paraphrase.jsonl"
#: Margins issue #12 asks mdchunk to beat the best peer by, in points.
TARGETS = {"dense": 5.0, "bm25": 3.0}
VERSIONED = ("mdchunk", "sentence-transformers", "jieba", "langchain-text-splitters",
             "llama-index-core", "semantic-text-splitter", "chonkie")


# --------------------------------------------------------------------------------------------
# Corpora and questions


@dataclass(frozen=True, slots=True)
class CorpusSpec:
    """A set of documents retrieved over together; ``root`` may name ``{shared}`` or ``{repo}``."""

    lang: str
    root: str
    include: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    #: mdchunk's ``site=`` for the documents under a folder of the root (issue 26); the peers
    #: read every document as plain Markdown, as they always do
    sites: tuple[tuple[str, str], ...] = ()
    #: mdchunk's include root (``includes=``, relative to the root), for code samples,
    #: snippets and raw-loader imports (issue 26)
    includes: str | None = None

    def site_of(self, rel: str) -> str:
        return next((site for folder, site in self.sites if rel.startswith(folder + "/")),
                    "plain")


SITES_ROOT = "bench/retrieval/docs/sites"
SITE_PAGES = (f"{SITES_ROOT}/docusaurus/*.mdx", f"{SITES_ROOT}/hugo/*.md", f"{SITES_ROOT}/mkdocs/*.md")

CORPORA: dict[str, CorpusSpec] = {
    "gitlab-com-runbooks": CorpusSpec("en", "{shared}/gitlab-com-runbooks", ("**/*.md",)),
    "openshift-runbooks": CorpusSpec("en", "{shared}/openshift-runbooks", ("**/*.md",)),
    # Doc-site pages written for this benchmark, with the project's English fixtures.
    "docs-en": CorpusSpec("en", "{repo}", ("bench/retrieval/docs/en/*.md", "fixtures/*.md",
                                           "fixtures/*.txt"), exclude=("*.zh.*",)),
    # Doc-site pages written for this benchmark, with the project's Chinese fixtures.
    "docs-zh": CorpusSpec("zh", "{repo}", ("bench/retrieval/docs/zh/*.md", "fixtures/*.zh.md",
                                           "fixtures/*.zh.txt")),
    # Site-generator pages written for this benchmark (issue 26): tabs, shortcodes, admonitions
    # and includes (the included files lie under includes/, and beside the MDX page), among
    # docs-en's pages as distractors.
    "sites-en": CorpusSpec("en", "{repo}", (*SITE_PAGES, "bench/retrieval/docs/en/*.md",
                                            "fixtures/*.md", "fixtures/*.txt"),
                           exclude=("*.zh.*",),
                           sites=tuple((f"{SITES_ROOT}/{g}", g)
                                       for g in ("docusaurus", "hugo", "mkdocs")),
                           includes=f"{SITES_ROOT}/includes"),
    # Apache RocketMQ's documentation (issue 31): operations, deployment, FAQ, best practice,
    # design; Chinese and English, each indexed on its own.
    "rocketmq-zh": CorpusSpec("zh", "{shared}/rocketmq-docs/docs/cn", ("**/*.md",)),
    "rocketmq-en": CorpusSpec("en", "{shared}/rocketmq-docs/docs/en", ("**/*.md",)),
    # Samples of two documentation sites (issue 31): Hugo's own docs (a Hugo site, with includes
    # from content/en/_common) and Ory's (a Docusaurus site of MDX pages).
    "hugo-docs": CorpusSpec("en", "{shared}/hugo-docs", ("content/**/*.md",),
                            sites=(("content", "hugo"),), includes="content/en"),
    "ory-docs": CorpusSpec("en", "{shared}/ory-docs", ("docs/**/*.md", "docs/**/*.mdx"),
                           sites=(("docs", "docusaurus"),)),
}


def corpus_root(spec: CorpusSpec, shared: Path) -> Path:
    return Path(spec.root.format(shared=shared, repo=REPO))


def corpus_files(spec: CorpusSpec, shared: Path) -> list[str]:
    """Paths (relative to the corpus root, POSIX) of the corpus's documents, sorted."""
    root = corpus_root(spec, shared)
    found: set[str] = set()
    for pattern in spec.include:
        for path in root.glob(pattern):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and not any(path.match(x) for x in spec.exclude):
                found.add(rel)
    return sorted(found)


def read_source(path: Path) -> str:
    from mdchunk.text import document_text

    return document_text(path)


@dataclass(slots=True)
class Question:
    id: str
    corpus: str
    doc: str
    question: str
    evidence: list[tuple[int, int]]
    kind: str
    lang: str
    #: ``lexical`` (written from the page, reusing its words) or ``paraphrase`` (in the
    #: asker's own words, issue 31); a line without one is lexical
    style: str = "lexical"


STYLES = ("lexical", "paraphrase")


def default_corpus_dir() -> Path:
    """Where the shared corpora are: ``$MDCHUNK_CORPORA``, else ``../shared/corpora`` beside
    the checkout (or beside the folder of worktrees it is in)."""
    if os.environ.get("MDCHUNK_CORPORA"):
        return Path(os.environ["MDCHUNK_CORPORA"])
    near = [up / "shared" / "corpora" for up in (REPO.parent, REPO.parent.parent)]
    return next((p for p in near if p.is_dir()), near[0])


def load_questions(path: Path, shared: Path, only: set[str] | None = None) -> list[Question]:
    """The questions of ``path`` (those over the corpora of ``only``, when given); every
    evidence span is checked against its document."""
    questions: list[Question] = []
    sources: dict[tuple[str, str], str] = {}
    seen: set[str] = set()
    errors: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        if only is not None and row.get("corpus") not in only:
            continue
        where = f"{path.name}:{number} ({row.get('id')})"
        if row["id"] in seen:
            errors.append(f"{where}: duplicate id")
        seen.add(row["id"])
        spec = CORPORA.get(row["corpus"])
        if spec is None:
            errors.append(f"{where}: unknown corpus {row['corpus']!r}")
            continue
        if row["kind"] not in KINDS:
            errors.append(f"{where}: kind {row['kind']!r} is not one of {KINDS}")
        if row["lang"] not in ("en", "zh"):
            errors.append(f"{where}: lang {row['lang']!r}")
        if row.get("style", "lexical") not in STYLES:
            errors.append(f"{where}: style {row['style']!r} is not one of {STYLES}")
        key = (row["corpus"], row["doc"])
        if key not in sources:
            file = corpus_root(spec, shared) / row["doc"]
            if not file.is_file():
                errors.append(f"{where}: no document {file}")
                continue
            sources[key] = read_source(file)
        source = sources[key]
        spans = []
        for item in row["evidence"]:
            start, end, text = item["start"], item["end"], item["text"]
            if source[start:end] != text:
                errors.append(f"{where}: evidence [{start}:{end}] does not match the document: "
                              f"{source[start:end][:60]!r} != {text[:60]!r}")
            elif not text.strip():
                errors.append(f"{where}: blank evidence")
            spans.append((start, end))
        if not spans:
            errors.append(f"{where}: no evidence")
        questions.append(Question(row["id"], row["corpus"], row["doc"], row["question"], spans,
                                  row["kind"], row["lang"], row.get("style", "lexical")))
    if errors:
        raise SystemExit(f"{path.name} is inconsistent with the corpora:\n  "
                         + "\n  ".join(errors))
    return questions


# --------------------------------------------------------------------------------------------
# Chunking


@dataclass(slots=True)
class Chunked:
    """One chunker's chunks of one corpus: what is indexed, and where it came from."""

    texts: list[str] = field(default_factory=list)  # what is embedded / indexed
    docs: list[str] = field(default_factory=list)
    spans: list[tuple[int, int] | None] = field(default_factory=list)
    unlocated: int = 0
    tokens: list[int] = field(default_factory=list)


def chunk_corpus(name: str, files: list[str], root: Path, sources: dict[str, str],
                 encoding, spec: CorpusSpec) -> Chunked:
    out = Chunked()
    if name == "mdchunk":
        import mdchunk

        includes = str(root / spec.includes) if spec.includes else None
        chunkers = {site: mdchunk.Chunker(mdchunk.ChunkerConfig(
            max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP, site=site,  # type: ignore[arg-type]
            includes=includes)) for site in {spec.site_of(rel) for rel in files}}
        for rel in files:
            for chunk in chunkers[spec.site_of(rel)].chunk_file(root / rel, doc_id=rel):
                assert sources[rel][chunk.start:chunk.end] == chunk.text
                out.texts.append(chunk.embed_text)
                out.docs.append(rel)
                out.spans.append((chunk.start, chunk.end))
                out.tokens.append(chunk.token_count)
        return out
    import peers

    adapter = peers.make_adapters([name], MAX_TOKENS, OVERLAP, encoding)[name]
    for rel in files:
        source = sources[rel]
        texts = [t for t in adapter.run(source) if t.strip()]
        located = peers.locate(source, texts)
        missing = set(located.unlocated)
        spans = iter(located.spans)
        for index, text in enumerate(texts):
            out.texts.append(text)
            out.docs.append(rel)
            out.spans.append(None if index in missing else next(spans))
            out.tokens.append(len(encoding.encode_ordinary(text)))
        out.unlocated += len(missing)
    return out


# --------------------------------------------------------------------------------------------
# Retrieval


class DenseIndex:
    """Unit vectors of all-MiniLM-L6-v2, cached on disk text by text.

    Each (chunker, corpus) run is saved as ``<label>-<hash of its texts>.npz`` holding the
    vectors and the SHA-256 of each text; on a miss, texts already embedded by any earlier
    run (another chunker, ``--quick``, an older mdchunk) are taken from those files, and only
    new texts go through the model.
    """

    def __init__(self, cache: Path) -> None:
        from mdchunk.embedding import load_embedder, vector_kind

        backend = os.environ.get("MDCHUNK_BENCH_BACKEND", "torch")  # or onnx-int8 (issue 25)
        self.embedder = load_embedder(None, backend)  # type: ignore[arg-type]
        # torch's vectors keep their old folder; another backend's (or export's) never mix
        kind = vector_kind(self.embedder)  # "" where the model cannot be exported (torch)
        self.cache = cache / (self.embedder.name.replace("/", "--")
                              + (f"--{kind}" if kind else ""))
        self.cache.mkdir(parents=True, exist_ok=True)
        self.seconds = 0.0
        self.embedded = 0
        self.reused = 0
        self._known: dict[str, np.ndarray] | None = None

    def _all_cached(self) -> dict[str, np.ndarray]:
        if self._known is None:
            self._known = {}
            for file in sorted(self.cache.glob("*.npz")):
                with np.load(file) as data:
                    self._known.update(zip(data["keys"].tolist(), data["vectors"], strict=True))
        return self._known

    def embed(self, label: str, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        digest = hashlib.sha256("".join(keys).encode()).hexdigest()[:20]
        file = self.cache / f"{label}-{digest}.npz"
        if file.exists():
            self.reused += len(keys)
            with np.load(file) as data:
                return data["vectors"]
        known = self._all_cached()
        todo = sorted({i for i, k in enumerate(keys) if k not in known})
        self.reused += len(keys) - len(todo)
        if todo:
            started = time.perf_counter()
            fresh = self.embedder.embed([texts[i] for i in todo])
            self.seconds += time.perf_counter() - started
            self.embedded += len(todo)
            # The embedder promises unit rows; cosine = dot product only if that holds.
            norms = np.linalg.norm(fresh, axis=1)
            if not np.allclose(norms, 1.0, atol=1e-3):
                fresh = fresh / np.maximum(norms[:, None], 1e-12)
            for i, vector in zip(todo, fresh, strict=True):
                known[keys[i]] = vector
        dim = self.embedder.dim
        vectors = (np.stack([known[k] for k in keys]).astype(np.float32) if keys
                   else np.zeros((0, dim), dtype=np.float32))
        np.savez(file, vectors=vectors, keys=np.array(keys, dtype="U64"))
        return vectors

    def truncated(self, texts: Sequence[str]) -> int:
        """How many texts are longer than the model's window (it reads only their start)."""
        model = self.embedder._load()  # type: ignore[attr-defined]
        window = model.max_seq_length
        lengths = model.tokenizer(list(texts), add_special_tokens=True, truncation=False,
                                  return_length=True, verbose=False)["length"]
        return sum(n > window for n in lengths)


_WORD = re.compile(r"\w+")
_HAS_WORD = re.compile(r"\w")


def analyzer(lang: str) -> Callable[[str], list[str]]:
    """Milvus Lite's analyzers: ``standard`` for English, ``jieba`` (search mode) for Chinese."""
    if lang == "zh":
        import logging

        import jieba

        jieba.setLogLevel(logging.ERROR)

        def zh(text: str) -> list[str]:
            return [t.strip().lower() for t in jieba.cut_for_search(text)
                    if _HAS_WORD.search(t)]

        return zh

    def en(text: str) -> list[str]:
        return _WORD.findall(text.lower())

    return en


class BM25:
    """Okapi BM25 over a fixed list of texts."""

    def __init__(self, texts: Sequence[str], tokenize: Callable[[str], list[str]]) -> None:
        self.tokenize = tokenize
        self.n = len(texts)
        lengths = np.zeros(self.n, dtype=np.float64)
        postings: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for i, text in enumerate(texts):
            counts = Counter(tokenize(text))
            lengths[i] = sum(counts.values())
            for term, tf in counts.items():
                docs, tfs = postings[term]
                docs.append(i)
                tfs.append(tf)
        avg = lengths.mean() if self.n else 1.0
        self.norm = K1 * (1 - B + B * lengths / max(avg, 1e-9))
        self.postings = {t: (np.array(d), np.array(f, dtype=np.float64))
                         for t, (d, f) in postings.items()}

    def scores(self, query: str) -> np.ndarray:
        scores = np.zeros(self.n)
        for term in set(self.tokenize(query)):
            if term not in self.postings:
                continue
            docs, tfs = self.postings[term]
            idf = math.log(1 + (self.n - len(docs) + 0.5) / (len(docs) + 0.5))
            scores[docs] += idf * tfs * (K1 + 1) / (tfs + self.norm[docs])
        return scores


def top_k(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` best scores, best first (ties: lower index first)."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return [int(i) for i in order[:k]]


# --------------------------------------------------------------------------------------------
# Judging


def evidence_chars(source: str, spans: Iterable[tuple[int, int]]) -> np.ndarray:
    """Offsets of the non-blank characters of the evidence."""
    chars = [i for a, b in spans for i in range(a, b) if not source[i].isspace()]
    return np.array(sorted(set(chars)), dtype=np.int64)


def covers(spans: Iterable[tuple[int, int]], chars: np.ndarray) -> bool:
    left = np.ones(len(chars), dtype=bool)
    for a, b in spans:
        left &= ~((chars >= a) & (chars < b))
    return not left.any()


@dataclass(slots=True)
class Judged:
    hit: bool
    single: bool
    #: The top chunks as ``[doc, start, end]`` (``None`` offsets: a chunk not found).
    top: list[list]


def judge(q: Question, chunked: Chunked, chars: np.ndarray, ranked: list[int]) -> Judged:
    spans = [chunked.spans[i] for i in ranked
             if chunked.docs[i] == q.doc and chunked.spans[i] is not None]
    hit = covers(spans, chars)  # type: ignore[arg-type]
    single = any(covers([s], chars) for s in spans)  # type: ignore[list-item]
    top = [[chunked.docs[i], *(chunked.spans[i] or (None, None))] for i in ranked]
    return Judged(hit, single, top)


def fits_one_chunk(q: Question, chunked: Chunked, chars: np.ndarray) -> bool:
    """Whether any chunk of this chunker holds the whole evidence (the single-chunk ceiling)."""
    return any(covers([s], chars) for d, s in zip(chunked.docs, chunked.spans, strict=True)
               if d == q.doc and s is not None)


# --------------------------------------------------------------------------------------------
# Running


@dataclass(slots=True)
class Result:
    chunker: str
    chunks: int = 0
    tokens: list[int] = field(default_factory=list)
    truncated: int = 0
    unlocated: int = 0
    #: question id -> mode -> Judged
    judged: dict[str, dict[str, Judged]] = field(default_factory=dict)
    fits: dict[str, bool] = field(default_factory=dict)


def sample_files(files: list[str], keep: set[str], distractors: int | None,
                 seed: int) -> list[str]:
    """Every document holding evidence plus ``distractors`` others drawn with a fixed seed."""
    if distractors is None:
        return files
    others = [f for f in files if f not in keep]
    rng = random.Random(seed)
    chosen = set(rng.sample(others, min(distractors, len(others))))
    return [f for f in files if f in keep or f in chosen]


def run(args: argparse.Namespace) -> tuple[list[Question], dict[str, Result], dict]:
    import peers

    shared = args.corpus
    questions = load_questions(args.questions, shared)
    if args.quick:
        questions = questions[::3]
    if args.corpora:
        questions = [q for q in questions if q.corpus in args.corpora]
    chunkers = [c for c in args.chunkers.split(",") if c]
    encoding = peers.load_encoding()
    dense = DenseIndex(args.cache)
    results = {name: Result(name) for name in chunkers}
    info: dict = {"corpora": {}}
    by_corpus: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_corpus[q.corpus].append(q)
    for corpus, qs in by_corpus.items():
        spec = CORPORA[corpus]
        root = corpus_root(spec, shared)
        every = corpus_files(spec, shared)
        distractors = args.distractors if args.distractors >= 0 else None
        if args.quick and distractors is None:
            distractors = 8
        files = sample_files(every, {q.doc for q in qs}, distractors, args.seed)
        sources = {rel: read_source(root / rel) for rel in files}
        info["corpora"][corpus] = {"files": len(files), "of": len(every),
                                   "mb": sum(len(s.encode()) for s in sources.values()) / 1e6,
                                   "questions": len(qs), "lang": spec.lang}
        print(f"{corpus}: {len(files)}/{len(every)} documents, {len(qs)} questions",
              flush=True)
        tokenize = analyzer(spec.lang)
        query_vectors = dense.embed(f"questions-{corpus}", [q.question for q in qs])
        chars = {q.id: evidence_chars(sources[q.doc], q.evidence) for q in qs}
        for name in chunkers:
            chunked = chunk_corpus(name, files, root, sources, encoding, spec)
            result = results[name]
            result.chunks += len(chunked.texts)
            result.tokens += chunked.tokens
            result.unlocated += chunked.unlocated
            if not args.no_truncation:
                result.truncated += dense.truncated(chunked.texts)
            started = time.perf_counter()
            vectors = dense.embed(f"{name}-{corpus}", chunked.texts)
            embed_s = time.perf_counter() - started
            bm25 = BM25(chunked.texts, tokenize)
            for q, qv in zip(qs, query_vectors, strict=True):
                result.judged[q.id] = {
                    "dense": judge(q, chunked, chars[q.id], top_k(vectors @ qv, TOP_K)),
                    "bm25": judge(q, chunked, chars[q.id], top_k(bm25.scores(q.question),
                                                                  TOP_K)),
                }
                result.fits[q.id] = fits_one_chunk(q, chunked, chars[q.id])
            print(f"  {name:<11} {len(chunked.texts):>5} chunks, embedded in {embed_s:5.1f} s",
                  flush=True)
    info["embedded"] = dense.embedded
    info["embed_seconds"] = dense.seconds
    info["reused"] = dense.reused
    return questions, results, info


# --------------------------------------------------------------------------------------------
# Report


def pct(values: list[bool]) -> str:
    return f"{100 * sum(values) / len(values):.1f}" if values else "—"


def rate(result: Result, qs: list[Question], mode: str, single: bool = False) -> float:
    if not qs:
        return float("nan")
    hits = [(result.judged[q.id][mode].single if single else result.judged[q.id][mode].hit)
            for q in qs]
    return 100 * sum(hits) / len(hits)


def paired_interval(a: np.ndarray, b: np.ndarray, rounds: int = 10_000,
                    seed: int = 12) -> tuple[float, float]:
    """95% bootstrap interval of ``mean(a) - mean(b)`` in points, resampling questions."""
    rng = np.random.default_rng(seed)
    diff = a.astype(np.float64) - b.astype(np.float64)
    picks = rng.integers(0, len(diff), size=(rounds, len(diff)))
    means = 100 * diff[picks].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def table(header: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |",
            *("| " + " | ".join(r) + " |" for r in rows)]


def breakdown(title: str, groups: dict[str, list[Question]], results: dict[str, Result],
              mode: str) -> list[str]:
    names = list(results)
    rows = []
    for group, qs in groups.items():
        if not qs:
            continue
        values = [rate(results[n], qs, mode) for n in names]
        best = max(values)
        cells = [f"**{v:.1f}**" if v == best else f"{v:.1f}" for v in values]
        rows.append([f"{group} ({len(qs)})", *cells])
    return [f"#### {title}", "", *table(["questions", *names], rows), ""]


def report(questions: list[Question], results: dict[str, Result], info: dict,
           seconds: float) -> str:
    names = list(results)
    lines = []
    corpora = ", ".join(f"{c} {v['files']}/{v['of']} docs ({v['mb']:.2f} MB, "
                        f"{v['questions']} questions)" for c, v in info["corpora"].items())
    lines += [f"{len(questions)} questions; corpora: {corpora}. This run embedded "
              f"{info['embedded']} texts in {info['embed_seconds']:.0f} s and took "
              f"{seconds / 60:.1f} min; {info['reused']} embeddings came from the cache.", ""]
    header = ["chunker", "chunks", "mean tokens", "over MiniLM window", "unlocated",
              "dense hit@5", "BM25 hit@5", "dense 1-chunk", "BM25 1-chunk",
              "evidence fits 1 chunk"]
    rows = []
    for n in names:
        r = results[n]
        rows.append([n, str(r.chunks), f"{np.mean(r.tokens):.0f}" if r.tokens else "—",
                     f"{100 * r.truncated / max(r.chunks, 1):.0f}%", str(r.unlocated),
                     f"{rate(r, questions, 'dense'):.1f}", f"{rate(r, questions, 'bm25'):.1f}",
                     f"{rate(r, questions, 'dense', True):.1f}",
                     f"{rate(r, questions, 'bm25', True):.1f}",
                     pct([r.fits[q.id] for q in questions])])
    lines += ["#### Overall (% of questions)", "", *table(header, rows), ""]
    if "mdchunk" in results and any(p in results for p in PEERS):
        rows = []
        for mode, label in (("dense", "dense"), ("bm25", "BM25")):
            mine = rate(results["mdchunk"], questions, mode)
            best, who = max((rate(results[p], questions, mode), p) for p in PEERS
                            if p in results)
            margin = mine - best
            a = np.array([results["mdchunk"].judged[q.id][mode].hit for q in questions])
            b = np.array([results[who].judged[q.id][mode].hit for q in questions])
            low, high = paired_interval(a, b)
            rows.append([label, f"{mine:.1f}", f"{best:.1f} ({who})", f"{margin:+.1f}",
                         f"{low:+.1f} to {high:+.1f}", f"{int((a & ~b).sum())} / "
                         f"{int((b & ~a).sum())}", f"+{TARGETS[mode]:.0f}",
                         "yes" if margin >= TARGETS[mode] else "no"])
        lines += ["#### Target: mdchunk against the best peer (points of hit@5)", "",
                  *table(["retrieval", "mdchunk", "best peer", "margin",
                          "95% interval (paired bootstrap)", "questions only mdchunk / only "
                          "the peer hits", "target", "met"], rows, "lrrrrrrl"), ""]
    by_kind = {k: [q for q in questions if q.kind == k] for k in KINDS}
    by_lang = {k: [q for q in questions if q.lang == k] for k in ("en", "zh")}
    by_corpus = {c: [q for q in questions if q.corpus == c] for c in info["corpora"]}
    for mode, label in (("dense", "Dense (all-MiniLM-L6-v2)"), ("bm25", "BM25")):
        lines += breakdown(f"{label} hit@5 by kind (%)", by_kind, results, mode)
        lines += breakdown(f"{label} hit@5 by language (%)", by_lang, results, mode)
        lines += breakdown(f"{label} hit@5 by corpus (%)", by_corpus, results, mode)
    if "mdchunk" in results:
        rows = []
        for mode, label in (("dense", "dense"), ("bm25", "BM25")):
            for q in questions:
                if results["mdchunk"].judged[q.id][mode].hit:
                    continue
                hits = [p for p in PEERS if p in results and results[p].judged[q.id][mode].hit]
                if hits:
                    rows.append([label, q.id, q.kind, q.question.replace("|", "\\|"),
                                 ", ".join(hits)])
        if rows:
            lines += ["#### Questions mdchunk misses and a peer hits", "",
                      *table(["retrieval", "id", "kind", "question", "peers that hit"], rows,
                             "lllll"), ""]
    return "\n".join(lines)


def update_doc(text: str, doc: Path) -> None:
    """Replace the retrieval results block of BENCHMARKS.md (between its markers)."""
    start, end = "<!-- retrieval:start -->", "<!-- retrieval:end -->"
    current = doc.read_text(encoding="utf-8")
    if start not in current or end not in current:
        raise SystemExit(f"{doc} has no {start} ... {end} block to update")
    head, rest = current.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")


def version(distribution: str) -> str:
    from importlib import metadata

    if distribution == "mdchunk":  # its version never moves; the commit of its code does
        import subprocess

        commit = subprocess.run(["git", "log", "-1", "--format=%h", "--", "mdchunk"], cwd=REPO,
                                capture_output=True, text=True, check=False).stdout.strip()
        return f"{metadata.version('mdchunk')} (code at {commit or 'unknown commit'})"
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="every third question, documents with evidence plus 8 distractors")
    ap.add_argument("--corpus", type=Path, default=default_corpus_dir(),
                    help="folder holding gitlab-com-runbooks and openshift-runbooks")
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--chunkers", default=",".join(CHUNKERS))
    ap.add_argument("--corpora", nargs="*", help="only these corpora")
    ap.add_argument("--distractors", type=int, default=-1,
                    help="documents without evidence kept per corpus (default: all)")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--cache", type=Path,
                    default=Path(tempfile.gettempdir()) / "mdchunk-bench-retrieval",
                    help="embedding cache (content-hashed .npy files)")
    ap.add_argument("--no-truncation", action="store_true",
                    help="skip counting chunks longer than the model's window")
    ap.add_argument("--out", type=Path, help="also write the Markdown tables here")
    ap.add_argument("--json", type=Path, help="per-question results as JSON")
    ap.add_argument("--update-doc", action="store_true",
                    help="rewrite the retrieval results in BENCHMARKS.md (full runs only)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    started = time.perf_counter()
    questions, results, info = run(args)
    seconds = time.perf_counter() - started
    text = report(questions, results, info, seconds)
    machine = (f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
               f"Python {platform.python_version()}; load average "
               f"{os.getloadavg()[0]:.1f}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Versions: "
               + ", ".join(f"{name} {version(name)}" for name in VERSIONED) + ".")
    text = machine + "\n\n" + text
    print()
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.update_doc:
        if args.quick or args.corpora or args.distractors >= 0 or args.chunkers != ",".join(
                CHUNKERS):
            raise SystemExit("--update-doc records full runs only")
        update_doc(text, REPO / "BENCHMARKS.md")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        rows = [{"id": q.id, "corpus": q.corpus, "doc": q.doc, "kind": q.kind, "lang": q.lang,
                 "question": q.question,
                 **{f"{n}/{m}": {"hit": j.hit, "single": j.single, "top": j.top}
                    for n in results for m, j in results[n].judged[q.id].items()}}
                for q in questions]
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
