"""The retrieval bench's question files (issue 31): every line parses and says its style and
language, the paraphrased questions do not copy their evidence's phrases, and every evidence
span is the document's text where the corpus is here (the shared corpora may be absent: their
questions are skipped, the project's own pages are always checked).

Also the pure parts of ``bench/search_styles.py``: which questions ``--questions`` keeps, and
the ``mdchunk index`` command line a corpus is indexed with. No model, no Milvus."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_retrieval as br  # noqa: E402
import search_styles  # noqa: E402

FILES = (br.QUESTIONS, br.PARAPHRASE)
FIELDS = {"id", "corpus", "doc", "question", "evidence", "kind", "lang", "style"}


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


ALL = [row for path in FILES for row in rows(path)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_line_has_its_fields_style_and_language(path: Path) -> None:
    for row in rows(path):
        assert set(row) == FIELDS, row["id"]
        assert row["style"] in br.STYLES and row["lang"] in ("en", "zh"), row["id"]
        assert row["kind"] in br.KINDS and row["corpus"] in br.CORPORA, row["id"]
        assert row["question"].strip() and row["evidence"], row["id"]
        for item in row["evidence"]:
            assert 0 <= item["start"] < item["end"], row["id"]
            assert len(item["text"]) == item["end"] - item["start"] and item["text"].strip()


def test_ids_are_unique_across_both_files_and_each_file_is_one_style() -> None:
    ids = [row["id"] for row in ALL]
    assert len(ids) == len(set(ids))
    assert {row["style"] for row in rows(br.QUESTIONS)} == {"lexical"}
    assert {row["style"] for row in rows(br.PARAPHRASE)} == {"paraphrase"}


def test_paraphrased_questions_are_many_and_in_both_languages() -> None:
    paraphrased = rows(br.PARAPHRASE)
    by_lang = {lang: sum(r["lang"] == lang for r in paraphrased) for lang in ("en", "zh")}
    assert len(paraphrased) >= 120
    assert min(by_lang.values()) >= 0.4 * len(paraphrased), by_lang
    assert len({(r["corpus"], r["doc"]) for r in paraphrased}) >= 30


def shared_phrases(question: str, evidence: str, lang: str) -> set[str]:
    """Runs of five words (English) or eight characters with a Chinese one in them (Chinese,
    spaces ignored) that the question and its evidence both hold."""
    if lang == "en":
        def grams(text: str) -> set[str]:
            words = re.findall(r"[a-z0-9_]+", text.lower())
            return {" ".join(words[i:i + 5]) for i in range(len(words) - 4)}
    else:
        def grams(text: str) -> set[str]:
            chars = re.sub(r"\s+", "", text)
            return {chars[i:i + 8] for i in range(len(chars) - 7)
                    if re.search(r"[\u4e00-\u9fff]{2}", chars[i:i + 8])}
    return grams(question) & grams(evidence)


def test_paraphrased_questions_do_not_copy_their_evidence() -> None:
    copied = {}
    for row in rows(br.PARAPHRASE):
        evidence = " ".join(item["text"] for item in row["evidence"])
        found = shared_phrases(row["question"], evidence, row["lang"])
        if found:
            copied[row["id"]] = sorted(found)
    assert copied == {}


def test_the_copy_check_sees_a_copied_phrase() -> None:
    assert shared_phrases("Why does the broker reject the current send request now?",
                          "it will reject the current send request and return", "en")
    assert shared_phrases("为什么消费者本地缓存消息数超过了", "当消费者本地缓存消息数超过阈值", "zh")
    assert not shared_phrases("backlog keeps growing", "消费者本地缓存", "en")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_evidence_matches_the_documents_that_are_here(path: Path) -> None:
    shared = br.default_corpus_dir()
    names = {row["corpus"] for row in rows(path)}
    present, _ = search_styles.available_corpora(sorted(names), shared)
    if not present:
        pytest.skip(f"no corpus of {path.name} under {shared}")
    questions = br.load_questions(path, shared, only=set(present))  # stops on any mismatch
    assert len(questions) == sum(row["corpus"] in present for row in rows(path))


def test_absent_corpora_are_skipped_and_named(tmp_path: Path) -> None:
    questions, skipped = search_styles.select_questions(tmp_path, None, "all")
    assert {"rocketmq-zh", "hugo-docs", "gitlab-com-runbooks"} <= set(skipped)
    assert questions and {q.corpus for q in questions} <= {"docs-en", "docs-zh", "sites-en"}
    none, skipped = search_styles.select_questions(tmp_path, ["ory-docs"], "all")
    assert none == [] and skipped == ["ory-docs"]


def question(qid: str, style: str, lang: str) -> br.Question:
    return br.Question(qid, "docs-en", "a.md", "?", [(0, 1)], "prose", lang, style)


@pytest.mark.parametrize(("selector", "kept"), [
    ("all", {"rz-01", "hu-02", "gl-03"}),
    ("paraphrase", {"rz-01", "hu-02"}),
    ("lexical", {"gl-03"}),
    ("zh", {"rz-01"}),
    ("hu-,gl-03", {"hu-02", "gl-03"}),
])
def test_questions_selector(selector: str, kept: set[str]) -> None:
    pool = [question("rz-01", "paraphrase", "zh"), question("hu-02", "paraphrase", "en"),
            question("gl-03", "lexical", "en")]
    assert {q.id for q in pool if search_styles.wanted(q, selector)} == kept


def test_index_command_is_the_default_plus_the_sites_flavour(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    plain = search_styles.cli_arguments("rocketmq-zh", tmp_path / "c", db)
    assert plain == ["index", str(tmp_path / "c"), "--db", str(db), "--collection",
                     "styles_rocketmq_zh"]
    hugo = search_styles.cli_arguments("hugo-docs", tmp_path / "h", db)
    assert hugo[-4:] == ["--site", "hugo", "--includes", str(tmp_path / "h" / "content/en")]
    assert "--site" not in search_styles.cli_arguments("sites-en", tmp_path, db)
    assert not {"--model", "--max-tokens", "--backend"} & set(hugo)


# -- bench/search_variants.py: the fusions and feedback it tried, on any store ---------------


def test_the_fusions_tried_beside_the_library_ones() -> None:
    import search_variants as sv

    dense = [("a", 0.9), ("b", 0.5), ("c", 0.4)]
    bm25 = [("b", 12.0), ("d", 2.0), ("e", 1.0)]
    # z-scores: b is above its mean in both lists; a key a list lacks counts its lowest z
    fused = sv.zscore_fusion([dense, bm25], (1, 1))
    assert [k for k, _ in fused][:2] == ["b", "a"]
    assert dict(fused)["c"] == pytest.approx(dict(fused)["e"])
    # TMM: over the list's best from 0, so a flat list stays flat (0.5 / 0.9, not 0.2)
    tmm = dict(sv.tmm_fusion([dense, []], (1, 1)))
    assert tmm == {"a": pytest.approx(1.0), "b": pytest.approx(0.5 / 0.9),
                   "c": pytest.approx(0.4 / 0.9)}


def test_pseudo_relevance_feedback_runs_on_any_store() -> None:
    """Rocchio moves the query towards the first pass's best leaves, RM3-like feedback adds
    their words, both through search_store on the in-memory store the store tests use."""
    import search_variants as sv

    from mdchunk.index.store import IndexMeta
    from tests.test_store_interface import LEAVES, MemoryStore

    store = MemoryStore()
    store.upsert_chunks(LEAVES)
    meta = IndexMeta("m", 2, "c", "standard")
    moved = sv.rocchio((1.0, 0.0), [{"dense": (0.0, 1.0)}], 1.0)
    assert moved == pytest.approx([2 ** -0.5, 2 ** -0.5])
    assert sv.rocchio((2.0, 0.0), [], 1.0) == pytest.approx([1.0, 0.0])
    # the dense first pass finds a then b; their mean pulls the query towards b, c and d
    plain = sv.configured("dense", False)(store, "q", (1.0, 0.0), meta, "en")
    fed = sv.prf("dense", False, dense_beta=1.0, m=2, first="dense")(
        store, "q", (1.0, 0.0), meta, "en")
    assert [h.id for h in plain][:2] == ["a", "b"]
    assert fed[0].score < plain[0].score  # the vector moved off a
    # RM3-like: the words of the feedback leaf (c) not in the query, by their share of it
    # times their rarity in the pool (c, d): keys 2/4 * ln(1 + 2/2) > evicted 1/4 * ln(3)
    top = sv.first_pass(store, "redis", (0.0, 1.0), meta, "bm25", False)
    assert [h.id for h in top] == ["c", "d"]
    assert sv.rm3_terms("redis", top[:1], top, 2) == ["keys", "evicted"]


def test_a_kept_collection_is_reused_when_built_by_the_same_command(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    from types import SimpleNamespace

    runs: list[list[str]] = []

    def run_cli(args: list[str], cwd: Path | None = None) -> tuple[float, float]:
        runs.append(list(args))
        db = Path(args[args.index("--db") + 1])
        db.parent.mkdir(parents=True, exist_ok=True)
        db.write_text("db", encoding="utf-8")
        return 1.0, 2.0

    monkeypatch.setattr(search_styles, "run_cli", run_cli)
    staged = SimpleNamespace(folder=tmp_path / "tmp" / "styles" / "rocketmq-zh")
    keep = tmp_path / "keep"
    keep.mkdir()
    first = search_styles.index_corpus("rocketmq-zh", staged, tmp_path / "tmp", ["--units"], keep)
    assert len(runs) == 1 and (keep / "styles-rocketmq-zh.db").is_file()
    assert "$KEEP/styles-rocketmq-zh.db" in first.command
    # a second run, its staging folder elsewhere, reuses the file and the first run's costs
    again = search_styles.index_corpus("rocketmq-zh", SimpleNamespace(
        folder=tmp_path / "tmp2" / "styles" / "rocketmq-zh"), tmp_path / "tmp2", ["--units"], keep)
    assert again == first and len(runs) == 1
    # another command (no --units) indexes again; without keep nothing is reused
    search_styles.index_corpus("rocketmq-zh", staged, tmp_path / "tmp", [], keep)
    search_styles.index_corpus("rocketmq-zh", staged, tmp_path / "tmp", ["--units"])
    assert len(runs) == 3
