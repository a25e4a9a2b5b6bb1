"""Search's candidate pool is ``depth`` deep whatever ``k`` is (issue 46): fusion, reranking,
collapsing and widening work on the same pool, and ``k`` only cuts the result, so a user who
asks for fewer hits gets the first ones of a longer list, never worse ones."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk.errors import ConfigError
from mdchunk.index.config import DEFAULT_DEPTH, SearchConfig
from mdchunk.index.search import search_store

from .test_store_interface import MemoryStore, leaf

WORDS = ("redis", "keys", "evicted", "standby", "promote", "disk")


@st.composite
def stores(draw: st.DrawFn) -> MemoryStore:
    """Up to 14 leaves of a few words (repeats and near-repeats among them: collapse has work)
    on up to four pages, some under parents, each with a 2-d vector."""
    store = MemoryStore()
    count = draw(st.integers(1, 14))
    for i in range(count):
        text = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)))
        vector = (draw(st.integers(-4, 4)) / 4, draw(st.integers(-4, 4)) / 4)
        if vector == (0.0, 0.0):
            vector = (1.0, 0.0)
        page = draw(st.integers(0, 3))
        parent = f"p{page}" if draw(st.booleans()) else ""
        store.upsert_chunks([leaf(f"l{i}", text, vector, doc_id=f"docs/{page}.md",
                                  parent_id=parent, start=10 * i)])
    store.upsert_parents([{**leaf(f"p{page}", f"parent of page {page}", (0.0, 0.0),
                                  doc_id=f"docs/{page}.md"), "child_count": 2}
                          for page in range(4)])
    return store


configs = st.builds(
    SearchConfig,
    mode=st.sampled_from(["hybrid", "dense", "bm25"]),
    fusion=st.sampled_from([None, "rrf", "score", "peaked"]),
    expand=st.sampled_from(["none", "parent"]),
    collapse=st.booleans(),
    per_page=st.sampled_from([None, 1, 2]),
    depth=st.integers(1, 8),
    k=st.just(1),
)


def _ids(hits: Sequence[object]) -> list[tuple[object, ...]]:
    return [(h.id, h.score, tuple(x.id for x in h.locations), h.leaf_ids)  # type: ignore[attr-defined]
            for h in hits]


@settings(max_examples=200, deadline=None)
@given(store=stores(), config=configs, query=st.lists(st.sampled_from(WORDS), min_size=1,
                                                      max_size=3),
       vector=st.tuples(st.integers(-4, 4), st.integers(1, 4)), data=st.data())
def test_the_first_n_hits_of_any_k_are_those_of_k_n(
        store: MemoryStore, config: SearchConfig, query: list[str], vector: tuple[int, int],
        data: st.DataObject) -> None:
    n = data.draw(st.integers(1, config.depth), label="n")
    k = data.draw(st.integers(n, config.depth), label="k")
    text = " ".join(query)
    first = search_store(store, text, vector, dataclasses.replace(config, k=n))
    more = search_store(store, text, vector, dataclasses.replace(config, k=k))
    assert _ids(more[:n]) == _ids(first)
    assert len(first) <= n and len(more) <= k
    # every side was drawn depth deep, whatever k was
    assert {limit for side, limit, _ in store.asked if side != "units"} == {config.depth}


def test_the_pool_is_depth_deep_and_k_cannot_pass_it() -> None:
    assert SearchConfig().depth == DEFAULT_DEPTH >= 50
    with pytest.raises(ConfigError, match="k=11 is more than the candidate pool"):
        SearchConfig(k=11, depth=10)
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ConfigError, match="depth="):
            SearchConfig(depth=bad)  # type: ignore[arg-type]


def test_a_reranker_reorders_the_whole_pool_not_the_top_k() -> None:
    """The reranker is handed all ``depth`` candidates, so a leaf fusion placed last can come
    first at k=1."""
    store = MemoryStore()
    store.upsert_chunks([leaf(f"l{i}", "redis " * (6 - i), (1.0, 0.0), doc_id=f"d{i}.md")
                         for i in range(6)])
    asked: list[int] = []

    def shortest_first(query: str, texts: Sequence[str]) -> list[float]:
        asked.append(len(texts))
        return [-len(t) for t in texts]

    [top] = search_store(store, "redis", None, SearchConfig(mode="bm25", k=1, depth=6,
                                                            rerank=shortest_first))
    assert top.id == "l5" and asked == [6]
