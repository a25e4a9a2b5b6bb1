"""Is the evidence a query needs complete in the retrieved leaf, its parent, or the auto-merge?

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_hierarchy.py [--out FILE]   # ~3 min, 2 cores

Issue #11 asks whether ``chunk_hierarchy``'s parents earn their keep: leaves are small so they
match a query sharply, but the answer may not fit in one. This script measures, on the runbook
corpora (``--corpus``, default ``$MDCHUNK_CORPORA`` or ``../shared/corpora``: each sub-folder
of Markdown is a corpus), how often the evidence of a test query is complete in what a
retriever returns, for three ways of returning it:

* **leaf**: the leaves themselves;
* **parent**: each leaf replaced by its parent, one level up (duplicates returned once);
* **auto-merge**: while at least half of a parent's children are among the returned chunks,
  those children are replaced by the parent, repeatedly up the levels (LlamaIndex's
  AutoMergingRetriever rule). With one hit this only fires when the parent has one or two
  children.

Test queries are built from the corpora's structure, deterministically, with no human labels:
every ``##`` or ``###`` heading (outside lists and quotes) whose section body, from the line
after the heading to the next heading of the same or a higher level (subsections included),
trimmed of blank space, holds ``--min-tokens`` to ``--max-tokens`` (60 to 1500) cl100k tokens
is a test. Its **evidence** is that body's character span in the file. Its **query** is a
question for the four headings of OpenShift's alert runbooks (Meaning → "What does <title>
mean?", Impact → "What is the impact of <title>?", Diagnosis → "How do I diagnose <title>?",
Mitigation → "How do I mitigate <title>?") and ``"<title>: <heading>"`` for every other heading,
where the title is the document's first ``#`` heading (else its folder for a README, else its
file name). Up to ``--queries`` tests per corpus are sampled with a fixed seed.

For each test and each way of returning, three retrievals:

* **oracle**: the leaf sharing the most evidence characters with the evidence (first in the
  document on ties); independent of any retriever, the ceiling of a one-leaf retriever;
* **top-1** and **top-3**: the leaves nearest the query by cosine similarity under the bundled
  embedding model (all-MiniLM-L6-v2, unit vectors, so a dot product), searched exhaustively in
  memory among all leaves of the corpus; each leaf's ``embed_text`` is embedded (the breadcrumb
  included, as the indexer does). top-3 returns the union of the three.

and three measures: **complete**, the share of tests whose evidence is entirely inside the
union of the returned spans; **coverage**, the mean share of evidence characters covered;
**tokens**, the mean ``token_count`` summed over the returned chunks (the cost of putting them
in a prompt; overlapping chunks are counted in full). Characters are counted without
whitespace, since finer levels do not tile and may leave the blank lines between chunks out.
**hit** is the share of tests where a returned leaf shares any evidence character.

Chunking: cl100k_base tokens, overlap ``min(64, leaf budget // 2)`` (the indexer's cap), level
sets ``(2048, 512, 128)`` and ``(1024, 256, 64)`` unless ``--levels`` is given. Leaf vectors are
cached in ``--cache`` (keyed by a hash of the model and the texts), so a rerun only embeds the
queries.

Limits, read the figures with them in mind:

* Queries made from headings are easy for a retriever that sees breadcrumbs: the heading words
  are in every leaf's ``embed_text`` of that section. Real questions rarely name the section
  they need, so top-k figures here are optimistic; the oracle rows do not depend on queries.
* The evidence is a whole section, often larger than a leaf budget by construction, so leaf
  completeness is low by design for long sections; the table by evidence size separates the
  sections that could fit a leaf from those that could not. A real answer is often a sentence
  or two of a section, which a leaf holds more often than these figures say.
* Completeness is all-or-nothing at the character level: an evidence span missing its last
  list item counts as incomplete, though its coverage is high.
* Leaves are sized in cl100k tokens, the model reads at most 254 word pieces: a few leaves of
  128 tokens and many of 256 are embedded without their end (``--levels 4096,1024,256``).
* Two small corpora of runbooks (100 files): style and heading habits of one organisation each.
* The tests are sampled from the same corpora the chunker was developed on.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from markdown_it.token import Token

    from mdchunk import Chunk
    from mdchunk.embedding import SentenceTransformerEmbedder

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # mdchunk is imported from this checkout, inside the functions

DEFAULT_LEVEL_SETS = ((2048, 512, 128), (1024, 256, 64))
MAX_OVERLAP = 64
TOKENIZER = "cl100k_base"
HEADING_LEVELS = (2, 3)
TOP_K = 3
MODES = ("oracle", "top-1", f"top-{TOP_K}")
VIEWS = ("leaf", "parent", "auto-merge")
#: The four sections of an OpenShift alert runbook, as questions an on-call engineer asks.
QUESTIONS = {
    "meaning": "What does {title} mean?",
    "impact": "What is the impact of {title}?",
    "diagnosis": "How do I diagnose {title}?",
    "mitigation": "How do I mitigate {title}?",
}


# --------------------------------------------------------------------------------------------
# Corpora and test queries


@dataclass(frozen=True, slots=True)
class Document:
    """A corpus file: its text and, to count evidence characters fast, a running count of the
    non-whitespace characters before each offset."""

    path: str
    text: str
    solid: Sequence[int]

    def solid_chars(self, start: int, end: int) -> int:
        """Non-whitespace characters in ``text[start:end]``."""
        return self.solid[end] - self.solid[start] if end > start else 0


@dataclass(frozen=True, slots=True)
class Test:
    """A query and the character span of the file that answers it."""

    doc: str
    title: str
    heading: str
    query: str
    start: int
    end: int
    tokens: int


def load_document(path: Path, root: Path) -> Document:
    """Read as the chunker's readers do (BOM dropped), so offsets agree with the chunks'."""
    from mdchunk.text.decode import document_text

    text = document_text(path)
    solid = list(itertools.accumulate((not c.isspace() for c in text), initial=0))
    return Document(path.relative_to(root).as_posix(), text, solid)


def corpus_folders(root: Path) -> list[Path]:
    """Sub-folders of ``root`` holding Markdown, each one corpus (as bench_speed.py finds them)."""
    if not root.is_dir():
        return []
    return [p for p in sorted(root.iterdir()) if p.is_dir() and next(p.rglob("*.md"), None)]


def plain(inline: str) -> str:
    """Heading text without Markdown markup: links keep their words, code and emphasis marks go."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", inline)
    return " ".join(re.sub(r"[`*_]", "", text).split())


def question(title: str, heading: str) -> str:
    """The runbook questions for the OpenShift section names, ``title: heading`` otherwise."""
    template = QUESTIONS.get(heading.lower().rstrip(":"))
    return template.format(title=title) if template else f"{title}: {heading}"


def headings(text: str) -> list[tuple[int, int, int, str]]:
    """``(level, first line, line after, text)`` of every top-level heading, in order.

    Parsed with mdchunk's own markdown-it configuration, so ``#`` lines in code blocks and front
    matter are not headings; headings nested in lists or quotes are skipped.
    """
    from mdchunk.formats.markdown_it_parser import full_parser

    tokens: list[Token] = full_parser().parse(text)
    found = []
    for opening, inline in itertools.pairwise(tokens):
        if opening.type == "heading_open" and opening.level == 0 and opening.map:
            found.append((int(opening.tag[1]), opening.map[0], opening.map[1],
                          plain(inline.content)))
    return found


def title_of(doc: Document, found: Sequence[tuple[int, int, int, str]]) -> str:
    """What a reader would call the document: its ``#`` heading, else its folder or file."""
    first = next((text for level, _, _, text in found if level == 1 and text), None)
    if first:
        return first
    path = Path(doc.path)
    return path.parent.name if path.stem.lower() == "readme" and path.parent.name else path.stem


def sections(doc: Document, count: Callable[[str], int], min_tokens: int, max_tokens: int
             ) -> list[Test]:
    """Every ``##``/``###`` section of ``doc`` whose trimmed body has a size in range."""
    found = headings(doc.text)
    # offset of each line's start (markdown-it counts lines by "\n"), and of the end
    lines = [0, *(m.end() for m in re.finditer("\n", doc.text)), len(doc.text)]
    title = title_of(doc, found)
    tests = []
    for i, (level, _, after, heading) in enumerate(found):
        if level not in HEADING_LEVELS or not heading:
            continue
        stop = next((first for lvl, first, _, _ in found[i + 1:] if lvl <= level), None)
        start, end = lines[after], lines[stop] if stop is not None else len(doc.text)
        body = doc.text[start:end]
        start += len(body) - len(body.lstrip())
        end -= len(body) - len(body.rstrip())
        tokens = count(doc.text[start:end]) if end > start else 0
        if min_tokens <= tokens <= max_tokens:
            tests.append(Test(doc.path, title, heading, question(title, heading), start, end,
                              tokens))
    return tests


def pick_tests(docs: Sequence[Document], n: int, seed: int, min_tokens: int, max_tokens: int
               ) -> tuple[list[Test], int]:
    """``n`` tests sampled with ``seed`` (all of them if fewer), in document order, and how many
    candidates there were."""
    from mdchunk.tokens.resolve import get_counter

    count = get_counter(TOKENIZER).count
    candidates = [t for doc in docs for t in sections(doc, count, min_tokens, max_tokens)]
    chosen = random.Random(seed).sample(range(len(candidates)), min(n, len(candidates)))
    return [candidates[i] for i in sorted(chosen)], len(candidates)


# --------------------------------------------------------------------------------------------
# The hierarchy and the three ways of returning leaves


@dataclass(slots=True)
class Hierarchy:
    """Every chunk of every level of a corpus, with the links the expansions follow."""

    chunks: dict[str, Chunk] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    leaves: list[Chunk] = field(default_factory=list)

    @classmethod
    def build(cls, docs: Sequence[Document], levels: tuple[int, ...]) -> Hierarchy:
        from mdchunk import chunk_hierarchy

        tree = cls()
        overlap = overlap_for(levels)
        for doc in docs:
            for chunk in chunk_hierarchy(doc.text, levels=levels, overlap_tokens=overlap,
                                         tokenizer=TOKENIZER, doc_id=doc.path):
                tree.chunks[chunk.id] = chunk
                if chunk.parent_id is not None:
                    tree.children[chunk.parent_id].append(chunk.id)
                if chunk.level == len(levels):
                    tree.leaves.append(chunk)
        return tree

    def returned(self, view: str, leaf_ids: Sequence[str]) -> list[Chunk]:
        """What a retriever hands on for these leaves under ``view``."""
        if view == "leaf":
            ids = set(leaf_ids)
        elif view == "parent":
            ids = {self.chunks[i].parent_id or i for i in leaf_ids}
        else:
            ids = self.auto_merge(leaf_ids)
        return [self.chunks[i] for i in sorted(ids)]

    def auto_merge(self, leaf_ids: Iterable[str]) -> set[str]:
        """Replace the selected children of any parent with at least half of them selected by
        that parent, until nothing changes (a merged parent counts towards its own parent)."""
        selected = set(leaf_ids)
        while True:
            by_parent: dict[str, set[str]] = defaultdict(set)
            for i in selected:
                parent = self.chunks[i].parent_id
                if parent is not None:
                    by_parent[parent].add(i)
            merges = [(p, kids) for p, kids in by_parent.items()
                      if 2 * len(kids) >= len(self.children[p])]
            if not merges:
                return selected
            for parent, kids in merges:
                selected = (selected - kids) | {parent}


def overlap_for(levels: tuple[int, ...]) -> int:
    """64 tokens, capped at half the leaf budget as the indexer caps it: a leaf must be more
    than its overlap."""
    return min(MAX_OVERLAP, levels[-1] // 2)


# --------------------------------------------------------------------------------------------
# Measures


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one way of returning gave for one test."""

    hit: bool
    complete: bool
    coverage: float
    tokens: int


def covered(doc: Document, test: Test, spans: Iterable[tuple[int, int]]) -> int:
    """Evidence characters (non-whitespace) inside the union of ``spans``."""
    clipped = sorted((max(s, test.start), min(e, test.end)) for s, e in spans)
    total, reach = 0, test.start
    for start, end in clipped:
        fresh = max(start, reach)  # the part of this span no earlier span covered
        if end > fresh:
            total += doc.solid_chars(fresh, end)
            reach = end
    return total


def outcome(doc: Document, test: Test, returned: Sequence[Chunk], leaves: Sequence[Chunk]
            ) -> Outcome:
    """Judge ``returned`` (what the reader gets) against the evidence; ``leaves`` (what the
    retriever found) only decide the hit."""
    need = doc.solid_chars(test.start, test.end)
    got = covered(doc, test, ((c.start, c.end) for c in returned if c.doc_id == test.doc))
    hit = covered(doc, test, ((c.start, c.end) for c in leaves if c.doc_id == test.doc)) > 0
    return Outcome(hit, got == need, got / need, sum(c.token_count for c in returned))


def oracle_leaf(doc: Document, test: Test, leaves: Sequence[Chunk]) -> Chunk:
    """The leaf of ``test``'s document sharing the most evidence characters (first on ties)."""
    return max(leaves, key=lambda c: (covered(doc, test, [(c.start, c.end)]), -c.start))


def embed_leaves(tree: Hierarchy, model: SentenceTransformerEmbedder, cache: Path | None
                 ) -> np.ndarray:
    """Unit vectors of every leaf's ``embed_text``, from ``cache`` when the same model has
    embedded the same texts before (chunking is deterministic, so reruns hit)."""
    texts = [leaf.embed_text for leaf in tree.leaves]
    key = hashlib.sha256("\x00".join([model.name, *texts]).encode("utf-8", "surrogatepass"))
    path = cache / f"leaves-{key.hexdigest()[:20]}.npy" if cache else None
    if path is not None and path.exists():
        return np.asarray(np.load(path), dtype=np.float32)
    vectors = model.embed(texts)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors


@dataclass(slots=True)
class Tally:
    """Sums of outcomes, to report rates and means."""

    n: int = 0
    hits: int = 0
    complete: int = 0
    coverage: float = 0.0
    tokens: int = 0

    def add(self, o: Outcome) -> None:
        self.n += 1
        self.hits += o.hit
        self.complete += o.complete
        self.coverage += o.coverage
        self.tokens += o.tokens

    def pct(self, value: float) -> str:
        return f"{100 * value / self.n:.1f}" if self.n else "–"


def size_bucket(test: Test, levels: tuple[int, ...]) -> str:
    """Where the evidence stands against the budgets: could a leaf, or a parent, hold it?"""
    if test.tokens <= levels[-1]:
        return f"≤ {levels[-1]} (leaf budget)"
    if test.tokens <= levels[-2]:
        return f"{levels[-1] + 1}–{levels[-2]} (parent budget)"
    return f"> {levels[-2]}"


@dataclass(slots=True)
class Run:
    """The tallies of one corpus and level set."""

    corpus: str
    levels: tuple[int, ...]
    tests: int
    candidates: int
    leaves: int
    by_mode: dict[tuple[str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_size: dict[tuple[str, str, str], Tally] = field(
        default_factory=lambda: defaultdict(Tally))


def measure(corpus: str, docs: Sequence[Document], tests: Sequence[Test], candidates: int,
            levels: tuple[int, ...], model: SentenceTransformerEmbedder,
            query_vectors: np.ndarray, cache: Path | None) -> Run:
    """Chunk the corpus at ``levels``, retrieve for every test and tally each way of
    returning; the tests and query vectors are shared by all level sets."""
    tree = Hierarchy.build(docs, levels)
    by_path = {doc.path: doc for doc in docs}
    leaves_of: dict[str, list[Chunk]] = defaultdict(list)
    for leaf in tree.leaves:
        leaves_of[leaf.doc_id].append(leaf)
    scores = query_vectors @ embed_leaves(tree, model, cache).T
    run = Run(corpus, levels, len(tests), candidates, len(tree.leaves))
    for test, row in zip(tests, scores, strict=True):
        doc = by_path[test.doc]
        ranked = np.argsort(-row, kind="stable")[:TOP_K]
        picks = {"oracle": [oracle_leaf(doc, test, leaves_of[test.doc])],
                 "top-1": [tree.leaves[ranked[0]]],
                 f"top-{TOP_K}": [tree.leaves[i] for i in ranked]}
        for mode, leaves in picks.items():
            for view in VIEWS:
                result = outcome(doc, test, tree.returned(view, [c.id for c in leaves]), leaves)
                run.by_mode[mode, view].add(result)
                if mode != f"top-{TOP_K}":
                    run.by_size[size_bucket(test, levels), mode, view].add(result)
    return run


# --------------------------------------------------------------------------------------------
# Report


def levels_name(levels: tuple[int, ...]) -> str:
    return "/".join(map(str, levels))


def main_table(runs: Sequence[Run]) -> list[str]:
    head = ["corpus", "levels", "retrieval", "tests", "hit %"]
    for view in VIEWS:
        head += [f"{view} complete %", f"{view} coverage %", f"{view} tokens"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * 5 + " ---: |" * 9]
    for run in runs:
        for mode in MODES:
            leaf = run.by_mode[mode, "leaf"]
            cells = [run.corpus, levels_name(run.levels), mode, str(leaf.n),
                     "–" if mode == "oracle" else leaf.pct(leaf.hits)]
            for view in VIEWS:
                t = run.by_mode[mode, view]
                cells += [t.pct(t.complete), t.pct(t.coverage), f"{t.tokens / t.n:.0f}"]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def size_table(runs: Sequence[Run]) -> list[str]:
    head = ["corpus", "levels", "evidence tokens", "tests"]
    head += [f"{mode} {view}" for mode in MODES[:2] for view in VIEWS]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * 3 + " ---: |" * 7]
    for run in runs:
        buckets = sorted({b for b, _, _ in run.by_size}, key=bucket_order)
        for bucket in buckets:
            n = run.by_size[bucket, "oracle", "leaf"].n
            cells = [run.corpus, levels_name(run.levels), bucket, str(n)]
            for mode in MODES[:2]:
                for view in VIEWS:
                    t = run.by_size[bucket, mode, view]
                    cells.append(t.pct(t.complete))
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def bucket_order(bucket: str) -> tuple[int, int]:
    return (bucket.startswith(">"), int(re.findall(r"\d+", bucket)[0]))


def report(runs: Sequence[Run], args: argparse.Namespace, model: str, seconds: float
           ) -> str:
    lines = [
        "### Evidence completeness: leaf vs parent vs auto-merge",
        "",
        f"Complete % = share of tests whose whole evidence section is inside what is returned; "
        f"coverage % = mean share of its (non-whitespace) characters; tokens = mean "
        f"`token_count` returned per test; hit % = a returned leaf touches the evidence. "
        f"Queries from headings, evidence = the section body ({args.min_tokens}–"
        f"{args.max_tokens} tokens), ≤ {args.queries} tests per corpus (seed {args.seed}); "
        f"retrieval: {model}, exact cosine over all leaves of the corpus; cl100k_base; overlap "
        f"{', '.join(f'{overlap_for(r)} at {levels_name(r)}' for r in args.levels)}.",
        "",
        *main_table(runs),
        "",
        "Complete % by evidence size (oracle and top-1):",
        "",
        *size_table(runs),
        "",
        "Tests sampled / sections in range, leaves: "
        + "; ".join(f"{r.corpus} {levels_name(r.levels)}: {r.tests}/{r.candidates}, "
                    f"{r.leaves} leaves" for r in runs) + f". Run time {seconds:.0f} s.",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Command line


def parse_levels(value: str) -> tuple[int, ...]:
    try:
        levels = tuple(int(part) for part in value.split(","))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: budgets are integers, e.g. 2048,512,128"
                                         ) from exc
    if len(levels) < 2:
        raise argparse.ArgumentTypeError(f"{value!r}: a hierarchy needs at least two levels")
    return levels


def arguments(argv: list[str] | None) -> argparse.Namespace:
    default_corpus = os.environ.get("MDCHUNK_CORPORA") or REPO.parent / "shared" / "corpora"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path(default_corpus),
                        help="folder whose sub-folders of Markdown are the corpora")
    parser.add_argument("--levels", type=parse_levels, action="append",
                        help="a level set, coarsest first, e.g. 2048,512,128 (repeatable; "
                             "default: 2048,512,128 and 1024,256,64)")
    parser.add_argument("--queries", type=int, default=300, help="tests per corpus at most")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--min-tokens", type=int, default=60)
    parser.add_argument("--max-tokens", type=int, default=1500)
    parser.add_argument("--model", default=None, help="embedding model (default: bundled)")
    parser.add_argument("--cache", type=Path, default=REPO / "bench" / "results" / "cache",
                        help="where leaf vectors are kept between runs")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--out", type=Path, help="also write the Markdown report here")
    args = parser.parse_args(argv)
    args.levels = args.levels or list(DEFAULT_LEVEL_SETS)
    return args


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    folders = corpus_folders(args.corpus)
    if not folders:
        print(f"bench_hierarchy: no corpora under {args.corpus} (set MDCHUNK_CORPORA or "
              f"--corpus); skipped", file=sys.stderr)
        return 0
    from mdchunk.embedding import SentenceTransformerEmbedder

    started = time.perf_counter()
    model = SentenceTransformerEmbedder(args.model)
    cache = None if args.no_cache else args.cache
    runs = []
    for folder in folders:
        docs = [load_document(p, folder) for p in sorted(folder.rglob("*.md"))]
        tests, candidates = pick_tests(docs, args.queries, args.seed, args.min_tokens,
                                       args.max_tokens)
        if not tests:
            print(f"bench_hierarchy: {folder.name}: no section in range; skipped", file=sys.stderr)
            continue
        query_vectors = model.embed([t.query for t in tests])
        for levels in args.levels:
            runs.append(measure(folder.name, docs, tests, candidates, levels, model,
                                query_vectors, cache))
            print(f"bench_hierarchy: {folder.name} {levels_name(levels)} done "
                  f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    text = report(runs, args, model.name, time.perf_counter() - started)
    print(text, end="")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
