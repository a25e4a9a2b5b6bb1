"""Issue 34: duplicates collapsed into one hit listing every location (the same passage, or
nearly: :mod:`mdchunk.index.collapse`), at most ``per_page`` hits of a page, and the duplicate
leaves an indexing run counts. Store-neutral on the in-memory store of test_store_interface.py,
the CLI and the API on fakes, and once on Milvus Lite (slow)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import mdchunk.index
from mdchunk.cli import app
from mdchunk.errors import ConfigError
from mdchunk.index.applying import IndexingRun, IndexReport
from mdchunk.index.collapse import (
    NEAR_DUPLICATE,
    DuplicateCounter,
    carry_locations,
    collapse,
    collapse_identical,
    passage_key,
    per_page,
    shingles,
    similarity,
)
from mdchunk.index.config import DEFAULT_DEPTH, SearchConfig
from mdchunk.index.engine import Preparer
from mdchunk.index.search import collapse_identical as collapse_identical_from_search
from mdchunk.index.search import search_store
from mdchunk.index.store import IndexMeta, Location, SearchHit
from mdchunk.sources import discover
from tests.conftest_milvus import HashEmbedder
from tests.test_store_interface import MemoryStore, leaf

runner = CliRunner()

STEPS = ("Open the Grafana dashboard for the cluster, check the error rate panel, then page the "
         "on-call database engineer through PagerDuty with the incident link and the graph. "
         "If nobody answers within fifteen minutes, escalate to the engineering manager on "
         "duty and post a short summary in the incident channel so that support can follow.")
#: STEPS with one word changed: nearly the same passage.
STEPS_EDITED = STEPS.replace("Grafana", "Kibana")


def runbook(name: str) -> str:
    """A page of three leaves at 96 tokens: its own intro, :data:`STEPS` (the same on every
    page) and its own memory section."""
    intro = " ".join(f"{name} step {i} happens here." for i in range(8))
    memory = " ".join(f"{name} eviction and memory pressure, case {i}." for i in range(6))
    return (f"# {name} runbook\n\nThis runbook covers the {name} service: {intro}\n\n"
            f"## Escalation\n\n{STEPS}\n\n## Memory\n\n{memory}\n")


def hit(id: str, text: str, score: float, doc: str | None = None, **more: Any) -> SearchHit:
    doc = doc or f"{id}.md"
    return SearchHit(score, id, doc, doc, "", "", 1, 3, text, **more)


# -- the similarity ------------------------------------------------------------------------------


def test_the_passage_key_ignores_whitespace_comments_and_invisible_characters() -> None:
    assert passage_key("Call  the\n<!-- note -->on-call\u200b engineer.") == \
        passage_key("Call the on-call engineer.")
    assert passage_key("Call the on-call engineer.") != passage_key("Call the engineer.")


def test_one_word_changed_is_nearly_the_same_and_another_passage_is_not() -> None:
    assert similarity(shingles(STEPS), shingles(STEPS_EDITED)) >= NEAR_DUPLICATE
    other = "Restart the primary Redis node and wait for the replicas to resync before paging."
    assert similarity(shingles(STEPS), shingles(other)) < 0.1


def test_cjk_shingles_are_character_ngrams() -> None:
    text = "当磁盘使用率超过百分之九十时，请先清理日志目录，然后通知值班工程师处理。"
    edited = text.replace("九十", "八十")
    assert all(len(s.split()) == 3 for s in shingles(text))
    assert similarity(shingles(text), shingles(edited)) >= 0.7
    assert similarity(shingles(text), shingles("磁盘")) < 0.1


# -- collapsing a list of hits -------------------------------------------------------------------


def test_identical_hits_become_one_listing_every_location_best_first() -> None:
    hits = [hit("a", STEPS, 0.9), hit("b", "Restart Redis.", 0.8),
            hit("c", STEPS + "\n", 0.7, url="https://x/c#steps", anchor="steps"),
            hit("d", STEPS, 0.6)]
    shown = collapse(hits)
    assert [h.id for h in shown] == ["a", "b"]
    assert [x.id for x in shown[0].locations] == ["a", "c", "d"]
    assert shown[0].locations[1] == Location("c", "c.md", "c.md", 1, 3, "https://x/c#steps",
                                             "steps", 0.7, 1.0)
    assert [x.id for x in shown[1].locations] == ["b"]  # its own location, always first


def test_nearly_the_same_hit_collapses_with_its_similarity() -> None:
    shown = collapse([hit("a", STEPS, 0.9), hit("b", STEPS_EDITED, 0.8)])
    assert [h.id for h in shown] == ["a"]
    near = shown[0].locations[1]
    assert near.id == "b" and NEAR_DUPLICATE <= near.similarity < 1.0
    # identical only: the edited copy stays a hit of its own
    assert [h.id for h in collapse_identical([hit("a", STEPS, 0.9),
                                              hit("b", STEPS_EDITED, 0.8)])] == ["a", "b"]


def test_collapse_identical_still_imports_from_search() -> None:
    assert collapse_identical_from_search is collapse_identical


def test_near_duplicates_do_not_chain() -> None:
    """Each hit is compared with the kept hit, not with what joined it, so that small changes
    do not add up: b is near a, c near b, c not near a; c stays a hit of its own."""
    words = [f"w{i}" for i in range(40)]
    a = " ".join(words)
    b = " ".join(["x"] * 4 + words[4:])
    c = " ".join(["x"] * 4 + words[4:12] + ["y"] * 4 + words[16:])
    ab, bc, ac = (similarity(shingles(p), shingles(q)) for p, q in ((a, b), (b, c), (a, c)))
    threshold = (ac + min(ab, bc)) / 2
    assert ac < threshold <= min(ab, bc)
    shown = collapse([hit("a", a, 3), hit("b", b, 2), hit("c", c, 1)], threshold=threshold)
    assert [(h.id, [x.id for x in h.locations]) for h in shown] == [("a", ["a", "b"]),
                                                                     ("c", ["c"])]


def test_per_page_keeps_at_most_n_hits_of_a_document() -> None:
    hits = [hit(i, i, 1.0, doc=d) for i, d in (("a", "x"), ("b", "x"), ("c", "y"), ("d", "x"))]
    assert [h.id for h in per_page(hits, 1)] == ["a", "c"]
    assert [h.id for h in per_page(hits, 2)] == ["a", "b", "c"]
    assert per_page(hits, None) == hits


def test_a_widened_hit_carries_the_other_locations_of_its_leaves() -> None:
    [leaf_a] = collapse([hit("a", STEPS, 0.9), hit("b", STEPS, 0.5)])
    parent = hit("p", "# Runbook\n\n" + STEPS, 0.9, doc="a.md", leaf_ids=("a",))
    [widened] = carry_locations([parent], [leaf_a])
    assert [x.id for x in widened.locations] == ["p", "b"]


def test_search_config_checks_collapse_and_per_page() -> None:
    assert SearchConfig().collapse is True and SearchConfig().per_page is None
    for bad in ({"per_page": 0}, {"per_page": True}, {"per_page": "2"}, {"collapse": "no"}):
        with pytest.raises(ConfigError):
            SearchConfig(**bad)  # type: ignore[arg-type]


# -- search on any store -------------------------------------------------------------------------


def copies_store(copies: int = 3) -> MemoryStore:
    """The same steps on ``copies`` runbooks, a nearly identical copy, and other leaves."""
    store = MemoryStore()
    rows = [leaf(f"s{i}", STEPS, (1.0, 0.02 * i), doc_id=f"rb/{i}.md") for i in range(copies)]
    rows.append(leaf("near", STEPS_EDITED, (1.0, 0.1), doc_id="rb/near.md"))
    rows += [leaf(f"o{i}", f"dashboard panel {i} of the database cluster", (0.9, 0.3 + i / 10),
                  doc_id=f"other/{i}.md") for i in range(6)]
    store.upsert_chunks(rows)
    return store


def test_search_collapses_copies_into_one_hit_and_fills_the_slots() -> None:
    store = copies_store()
    hits = search_store(store, "dashboard", (1.0, 0.0), SearchConfig(k=3, mode="dense"))
    assert [h.id for h in hits][:1] == ["s0"] and len(hits) == 3
    assert [x.id for x in hits[0].locations] == ["s0", "s1", "s2", "near"]
    assert [x.similarity == 1.0 for x in hits[0].locations] == [True, True, True, False]
    assert all(h.id.startswith("o") for h in hits[1:])  # the freed slots hold other pages


def test_no_collapse_shows_every_copy_each_at_its_own_location() -> None:
    hits = search_store(copies_store(), "dashboard", (1.0, 0.0),
                        SearchConfig(k=3, mode="dense", collapse=False))
    assert [h.id for h in hits] == ["s0", "s1", "s2"]
    assert [[x.id for x in h.locations] for h in hits] == [["s0"], ["s1"], ["s2"]]


def test_per_page_returns_k_different_pages_from_the_pool() -> None:
    """Every first candidate is on one page: the other pages are found deeper in the pool,
    which is ``depth`` deep whatever ``k`` is; a pool too shallow to reach them shows fewer
    hits rather than drawing a deeper one (the first hits of a search never depend on k)."""
    store = MemoryStore()
    deep = 18
    store.upsert_chunks([leaf(f"x{i}", f"big page part {i}", (1.0, i / 1000), doc_id="big.md",
                              start=10 * i) for i in range(deep)])
    store.upsert_chunks([leaf(f"p{i}", f"small page {i}", (0.5, 0.9), doc_id=f"p{i}.md")
                         for i in range(2)])
    config = SearchConfig(k=3, mode="dense", per_page=1)
    hits = search_store(store, "q", (1.0, 0.0), config)
    assert [h.doc_id for h in hits] == ["big.md", "p0.md", "p1.md"]
    two = search_store(store, "q", (1.0, 0.0), dataclasses.replace(config, per_page=2))
    assert [h.doc_id for h in two] == ["big.md", "big.md", "p0.md"]
    shallow = search_store(store, "q", (1.0, 0.0), dataclasses.replace(config, depth=deep))
    assert [h.doc_id for h in shallow] == ["big.md"]
    assert [limit for side, limit, _ in store.asked] == [DEFAULT_DEPTH, DEFAULT_DEPTH, deep]


def test_collapse_holds_after_widening_to_parents() -> None:
    store = copies_store(2)
    for i in range(2):
        store.leaves[f"s{i}"]["parent_id"] = f"P{i}"
    store.upsert_parents([{**leaf(f"P{i}", "# Runbook\n\n" + STEPS, (0.0, 0.0),
                                  doc_id=f"rb/{i}.md"), "level": 1, "child_count": 1}
                          for i in range(2)])
    hits = search_store(store, "dashboard", (1.0, 0.0),
                        SearchConfig(k=2, mode="dense", expand="parent"))
    assert hits[0].id == "P0" and [x.id for x in hits[0].locations][:2] == ["P0", "s1"]


# -- indexing counts duplicates ------------------------------------------------------------------


def test_an_index_run_counts_its_duplicate_leaves(tmp_path: Path) -> None:
    for name in ("redis", "postgres", "kafka"):
        (tmp_path / f"{name}.md").write_text(runbook(name), encoding="utf-8")
    embedder = HashEmbedder(8)
    store = MemoryStore()
    store.open(IndexMeta(embedder.name, embedder.dim, "fp", "standard"))
    report = IndexReport()
    preparer = Preparer(mdchunk.ChunkerConfig(levels=(384, 96), overlap_tokens=0))
    run = IndexingRun(store, embedder, preparer, "fp", report, None)  # type: ignore[arg-type]
    docs = [preparer(source, "h", False) for source in discover([tmp_path])]
    assert [len(doc.leaves) for doc in docs] == [3, 3, 3]
    run.write(docs)
    assert report.duplicate_leaves == 2  # two copies of the escalation steps beyond the first
    counter = DuplicateCounter()
    counter.add(["x", "x ", "y"])
    assert counter.duplicates == 1


# -- the command line and the API ----------------------------------------------------------------


def collapsed_hits() -> list[SearchHit]:
    return collapse([hit("a", STEPS, 0.9, doc="rb/a.md"), hit("b", STEPS, 0.5, doc="rb/b.md"),
                     hit("c", STEPS_EDITED, 0.4, doc="rb/c.md")])


def test_search_flags_reach_the_config_and_the_listing_says_also_in(monkeypatch) -> None:
    calls: list[SearchConfig] = []

    def fake(query: str, *, config: SearchConfig) -> list[SearchHit]:
        calls.append(config)
        return collapsed_hits()

    monkeypatch.setattr(mdchunk.index, "search", fake)
    shown = runner.invoke(app, ["search", "q", "--per-page", "2"])
    assert shown.exit_code == 0, shown.output
    assert (calls[-1].collapse, calls[-1].per_page) == (True, 2)
    assert "also in: rb/b.md:1-3, rb/c.md:1-3 (nearly)" in shown.stdout
    off = runner.invoke(app, ["search", "q", "--no-collapse"])
    assert off.exit_code == 0 and calls[-1].collapse is False
    assert runner.invoke(app, ["search", "q", "--per-page", "0"]).exit_code == 2
    lines = runner.invoke(app, ["search", "q", "--json"]).stdout.splitlines()
    record = json.loads(lines[0])
    assert [x["path"] for x in record["locations"]] == ["rb/a.md", "rb/b.md", "rb/c.md"]
    assert set(record["locations"][0]) == {f.name for f in dataclasses.fields(Location)}


def test_the_api_takes_collapse_and_per_page_and_returns_locations() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mdchunk.serve import ServeConfig
    from mdchunk.serve.app import create_app
    from tests.serve_fakes import fake_service

    config = ServeConfig()
    with TestClient(create_app(config, fake_service(config))) as client:
        answer = client.post("/v1/search", json={"query": "the", "k": 4,
                                                 "mode": "bm25", "per_page": 1})
        hits = answer.json()["hits"]
        assert answer.status_code == 200 and len({h["path"] for h in hits}) == len(hits) == 2
        assert all(h["locations"][0]["id"] == h["id"] for h in hits)
        off = client.post("/v1/search", json={"query": "maxmemory", "collapse": False})
        assert off.status_code == 200
        assert client.post("/v1/search", json={"query": "x", "per_page": 0}).status_code == 400


def test_the_search_page_lists_where_else_a_passage_is_and_keeps_per_page() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mdchunk.serve import ServeConfig
    from mdchunk.serve.app import create_app
    from tests.serve_fakes import fake_service

    config = ServeConfig()
    service = fake_service(config)
    store = service.store
    copy = next(dict(row) for row in store.leaves.values() if "promote" in row["text"])
    store.upsert_chunks([{**copy, "id": "copy", "doc_id": "ops/copy.md", "path": "ops/copy.md",
                          "parent_id": ""}])
    with TestClient(create_app(config, service)) as client:
        html = client.get("/", params={"q": "promote standby", "mode": "bm25", "k": 3,
                                       "per_page": 1}).text
        assert 'class="also">also in: ops/copy.md:' in html
        assert '<input type="hidden" name="per_page" value="1">' in html
        assert client.get("/", params={"q": "x", "per_page": 0}).status_code >= 400


def test_an_agent_is_told_where_else_a_passage_is() -> None:
    pytest.importorskip("mcp")
    from mdchunk.serve.mcp_tools import cited

    assert cited(collapsed_hits()[0])["also_in"] == ["rb/b.md:1-3", "rb/c.md:1-3"]


# -- on Milvus Lite ------------------------------------------------------------------------------


@pytest.mark.slow  # Milvus Lite
def test_copied_runbook_sections_collapse_on_milvus_lite(tmp_path: Path) -> None:
    from mdchunk.index import index_paths, search

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("redis", "postgres", "kafka"):
        (docs / f"{name}.md").write_text(runbook(name), encoding="utf-8")
    where = {"db": str(tmp_path / "kb.db"), "collection": "kb"}
    report = index_paths([docs], model=HashEmbedder(8), max_tokens=96, overlap_tokens=0,
                         **where)  # type: ignore[arg-type]
    assert report.duplicate_leaves == 2
    hits = search("page the on-call database engineer", mode="bm25", k=3, **where)
    assert len(hits[0].locations) == 3 and STEPS in hits[0].text
    assert {Path(x.path).name for x in hits[0].locations} == {"redis.md", "postgres.md", "kafka.md"}
    assert len({passage_key(h.text) for h in hits}) == len(hits)
    every = search("page the on-call database engineer", mode="bm25", k=3, collapse=False,
                   **where)
    assert len({passage_key(h.text) for h in every}) == 1 and len(every) == 3
    pages = search("eviction memory pressure", mode="bm25", k=3, per_page=1, **where)
    assert len({h.doc_id for h in pages}) == len(pages) == 3
