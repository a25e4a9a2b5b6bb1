"""Search is written against :class:`~mdchunk.index.store.ChunkStore`, not against Milvus: the
in-memory store (:mod:`mdchunk.index.memory`) answers one side at a time, and
:mod:`mdchunk.index.search` fuses, filters, collapses and widens its hits exactly as it does
Milvus's (no model, no Milvus here)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mdchunk.index import memory as store_module
from mdchunk.index.config import DEFAULT_DEPTH, SearchConfig
from mdchunk.index.fusion import RRF_K, Fusion
from mdchunk.index.search import UNIT_DEPTH, leaf_hits, search_store
from mdchunk.index.store import (
    ChunkStore,
    DenseQuery,
    Filter,
    IndexMeta,
    PathPrefix,
    SearchHit,
    SideQuery,
    TextQuery,
)


class MemoryStore(store_module.MemoryStore):
    """The in-memory store of :mod:`mdchunk.index.memory`, recording every search it is asked,
    to show what search.py asks of a store."""

    def __init__(self, collection: str = "mdchunk") -> None:
        super().__init__(collection)
        self.asked: list[tuple[str, int, Filter | None]] = []

    def search_units(self, query: DenseQuery, *, limit: int, where: Filter | None = None
                     ) -> list[str]:
        self.asked.append(("units", limit, where))
        return super().search_units(query, limit=limit, where=where)

    def search(self, query: SideQuery, *, limit: int, where: Filter | None = None
               ) -> list[SearchHit]:
        self.asked.append(("dense" if isinstance(query, DenseQuery) else "bm25", limit, where))
        return super().search(query, limit=limit, where=where)


def leaf(id: str, text: str, dense: tuple[float, float], *, doc_id: str = "docs/a.md",
         parent_id: str = "", start: int = 0, lang: str = "en",
         metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A stored leaf row (the fields :func:`leaf_hit` and a filter read, a vector and a search
    text)."""
    return {"id": id, "doc_id": doc_id, "path": doc_id, "title": "T", "section_path": "S",
            "line_start": 1, "line_end": 1, "text": text, "search_text": text, "level": 2,
            "parent_id": parent_id, "start": start, "end": start + len(text), "url": "",
            "anchor": "", "dense": list(dense), "content_hash": id, "file_type": "md",
            "lang": lang, "version": "", "token_count": 1, "metadata": metadata or {}}


QUERY = (1.0, 0.0)
#: Dense (cosine to QUERY): a 1.0, b 0.8, d 0.6, c 0.0. Text ("redis keys"): c 3, d 2, b 1; a none.
LEAVES = [leaf("a", "promote the standby", (1.0, 0.0)),
          leaf("b", "expire keys by ttl", (0.8, 0.6)),
          leaf("c", "redis keys keys evicted", (0.0, 1.0)),
          leaf("d", "redis keys at maxmemory", (0.6, 0.8))]


@pytest.fixture()
def store() -> MemoryStore:
    s = MemoryStore()
    s.upsert_chunks(LEAVES)
    return s


def test_the_fake_is_a_whole_chunk_store() -> None:
    wanted = {name for name in vars(ChunkStore) if not name.startswith("_")}
    assert wanted and wanted <= set(dir(MemoryStore())), wanted - set(dir(MemoryStore()))


def test_a_store_answers_one_side(store: MemoryStore) -> None:
    assert [(h.id, round(h.score, 6)) for h in store.search(DenseQuery(QUERY), limit=9)] == \
        [("a", 1.0), ("b", 0.8), ("d", 0.6), ("c", 0.0)]
    assert [(h.id, h.score) for h in store.search(TextQuery("redis keys"), limit=9)] == \
        [("c", 3.0), ("d", 2.0), ("b", 1.0)]


@pytest.mark.parametrize(("fusion", "expected"), [
    # peaked (the default): min-max units as below, each list weighted by one minus the mean of
    # its first ten units (those it lacks count 0): dense 1 - 2.4/10 = .76, text 1 - 1.5/10 = .85
    (Fusion("peaked", (1.0, 1.0)), [("d", 0.6 * 0.76 + 0.5 * 0.85), ("c", 0.85), ("a", 0.76),
                                    ("b", 0.8 * 0.76)]),
    # min-max score fusion 0.3/0.7: dense a 1, b .8, d .6, c 0; text c 1, d .5, b 0
    (Fusion("score", (0.3, 0.7)), [("c", 0.7), ("d", 0.53), ("a", 0.3), ("b", 0.24)]),
    # plain RRF: c 1/64 + 1/61, then b and d tied at 1/62 + 1/63 (b first: met first), a 1/61
    (Fusion("rrf", (1.0, 1.0)), [("c", 1 / (RRF_K + 4) + 1 / (RRF_K + 1)),
                                 ("b", 1 / (RRF_K + 2) + 1 / (RRF_K + 3)),
                                 ("d", 1 / (RRF_K + 3) + 1 / (RRF_K + 2)),
                                 ("a", 1 / (RRF_K + 1))]),
    # weighted RRF, dense only: the dense order
    (Fusion("rrf", (1.0, 0.0)), [("a", 1 / (RRF_K + 1)), ("b", 1 / (RRF_K + 2)),
                                 ("d", 1 / (RRF_K + 3)), ("c", 1 / (RRF_K + 4))]),
    # score fusion, text only: the text order; a and b tie at 0, in the order met (dense first)
    (Fusion("score", (0.0, 1.0)), [("c", 1.0), ("d", 0.5), ("a", 0.0), ("b", 0.0)]),
])
def test_hybrid_fuses_the_two_sides_of_any_store(store: MemoryStore, fusion: Fusion,
                                                 expected: list[tuple[str, float]]) -> None:
    hits = leaf_hits(store, "hybrid", "redis keys", QUERY, where=None, limit=4, fusion=fusion)
    assert [(h.id, h.score) for h in hits] == [(i, pytest.approx(s)) for i, s in expected]
    # the store was asked each side once, limit deep
    assert store.asked == [("dense", 4, None), ("bm25", 4, None)]
    # a fused hit is the stored leaf with its fused score
    assert [h.text for h in hits] == [next(r["text"] for r in LEAVES if r["id"] == i)
                                      for i, _ in expected]
    # and search's first hits do not depend on how many are asked: each side is drawn as deep
    store.asked.clear()
    config = SearchConfig(mode="hybrid", fusion=fusion.method, weights=fusion.weights)
    two = search_store(store, "redis keys", QUERY, dataclasses.replace(config, k=2))
    four = search_store(store, "redis keys", QUERY, dataclasses.replace(config, k=4))
    assert [h.id for h in two] == [h.id for h in four][:2] == [i for i, _ in expected[:2]]
    assert {limit for _, limit, _ in store.asked} == {DEFAULT_DEPTH}


def test_one_side_is_the_store_answer_itself(store: MemoryStore) -> None:
    where = PathPrefix("docs/")
    assert leaf_hits(store, "dense", "redis", QUERY, where=where, limit=2) == \
        store.search(DenseQuery(QUERY), limit=2, where=where)
    assert leaf_hits(store, "bm25", "redis", None, where=where, limit=2) == \
        store.search(TextQuery("redis"), limit=2, where=where)
    assert store.asked == [("dense", 2, where), ("dense", 2, where), ("bm25", 2, where),
                           ("bm25", 2, where)]


def test_search_store_filters_collapses_and_widens(store: MemoryStore) -> None:
    # a passage repeated on another page, and one under a parent, in another folder
    store.upsert_chunks([leaf("c2", "redis keys keys evicted", (0.0, 1.0), doc_id="docs/b.md"),
                         leaf("e", "redis keys redis keys", (0.0, 1.0), doc_id="ops/e.md",
                              parent_id="p", start=8)])
    store.upsert_parents([{**leaf("p", "Redis.\n\nredis keys redis keys", (0, 0),
                                  doc_id="ops/e.md"), "child_count": 1}])
    hits = search_store(store, "redis keys", None, SearchConfig(mode="bm25", k=3))
    assert [h.id for h in hits] == ["e", "c", "d"]  # c2 repeats c's text: collapsed into c
    # a filter reaches the store as it was given, and keeps only what it names
    assert [h.id for h in search_store(store, "redis keys", None, SearchConfig(mode="bm25", k=3,
                                       path_prefix="ops/"))] == ["e"]
    assert store.asked[-1] == ("bm25", DEFAULT_DEPTH, PathPrefix("ops/"))
    # widened to its parent, which marks where the leaf lies in its text
    (top, *_) = search_store(store, "redis keys", None, SearchConfig(mode="bm25", k=3, expand="parent"))
    assert (top.id, top.score, top.leaf_ids) == ("p", 4.0, ("e",))
    assert top.text[slice(*top.marks[0])] == "redis keys redis keys"


def test_a_dense_side_needs_a_vector(store: MemoryStore) -> None:
    from mdchunk.errors import ConfigError

    for mode in ("dense", "hybrid"):
        with pytest.raises(ConfigError, match="query vector"):
            leaf_hits(store, mode, "redis", None, where=None, limit=3)  # type: ignore[arg-type]
    assert store.asked == []


def unit(id: str, leaf_id: str, dense: tuple[float, float]) -> dict[str, Any]:
    return {"id": id, "leaf_id": leaf_id, "doc_id": "docs/a.md", "path": "docs/a.md",
            "content_hash": id, "dense": list(dense)}


def test_with_units_a_leaf_is_scored_by_its_own_vector_and_its_best_unit(store: MemoryStore
                                                                        ) -> None:
    # c's own vector is orthogonal to the query, but one of its sentences says what it asks;
    # a unit of a leaf no longer stored is ignored
    store.upsert_units([unit("c1", "c", (1.0, 0.0)), unit("c2", "c", (0.0, 1.0)),
                        unit("b1", "b", (0.6, 0.8)), unit("x1", "gone", (1.0, 0.0))])
    hits = leaf_hits(store, "dense", "", QUERY, where=None, limit=3, units=True)
    # a (no units) counts itself twice: 1.0; b (.8 + .6) / 2; c (0 + 1) / 2; d alone .6
    assert [(h.id, round(h.score, 6)) for h in hits] == [("a", 1.0), ("b", 0.7), ("d", 0.6)]
    hits = leaf_hits(store, "dense", "", QUERY, where=None, limit=4, units=True)
    assert [(h.id, round(h.score, 6)) for h in hits] == [("a", 1.0), ("b", 0.7), ("d", 0.6),
                                                         ("c", 0.5)]
    assert hits[-1].text == "redis keys keys evicted"  # the leaf, not the unit, is returned
    # without units, c is last by its own cosine
    assert [h.id for h in leaf_hits(store, "dense", "", QUERY, where=None, limit=4)][-1] == "c"
    # both lists are drawn from, UNIT_DEPTH deep per hit
    assert ("units", 4 * UNIT_DEPTH, None) in store.asked


def test_a_unit_can_lift_a_leaf_above_a_closer_one(store: MemoryStore) -> None:
    # d is further from the query than b, but one of d's sentences is the query; none of b's
    store.upsert_units([unit("d1", "d", (1.0, 0.0)), unit("d2", "d", (0.6, 0.8)),
                        unit("b1", "b", (0.0, 1.0))])
    hits = leaf_hits(store, "dense", "", QUERY, where=None, limit=4, units=True)
    assert [(h.id, round(h.score, 6)) for h in hits] == [("a", 1.0), ("d", 0.8), ("b", 0.4),
                                                         ("c", 0.0)]


def test_a_where_filter_reaches_the_store_and_names_known_keys_only(store: MemoryStore) -> None:
    from mdchunk.index.where import FilterError

    store.upsert_chunks([leaf("z", "redis keys in chinese", (0.0, 1.0), doc_id="zh/a.md",
                              lang="zh", metadata={"tags": ["db", "cache"], "priority": 3}),
                         leaf("y", "redis keys tagged web", (0.0, 1.0), doc_id="ops/y.md",
                              metadata={"tags": ["web"], "priority": 1})])
    store.add_metadata_keys(["tags", "priority"])
    config = SearchConfig(mode="bm25", k=5, where='tags contains "db" or priority < 2')
    assert sorted(h.id for h in search_store(store, "redis keys", None, config)) == ["y", "z"]
    # with a path prefix, both must keep a leaf
    config = SearchConfig(mode="bm25", k=5, where="priority >= 1", path_prefix="zh/")
    assert [h.id for h in search_store(store, "redis keys", None, config)] == ["z"]
    assert store.asked[-1][2] is not None and "PathPrefix" in repr(store.asked[-1][2])
    assert [h.id for h in search_store(store, "redis keys", None, SearchConfig(
        mode="bm25", k=5, where='lang == "zh"'))] == ["z"]
    # a key no document has is an error naming it, not an empty result
    with pytest.raises(FilterError, match="unknown field 'priorty' at column 1"):
        search_store(store, "redis keys", None, SearchConfig(mode="bm25", where="priorty > 1"))


def test_with_units_the_filter_drops_leaves_the_units_found(store: MemoryStore) -> None:
    # c's unit is the query itself, but c is not in the language asked for
    store.upsert_units([unit("c1", "c", (1.0, 0.0))])
    config = SearchConfig(mode="dense", k=4, where='lang == "zh"')
    assert search_store(store, "", QUERY, config, index=IndexMeta("m", 2, "c", "standard",
                                                                  units=True)) == []
    config = SearchConfig(mode="dense", k=4, where='doc_id == "docs/a.md"')
    hits = search_store(store, "", QUERY, config, index=IndexMeta("m", 2, "c", "standard",
                                                                  units=True))
    # kept, c scores by its unit: (0 + 1) / 2
    assert [(h.id, round(h.score, 6)) for h in hits] == [("a", 1.0), ("b", 0.8), ("d", 0.6),
                                                         ("c", 0.5)]
