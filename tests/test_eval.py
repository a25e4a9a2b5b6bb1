"""``mdchunk eval`` and :func:`mdchunk.index.evaluate` (issue 46): one's own questions asked of
an index in each mode and judged — hit@k, complete@k, MRR, tokens, per tag — as JSON, a table,
a self-contained HTML page, and an exit status for CI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdchunk.cli.app import app
from mdchunk.errors import InputError
from mdchunk.index import index_paths
from mdchunk.index.config import EmbedderConfig, SearchConfig, StoreConfig
from mdchunk.index.evaluate import Question, evaluate, read_questions
from mdchunk.sources import discover
from mdchunk.text import document_text

from .conftest import FIXTURES
from .conftest_milvus import HashEmbedder, write_corpus

runner = CliRunner()
QUESTIONS = [
    {"question": "pg_ctl promote the standby", "path": "docs/postgres_replication.md",
     "answer": "Promote the standby with pg_ctl promote", "tags": ["postgres"]},
    {"question": "maxmemory-policy allkeys-lru eviction", "path": "zh/disk_full.md",
     "tags": ["redis"]},  # the wrong page: a miss
    {"question": "mem_fragmentation_ratio activedefrag", "path": "docs/redis_memory.md",
     "answer": "a sentence the page does not hold", "tags": ["redis"]},
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The shared small corpus indexed with a stand-in model, and the questions file."""
    root = tmp_path_factory.mktemp("eval")
    index_paths([write_corpus(root / "kb")], db=str(root / "index.db"), collection="kb",
                model=HashEmbedder())
    questions = root / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return root / "index.db", questions


@pytest.mark.slow  # Milvus Lite
def test_the_figures_are_judged_per_question_and_tag(indexed: tuple[Path, Path]) -> None:
    db, questions = indexed
    config = SearchConfig(StoreConfig(str(db), "kb"), EmbedderConfig(HashEmbedder()), k=3)
    report = evaluate(questions, config, modes=("bm25", "hybrid"))
    ranks = {a.question.question: (a.rank, a.complete) for a in report.asked if a.mode == "bm25"}
    assert list(ranks.values()) == [(1, True), (None, None), (1, False)]
    scores = report.scores("bm25")
    assert (scores.questions, scores.hit, scores.complete, scores.mrr) == \
        (3, pytest.approx(2 / 3), 0.5, pytest.approx(2 / 3))
    redis = report.scores("bm25", "redis")
    assert (redis.questions, redis.hit, redis.complete) == (2, 0.5, 0.0)
    assert report.tags == ["postgres", "redis"]
    assert scores.tokens > 0 and len(report.asked) == 6  # every question in both modes
    # the misses: the wrong page, and the answer no hit holds; each with the hits it got
    missed = report.misses("bm25")
    assert [a.question.path for a in missed] == ["zh/disk_full.md", "docs/redis_memory.md"]
    assert all(a.hits for a in missed)
    as_json = report.as_dict()["modes"]["bm25"]
    assert as_json["all"]["hit"] == pytest.approx(2 / 3)
    assert as_json["misses"][0]["hits"][0].startswith("docs/redis_memory.md:")


def test_questions_are_read_and_bad_lines_named(tmp_path: Path) -> None:
    good = tmp_path / "q.jsonl"
    good.write_text('{"question": "q", "path": "a.md", "tags": ["x"]}\n\n'
                    '{"question": "r", "path": "b.md", "answer": "yes"}\n', encoding="utf-8")
    assert read_questions(good) == [Question("q", "a.md", None, ("x",)),
                                    Question("r", "b.md", "yes", ())]
    for line, message in [("{", "not JSON"), ('{"question": "q"}', "'path' must be"),
                          ('{"question": "q", "path": "a", "tags": "x"}', "'tags' must be"),
                          ('{"question": "q", "path": "a", "page": "x"}', "unknown key 'page'"),
                          ('["q"]', "a JSON object")]:
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"question": "q", "path": "a.md"}\n' + line + "\n", encoding="utf-8")
        with pytest.raises(InputError, match=re.escape(f"{bad}:2: ") + ".*" + re.escape(message)):
            read_questions(bad)
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no questions"):
        read_questions(tmp_path / "empty.jsonl")


@pytest.mark.slow  # Milvus Lite
def test_the_command_reports_compares_and_guards(indexed: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    db, questions = indexed
    base = ["eval", str(questions), "--db", str(db), "--collection", "kb", "--mode", "bm25",
            "-k", "3"]
    shown = runner.invoke(app, base)
    assert shown.exit_code == 0, shown.output
    [all_row] = [line.split() for line in shown.stdout.splitlines() if " all " in line]
    assert all_row[:6] == ["bm25", "all", "3", "0.667", "0.500", "0.667"]
    page = tmp_path / "report.html"
    compared = runner.invoke(app, [*base, "--json", "--compare", "kb", "--html", str(page)])
    assert compared.exit_code == 0, compared.output
    record = json.loads(compared.stdout)
    assert record["compare"][0]["modes"]["bm25"]["all"] == record["modes"]["bm25"]["all"]
    html = page.read_text(encoding="utf-8")
    assert html.count("<svg") == 3  # a chart per mode and tag: all, postgres, redis
    assert html.count("index.db:kb") >= 4  # two collections of one name: told by their file
    assert "maxmemory-policy allkeys-lru eviction" in html  # a miss, with the hits it got
    assert not re.search(r"(src|href)=|<script|@import|url\(", html)  # nothing to fetch
    # a floor not met fails with 1 and says which; usage errors stay 2
    failed = runner.invoke(app, [*base, "--min-hit", "0.9", "--min-mrr", "0.5"])
    assert failed.exit_code == 1
    assert "bm25 hit@3 0.667 is below 0.9" in failed.output and "MRR 0" not in failed.output
    assert runner.invoke(app, [*base, "--min-hit", "0.6"]).exit_code == 0
    assert runner.invoke(app, [*base, "--mode", "sparse"]).exit_code == 2
    assert runner.invoke(app, ["eval", str(tmp_path / "none.jsonl"), "--db", str(db)]
                         ).exit_code == 2


def test_the_shipped_questions_name_fixture_pages_that_hold_their_answers() -> None:
    """``fixtures/eval/questions.jsonl`` is the worked example of the docs: each page it names
    is a fixture and holds the answer, and indexing ``fixtures/`` never reads it as a page."""
    questions = read_questions(FIXTURES / "eval" / "questions.jsonl")
    assert {t for q in questions for t in q.tags} == {"en", "zh", "lexical", "paraphrase"}
    for q in questions:
        page = " ".join(document_text(FIXTURES / q.path).split()).casefold()
        assert q.answer is not None and " ".join(q.answer.split()).casefold() in page, q
    assert not [s for s in discover([FIXTURES]) if "eval" in s.doc_id]
