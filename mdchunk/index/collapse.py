"""Duplicates collapsed, and hits capped per page: what a search does to its candidates before
it keeps ``k`` of them. Runbooks copy sections from each other and doc sites include one
snippet on many pages, so the best candidates are often one passage several times:
:func:`collapse` keeps the best and lists where the others lie, so that their slots go to
other answers.

Two passages are the same when their :func:`passage_key` is (derived from the stored text, so
no field is stored for it), nearly the same when the Jaccard similarity of their
:func:`shingles` reaches :data:`NEAR_DUPLICATE` (measured on the shared corpora)."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Sequence

from ..text import clean_text
from ..text.scripts import CJK
from .store import Location, SearchHit

__all__ = ["NEAR_DUPLICATE", "SHINGLE", "DuplicateCounter", "carry_locations", "collapse",
           "collapse_identical", "location_of", "passage_key", "per_page", "placed", "shingles",
           "similarity"]

#: Jaccard similarity of two passages' shingle sets at or above which they are one passage.
NEAR_DUPLICATE = 0.8
#: Words per shingle.
SHINGLE = 3

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
#: A word: a run of letters and digits, or one Han, kana or hangul character (CJK text has no
#: spaces, so its shingles are character n-grams).
_WORD = re.compile(rf"[{CJK}]|[^\W{CJK}]+")


def passage_key(text: str) -> str:
    """What two chunks must share to be one passage: ``text`` as embedded without its
    breadcrumb, after hygiene, HTML comments left out (no page shows them) and whitespace
    runs made one space.

    >>> passage_key("Call  the\\n<!-- todo -->on-call\\u200b engineer.") == \\
    ...     passage_key("Call the on-call engineer.")
    True
    """
    return " ".join(clean_text(_COMMENT.sub(" ", text)).text.split())


def shingles(text: str, size: int = SHINGLE) -> frozenset[str]:
    """Every ``size`` consecutive words of ``text`` (lowercased; a CJK character is a word),
    or all of its words as one shingle when it has fewer.

    >>> sorted(shingles("Restart the Redis primary"))
    ['restart the redis', 'the redis primary']
    >>> sorted(shingles("磁盘满了"))
    ['盘 满 了', '磁 盘 满']
    """
    words = _WORD.findall(text.lower())
    if len(words) <= size:
        return frozenset([" ".join(words)]) if words else frozenset()
    return frozenset(" ".join(words[i:i + size]) for i in range(len(words) - size + 1))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """The Jaccard similarity of two shingle sets: shared over all (1.0 for two empty sets)."""
    if not a and not b:
        return 1.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def location_of(hit: SearchHit, alike: float = 1.0) -> Location:
    """Where ``hit`` lies, at similarity ``alike`` to the passage it is listed under."""
    return Location(hit.id, hit.doc_id, hit.path, hit.line_start, hit.line_end, hit.url,
                    hit.anchor, hit.score, alike)


def placed(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """``hits`` each listing its own location (and those it already had): what a search
    returns when nothing is collapsed."""
    return [hit if hit.locations else dataclasses.replace(hit, locations=(location_of(hit),))
            for hit in hits]


@dataclasses.dataclass(slots=True)
class _Group:
    """A kept hit, its passage and the locations of the hits collapsed into it so far."""

    hit: SearchHit
    key: str
    locations: list[Location]


class _Groups:
    """The kept groups, found by passage and by shingle: a hit is compared only with the groups
    that share a shingle with it (a group sharing none is 0 alike), which gives the same first
    match as comparing with all of them, at a fraction of the cost."""

    def __init__(self, threshold: float | None) -> None:
        self.threshold = threshold
        self.kept: list[_Group] = []
        self.by_key: dict[str, _Group] = {}
        self.sizes: list[int] = []
        self.by_shingle: dict[str, list[int]] = {}

    def match(self, key: str) -> tuple[_Group | None, float, frozenset[str]]:
        """The first kept group whose passage is ``key`` 's, else the first nearly the same
        (when a threshold is given), with their similarity and ``key`` 's shingles."""
        if (same := self.by_key.get(key)) is not None:
            return same, 1.0, frozenset()
        if self.threshold is None:
            return None, 0.0, frozenset()
        words = shingles(key)
        if self.threshold <= 0 and self.kept:  # anything is alike enough
            first = self.kept[0]
            return first, similarity(shingles(first.key), words), words
        shared: dict[int, int] = {}
        for shingle in words:
            for i in self.by_shingle.get(shingle, ()):
                shared[i] = shared.get(i, 0) + 1
        for i in sorted(shared):
            alike = shared[i] / (self.sizes[i] + len(words) - shared[i])
            if alike >= self.threshold:
                return self.kept[i], alike, words
        if not words and self.sizes.count(0):  # two passages without words are alike
            return self.kept[self.sizes.index(0)], 1.0, words
        return None, 0.0, words

    def add(self, group: _Group, words: frozenset[str]) -> None:
        self.by_key.setdefault(group.key, group)
        for shingle in words:
            self.by_shingle.setdefault(shingle, []).append(len(self.kept))
        self.sizes.append(len(words) if self.threshold is not None else -1)
        self.kept.append(group)


def collapse(hits: Sequence[SearchHit], threshold: float | None = NEAR_DUPLICATE
             ) -> list[SearchHit]:
    """``hits`` (best first) with each passage once, where it scored best, listing the locations
    of every hit that repeats it: the same :func:`passage_key`, or with ``threshold`` a
    :func:`similarity` that reaches it (to the kept hit, so that no chain of small changes ends
    far from where it began).

    >>> a, b, c = (SearchHit(s, i, i, f"{i}.md", "", "", 1, 2, t) for s, i, t in
    ...            ((3, "a", "Page the on-call SRE."), (2, "b", "Check disk."),
    ...             (1, "c", "Page the  on-call SRE.")))
    >>> [(h.id, [x.path for x in h.locations]) for h in collapse([a, b, c])]
    [('a', ['a.md', 'c.md']), ('b', ['b.md'])]"""
    groups = _Groups(threshold)
    for hit in hits:
        key = passage_key(hit.text)
        own = list(hit.locations) or [location_of(hit)]
        group, alike, words = groups.match(key)
        if group is None:
            groups.add(_Group(hit, key, own), words)
            continue
        known = {x.id for x in group.locations}
        group.locations += [dataclasses.replace(x, similarity=min(x.similarity, alike))
                            for x in own if x.id not in known]
    return [dataclasses.replace(g.hit, locations=tuple(g.locations)) for g in groups.kept]


def collapse_identical(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """:func:`collapse` of passages that are the same only, not of nearly the same ones.

    >>> a, b = (SearchHit(s, i, "d", "p", "", "", 1, 1, "same") for s, i in ((2, "a"), (1, "b")))
    >>> [h.id for h in collapse_identical([a, b])]
    ['a']
    """
    return collapse(hits, threshold=None)


def per_page(hits: Iterable[SearchHit], n: int | None) -> list[SearchHit]:
    """``hits`` (best first) keeping at most ``n`` of each document (``None``: all).

    >>> hits = [SearchHit(1, i, d, d, "", "", 1, 1, i) for i, d in (("a", "x"), ("b", "x"),
    ...                                                             ("c", "y"))]
    >>> [h.id for h in per_page(hits, 1)]
    ['a', 'c']
    """
    if n is None:
        return list(hits)
    shown: dict[str, int] = {}
    kept = []
    for hit in hits:
        if shown.get(hit.doc_id, 0) < n:
            shown[hit.doc_id] = shown.get(hit.doc_id, 0) + 1
            kept.append(hit)
    return kept


def carry_locations(widened: Iterable[SearchHit], leaves: Sequence[SearchHit]
                    ) -> list[SearchHit]:
    """Each widened hit (a parent, or a leaf kept as it is) listing its own location, then the
    other locations of the collapsed leaves it stands for (its ``leaf_ids``): widening shows
    the context of one copy, and the other copies are still where the passage also is."""
    others = {leaf.id: leaf.locations[1:] for leaf in leaves if len(leaf.locations) > 1}
    out = []
    for hit in widened:
        own = {hit.id: location_of(hit)}
        for x in (x for leaf_id in hit.leaf_ids for x in others.get(leaf_id, ())):
            own.setdefault(x.id, x)
        out.append(dataclasses.replace(hit, locations=tuple(own.values())))
    return out


class DuplicateCounter:
    """Counts leaves whose passage (:func:`passage_key`) an earlier one had: what an indexing
    run reports as duplicates (each passage seen is kept as a 16-byte hash)."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()
        self.duplicates = 0

    def add(self, texts: Iterable[str]) -> None:
        for text in texts:
            digest = hashlib.blake2b(passage_key(text).encode("utf-8", "surrogatepass"),
                                     digest_size=16).digest()
            if digest in self.seen:
                self.duplicates += 1
            else:
                self.seen.add(digest)
