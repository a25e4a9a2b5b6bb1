"""Measure a collection's retrieval on one's own questions (``mdchunk eval``; the questions
file's format: README.md).

Each question is asked in each mode as :func:`~mdchunk.index.search.search` asks it and judged
on the ``k`` hits: **hit@k** (a hit lies on the expected page), **complete@k** (the answer's
text lies inside a hit, whitespace and case aside), **MRR** (1/rank of the first hit on the
page), **tokens** (cl100k_base tokens of the hits, what a prompt would be handed)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from ..errors import ConfigError, InputError
from .config import SearchConfig
from .search import query_embedder, search_store
from .store import SearchHit, SearchMode
from .stores import open_store

__all__ = ["MODES", "Asked", "EvalReport", "Question", "Scores", "evaluate", "read_questions"]

#: Every mode, in the order reports show them.
MODES: tuple[SearchMode, ...] = get_args(SearchMode)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Question:
    """One line of a questions file."""

    question: str
    path: str
    answer: str | None = None
    tags: tuple[str, ...] = ()


def read_questions(file: str | Path) -> list[Question]:
    """The questions of a JSON Lines file; an :class:`InputError` names the file, the line and
    what is wrong with it (blank lines are skipped)."""
    path = Path(file)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the questions ({exc})") from None
    questions = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            questions.append(_question(line, f"{path}:{number}"))
    if not questions:
        raise InputError(f"{path}: no questions (one JSON object a line)")
    return questions


def _question(line: str, where: str) -> Question:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise InputError(f"{where}: a question is a JSON object")
    for key in ("question", "path"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise InputError(f"{where}: {key!r} must be a non-empty string")
    answer, tags = row.get("answer"), row.get("tags", [])
    if answer is not None and (not isinstance(answer, str) or not answer.strip()):
        raise InputError(f"{where}: 'answer' must be a non-empty string when given")
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        raise InputError(f"{where}: 'tags' must be a list of names")
    unknown = sorted(set(row) - {"question", "path", "answer", "tags", "id"})
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (question, path, answer, tags)")
    return Question(row["question"], row["path"], answer, tuple(tags))


@dataclass(frozen=True, slots=True)
class Asked:
    """One question asked in one mode: its hits and how they are judged."""

    question: Question
    mode: SearchMode
    hits: tuple[SearchHit, ...]
    rank: int | None  # 1-based rank of the first hit on the expected page
    complete: bool | None  # None: the question gives no answer
    tokens: int


@dataclass(frozen=True, slots=True)
class Scores:
    """The figures of some questions in one mode."""

    questions: int
    hit: float
    complete: float | None  # None: no question of these gives an answer
    mrr: float
    tokens: float

    @classmethod
    def of(cls, asked: Sequence[Asked]) -> Scores:
        answered = [a for a in asked if a.complete is not None]
        n = len(asked) or 1
        return cls(len(asked), sum(a.rank is not None for a in asked) / n,
                   sum(bool(a.complete) for a in answered) / len(answered) if answered else None,
                   sum(1 / a.rank for a in asked if a.rank) / n,
                   sum(a.tokens for a in asked) / n)


@dataclass(frozen=True, slots=True)
class EvalReport:
    """Every question asked in every mode of one collection."""

    collection: str
    k: int
    modes: tuple[SearchMode, ...]
    asked: tuple[Asked, ...] = field(repr=False)
    db: str = ""

    @property
    def tags(self) -> list[str]:
        return sorted({t for a in self.asked for t in a.question.tags})

    def scores(self, mode: SearchMode, tag: str | None = None) -> Scores:
        """The figures of ``mode``, over every question or those with ``tag``."""
        return Scores.of([a for a in self.asked if a.mode == mode
                          and (tag is None or tag in a.question.tags)])

    def misses(self, mode: SearchMode) -> list[Asked]:
        """The questions of ``mode`` with no hit on their page, or without their answer."""
        return [a for a in self.asked if a.mode == mode
                and (a.rank is None or a.complete is False)]

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON: figures per mode, overall and per tag, and every miss."""
        return {"collection": self.collection, "db": self.db, "k": self.k, "modes": {
            mode: {"all": dataclasses.asdict(self.scores(mode)),
                   "tags": {t: dataclasses.asdict(self.scores(mode, t)) for t in self.tags},
                   "misses": [{"question": a.question.question, "path": a.question.path,
                               "rank": a.rank, "complete": a.complete,
                               "hits": [f"{h.doc_id}:{h.line_start}-{h.line_end}"
                                        for h in a.hits]} for a in self.misses(mode)]}
            for mode in self.modes}}


def evaluate(questions: str | Path | Iterable[Question], config: SearchConfig | None = None,
             *, modes: Sequence[SearchMode] = MODES) -> EvalReport:
    """Ask every question (a questions file, or :class:`Question`s) of the collection
    ``config`` names (``config.k`` hits, its fusion, depth, reranker and filters) in each of
    ``modes``, and judge the hits (:mod:`mdchunk.index.evaluate`). Each question is embedded
    once, with the model the collection was indexed with."""
    config = config or SearchConfig()
    asked_list = (read_questions(questions) if isinstance(questions, (str, Path))
                  else list(questions))
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise ConfigError(f"modes must be some of {', '.join(MODES)}, not {list(modes)}")
    from ..tokens import get_counter

    count = get_counter("cl100k_base").count
    asked: list[Asked] = []
    with closing(open_store(config.store, create=False)) as store:
        meta = store.check()
        vectors: list[Any] = [None] * len(asked_list)
        if set(modes) - {"bm25"}:
            vectors = list(query_embedder(store, meta, config).embed(
                [q.question for q in asked_list]))
        for mode in modes:
            side = dataclasses.replace(config, mode=mode)
            for question, vector in zip(asked_list, vectors, strict=True):
                hits = search_store(store, question.question, vector, side, index=meta)
                asked.append(_judged(question, mode, hits, count))
    return EvalReport(config.store.collection, config.k, tuple(modes), tuple(asked),
                      config.store.db)


def _judged(question: Question, mode: SearchMode, hits: Sequence[SearchHit],
            count: Any) -> Asked:
    rank = next((i for i, hit in enumerate(hits, 1)
                 if any(question.path in (x.doc_id, x.path) for x in hit.locations)
                 or question.path in (hit.doc_id, hit.path)), None)
    complete = None
    if question.answer is not None:
        answer = _plain(question.answer)
        complete = any(answer in _plain(hit.text) for hit in hits)
    return Asked(question, mode, tuple(hits), rank, complete, sum(count(h.text) for h in hits))


def _plain(text: str) -> str:
    """Text compared for complete@k: whitespace runs as one space, case folded (a hard-wrapped
    page and a one-line answer say the same)."""
    return _SPACE.sub(" ", text).strip().casefold()
