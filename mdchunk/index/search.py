"""Search an index: hybrid (dense and BM25 fused: :mod:`.fusion`), dense only, or BM25 only;
each leaf found shown as itself, its parent, or an automatically merged ancestor.

A store answers one side at a time (:meth:`~mdchunk.index.store.ChunkStore.search`); running
both, fusing them, collapsing repeated passages and widening hits happen here, the same for
any store (:func:`search_store`)."""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Sequence
from contextlib import closing
from typing import Any, Unpack

from ..embedding import (
    Embedder,
    backend_of,
    export_of,
    load_embedder,
    recorded_backend,
    with_prompt,
)
from ..embedding.rerankers import Reranker, load_reranker, rerank_scores
from ..errors import ConfigError, StoreError
from .collapse import carry_locations, collapse, collapse_identical, per_page, placed
from .config import SearchConfig
from .expand import expand_hits
from .fusion import DEFAULT_FUSION, Fusion, fuse
from .highlights import with_matches
from .language import AUTO
from .options import SearchOptions, search_options
from .rows import leaf_hit, search_text
from .store import ChunkStore, DenseQuery, Filter, IndexMeta, SearchHit, SearchMode, TextQuery
from .stores import open_store
from .where import search_filter

__all__ = ["UNIT_DEPTH", "UNIT_WEIGHT", "collapse_identical", "leaf_hits",
           "query_embedder", "rerank_hits", "search", "search_store", "unit_scored"]

#: Candidates a unit-scored dense side draws from each list (leaves, units), per hit kept.
UNIT_DEPTH = 2
#: The share of a unit-scored leaf's score its best unit gives, the rest its own cosine.
UNIT_WEIGHT = 0.5


def search(query: str, *, config: SearchConfig | None = None,
           **options: Unpack[SearchOptions]) -> list[SearchHit]:
    """The ``k`` chunks that best answer ``query``, each with where it lies and its matching
    lines. ``config`` (a :class:`~mdchunk.index.config.SearchConfig`) says it all at once; a
    keyword sets one field of it or of a config it holds
    (:class:`~mdchunk.index.options.SearchOptions`), overriding the config's. Every keyword and
    what it does: docs/contract.md, "Indexing and search"; hybrid fusion, collapsing,
    ``expand`` and reranking: README.md, "Indexing and search"."""
    config = search_options(config, options)
    if not query.strip():
        raise ConfigError(f"query={query!r} asks nothing: the query is empty")
    if config.rerank is not None:  # a name misspelt is said before the store is opened
        config = dataclasses.replace(config, rerank=load_reranker(config.rerank))
    with closing(open_store(config.store, create=False)) as store:
        meta = store.check()
        vector = None
        if config.mode != "bm25":
            vector = query_embedder(store, meta, config).embed([query])[0]
        return search_store(store, query, vector, config, index=meta)


def query_embedder(store: ChunkStore, meta: IndexMeta, config: SearchConfig) -> Embedder:
    """The embedder a search of ``store`` (indexed as ``meta`` says) embeds its query with:
    the collection's own model on its own backend unless ``config`` names them, after the
    query prompt the collection records; another model, vectors another backend would make, or
    prompts other than the collection's, are refused with a :class:`StoreError`."""
    collection, model, backend = (config.store.collection, config.embedder.model,
                                  config.embedder.backend)
    if backend not in (None, AUTO) and backend != meta.backend:
        raise StoreError(f"collection {collection!r} holds {meta.backend} vectors, not "
                         f"{backend}: search it without a backend, or re-index")
    own = model is None or model == AUTO
    embedder = load_embedder(meta.model if own else model, recorded_backend(meta.backend))
    store.check(model=embedder.name, dim=embedder.dim)
    if backend_of(embedder) != meta.backend and meta.backend != "numpy":
        raise StoreError(f"collection {collection!r} holds {meta.backend} vectors, and "
                         f"{embedder.name} runs on {backend_of(embedder)} here; re-index")
    if export_of(embedder) != meta.export:
        _say_old_export(collection, meta.export or "1", export_of(embedder))
    for side, asked, recorded in (("query", config.embedder.query_prompt, meta.query_prompt),
                                  ("document", config.embedder.document_prompt,
                                   meta.document_prompt)):
        if asked is not None and asked != recorded:
            raise StoreError(f"collection {collection!r} was built with {side} prompt "
                             f"{recorded!r}, not {asked!r}: its vectors would not match; "
                             f"search without --{side}-prompt, or re-index with it")
    return with_prompt(embedder, meta.query_prompt)


def search_store(store: ChunkStore, query: str, vector: Sequence[float] | None,
                 config: SearchConfig, *, index: IndexMeta | None = None) -> list[SearchHit]:
    """The ``config.k`` hits for ``query`` (and its ``vector``, for the dense side) in any store:
    ``config.depth`` leaves of one side or both fused (:func:`leaf_hits`), reranked, collapsed
    and capped per page, before and after widening them
    (:func:`~mdchunk.index.expand.expand_hits`). ``index`` says how the leaves were indexed
    (``units``: scored by their units too, :func:`unit_scored`; ``bigrams``: the query analysed
    as they were). Each final hit then gets its matching lines."""
    units, bigrams = (index.units, index.bigrams) if index is not None else (False, False)
    where = search_filter(config.path_prefix, config.where, store.metadata_keys)
    # The pool is config.depth candidates whatever k is; every later step keeps its order, so k
    # only cuts the result (the first n hits of any k >= n are those of k = n).
    pool = leaf_hits(store, config.mode, search_text(query, bigrams=bigrams), vector,
                     where=where, limit=config.depth, fusion=config.fused(), units=units)
    if config.rerank is not None:  # a new order: the best of each passage may be another
        pool = rerank_hits(load_reranker(config.rerank), query, pool)
    leaves = _kept(pool, config)
    if config.expand == "none":  # collapsed already: collapsing again would change nothing
        shown = leaves[:config.k]
    else:
        # Widened whole, so that duplicates are collapsed before k are cut; auto-merging alone
        # is defined by k (it merges among the first leaves that leave k hits).
        widest = config.k if config.expand == "auto" else len(leaves)
        expanded = expand_hits(leaves, config.expand,
                               lambda ids: {r["id"]: r for r in store.parents(ids)}, widest)
        shown = _kept(carry_locations(expanded, leaves), config)[:config.k]
    return with_matches(shown, query, store=store, vector=vector, units=units)


def _kept(hits: Sequence[SearchHit], config: SearchConfig) -> list[SearchHit]:
    """``hits`` collapsed (or only placed) and capped per page as ``config`` says."""
    shown = collapse(hits) if config.collapse else placed(hits)
    return per_page(shown, config.per_page)


def leaf_hits(store: ChunkStore, mode: SearchMode, text: str, vector: Sequence[float] | None,
              *, where: Filter | None, limit: int, fusion: Fusion = DEFAULT_FUSION,
              units: bool = False) -> list[SearchHit]:
    """The top ``limit`` leaves for ``text`` (BM25) and/or ``vector`` (dense). Hybrid fuses the
    two lists here, not with the store's rankers, so the same fusion ranks on every store; a
    hybrid hit's score is its fused score."""
    if mode == "bm25":
        return store.search(TextQuery(text), limit=limit, where=where)
    if vector is None:
        raise ConfigError(f"a {mode} search needs a query vector")
    query = DenseQuery(vector)
    dense = (unit_scored(store, query, limit=limit, where=where) if units
             else store.search(query, limit=limit, where=where))
    if mode == "dense":
        return dense
    bm25 = store.search(TextQuery(text), limit=limit, where=where)
    hits = {hit.id: hit for hit in (*bm25, *dense)}
    fused = fuse([(h.id, h.score) for h in dense], [(h.id, h.score) for h in bm25], fusion)
    return [dataclasses.replace(hits[key], score=score) for key, score in fused[:limit]]


def rerank_hits(reranker: Reranker, query: str, hits: Sequence[SearchHit]) -> list[SearchHit]:
    """``hits`` in the order ``reranker`` scores them, best first, each scored by it (ties keep
    their order). It reads each passage under its section's path, as ``embed_text`` has it:
    the headings often say what the passage is about. The hits stay the same ones.

    >>> hits = [SearchHit(1.0, i, "d", "p", "", "", 1, 1, t) for i, t in (("a", "x"), ("b", "yy"))]
    >>> [h.id for h in rerank_hits(lambda q, texts: [len(t) for t in texts], "q", hits)]
    ['b', 'a']
    """
    if not hits:
        return []
    passages = [f"{hit.section_path}\n\n{hit.text}" if hit.section_path else hit.text
                for hit in hits]
    scores = rerank_scores(reranker, query, passages)
    order = sorted(range(len(hits)), key=lambda i: -scores[i])
    return [dataclasses.replace(hits[i], score=scores[i]) for i in order]


def unit_scored(store: ChunkStore, query: DenseQuery, *, limit: int, where: Filter | None
                ) -> list[SearchHit]:
    """The dense side of an index that embeds its leaves' units: the best ``limit`` leaves by the
    mean of their own cosine and their best unit's (a leaf without units counts its own twice;
    the best unit alone ranked no better than the leaf). Candidates are the leaves nearest the
    query and those of the units nearest it, :data:`UNIT_DEPTH` times ``limit`` of each, each
    scored exactly from its stored vectors."""
    import numpy as np

    depth = limit * UNIT_DEPTH
    nearest = store.search(query, limit=depth, where=where)
    leaf_ids = list(dict.fromkeys([*(h.id for h in nearest),
                                   *store.search_units(query, limit=depth, where=where)]))
    # a unit's leaf may be gone, or be one the filter drops (a unit row has no metadata)
    rows = {row["id"]: row for row in store.leaf_rows(leaf_ids, where=where)}
    found = store.unit_vectors(list(rows))
    q = np.asarray(query.vector, dtype=np.float32)
    q /= np.linalg.norm(q) or 1.0

    def cosines(vectors: Sequence[Any]) -> Any:
        m = np.asarray(vectors, dtype=np.float32)
        return m @ q / np.maximum(np.linalg.norm(m, axis=1), 1e-12)

    scored = []
    for leaf_id, row in rows.items():
        own = float(cosines([row["dense"]])[0])
        best = float(cosines(list(found[leaf_id].values())).max()) if leaf_id in found else own
        scored.append(((1 - UNIT_WEIGHT) * own + UNIT_WEIGHT * best, leaf_id))
    scored.sort(key=lambda pair: (-pair[0], leaf_ids.index(pair[1])))
    return [leaf_hit(score, rows[leaf_id]) for score, leaf_id in scored[:limit]]


@functools.lru_cache(maxsize=16)
def _say_old_export(collection: str, recorded: str, running: str) -> None:
    """Once per collection and process: the query's vector comes from another export recipe
    than the collection's (cosine about 0.99 to what it would be), so results are close to
    but not exactly what a re-indexed collection gives. Searching goes on; indexing rebuilds."""
    logging.getLogger(__name__).warning(
        "collection %r holds vectors of ONNX export %s, and this mdchunk embeds the query with "
        "export %s: results are close, not exact; run index once to rebuild it",
        collection, recorded, running)

