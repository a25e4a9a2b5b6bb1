"""The ``styles`` study of ``bench_search.py`` (issue 31): complete@5 per question style and
language, as a user gets it.

Each corpus of the retrieval bench is staged in a folder of its own and indexed by the
command line, ``mdchunk index FOLDER --db FILE`` with every default (``--model auto``, 512-token
leaves, the ``auto`` analyzer, the default backend), plus ``--site``/``--includes`` where the
corpus is one site generator's pages (a user of a Hugo or Docusaurus site says so). The time
that takes (wall and CPU of the process, model loading included) and the size of the Milvus
Lite file are recorded. Every question of that corpus is then asked through
:func:`mdchunk.index.search` (what ``mdchunk search`` calls) with ``k=5`` in each mode: dense,
BM25 and hybrid (the default fusion). The query embedder is loaded once per collection, as
``search`` itself loads it, and handed to ``search`` so that each call does not load it again.

A question is **complete@5** when the five hits' spans (``start``/``end`` in their document)
cover every non-blank character of its evidence. The tokens of context are the ``cl100k_base``
tokens of the five hits' texts, what a caller would paste into a prompt.

Questions come from ``retrieval/questions.jsonl`` (style ``lexical``: written from the page)
and ``retrieval/paraphrase.jsonl`` (style ``paraphrase``: in the asker's own words). A corpus
whose folder is absent (no ``../shared/corpora`` here) is skipped and named.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import bench_retrieval as br

TOP_K = 5
#: The modes asked, each a column; ``--weights`` adds hybrid at other weights
#: (``hybrid@0.5,0.5``: :func:`weighted_modes`).
MODES: list[str] = ["dense", "bm25", "hybrid"]
#: Keywords every ``search`` call is given besides the mode (``--depth``: ``{"depth": 50}``).
SEARCH_OPTIONS: dict[str, Any] = {}
#: Runs ``mdchunk`` from this checkout (its package, not an installed one) as the CLI does.
CLI = "import sys; from mdchunk.cli import main; sys.argv[0] = 'mdchunk'; sys.exit(main())"
#: Run before :data:`CLI` in the ``mdchunk index`` child: a variant measured without a flag
#: (``--links text``: :mod:`link_text`); recorded with the command, so kept databases of
#: another variant are not reused.
CLI_PRELUDE = ""


# --------------------------------------------------------------------------------------------
# Choosing the questions


def available_corpora(names: Iterable[str], shared: Path) -> tuple[list[str], list[str]]:
    """``(present, missing)``: the corpora of ``names`` whose folder holds documents here."""
    present, missing = [], []
    for name in names:
        spec = br.CORPORA[name]
        root = br.corpus_root(spec, shared)
        (present if root.is_dir() and br.corpus_files(spec, shared) else missing).append(name)
    return present, missing


def wanted(question: br.Question, selector: str) -> bool:
    """Does ``--questions`` keep this question? ``all``, a style, a language, or a
    comma-separated list of ids and id prefixes (``rz-,hu-01``)."""
    if selector == "all":
        return True
    if selector in br.STYLES:
        return question.style == selector
    if selector in ("en", "zh"):
        return question.lang == selector
    return any(question.id.startswith(part) for part in selector.split(",") if part)


def select_questions(shared: Path, corpora: Sequence[str] | None, selector: str
                     ) -> tuple[list[br.Question], list[str]]:
    """The questions of both files over the corpora asked for that are present, and the
    corpora skipped because their documents are not here."""
    rows = [json.loads(line) for path in (br.QUESTIONS, br.PARAPHRASE)
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    names = [c for c in dict.fromkeys(r["corpus"] for r in rows)
             if corpora is None or c in corpora]
    present, missing = available_corpora(names, shared)
    questions = [q for path in (br.QUESTIONS, br.PARAPHRASE)
                 for q in br.load_questions(path, shared, only=set(present))]
    return [q for q in questions if wanted(q, selector)], missing


# --------------------------------------------------------------------------------------------
# Indexing with the command line


@dataclass(slots=True)
class Indexed:
    """One corpus indexed by ``mdchunk index``: where, with what, and what it cost."""

    corpus: str
    collection: str
    command: list[str]
    wall_s: float
    cpu_s: float
    size_mb: float
    model: str = ""
    backend: str = ""


def weighted_modes(weights: str | None) -> None:
    """Add a hybrid mode per ``DENSE,BM25`` pair of ``--weights`` (``;``-separated) to the
    modes asked (the query-side fusion is measured on the same collections)."""
    for pair in (weights or "").split(";"):
        if pair.strip():
            MODES.append(f"hybrid@{pair.strip()}")


def write_settings(folder: Path, settings: Sequence[str]) -> None:
    """An ``mdchunk.toml`` in the folder the CLI runs in, one ``key = value`` line per
    ``--setting`` (a TOML value: ``lead_in = true``): chunker options measured without a flag."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mdchunk.toml").write_text("".join(f"{line}\n" for line in settings),
                                        encoding="utf-8")


def cli_arguments(name: str, folder: Path, db: Path) -> list[str]:
    """``mdchunk index`` as a user of this corpus runs it: defaults, plus the site flavour
    and include root when all of its pages come from one site generator."""
    spec = br.CORPORA[name]
    args = ["index", str(folder), "--db", str(db), "--collection", collection_name(name)]
    if len(spec.sites) == 1:
        args += ["--site", spec.sites[0][1]]
        if spec.includes:
            args += ["--includes", str(folder / spec.includes)]
    return args


def collection_name(corpus: str) -> str:
    return "styles_" + corpus.replace("-", "_")


def run_cli(args: Sequence[str], cwd: Path | None = None) -> tuple[float, float]:
    """Run ``mdchunk ARGS`` in a child process (in ``cwd``, where an ``mdchunk.toml`` may
    be); its wall and CPU seconds. Its output is kept quiet unless it fails."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": os.pathsep.join(p for p in (str(br.REPO),
                                                      os.environ.get("PYTHONPATH")) if p)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CLI_PRELUDE + CLI, *args], env=env,
                          capture_output=True,
                          text=True, check=False, cwd=cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"mdchunk {' '.join(args)} failed ({done.returncode}):\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def size_on_disk(path: Path) -> int:
    """Bytes of a Milvus Lite database: one file, or a folder of them."""
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def index_corpus(name: str, staged: Any, into: Path, extra: Sequence[str] = (),
                 keep: Path | None = None) -> Indexed:
    """Index the staged corpus into a database file of its own (so that its size is its own),
    with the ``extra`` flags of the variant measured (``--units``).

    With ``keep`` (``--keep DIR``) the database lives there, beside a record of the command
    that built it and what that cost; a later run with the same command reuses both, so that
    search-time variants (fusion, query expansion) are measured on the same collections
    without indexing again."""
    folder = keep or into
    db = folder / f"styles-{name}.db"
    args = [*cli_arguments(name, staged.folder, db), *extra]
    shown = ["mdchunk", *(a.replace(str(folder), "$KEEP").replace(str(into), "$TMP")
                          for a in args)] + ([f"# {CLI_PRELUDE}"] if CLI_PRELUDE else [])
    record = folder / f"styles-{name}.json"
    if keep is not None and db.exists() and record.is_file():
        kept = Indexed(**json.loads(record.read_text(encoding="utf-8")))
        if kept.command == shown:
            return kept
    wall, cpu = run_cli(args, into / "run")
    indexed = Indexed(name, collection_name(name), shown, wall, cpu, size_on_disk(db) / 1e6)
    if keep is not None:
        record.write_text(json.dumps(asdict(indexed)) + "\n", encoding="utf-8")
    return indexed


# --------------------------------------------------------------------------------------------
# Asking through search()


@dataclass(slots=True)
class Answer:
    """One question in one mode: complete@5 and the tokens of the five hits' texts."""

    complete: bool
    tokens: int
    hits: list[tuple[str, int, int]]  # doc id, start, end
    seconds: float = 0.0  # wall time of the search() call, the query's embedding included


def query_embedder(db: Path, collection: str) -> tuple[Any, str, str]:
    """The embedder ``search`` would load for this collection, loaded once; its model and
    backend as the collection records them."""
    from mdchunk.embedding import load_embedder, recorded_backend
    from mdchunk.index.milvus import MilvusStore

    with MilvusStore(str(db), collection) as store:
        meta = store.check()
    return (load_embedder(meta.model, recorded_backend(meta.backend)), meta.model,
            meta.backend)


def ask(question: br.Question, indexed: Indexed, db: Path, embedder: Any,
        source: str, encoding: Any) -> dict[str, Answer]:
    """The question asked in every mode, each answer judged."""
    from mdchunk.index import search

    chars = br.evidence_chars(source, question.evidence)
    answers = {}
    for name in MODES:
        mode, _, pair = name.partition("@")
        weights = tuple(float(w) for w in pair.split(",")) if pair else None
        started = time.perf_counter()
        hits = search(question.question, db=str(db), collection=indexed.collection, k=TOP_K,
                      mode=mode, model=None if mode == "bm25" else embedder,  # type: ignore[arg-type]
                      weights=weights, **SEARCH_OPTIONS)  # type: ignore[arg-type]
        seconds = time.perf_counter() - started
        spans = [(h.doc_id, h.start, h.end) for h in hits]
        complete = br.covers([(a, b) for d, a, b in spans if d == question.doc], chars)
        tokens = sum(len(encoding.encode(h.text, disallowed_special=())) for h in hits)
        answers[name] = Answer(complete, tokens, spans, seconds)
    return answers


# --------------------------------------------------------------------------------------------
# Tables


@dataclass(slots=True)
class Tally:
    """complete@5 and tokens summed over some questions, per mode."""

    questions: int = 0
    complete: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))
    tokens: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(MODES, 0.0))

    def add(self, answers: dict[str, Answer]) -> None:
        self.questions += 1
        for mode, answer in answers.items():
            self.complete[mode] += answer.complete
            self.tokens[mode] += answer.tokens
            self.seconds[mode] += answer.seconds

    def mean_ms(self, mode: str) -> float:
        return 1000 * self.seconds[mode] / self.questions if self.questions else 0.0

    def percent(self, mode: str) -> float:
        return 100 * self.complete[mode] / self.questions if self.questions else 0.0

    def mean_tokens(self, mode: str) -> float:
        return self.tokens[mode] / self.questions if self.questions else 0.0

    def cells(self) -> list[str]:
        return ([str(self.questions)] + [f"{self.percent(m):.1f}" for m in MODES]
                + [f"{self.mean_tokens(m):.0f}" for m in MODES])

    def summary(self) -> dict[str, Any]:
        return {"questions": self.questions,
                "complete@5": {m: round(self.percent(m), 1) for m in MODES},
                "tokens@5": {m: round(self.mean_tokens(m), 1) for m in MODES},
                "ms per search": {m: round(self.mean_ms(m), 1) for m in MODES}}


def tally_head() -> tuple[str, str]:
    """The columns of a tally: questions, complete@5 per mode, tokens per mode."""
    shown = [m.replace("bm25", "BM25") for m in MODES]
    return (" | ".join(["questions", *shown, *(f"tokens {m}" for m in shown)]),
            "|".join(["---:"] * (1 + 2 * len(MODES))))


def tally_by(questions: Sequence[br.Question], answers: dict[str, dict[str, Answer]],
             key: Any) -> dict[tuple[str, ...], Tally]:
    """Tallies of the questions grouped by ``key(question)`` (a tuple), in sorted order."""
    groups: dict[tuple[str, ...], Tally] = defaultdict(Tally)
    for q in questions:
        groups[key(q)].add(answers[q.id])
    return dict(sorted(groups.items()))


def markdown(questions: Sequence[br.Question], answers: dict[str, dict[str, Answer]],
             indexed: dict[str, Indexed], context: dict[str, Any]) -> str:
    """The study's tables: by style and language, by corpus, by kind for each style."""
    head = tally_head()
    lines = [f"### complete@5 by style and language ({context['label']})", "",
             f"Load averages (1, 5, 15 min): {context['load_start']} at the start, "
             f"{context['load_end']} at the end; {context['cpus']} CPUs. "
             f"Questions: {len(questions)}. Skipped (documents absent): "
             f"{', '.join(context['skipped']) or 'none'}.", "",
             "| style | lang | " + head[0] + " |", "|---|---|" + head[1] + "|"]
    for (style, lang), tally in tally_by(questions, answers, lambda q: (q.style, q.lang)).items():
        lines.append(f"| {style} | {lang} | " + " | ".join(tally.cells()) + " |")
    lines += ["", "complete@5 in %, tokens: mean cl100k_base tokens of the five hits' texts.",
              "", "#### By corpus", "",
              "| corpus | style | model (backend) | " + head[0]
              + " | index s | CPU s | MB |",
              "|---|---|---|" + head[1] + "|---:|---:|---:|"]
    for (corpus, style), tally in tally_by(questions, answers,
                                           lambda q: (q.corpus, q.style)).items():
        ix = indexed[corpus]
        lines.append(f"| {corpus} | {style} | {ix.model} ({ix.backend}) | "
                     + " | ".join(tally.cells())
                     + f" | {ix.wall_s:.1f} | {ix.cpu_s:.1f} | {ix.size_mb:.1f} |")
    lines += ["", "#### By kind of evidence", "",
              "| style | kind | " + head[0] + " |", "|---|---|" + head[1] + "|"]
    for (style, kind), tally in tally_by(questions, answers, lambda q: (q.style, q.kind)).items():
        lines.append(f"| {style} | {kind} | " + " | ".join(tally.cells()) + " |")
    return "\n".join(lines)


def as_json(questions: Sequence[br.Question], answers: dict[str, dict[str, Answer]],
            indexed: dict[str, Indexed], context: dict[str, Any]) -> dict[str, Any]:
    """Everything the tables say, and every question's answers (to compare runs by question)."""
    by_style_lang = tally_by(questions, answers, lambda q: (q.style, q.lang))
    return {
        **context,
        "by_style_lang": {f"{s}/{lang}": t.summary() for (s, lang), t in by_style_lang.items()},
        "corpora": {name: asdict(ix) for name, ix in indexed.items()},
        "questions": {q.id: {"corpus": q.corpus, "style": q.style, "lang": q.lang,
                             "kind": q.kind,
                             **{m: {"complete": a.complete, "tokens": a.tokens,
                                    "ms": round(1000 * a.seconds, 1),
                                    "hits": [f"{d}:{b}-{e}" for d, b, e in a.hits]}
                                for m, a in answers[q.id].items()}} for q in questions},
    }


# --------------------------------------------------------------------------------------------
# The study


def load_averages() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def styles_study(questions: Sequence[br.Question], staged: dict[str, Any], tmp: Path,
                 label: str, skipped: Sequence[str], extra: Sequence[str] = (),
                 keep: Path | None = None) -> tuple[str, dict[str, Any]]:
    """Index every staged corpus with the CLI, ask its questions in every mode; the markdown
    tables and the JSON record. ``staged`` maps a corpus name to its staged folder;
    ``skipped`` names the corpora left out because their documents are absent; ``extra`` are
    flags added to every ``mdchunk index`` (the variant measured); ``keep`` a folder whose
    databases are reused when built by the same command (:func:`index_corpus`)."""
    import peers

    encoding = peers.load_encoding()
    context: dict[str, Any] = {"label": label, "load_start": load_averages(),
                               "cpus": os.cpu_count(), "top_k": TOP_K,
                               "skipped": list(skipped)}
    indexed: dict[str, Indexed] = {}
    answers: dict[str, dict[str, Answer]] = {}
    for name, corpus in staged.items():
        ix = index_corpus(name, corpus, tmp, extra, keep)
        db = (keep or tmp) / f"styles-{name}.db"
        embedder, ix.model, ix.backend = query_embedder(db, ix.collection)
        indexed[name] = ix
        mine = [q for q in questions if q.corpus == name]
        for q in mine:
            answers[q.id] = ask(q, ix, db, embedder, corpus.sources[q.doc], encoding)
        done = Tally()
        for q in mine:
            done.add(answers[q.id])
        print(f"  {name}: indexed in {ix.wall_s:.1f} s ({ix.cpu_s:.1f} CPU s, "
              f"{ix.size_mb:.1f} MB, {ix.model}); {len(mine)} questions, complete@5 "
              + ", ".join(f"{m} {done.percent(m):.1f}" for m in MODES) + "; ms a search "
              + ", ".join(f"{m} {done.mean_ms(m):.0f}" for m in MODES), flush=True)
    context["load_end"] = load_averages()
    return markdown(questions, answers, indexed, context), as_json(questions, answers, indexed,
                                                                    context)
