"""A whole :class:`~mdchunk.index.store.ChunkStore` in dicts, for tests and trials: nothing is
written anywhere, and an index lives as long as the process.

The dense side scores by cosine; the text side counts the query's words in a leaf's
``search_text``, a stand-in for BM25 (no analyzer, no weighting), so its order is not a real
store's. Filters mean what they mean on every store (:func:`~mdchunk.index.where.matches`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...errors import StoreError
from ..rows import leaf_hit
from ..store import DenseQuery, Filter, IndexMeta, LockTable, ManifestEntry, SearchHit, SideQuery
from ..where import matches

__all__ = ["MemoryManifest", "MemoryStore"]


class MemoryManifest:
    """The manifest, one entry per document id."""

    def __init__(self) -> None:
        self.rows: dict[str, ManifestEntry] = {}

    def entries(self) -> dict[str, ManifestEntry]:
        return dict(self.rows)

    def put(self, entries: Iterable[ManifestEntry]) -> None:
        self.rows.update((e.doc_id, e) for e in entries)

    def delete(self, doc_ids: Sequence[str]) -> None:
        for doc_id in doc_ids:
            self.rows.pop(doc_id, None)


class _Rows(dict[str, dict[str, Any]]):
    """Rows by id: one of a store's tables."""

    def of_doc(self, doc_id: str) -> list[dict[str, Any]]:
        return [r for r in self.values() if r["doc_id"] == doc_id]

    def upsert(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self.update((r["id"], dict(r)) for r in rows)

    def drop(self, ids: Iterable[str]) -> None:
        for i in ids:
            self.pop(i, None)


class MemoryStore:
    """One index's leaves, parents, units and manifest, in dicts keyed by id."""

    def __init__(self, collection: str = "mdchunk") -> None:
        self.collection = collection
        self.manifest = MemoryManifest()
        self.recorded: IndexMeta | None = None
        self.leaves, self.parent_rows, self.units = _Rows(), _Rows(), _Rows()
        self.keys: set[str] = set()

    def meta(self) -> IndexMeta | None:
        return self.recorded

    def open(self, meta: IndexMeta, *, rebuild: bool = True) -> bool:
        created = self.recorded != meta
        if created and self.recorded is not None and not rebuild:
            raise StoreError(f"memory: collection {self.collection!r} was built differently "
                             f"({'; '.join(self.recorded.differences(meta))}); re-index to "
                             "rebuild it")
        if created:  # a store built otherwise is rebuilt empty
            self.leaves.clear()
            self.parent_rows.clear()
            self.units.clear()
            self.manifest.rows.clear()
            self.recorded = meta
        return created

    def check(self, *, model: str | None = None, dim: int | None = None) -> IndexMeta:
        if self.recorded is None:
            raise StoreError(f"memory: no collection {self.collection!r}; index it first")
        if (model is not None and model != self.recorded.model) \
                or (dim is not None and dim != self.recorded.dim):
            raise StoreError(f"memory: collection {self.collection!r} holds vectors of "
                             f"{self.recorded.model} ({self.recorded.dim} dimensions), not "
                             f"{model} ({dim})")
        return self.recorded

    def doc_chunks(self, doc_id: str, *, vectors: bool = True) -> list[dict[str, Any]]:
        return self.leaves.of_doc(doc_id)

    def vectors(self, hashes: Sequence[str]) -> dict[str, Any]:
        return {r["content_hash"]: r["dense"] for r in self.leaves.values()
                if r["content_hash"] in hashes}

    def upsert_chunks(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self.leaves.upsert(rows)

    def count(self) -> int:
        """Leaves the index holds."""
        return len(self.leaves)

    def delete_chunks(self, ids: Sequence[str]) -> None:
        self.leaves.drop(ids)

    def doc_units(self, doc_id: str) -> list[dict[str, Any]]:
        return self.units.of_doc(doc_id)

    def upsert_units(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self.units.upsert(rows)

    def delete_units(self, ids: Sequence[str]) -> None:
        self.units.drop(ids)

    def search_units(self, query: DenseQuery, *, limit: int, where: Filter | None = None
                     ) -> list[str]:
        """Unfiltered, as a store whose unit rows lack what a filter reads: :meth:`leaf_rows`
        filters the leaves found."""
        scored = sorted(((_cosine(query.vector, r["dense"]), r["leaf_id"])
                         for r in self.units.values()), key=lambda pair: -pair[0])
        return list(dict.fromkeys(leaf_id for _, leaf_id in scored[:limit]))

    def unit_vectors(self, leaf_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for row in self.units.values():
            if row["leaf_id"] in leaf_ids:
                found.setdefault(row["leaf_id"], {})[row["id"]] = row["dense"]
        return found

    def leaf_rows(self, ids: Sequence[str], *, where: Filter | None = None
                  ) -> list[dict[str, Any]]:
        return [self.leaves[i] for i in dict.fromkeys(ids)
                if i in self.leaves and matches(where, self.leaves[i])]

    def metadata_keys(self) -> frozenset[str]:
        return frozenset(self.keys)

    def add_metadata_keys(self, keys: Iterable[str]) -> None:
        self.keys.update(keys)

    def doc_parents(self, doc_id: str) -> list[dict[str, Any]]:
        return self.parent_rows.of_doc(doc_id)

    def parents(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        return [self.parent_rows[i] for i in dict.fromkeys(ids) if i in self.parent_rows]

    def upsert_parents(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self.parent_rows.upsert(rows)

    def delete_parents(self, ids: Sequence[str]) -> None:
        self.parent_rows.drop(ids)

    def delete_doc(self, doc_id: str) -> None:
        self.delete_units([r["id"] for r in self.doc_units(doc_id)])
        self.delete_chunks([r["id"] for r in self.doc_chunks(doc_id)])
        self.delete_parents([r["id"] for r in self.doc_parents(doc_id)])

    def flush(self) -> None:
        pass

    def search(self, query: SideQuery, *, limit: int, where: Filter | None = None
               ) -> list[SearchHit]:
        scored = []
        for row in self.leaves.values():
            if not matches(where, row):
                continue
            if isinstance(query, DenseQuery):
                scored.append((_cosine(query.vector, row["dense"]), row))
            elif words := sum(row["search_text"].lower().split().count(w)
                              for w in query.text.lower().split()):
                scored.append((float(words), row))  # a text side finds only what matches
        scored.sort(key=lambda pair: -pair[0])  # stable: ties keep the order rows were written
        return [leaf_hit(score, row) for score, row in scored[:limit]]

    def lock_table(self) -> LockTable | None:
        return None  # one process holds it: nobody else can write

    def close(self) -> None:
        pass


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norms = math.hypot(*a) * math.hypot(*b)
    return sum(x * y for x, y in zip(a, b, strict=True)) / norms if norms else 0.0
