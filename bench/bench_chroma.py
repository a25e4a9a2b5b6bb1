"""Chroma's chunking benchmark: mdchunk's boundary strategies beside LangChain's recursive splitter.

Data: ``$MDCHUNK_CHROMA`` (default ``../shared/chroma``): five plain-text corpora and 472
questions whose evidence is given as character ranges (``questions_df.csv``; see its README).
Every chunker chunks every corpus; all chunks of all corpora go into one collection (as in
Chroma's evaluation), each question retrieves the top ``k`` chunks by cosine similarity of
all-MiniLM-L6-v2 embeddings, and the scores are computed on character ranges the way
``chunking_evaluation`` (brandonstarxel/chunking_evaluation, ``base_evaluation.py``) computes
them:

* recall — evidence characters covered by the retrieved chunks of the question's corpus /
  evidence characters;
* precision — those covered characters / the summed length of all ``k`` retrieved chunks;
* IoU — covered / (summed length of the retrieved chunks + evidence characters left uncovered);
* precision-Ω — the same IoU over every chunk that touches the evidence (the best any
  retrieval could do with these chunks).

Means over the questions, in percent; after the table, each mode's recall and IoU (own-corpus
search) with 95% bootstrap intervals over the questions, and its difference from the first mode
(LangChain) on the same resampled questions, so that a gap can be told from noise. Two
searches: over all corpora at once (``all``, as Chroma's code does) and over the question's own
corpus only (``corpus``, how the figures in issue 14 were taken; it adds about 1.3 points of
recall for every chunker). Ranges touch when they share an end point, as there
(``max(start) <= min(end)``). Chunk sizes are cl100k tokens for every chunker.

Embeddings are cached on disk (``--cache``, default under /tmp) keyed by model, backend
(``--backend``: torch, onnx or onnx-int8, issue 25) and text, so a second run embeds only chunks
it has not seen; ``mdchunk embedding`` scores its seams with the same cached encoder
(``--cold`` times it without the cache). Chunking time is process time of the chunker alone,
on this machine, in the same run.

    python bench/bench_chroma.py [--modes ...] [--configs 250/125,200/0] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers import load_encoding, locate

import mdchunk
from mdchunk.embedding import DEFAULT_MODEL, load_embedder, seam_embedder, vector_kind

ROOT = Path(__file__).resolve().parent.parent
CHROMA = Path(os.environ.get("MDCHUNK_CHROMA") or ROOT.parent / "shared" / "chroma")
Range = tuple[int, int]


# -- ranges, as chunking_evaluation counts them ---------------------------------------------

def union(ranges: Sequence[Range]) -> list[Range]:
    """Overlapping or touching ranges merged."""
    out: list[Range] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def intersect(x: Range, y: Range) -> Range | None:
    """The shared part; ranges that only touch share an empty range (and count as touching)."""
    a, b = max(x[0], y[0]), min(x[1], y[1])
    return (a, b) if a <= b else None


def subtract(ranges: Sequence[Range], cut: Range) -> list[Range]:
    out = []
    for a, b in ranges:
        if b < cut[0] or a > cut[1]:
            out.append((a, b))
            continue
        if a < cut[0]:
            out.append((a, cut[0]))
        if b > cut[1]:
            out.append((cut[1], b))
    return out


def length(ranges: Sequence[Range]) -> int:
    return sum(b - a for a, b in ranges)


@dataclass(frozen=True, slots=True)
class Scores:
    recall: float
    precision: float
    iou: float
    omega: float


def question_scores(refs: Sequence[Range], corpus: str, retrieved: Sequence[tuple[str, Range]],
                    touching: Sequence[Range]) -> Scores:
    """One question's scores: ``retrieved`` are the top-k chunks (corpus, range), ``touching``
    the chunks of its corpus that touch the evidence (for precision-Ω)."""
    def covered(chunks: Sequence[Range]) -> tuple[int, list[Range], list[Range]]:
        hits: list[Range] = []
        left = list(refs)
        spans: list[Range] = []
        for span in chunks:
            for ref in refs:
                shared = intersect(span, ref)
                if shared is not None:
                    left = subtract(left, shared)
                    hits = union([shared, *hits])
                    spans = union([span, *spans])
        return length(hits), left, spans

    same = [span for name, span in retrieved if name == corpus]
    hit, left, _ = covered(same)
    retrieved_length = length([span for _, span in retrieved])
    omega_hit, omega_left, omega_spans = covered(touching)
    omega_den = length(union(omega_spans + omega_left))
    return Scores(
        recall=hit / length(refs) if refs else 0.0,
        precision=hit / retrieved_length if retrieved_length else 0.0,
        iou=hit / (retrieved_length + length(left)) if retrieved_length + length(left) else 0.0,
        omega=omega_hit / omega_den if omega_hit and omega_den else 0.0,
    )


# -- embeddings, cached on disk ---------------------------------------------------------------

class CachedEncoder:
    """all-MiniLM-L6-v2 (or ``model``) with a disk cache keyed by model, backend and text.

    ``backend`` ``torch`` is sentence-transformers' own ``encode`` (the figures of issue 14);
    ``onnx`` and ``onnx-int8`` are the index's ONNX embedders (issue 25), whose vectors are
    cached apart from torch's so that the two are compared, never mixed."""

    def __init__(self, model: str | None, cache_dir: Path | None,
                 backend: str = "torch") -> None:
        self.model = model or DEFAULT_MODEL
        self.inner: Any = seam_embedder(model) if backend == "torch" else load_embedder(
            model, backend)  # type: ignore[arg-type]
        kind = vector_kind(self.inner)  # "" on torch, and where the model cannot be exported
        key = f"{self.model}--{kind}" if kind else self.model
        self.path = (cache_dir / (hashlib.sha1(key.encode()).hexdigest()[:12] + ".pkl")
                     if cache_dir else None)
        self.vectors: dict[bytes, np.ndarray] = {}
        if self.path is not None and self.path.exists():
            with self.path.open("rb") as f:
                self.vectors = pickle.load(f)
        self.computed = 0

    @staticmethod
    def key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self.key(t) for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in self.vectors}.items())
        if missing:
            found = np.asarray(self.inner.embed([t for _, t in missing]), dtype=np.float32)
            self.vectors.update(zip((k for k, _ in missing), found))
            self.computed += len(missing)
        dim = len(next(iter(self.vectors.values()))) if self.vectors else 384
        return (np.stack([self.vectors[k] for k in keys]) if keys
                else np.zeros((0, dim), dtype=np.float32))

    def save(self) -> None:
        if self.path is not None and self.computed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            with tmp.open("wb") as f:
                pickle.dump(self.vectors, f)
            tmp.replace(self.path)


# -- chunkers ---------------------------------------------------------------------------------

#: A chunker: corpus text -> (range, text to embed) per chunk.
Chunked = list[tuple[Range, str]]


def mdchunk_mode(max_tokens: int, overlap: int, encoder: CachedEncoder | None,
                 semantic: str | None = None, llm: bool = False, min_tokens: int | None = None,
                 threshold: float | None = None) -> Callable[[str], Chunked]:
    config = mdchunk.ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap,
                                   semantic=semantic, min_tokens=min_tokens)  # type: ignore[arg-type]
    if threshold is not None:
        config = replace(config, semantic_threshold=threshold)
    chunker = mdchunk.Chunker(config, encoder=encoder if semantic == "embedding" else None)

    def run(text: str) -> Chunked:
        return [((c.start, c.end), c.embed_text) for c in chunker.chunk_text(text)]

    return run


def langchain_mode(max_tokens: int, overlap: int) -> Callable[[str], Chunked]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    encode = load_encoding().encode_ordinary
    splitter = RecursiveCharacterTextSplitter(chunk_size=max_tokens, chunk_overlap=overlap,
                                              length_function=lambda t: len(encode(t)))

    def run(text: str) -> Chunked:
        chunks = splitter.split_text(text)
        located = locate(text, chunks)
        if located.unlocated:
            raise RuntimeError(f"LangChain chunks not found in the corpus: {located.unlocated}")
        return [(span, text[span[0]:span[1]]) for span in located.spans]

    return run


# -- the run ----------------------------------------------------------------------------------

def load_questions(root: Path) -> list[tuple[str, str, list[Range]]]:
    with (root / "questions_df.csv").open(newline="", encoding="utf-8") as f:
        return [(row["question"], row["corpus_id"],
                 [(int(r["start_index"]), int(r["end_index"])) for r in json.loads(row["references"])])
                for row in csv.DictReader(f)]


def evaluate(corpora: dict[str, str], questions: list[tuple[str, str, list[Range]]],
             question_vectors: np.ndarray, chunker: Callable[[str], Chunked],
             encoder: CachedEncoder, k: int
             ) -> tuple[dict[str, list[Scores]], float, int, float]:
    """Each question's scores by scope, chunking seconds, chunk count and mean chunk tokens for
    one chunker."""
    started = time.process_time()
    chunked = {name: chunker(text) for name, text in corpora.items()}
    seconds = time.process_time() - started
    names = [name for name, chunks in chunked.items() for _ in chunks]
    spans = [span for chunks in chunked.values() for span, _ in chunks]
    texts = [text for chunks in chunked.values() for _, text in chunks]
    vectors = encoder.embed(texts)
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    similarity = question_vectors @ vectors.T
    owners = np.array(names)
    by_scope = {}
    for scope in SCOPES:
        rows = []
        for scored, (_, corpus, refs) in zip(similarity, questions):
            if scope == "corpus":  # only the question's own corpus is searched
                scored = np.where(owners == corpus, scored, -np.inf)  # noqa: PLW2901
            best = np.argsort(-scored, kind="stable")[:k]
            retrieved = [(names[i], spans[i]) for i in best]
            touching = [span for name, span in zip(names, spans) if name == corpus
                        and any(intersect(span, ref) is not None for ref in refs)]
            rows.append(question_scores(refs, corpus, retrieved, touching))
        by_scope[scope] = rows
    counter = load_encoding()
    tokens = float(np.mean([len(counter.encode_ordinary(t)) for t in texts]))
    return by_scope, seconds, len(texts), tokens


FIELDS = ("recall", "precision", "iou", "omega")


def mean_scores(rows: Sequence[Scores]) -> Scores:
    """The questions' mean scores, in percent."""
    return Scores(*(100 * float(np.mean([getattr(r, f) for r in rows])) for f in FIELDS))


def interval(values: np.ndarray, rounds: int = 2000, seed: int = 14) -> tuple[float, float]:
    """The 95% bootstrap interval of the mean of per-question ``values``: the questions are
    resampled with replacement. The seed is fixed, so two modes' intervals (and the interval of
    their per-question differences) come from the same resamples.

    >>> interval(np.array([1.0] * 10))
    (1.0, 1.0)
    """
    picks = np.random.default_rng(seed).integers(0, len(values), size=(rounds, len(values)))
    means = values[picks].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def spread_table(config: str, per_mode: dict[str, list[Scores]]) -> list[str]:
    """Recall and IoU (own-corpus search) with their 95% intervals, and each mode's difference
    from the first mode (LangChain by default) on the same questions, with its interval: how
    much of a gap between modes, or between a mode and a target, the 472 questions can tell."""
    def column(rows: Sequence[Scores], field: str) -> np.ndarray:
        return 100 * np.array([getattr(r, field) for r in rows])

    def shown(values: np.ndarray, signed: bool = False) -> str:
        low, high = interval(values)
        sign = "+" if signed else ""
        return f"{values.mean():{sign}.1f} [{low:{sign}.1f}, {high:{sign}.1f}]"

    reference, *_ = per_mode
    base_recall, base_iou = column(per_mode[reference], "recall"), column(per_mode[reference], "iou")
    lines = [f"| config | mode | recall [95%] | IoU [95%] | recall - {reference} [95%] "
             f"| IoU - {reference} [95%] |", "|---|---|---:|---:|---:|---:|"]
    for mode, rows in per_mode.items():
        recall, iou = column(rows, "recall"), column(rows, "iou")
        lines.append(f"| {config} | {mode} | {shown(recall)} | {shown(iou)} "
                     f"| {shown(recall - base_recall, True)} | {shown(iou - base_iou, True)} |")
    return lines


MODES = ("langchain", "greedy", "lexical", "embedding", "lexical:min=0", "embedding:min=0")
#: Where each question's top k are searched: every corpus at once (Chroma's evaluation, one
#: collection), or only the question's own corpus (how the figures of issue 14 were taken).
SCOPES = ("all", "corpus")


def build(mode: str, max_tokens: int, overlap: int, encoder: CachedEncoder,
          min_tokens: int | None, threshold: float | None) -> Callable[[str], Chunked]:
    """The chunker a mode names: ``langchain``, ``greedy``, ``greedy-text`` (the chunk's text
    embedded, not its embed_text), ``lexical`` or ``embedding``; a semantic mode may add
    ``:min=N`` (or ``:min=half`` of the budget) and ``:threshold=X``."""
    name, *options = mode.split(":")
    settings = dict(option.split("=", 1) for option in options)
    if "min" in settings:
        min_tokens = max_tokens // 2 if settings["min"] == "half" else int(settings["min"])
    if "threshold" in settings:
        threshold = float(settings["threshold"])
    if name == "langchain":
        return langchain_mode(max_tokens, overlap)
    if name == "greedy":
        return mdchunk_mode(max_tokens, overlap, None)
    if name == "greedy-text":
        run = mdchunk_mode(max_tokens, overlap, None)
        return lambda text: [(span, text[span[0]:span[1]]) for span, _ in run(text)]
    return mdchunk_mode(max_tokens, overlap, encoder, semantic=name, min_tokens=min_tokens,
                        threshold=threshold)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--configs", default="250/125,200/0")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--min-tokens", type=int, default=None,
                        help="min_tokens for the semantic modes (default: max_tokens // 4)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="semantic_threshold for the semantic modes")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/mdchunk-chroma-cache"))
    parser.add_argument("--merge-cache", type=Path, nargs="*", default=[],
                        help="other cache folders to read vectors from (parallel runs)")
    parser.add_argument("--cold", action="store_true",
                        help="the embedding mode scores seams without the cache (true timing)")
    parser.add_argument("--backend", choices=("torch", "onnx", "onnx-int8"),
                        default=os.environ.get("MDCHUNK_BENCH_BACKEND", "torch"),
                        help="the embedder's runtime for chunks, questions and seams (issue 25)")
    parser.add_argument("--label", default=None, help="name the mode in the table")
    parser.add_argument("--out", type=Path, default=None, help="also write the table here")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not (CHROMA / "questions_df.csv").exists():
        sys.exit(f"Chroma's benchmark data not found at {CHROMA} (set MDCHUNK_CHROMA)")
    corpora = {p.stem: p.read_text(encoding="utf-8")
               for p in sorted((CHROMA / "corpora").glob("*.md"))}
    questions = load_questions(CHROMA)
    encoder = CachedEncoder(None, args.cache, args.backend)
    for folder in args.merge_cache:
        encoder.vectors.update(CachedEncoder(None, folder, args.backend).vectors)
        encoder.computed += 1  # saved with the merged vectors
    question_vectors = encoder.embed([q for q, _, _ in questions])
    question_vectors = question_vectors / np.linalg.norm(question_vectors, axis=1, keepdims=True)
    lines = ["| config | mode | search | recall | precision | IoU | precision-Ω | chunks "
             "| mean tokens | chunking s |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    results = []
    spreads: list[str] = []
    print(lines[0])
    print(lines[1])
    for config in args.configs.split(","):
        max_tokens, overlap = map(int, config.split("/"))
        per_mode: dict[str, list[Scores]] = {}
        for mode in args.modes.split(","):
            label = args.label or mode
            seam_encoder = CachedEncoder(None, None, args.backend) if args.cold else encoder
            chunker = build(mode, max_tokens, overlap, seam_encoder, args.min_tokens,
                            args.threshold)
            by_scope, seconds, count, tokens = evaluate(corpora, questions, question_vectors,
                                                        chunker, encoder, args.k)
            per_mode[label] = by_scope["corpus"]
            for scope, rows in by_scope.items():
                scores = mean_scores(rows)
                line = (f"| {config} | {label} | {scope} | {scores.recall:.1f} | "
                        f"{scores.precision:.1f} | {scores.iou:.1f} | {scores.omega:.1f} | "
                        f"{count} | {tokens:.0f} | {seconds:.2f} |")
                print(line, flush=True)
                lines.append(line)
                results.append({"config": config, "mode": label, "search": scope,
                                "chunks": count, "mean_tokens": tokens, "seconds": seconds,
                                **{f: getattr(scores, f) for f in FIELDS}})
            encoder.save()
        spreads += spread_table(config, per_mode)[0 if not spreads else 2:]
    print("\nOwn-corpus search, with 95% bootstrap intervals over the questions:")
    print("\n".join(spreads))
    lines += ["", *spreads]
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
