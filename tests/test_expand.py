"""Widening leaf hits (mdchunk.index.expand) on a hand-built hierarchy, no store needed: parents
replace leaves once each, auto-merging follows the ratio level by level, marks point at the
leaves' text, and k hits remain when the candidates allow."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from mdchunk.index.expand import MERGE_RATIO, absorb, auto_merge, expand_hits, to_parents
from mdchunk.index.store import SearchHit

# One document, "doc.md", whose text is 26 blocks of 10 characters (block i is its letter
# repeated), cut into a three-level hierarchy by character spans:
#   L1 "top" [0, 200)
#     L2 "A" [0, 20): leaves a0 a1                   (2 children)
#     L2 "B" [20, 60): leaves b0 b1 b2 b3            (4 children)
#     L2 "C" [60, 90): leaves c0 c1 c2               (3 children)
#   "solo" leaf [220, 230) lies outside it and has no parent (a one-level index, or a parent not found)
SOURCE = "".join(chr(ord("a") + i) * 10 for i in range(26))
PARENTS = {
    "top": (1, None, 0, 200, 3),
    "A": (2, "top", 0, 20, 2),
    "B": (2, "top", 20, 60, 4),
    "C": (2, "top", 60, 90, 3),
}
LEAVES = {
    **{f"a{i}": ("A", i * 10) for i in range(2)},
    **{f"b{i}": ("B", 20 + i * 10) for i in range(4)},
    **{f"c{i}": ("C", 60 + i * 10) for i in range(3)},
    "solo": (None, 220),
}


def row(pid: str) -> dict[str, Any]:
    level, parent, start, end, children = PARENTS[pid]
    return {"id": pid, "doc_id": "doc.md", "path": "kb/doc.md", "title": "Doc",
            "section_path": pid, "line_start": 1, "line_end": 1, "text": SOURCE[start:end],
            "level": level, "parent_id": parent or "", "start": start, "end": end,
            "child_count": children}


def leaf(lid: str, score: float) -> SearchHit:
    parent, start = LEAVES[lid]
    text = SOURCE[start:start + 10]
    return SearchHit(score=score, id=lid, doc_id="doc.md", path="kb/doc.md", title="Doc",
                     section_path=lid, line_start=1, line_end=1, text=text, level=3,
                     parent_id=parent, start=start, end=start + 10, marks=((0, 10),),
                     leaf_ids=(lid,))


class Lookup:
    """The parents collection, counting the ids it is asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, ids: Sequence[str]) -> Mapping[str, Mapping[str, Any]]:
        self.asked.extend(ids)
        return {i: row(i) for i in ids if i in PARENTS}


def hits(*ids: str) -> list[SearchHit]:
    """Leaf hits in rank order, scores 1.0, 0.9, ..."""
    return [leaf(lid, 1.0 - n / 10) for n, lid in enumerate(ids)]


def assert_marks_are_the_leaves(hit: SearchHit) -> None:
    assert len(hit.marks) == len(hit.leaf_ids) and list(hit.marks) == sorted(hit.marks)
    for (a, b), lid in zip(hit.marks, hit.leaf_ids):
        assert hit.text[a:b] == leaf(lid, 0).text, (hit.id, lid)


def shape(result: list[SearchHit]) -> list[tuple[str, float, list[str]]]:
    return [(h.id, round(h.score, 2), list(h.leaf_ids)) for h in result]


def test_parent_replaces_each_leaf_once_with_the_best_score() -> None:
    result = to_parents(hits("b1", "a0", "b3", "solo", "c2"), Lookup())
    assert shape(result) == [("B", 1.0, ["b1", "b3"]), ("A", 0.9, ["a0"]),
                             ("solo", 0.7, ["solo"]), ("C", 0.6, ["c2"])]
    assert [h.level for h in result] == [2, 2, 3, 2]
    assert len(set(result)) == 4  # hits stay hashable, as they were before marks
    assert result[0].marks == ((10, 20), (30, 40)) and result[0].text == SOURCE[20:60]
    for hit in result:
        assert_marks_are_the_leaves(hit)


def test_parent_fills_k_from_the_larger_pool() -> None:
    pool = hits("b0", "b1", "b2", "a1", "c0", "c1")  # 3k leaves for k = 2
    assert [h.id for h in expand_hits(pool, "parent", Lookup(), 2)] == ["B", "A"]
    assert [h.id for h in expand_hits(pool, "parent", Lookup(), 5)] == ["B", "A", "C"]
    assert [h.id for h in expand_hits(pool, "none", Lookup(), 2)] == ["b0", "b1"]


def test_auto_merges_at_the_ratio_and_not_below() -> None:
    assert MERGE_RATIO == 0.5
    # B: 2 of 4 children (exactly the ratio) merge; C: 1 of 3 does not
    result = auto_merge(hits("b2", "c1", "b0"), Lookup())
    assert shape(result) == [("B", 1.0, ["b0", "b2"]), ("c1", 0.9, ["c1"])]
    # B: 1 of 4 stays a leaf
    assert shape(auto_merge(hits("b3"), Lookup())) == [("b3", 1.0, ["b3"])]
    # a stricter ratio keeps B's two children apart
    assert [h.id for h in auto_merge(hits("b2", "b0"), Lookup(), ratio=0.75)] == ["b2", "b0"]


def test_auto_merges_level_after_level() -> None:
    # A (1 of 2) and B (2 of 4) merge into level 2; then top has 2 of its 3 children: level 1
    result = auto_merge(hits("a1", "b1", "b2", "solo"), Lookup())
    assert shape(result) == [("top", 1.0, ["a1", "b1", "b2"]), ("solo", 0.7, ["solo"])]
    top = result[0]
    assert top.level == 1 and top.text == SOURCE[:200] and top.marks == ((10, 20), (30, 40), (40, 50))
    assert_marks_are_the_leaves(top)
    # only B merges; one level-2 chunk of three is below the ratio at the top
    assert [h.id for h in auto_merge(hits("b1", "b2", "c0"), Lookup())] == ["B", "c0"]


def test_auto_fills_k_with_the_next_leaves_and_asks_each_parent_once() -> None:
    lookup = Lookup()
    pool = hits("b0", "b1", "c0", "c1", "a0", "solo")
    # best 2 leaves merge into B (one hit), so c0 joins; C (1 of 3) stays: 2 hits
    result = expand_hits(pool, "auto", lookup, 2)
    assert [h.id for h in result] == ["B", "c0"]
    assert len(lookup.asked) == len(set(lookup.asked))
    # with every leaf, B and C (2 of 3) merge, then top (A, B, C all there)
    assert [h.id for h in expand_hits(pool, "auto", Lookup(), 6)] == ["top", "solo"]


def test_missing_parents_leave_hits_as_they_are() -> None:
    def nothing(ids: Sequence[str]) -> dict[str, Mapping[str, Any]]:
        return {}

    pool = hits("b0", "b1", "a0")
    for expand in ("parent", "auto"):
        assert [h.id for h in expand_hits(pool, expand, nothing, 3)] == ["b0", "b1", "a0"]


def test_absorb_folds_a_hit_inside_a_larger_one() -> None:
    inner = leaf("b1", 0.9)
    outer = auto_merge(hits("b0", "b2"), Lookup())[0]  # B with b0, b2 marked
    result = absorb([inner, outer, leaf("c0", 0.1)])
    assert [h.id for h in result] == ["B", "c0"]
    assert result[0].score == pytest.approx(1.0) and result[0].leaf_ids == ("b0", "b1", "b2")
    assert_marks_are_the_leaves(result[0])
    # a hit from another document is never folded
    other = dataclasses.replace(leaf("b1", 0.5), doc_id="x.md")
    assert [h.id for h in absorb([outer, other])] == ["B", "b1"]
