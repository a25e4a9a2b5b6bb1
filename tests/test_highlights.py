"""The matching lines of a hit (issue 34): the passages of its text that best match the query,
as spans of ``hit.text`` with their lines in the document. Always inside the chunk (and inside
an expanded hit's matching leaves), the obvious sentence for an obvious query in English and
Chinese, found by units where the index embeds them, shown by ``mdchunk search`` (grep's
``N:`` lines; the match styled on a terminal), and returned by ``--json`` and the API."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mdchunk.index
from mdchunk.cli import app
from mdchunk.formats.blocks import LineIndex
from mdchunk.index.config import SearchConfig
from mdchunk.index.expand import lift
from mdchunk.index.highlights import MAX_MATCHES, query_terms, term_matches, with_matches
from mdchunk.index.rows import leaf_hit, unit_row
from mdchunk.index.search import search_store
from mdchunk.index.store import IndexMeta, Match, SearchHit
from mdchunk.index.units import leaf_unit_spans, unit_id

from .conftest_milvus import HashEmbedder, write_corpus
from .test_store_interface import MemoryStore

RUNBOOK = (
    "When the replica falls behind, check the dashboard first.\n"
    "Restart the Redis replica with the command below; it resyncs from the primary.\n"
    "\n"
    "```bash\n"
    "kubectl rollout restart statefulset/redis-replica\n"
    "```\n"
    "\n"
    "- Page the database team if lag stays above one minute.\n"
    "- Write every command in the incident channel.\n"
)
ZH = ("告警提示根分区的磁盘使用率超过百分之九十五。写入日志失败，数据库无法创建临时文件。"
      "用du命令找出占用空间最大的目录，清理过期的日志文件。")


def hit_of(text: str, *, line_start: int = 40, id: str = "leaf") -> SearchHit:
    """A leaf hit of ``text`` starting at document line ``line_start``."""
    return leaf_hit(1.0, {"id": id, "doc_id": "d.md", "path": "d.md", "title": "",
                          "section_path": "Ops", "line_start": line_start,
                          "line_end": line_start - 1 + LineIndex.of(text).line_of(
                              max(0, len(text.rstrip()) - 1)), "text": text, "level": 2,
                          "parent_id": "p", "start": 100, "end": 100 + len(text)})


def matched(hit: SearchHit, query: str) -> list[str]:
    return [hit.text[m.start:m.end] for m in term_matches(hit, query_terms(query))]


def test_the_sentence_with_the_querys_words_is_the_match() -> None:
    hit = hit_of(RUNBOOK)
    assert matched(hit, "How do I restart the Redis replica?")[0] == (
        "Restart the Redis replica with the command below; it resyncs from the primary.")
    assert matched(hit, "when should the database team be paged about lag?") == [
        "- Page the database team if lag stays above one minute."]
    (m,) = term_matches(hit, query_terms("kubectl rollout restart statefulset"))
    assert hit.text[m.start:m.end] == "kubectl rollout restart statefulset/redis-replica"
    assert (m.line_start, m.line_end) == (44, 44)  # line 5 of a hit that starts at line 40
    assert term_matches(hit, query_terms("zebra giraffe")) == ()  # no shared word: none
    assert term_matches(hit, query_terms("how do I do it")) == ()  # stop words only


def test_chinese_queries_match_by_bigrams_without_spaces() -> None:
    hit = hit_of(ZH)
    assert matched(hit, "磁盘使用率太高怎么办")[0] == "告警提示根分区的磁盘使用率超过百分之九十五。"
    assert matched(hit, "怎么清理过期日志")[0] == "用du命令找出占用空间最大的目录，清理过期的日志文件。"
    assert query_terms("数据库") == ["数据", "据库"]


def test_a_lead_in_that_ends_with_a_colon_takes_what_it_introduces() -> None:
    text = ("Some context about the cluster.\n\nTo upgrade the ingress controller:\n\n"
            "1. Submit a change issue first.\n2. Run the pipeline.\n")
    hit = hit_of(text, line_start=1)
    (m,) = term_matches(hit, query_terms("How do I upgrade the ingress controller?"))
    assert text[m.start:m.end] == ("To upgrade the ingress controller:\n\n"
                                   "1. Submit a change issue first.")
    assert (m.line_start, m.line_end) == (3, 5)


def test_adjacent_matches_merge_and_lines_span_the_document() -> None:
    text = "Alpha beta gamma.\nAlpha beta delta.\n\nOther words here.\n\nAlpha beta omega."
    hit = hit_of(text, line_start=7)
    matches = term_matches(hit, query_terms("alpha beta"))
    assert [(m.line_start, m.line_end) for m in matches] == [(7, 8), (12, 12)]
    assert hit.text[matches[0].start:matches[0].end] == "Alpha beta gamma.\nAlpha beta delta."


def test_an_expanded_hit_matches_inside_its_matching_leaves_only() -> None:
    parent = {"id": "p", "doc_id": "d.md", "path": "d.md", "title": "", "section_path": "Ops",
              "line_start": 10, "line_end": 14, "level": 1, "parent_id": "", "start": 0,
              "text": "Redis restart notes.\n\nUnrelated words.\n\nRestart Redis now.\n"}
    parent["end"] = len(parent["text"])
    leaf = hit_of("Restart Redis now.", line_start=14)
    leaf = dataclasses.replace(leaf, start=parent["text"].index("Restart Redis now."))
    leaf = dataclasses.replace(leaf, end=leaf.start + len(leaf.text))
    widened = lift(parent, [leaf])
    (m,) = term_matches(widened, query_terms("restart redis"))
    assert widened.text[m.start:m.end] == "Restart Redis now." and m.line_start == 14


_LATIN = st.text(alphabet="abc dxyz.\n\r-|`#:。，磁盘满了日志 \t", max_size=300)
_WORDS = st.lists(st.sampled_from(["abc", "xyz", "dd", "磁盘", "日志", "满了", "a", "the"]),
                  max_size=5).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=_LATIN, query=_WORDS, line_start=st.integers(1, 500))
def test_matches_always_lie_inside_the_chunk_in_order(text: str, query: str,
                                                      line_start: int) -> None:
    if not text:
        return
    hit = hit_of(text, line_start=line_start)
    matches = term_matches(hit, query_terms(query))
    lines = LineIndex.of(text)
    assert len(matches) <= MAX_MATCHES
    last = 0
    for m in matches:
        assert last <= m.start < m.end <= len(text)
        assert text[m.start:m.end].strip() == text[m.start:m.end]  # no blanks around it
        assert line_start + lines.line_of(m.start) - 1 == m.line_start  # as the chunker counts
        assert m.line_start <= m.line_end <= hit.line_end and m.score > 0
        last = m.end


@settings(max_examples=200, deadline=None)
@given(first=_LATIN, second=_LATIN, query=_WORDS)
def test_an_expanded_hits_matches_lie_inside_its_marks(first: str, second: str,
                                                       query: str) -> None:
    """A parent's text between its matching leaves (here ``abc xyz:``, words every query
    names, and a lead-in) is never matched, nor reached by a match."""
    gap = "\n\nabc xyz dd 磁盘日志:\n\n"
    text = first + gap + second
    hit = dataclasses.replace(hit_of(text), marks=((0, len(first)), (len(first + gap), len(text))),
                              leaf_ids=("one", "two"))
    for m in term_matches(hit, query_terms(query)):
        assert any(a <= m.start < m.end <= b for a, b in hit.marks), (m, hit.marks)


def _unit_store(text: str, vectors: dict[str, Sequence[float]]) -> MemoryStore:
    """An in-memory store holding one leaf of ``text`` and the units ``vectors`` name."""
    store = MemoryStore()
    store.open(IndexMeta("hash", 2, "test", "standard", units=True))
    row = {**hit_row(text), "dense": [0.0, 1.0], "search_text": text, "content_hash": "h"}
    store.upsert_chunks([row])
    store.upsert_units([unit_row(unit_id("leaf", unit), row, unit, vector)
                        for unit, vector in vectors.items()])
    return store


def hit_row(text: str) -> dict[str, Any]:
    hit = hit_of(text)
    return {"id": hit.id, "doc_id": hit.doc_id, "path": hit.path, "title": "",
            "section_path": hit.section_path, "line_start": hit.line_start,
            "line_end": hit.line_end, "text": text, "level": 2, "parent_id": "p",
            "start": 0, "end": len(text), "url": "", "anchor": ""}


def test_units_find_the_line_a_paraphrase_means() -> None:
    """With units, a hit that shares no word with the query gets the unit nearest its vector;
    one that does keeps the passages its words find."""
    units = [unit for unit, _ in leaf_unit_spans(RUNBOOK)]
    target = "- Write every command in the incident channel."
    assert target in units
    store = _unit_store(RUNBOOK, {u: (1.0, 0.0) if u == target else (0.0, 1.0) for u in units})
    (hit,) = with_matches([hit_of(RUNBOOK)], "note what you typed", store=store,
                          vector=(1.0, 0.0), units=True)
    (m,) = hit.matches
    assert RUNBOOK[m.start:m.end] == target and m.score == 1.0 and m.line_start == 48
    (words,) = with_matches([hit_of(RUNBOOK)], "note what you typed", store=store,
                            vector=None, units=True)  # a BM25 search has no vector: words
    assert words.matches == ()
    (first,) = with_matches([hit_of(RUNBOOK)], "write the command", store=store,
                            vector=(1.0, 0.0), units=True)  # words first where they match
    assert [RUNBOOK[m.start:m.end] for m in first.matches] == [target] and \
        first.matches[0].score != 1.0


def test_search_store_gives_every_hit_its_matches() -> None:
    store = _unit_store(RUNBOOK, {})
    hits = search_store(store, "restart the redis replica", None, SearchConfig(k=1, mode="bm25"),
                        index=store.meta())
    assert hits and hits[0].matches
    assert RUNBOOK[hits[0].matches[0].start:].startswith("Restart the Redis replica")


def _hit_with_matches() -> SearchHit:
    hit = hit_of(RUNBOOK)
    return dataclasses.replace(hit, matches=term_matches(hit, query_terms("restart redis")))


def test_search_shows_the_matching_lines_as_grep_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mdchunk.index, "search", lambda *a, **k: [_hit_with_matches()])
    result = CliRunner().invoke(app, ["search", "restart redis"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1. d.md:40-48")
    assert "   41:Restart the Redis replica with the command below; it resyncs from the " \
           "primary." in lines
    assert "   44:kubectl rollout restart statefulset/redis-replica" in lines
    assert "\x1b" not in result.stdout  # not a terminal: the line numbers say it


def test_search_styles_the_match_on_a_terminal() -> None:
    from rich.console import Console

    from mdchunk.cli.output import MATCH_STYLE, matching_lines

    hit = hit_of("  indented restart redis line\nother")
    hit = dataclasses.replace(hit, matches=(Match(11, 24, 40, 40, 1.0),))
    (line,) = matching_lines(hit)
    assert line.plain == "40:indented restart redis line"
    assert [(line.plain[s.start:s.end], str(s.style)) for s in line.spans][-1] == (
        "restart redis", MATCH_STYLE)
    console = Console(force_terminal=True, color_system="standard", width=200)
    with console.capture() as shown:
        console.print(line)
    assert "\x1b[" in shown.get()
    plain = dataclasses.replace(hit_of("no match here"), matches=())
    assert [t.plain for t in matching_lines(plain)] == ["no match here"]  # the preview


def test_search_json_returns_the_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mdchunk.index, "search", lambda *a, **k: [_hit_with_matches()])
    result = CliRunner().invoke(app, ["search", "restart redis", "--json"])
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["matches"] and set(row["matches"][0]) == {"start", "end", "line_start",
                                                         "line_end", "score"}
    assert [RUNBOOK[m["start"]:m["end"]] for m in row["matches"]][-1] == (
        "kubectl rollout restart statefulset/redis-replica")


def test_the_api_and_the_tools_return_the_matches() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mdchunk.serve import ServeConfig
    from mdchunk.serve.app import create_app
    from mdchunk.serve.mcp_tools import cited
    from tests.serve_fakes import fake_service

    config = ServeConfig()
    with TestClient(create_app(config, fake_service(config))) as client:
        hits = client.post("/v1/search", json={"query": "maxmemory evicts keys", "k": 2,
                                               "mode": "bm25"}).json()["hits"]
        page = client.get("/", params={"q": "pg_ctl promote", "mode": "bm25", "k": 1}).text
    (m, *_) = hits[0]["matches"]
    assert "maxmemory" in hits[0]["text"][m["start"]:m["end"]]
    assert hits[0]["line_start"] <= m["line_start"] <= m["line_end"] <= hits[0]["line_end"]
    assert "<mark>Promote the standby with pg_ctl promote.</mark>" in page
    hit = _hit_with_matches()
    assert cited(hit)["matching_lines"] == [f"{m.line_start}-{m.line_end}" for m in hit.matches]


@pytest.mark.slow  # Milvus Lite
def test_units_stored_in_milvus_give_the_matching_line(milvus: dict[str, str],
                                                       tmp_path: Path) -> None:
    """An index with units on Milvus Lite: searches carry matches inside their marks, and a
    hit that shares no word with the query gets the unit nearest its vector (the hash model's
    cosine 1 for the unit's own text) from the stored unit vectors."""
    from mdchunk.index import index_paths, search
    from mdchunk.index.milvus import MilvusStore

    emb = HashEmbedder(dim=16)
    sentence = ("Promote the standby with pg_ctl promote when the primary is lost, then "
                "repoint the connection pooler at the new primary.")
    index_paths([write_corpus(tmp_path / "kb")], model=emb, units=True, **milvus)
    top = search(sentence, mode="hybrid", k=3, model=emb, **milvus)[0]
    assert sentence in [top.text[m.start:m.end] for m in top.matches]
    parent = search(sentence, mode="dense", k=1, model=emb, expand="parent", **milvus)[0]
    (a, b) = parent.marks[0]
    assert parent.matches and all(a <= m.start < m.end <= b for m in parent.matches)
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        (hit,) = with_matches([dataclasses.replace(top, matches=())], "zzz qqq", store=store,
                              vector=emb.embed([sentence])[0], units=True)
    (m,) = hit.matches
    assert hit.text[m.start:m.end] == sentence and m.score == 1.0
