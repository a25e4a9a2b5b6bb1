"""Multi-vector leaves (issue 31): a leaf's units (sentences, list items, table rows with their
header, code lines) are read the same way every time, stored beside it with its id, written and
removed with it by incremental runs and deletes, and a dense search scores a leaf by its own
vector and its best unit's, returning the leaf. Switching units on rebuilds a collection once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mdchunk.index.units import CODE_LINES, MAX_UNITS, leaf_units, unit_id

from .conftest_milvus import CORPUS, HashEmbedder, write_corpus

EMB = HashEmbedder(dim=16)
slow = pytest.mark.slow


def test_units_are_sentences_items_rows_and_code_line_groups() -> None:
    text = ("## Backup\n\nThe nightly job dumps the database. It runs at two and keeps\n"
            "seven copies.\n\n- restore from the newest copy\n  with pg_restore\n"
            "- check the row counts\n\n| setting | value |\n|---|---|\n"
            "| retention | seven days |\n| schedule | 02:00 UTC |\n\n```bash\n"
            + "".join(f"echo step number {i}\n" for i in range(CODE_LINES + 2)) + "```\n")
    units = leaf_units(text)
    assert units[:2] == ["The nightly job dumps the database.",
                         "It runs at two and keeps seven copies."]  # hard wraps joined
    assert "- restore from the newest copy with pg_restore" in units  # an item and its lines
    assert "| setting | value | | retention | seven days |" in units  # a row with its header
    code = [u for u in units if u.startswith("echo")]
    assert [u.count("\n") + 1 for u in code] == [CODE_LINES, 2]
    assert not any("Backup" in u for u in units)  # the heading is the leaf's breadcrumb
    assert leaf_units(text) == units  # the same every time


def test_a_leaf_of_one_unit_has_none_and_short_or_repeated_ones_are_left_out() -> None:
    assert leaf_units("# Title\n\nOne sentence that says it all.") == []
    assert leaf_units("消费越来越慢。消息一直堆积，先查什么？") == ["消费越来越慢。", "消息一直堆积，先查什么？"]
    assert leaf_units("Note: ok.\n\nA sentence long enough. A sentence long enough.\n\n"
                      "Another sentence here.") == ["A sentence long enough.",
                                                    "Another sentence here."]
    many = " ".join(f"Sentence number {i} of many." for i in range(MAX_UNITS + 5))
    assert len(leaf_units(many)) == MAX_UNITS
    assert unit_id("leaf", "a") != unit_id("other", "a")


def _units_by_leaf(milvus: dict[str, str]) -> tuple[dict[str, set[str]], set[str]]:
    """The stored units' ids by leaf, and the stored leaves' ids."""
    from mdchunk.index.milvus import MilvusStore

    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        store._load()
        leaves = {r["id"]: r for r in store.rows(("id", "doc_id", "text"))}
        units: dict[str, set[str]] = {}
        for doc_id in {r["doc_id"] for r in leaves.values()} | {"zh/disk_full.md"}:
            for row in store.doc_units(doc_id):
                units.setdefault(row["leaf_id"], set()).add(row["id"])
    return units, set(leaves)


def _expected(milvus: dict[str, str]) -> dict[str, set[str]]:
    """The units each stored leaf should have, read again from its text."""
    from mdchunk.index.milvus import MilvusStore

    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        store._load()
        rows = store.rows(("id", "text", "start"))
    # a leaf that opens its page has no unit of its front matter (issue 43)
    return {r["id"]: {unit_id(r["id"], u) for u in units} for r in rows
            if (units := leaf_units(r["text"], page_start=r["start"] == 0))}


@slow
def test_units_are_stored_and_removed_with_their_leaf(milvus: dict[str, str], tmp_path: Path
                                                      ) -> None:
    from mdchunk.index import index_paths

    kb = write_corpus(tmp_path / "kb")
    first = index_paths([kb], model=EMB, units=True, **milvus)
    units, leaves = _units_by_leaf(milvus)
    assert units == _expected(milvus) and set(units) <= leaves
    assert first.embedded_units > 0 and first.written_units == sum(map(len, units.values()))

    # a changed document: its changed leaf's units replaced, every other unit left alone
    page = kb / "docs/redis_memory.md"
    page.write_text(CORPUS["docs/redis_memory.md"].replace(
        "allkeys-lru.", "allkeys-lru. Watch the evicted_keys counter as well."), encoding="utf-8")
    (kb / "zh/disk_full.md").unlink()  # a deleted one: its units go with its leaves
    again = index_paths([kb], model=EMB, units=True, **milvus)
    after, leaves = _units_by_leaf(milvus)
    assert after == _expected(milvus) and set(after) <= leaves
    assert again.rebuilt is False and again.deleted == 1
    kept = {u for ids in units.values() for u in ids} & {u for ids in after.values() for u in ids}
    assert again.written_units == sum(map(len, after.values())) - len(kept)
    assert 0 < again.embedded_units < again.written_units  # unchanged sentences reuse vectors
    assert again.removed_units > 0

    # nothing changed: nothing written, nothing embedded
    third = index_paths([kb], model=EMB, units=True, **milvus)
    assert (third.embedded_units, third.written_units, third.removed_units) == (0, 0, 0)


@slow
def test_a_leaf_is_found_by_its_best_unit(milvus: dict[str, str], tmp_path: Path) -> None:
    """The hash model gives a text's own vector to the same text only: a query that is one
    sentence of a leaf is that unit's vector exactly, and far from every leaf's own."""
    from mdchunk.index import index_paths, search

    kb = write_corpus(tmp_path / "kb")
    sentence = "Promote the standby with pg_ctl promote when the primary is lost, then " \
               "repoint the connection pooler at the new primary."
    index_paths([kb], model=EMB, units=True, **milvus)
    (top, *_) = search(sentence, mode="dense", k=3, model=EMB, **milvus)
    assert top.doc_id == "docs/postgres_replication.md" and sentence in top.text
    assert top.score > 0.5  # (own cosine + 1) / 2: the unit's cosine is 1
    assert top.leaf_ids == (top.id,)  # a leaf is returned, not a unit
    hybrid = search(sentence, mode="hybrid", k=3, model=EMB, **milvus)
    assert hybrid[0].id == top.id
    # without units the same model cannot tell: the leaf's own vector is a hash of other text
    index_paths([kb], model=EMB, units=False, **milvus)
    plain = search(sentence, mode="dense", k=3, model=EMB, **milvus)
    assert all(h.score < 0.5 for h in plain)


@slow
def test_switching_units_on_rebuilds_once_with_one_message(milvus: dict[str, str],
                                                          tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    from mdchunk.index import index_paths
    from mdchunk.index.milvus import MilvusStore
    from mdchunk.index.store import SCHEMA_VERSION, IndexMeta

    kb = write_corpus(tmp_path / "kb")
    # a collection of the schema before units (5), as the last release left it
    old = index_paths([kb], model=EMB, **milvus)
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        recorded = store.meta()
        assert recorded is not None and recorded.units is False
        store.drop()
        import dataclasses

        store.open(dataclasses.replace(recorded, schema="5"))
        assert store.meta() == IndexMeta(**{**{f: getattr(recorded, f) for f in (
            "model", "dim", "config", "analyzer", "analysis", "backend", "export", "bigrams")},
            "schema": "5"})
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        rebuilt = index_paths([kb], model=EMB, **milvus)
    messages = [r.getMessage() for r in caplog.records if "rebuilding" in r.getMessage()]
    assert len(messages) == 1 and f"schema: 5 -> {SCHEMA_VERSION}" in messages[0]
    assert rebuilt.rebuilt and rebuilt.added == old.added
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        on = index_paths([kb], model=EMB, units=True, **milvus)
        again = index_paths([kb], model=EMB, units=True, **milvus)
    messages = [r.getMessage() for r in caplog.records if "rebuilding" in r.getMessage()]
    assert len(messages) == 1 and "units: False -> True" in messages[0]
    assert on.rebuilt and on.embedded_units > 0 and not again.rebuilt and again.unchanged
