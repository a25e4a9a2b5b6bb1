"""Widen leaf hits to their context: their parents, or ancestors merged automatically.

``parent`` replaces each leaf by the chunk one level up, once per parent; ``auto`` follows
LlamaIndex's AutoMergingRetriever: when enough of a parent's children match, the parent
replaces them, level after level, so a query that touches most of a section gets the section
and a pinpoint query keeps its leaf. Both return ``k`` hits when the candidates allow, and a
hit whose text lies inside another's becomes a mark in the larger.

Pure: parents come from a lookup (``ids -> rows``). A hit whose parent is not found (a
one-level index, a document being rewritten) stays as it is."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .rows import leaf_hit
from .store import Expand, SearchHit

__all__ = ["MERGE_RATIO", "ParentLookup", "absorb", "auto_merge",
           "expand_hits", "lift", "to_parents"]

#: Share of a parent's children that must be among the hits for ``auto`` to replace them by
#: the parent. 0.5 is LlamaIndex's default (which asks for strictly more): when half of a
#: parent matches, showing all of it costs at most twice the text that matched and adds the
#: text between the matches, which is usually what connects them; below half, the parent would
#: be mostly text the query did not reach. At least half (not more than half) so that a parent
#: of two children, the common case for a short section, merges when either one matches.
MERGE_RATIO = 0.5

#: Parent rows (``PARENT_FIELDS``) by id, for the ids asked; unknown ids are left out.
ParentLookup = Callable[[Sequence[str]], Mapping[str, Mapping[str, Any]]]


def expand_hits(hits: Sequence[SearchHit], expand: Expand, parents: ParentLookup, k: int
                ) -> list[SearchHit]:
    """The best ``k`` hits after widening ``hits`` (leaves, best first) as ``expand`` says."""
    if expand == "parent":
        return absorb(to_parents(hits, parents))[:k]
    if expand == "auto":
        memo = _Memo(parents)
        merged: list[SearchHit] = []
        # One more leaf adds at most one hit, so the first count to reach k is k.
        for m in range(min(k, len(hits)), len(hits) + 1):
            merged = absorb(auto_merge(hits[:m], memo))
            if len(merged) >= k:
                break
        return merged[:k]
    return list(hits[:k])


def lift(parent: Mapping[str, Any], children: Iterable[SearchHit]) -> SearchHit:
    """``parent`` (a stored row) as one hit standing for ``children``, hits inside it: their
    best score, and their leaves' marks moved into the parent's text."""
    children = list(children)
    marks, leaf_ids = _marks(parent["start"], children)
    return dataclasses.replace(leaf_hit(max(child.score for child in children), parent),
                               marks=marks, leaf_ids=leaf_ids)


def to_parents(hits: Sequence[SearchHit], parents: ParentLookup) -> list[SearchHit]:
    """Each hit replaced by its parent, once per parent at the rank of its best child."""
    found = parents(_parent_ids(hits))
    groups: dict[str, list[SearchHit]] = {}  # in order of each group's best hit
    for hit in hits:
        key = hit.parent_id if hit.parent_id is not None and hit.parent_id in found else hit.id
        groups.setdefault(key, []).append(hit)
    return [lift(found[key], group) if key in found else group[0]
            for key, group in groups.items()]


def auto_merge(hits: Sequence[SearchHit], parents: ParentLookup, ratio: float = MERGE_RATIO
               ) -> list[SearchHit]:
    """Merge hits into their parent wherever at least ``ratio`` of its children are hits, and
    again one level up, until nothing merges. A merged parent takes its best child's score and
    rank, so the list stays best first."""
    current = list(hits)
    while True:
        known = parents(_parent_ids(current))
        groups: dict[str, list[SearchHit]] = {}
        for hit in current:
            if hit.parent_id is not None and hit.parent_id in known:
                groups.setdefault(hit.parent_id, []).append(hit)
        merging = {pid: group for pid, group in groups.items()
                   if len(group) >= ratio * known[pid]["child_count"]}
        if not merging:
            return current
        merged: list[SearchHit] = []
        for hit in current:
            pid = hit.parent_id
            if pid is None or pid not in merging:
                merged.append(hit)
            elif hit is merging[pid][0]:  # the parent takes its best child's place
                merged.append(lift(known[pid], merging[pid]))
        current = merged


def absorb(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Each hit whose span lies inside a larger hit's (same document) folded into it as marks: it
    goes to the largest hit that contains it, which takes the best score and rank among them."""
    def container(hit: SearchHit) -> int:
        holders = [i for i, other in enumerate(hits) if other.doc_id == hit.doc_id
                   and other.start <= hit.start and hit.end <= other.end]
        return max(holders, key=lambda i: (hits[i].end - hits[i].start, -i))

    groups: dict[int, list[SearchHit]] = {}  # in order of each group's best hit
    for hit in hits:
        groups.setdefault(container(hit), []).append(hit)
    out = []
    for index, members in groups.items():
        held = hits[index]
        if len(members) == 1 and members[0] is held:
            out.append(held)
            continue
        marks, leaf_ids = _marks(held.start, members)
        out.append(dataclasses.replace(held, score=max(m.score for m in members), marks=marks,
                                       leaf_ids=leaf_ids))
    return out


def _marks(base: int, members: Iterable[SearchHit]
           ) -> tuple[tuple[tuple[int, int], ...], tuple[str, ...]]:
    """The members' leaf marks relative to a text starting at ``base``, in document order,
    each leaf once."""
    spans: dict[str, tuple[int, int]] = {}
    for hit in members:
        for (a, b), leaf in zip(hit.marks, hit.leaf_ids, strict=True):
            spans.setdefault(leaf, (hit.start - base + a, hit.start - base + b))
    ordered = sorted(spans.items(), key=lambda item: (item[1], item[0]))
    return tuple(span for _, span in ordered), tuple(leaf for leaf, _ in ordered)


def _parent_ids(hits: Iterable[SearchHit]) -> list[str]:
    return list(dict.fromkeys(h.parent_id for h in hits if h.parent_id))


class _Memo:
    """A parent lookup that asks for each id once (the ones not found included)."""

    def __init__(self, lookup: ParentLookup) -> None:
        self.lookup = lookup
        self.rows: dict[str, Mapping[str, Any]] = {}
        self.asked: set[str] = set()

    def __call__(self, ids: Sequence[str]) -> Mapping[str, Mapping[str, Any]]:
        new = [i for i in ids if i not in self.asked]
        if new:
            self.rows.update(self.lookup(new))
            self.asked.update(new)
        return {i: self.rows[i] for i in ids if i in self.rows}
