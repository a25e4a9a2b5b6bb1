"""The matching lines of a hit: the few passages of its text that best answer the query
(:class:`~mdchunk.index.store.Match`), so that a reader sees at once why a chunk was returned.

Passages are the units the index reads a leaf by (:mod:`.units`). They are scored by the
query's words first: BM25 over the hit's own passages, words read as the index's BM25 reads
them, CJK as character bigrams (no dictionary to load), common function words left out, the
IDF the hit's own (a word every passage has says nothing). Only a hit none of whose passages
shares a word with the query is scored by units' cosine to the query, from the unit vectors
the store keeps (when the index embeds units): words matched the evidence as often or more
often on the retrieval bench, and save a store read.

At most :data:`MAX_MATCHES` passages per hit, in document order, adjacent ones merged; an
expanded hit's matches are taken inside its matching leaves' ``marks`` only. It runs on the
final ``k`` hits only."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..text.scripts import HAN
from .rows import search_text
from .store import ChunkStore, Match, SearchHit
from .units import Span, leaf_unit_spans, unit_id, unit_spans

__all__ = ["KEEP_RATIO", "MAX_MATCHES", "UNIT_MARGIN", "query_terms", "term_matches",
           "unit_matches", "with_matches"]

#: Matches shown per hit at most: more would be the chunk again.
MAX_MATCHES = 3
#: A passage matched by words is kept when it scores at least this share of the best one.
KEEP_RATIO = 0.5
#: A unit is kept when its cosine is within this of the best unit's (cosines of one model to
#: one query sit close together; 0.05 keeps the near-ties, not the whole leaf).
UNIT_MARGIN = 0.05
#: BM25's usual constants, over a hit's passages.
_K1, _B = 1.2, 0.75

_TERM = re.compile(rf"[{HAN}]+|[^\W_{HAN}]+")
_HAN_RUN = re.compile(rf"[{HAN}]")
_HAN_RUNS = re.compile(rf"[{HAN}]+")
_LATIN = re.compile(rf"[^\W_{HAN}]+")
#: Words that ask rather than say (questions are full of them) and Chinese function
#: characters and bigrams of the same kind.
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "did", "for", "from",
    "how", "i", "if", "in", "into", "is", "it", "its", "may", "me", "my", "no", "not", "of", "on",
    "or", "our", "should", "so", "that", "the", "their", "then", "there", "these", "this",
    "those", "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will",
    "with", "would", "you", "your", "also", "use", "used", "using", "get", "set", "need", "want",
    "about", "的", "了", "是", "在", "和", "与", "或", "吗", "呢", "吧", "把", "被", "就", "都",
    "也", "要", "会", "能", "如何", "什么", "怎么", "怎样", "哪些", "哪个", "为什", "是否", "多少",
    "时候", "可以", "需要", "应该"})


def query_terms(text: str) -> list[str]:
    """The words of ``text`` as matching reads them, in order, repeats kept: lower case, a
    plural's ``s`` dropped (not a word's in -is, -ss, -us), CJK runs as bigrams (a lone
    character as itself), stop words out.

    >>> query_terms("How do I restart the Redis replicas?")
    ['restart', 'redis', 'replica']
    >>> query_terms("磁盘快满了怎么办")
    ['磁盘', '盘快', '快满', '满了', '了怎', '么办']
    """
    terms: list[str] = []
    for word in _TERM.findall(search_text(text).lower()):
        if _HAN_RUN.match(word):
            terms.extend(_bigrams(word))
        elif len(word) > 1 and word not in _STOP:  # a lone letter is a possessive's s, an x
            terms.append(_singular(word))
    return [term for term in terms if term not in _STOP]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word[-1] == "s" and word[-2] not in "isu" else word


def _bigrams(run: str) -> list[str]:
    """The bigrams of a CJK run; a lone character itself."""
    return [run[i:i + 2] for i in range(max(1, len(run) - 1))]


def _term_counts(text: str, forms: Mapping[str, str]) -> Counter[str]:
    """How often ``text`` holds each wanted term, ``forms`` mapping each word form that reads as
    one (``replicas`` and ``replica``) to it: :func:`query_terms` restricted to the wanted
    terms, without its per-word work (a hit's every passage is read for every query)."""
    cleaned = search_text(text).lower()
    counts = Counter(forms[w] for w in _LATIN.findall(cleaned) if w in forms)
    for run in _HAN_RUNS.findall(cleaned):
        counts.update(forms[b] for b in _bigrams(run) if b in forms)
    return counts


def _forms(terms: Sequence[str]) -> dict[str, str]:
    """Each word form that :func:`query_terms` reads as one of ``terms``, mapped to it."""
    return {form: term for term in terms for form in (term, term + "s")
            if _singular(form) == term}


def with_matches(hits: Sequence[SearchHit], query: str, *, store: ChunkStore,
                 vector: Sequence[float] | None = None, units: bool = False
                 ) -> list[SearchHit]:
    """``hits`` each with its :attr:`~SearchHit.matches`: by the query's words, and where no
    passage of a hit shares one, by units when the index has them (``units``) and the query a
    ``vector`` (the store is read for those hits' units only)."""
    terms = query_terms(query)
    by_words = [term_matches(hit, terms) for hit in hits]
    missing = [hit for hit, found in zip(hits, by_words, strict=True) if not found]
    vectors: Mapping[str, Mapping[str, Any]] = {}
    if units and vector is not None and missing:
        vectors = store.unit_vectors(list(dict.fromkeys(
            leaf for hit in missing for leaf in hit.leaf_ids)))
    return [dataclasses.replace(hit, matches=found or (
                unit_matches(hit, vector, vectors) if vector is not None and vectors else ()))
            for hit, found in zip(hits, by_words, strict=True)]


def term_matches(hit: SearchHit, terms: Sequence[str]) -> tuple[Match, ...]:
    """The passages of ``hit`` that hold the most of ``terms`` (:func:`query_terms`), BM25
    over the hit's passages; none when no passage holds any."""
    wanted = set(terms)
    spans = _passages(hit)
    if not wanted or not spans:
        return ()
    forms = _forms(list(wanted))
    counts = [_term_counts(hit.text[a:b], forms) for a, b in spans]
    lengths = [max(1, b - a) for a, b in spans]
    mean = sum(lengths) / len(lengths)
    holding = Counter(term for count in counts for term in count)
    n = len(spans)
    idf = {t: math.log(1 + (n - m + 0.5) / (m + 0.5)) for t, m in holding.items()}
    scored = [(sum(idf[t] * f * (_K1 + 1) / (f + _K1 * (1 - _B + _B * size / mean))
                   for t, f in count.items()), span)
              for count, size, span in zip(counts, lengths, spans, strict=True)]
    best = max(score for score, _ in scored)
    if best <= 0:
        return ()
    return _matches(hit, [(s, span) for s, span in scored if s >= KEEP_RATIO * best], spans)


def unit_matches(hit: SearchHit, vector: Sequence[float],
                 vectors: Mapping[str, Mapping[str, Any]]) -> tuple[Match, ...]:
    """The units of ``hit``'s leaves nearest ``vector``; ``vectors`` are each leaf's stored
    unit vectors by unit id. None when no leaf of the hit has units."""
    import numpy as np

    q = np.asarray(vector, dtype=np.float32)
    q /= np.linalg.norm(q) or 1.0
    scored = []
    for (a, b), leaf in zip(hit.marks, hit.leaf_ids, strict=True):
        stored = vectors.get(leaf, {})
        for text, (s, e) in (leaf_unit_spans(hit.text[a:b], page_start=hit.start + a == 0)
                             if stored else ()):
            found = stored.get(unit_id(leaf, text))
            if found is not None:
                v = np.asarray(found, dtype=np.float32)
                scored.append((float(v @ q) / max(float(np.linalg.norm(v)), 1e-12),
                               (a + s, a + e)))
    if not scored:
        return ()
    best = max(score for score, _ in scored)
    return _matches(hit, [(s, span) for s, span in scored if s >= best - UNIT_MARGIN],
                    _passages(hit))


def _passages(hit: SearchHit) -> list[Span]:
    """Every passage of the hit's matching leaves, as spans of its text: what the page shows
    (not its front matter, not an HTML comment: :func:`~.units.unit_spans`)."""
    return [(a + s, a + e) for a, b in hit.marks
            for s, e in unit_spans(hit.text[a:b], page_start=hit.start + a == 0)]


def _matches(hit: SearchHit, scored: Sequence[tuple[float, Span]], passages: Sequence[Span]
             ) -> tuple[Match, ...]:
    """The best :data:`MAX_MATCHES` of ``scored`` passages, in document order, each that
    introduces the next (:func:`_introduced`) with it, adjacent ones merged (at the better
    score), each with its lines in the document."""
    kept = sorted(((score, _introduced(hit.text, span, passages, _mark_end(hit, span[0])))
                   for score, span in sorted(scored, key=lambda pair: -pair[0])[:MAX_MATCHES]),
                  key=lambda pair: pair[1])
    merged: list[tuple[float, Span]] = []
    for score, (a, b) in kept:
        if (merged and not hit.text[merged[-1][1][1]:a].strip()
                and _mark_end(hit, merged[-1][1][0]) == _mark_end(hit, a)):
            last, (start, end) = merged[-1]
            merged[-1] = (max(last, score), (start, max(end, b)))
        else:
            merged.append((score, (a, b)))
    return tuple(Match(a, b, hit.line_start + _breaks(hit.text, a),
                       hit.line_start + _breaks(hit.text, b - 1), round(score, 6))
                 for score, (a, b) in merged)


def _breaks(text: str, offset: int) -> int:
    """Line breaks before ``offset`` in ``text``, CRLF, CR and LF alike (as the chunker counts
    lines), by three counts rather than an index of every line."""
    return (text.count("\n", 0, offset) + text.count("\r", 0, offset)
            - text.count("\r\n", 0, offset))


def _mark_end(hit: SearchHit, offset: int) -> int:
    """The end of the mark (a matching leaf) that holds ``offset``: a match stays inside it."""
    return next((b for a, b in hit.marks if a <= offset < b), len(hit.text))


def _introduced(text: str, span: Span, passages: Sequence[Span], limit: int) -> Span:
    """``span`` up to the end of the next passage's line (not past ``limit``) when it ends with a
    colon ("To upgrade the controller:"): such a line restates the question and what it
    introduces answers it."""
    a, b = span
    if not text[a:b].rstrip("*_ ").endswith((":", "\uff1a")):
        return span
    after = [end for start, end in passages if b <= start and end <= limit]
    if not after:
        return span
    line_end = text.find("\n", min(after), limit)  # to its line's end: "1." is a passage too
    return a, len(text[:limit if line_end < 0 else line_end].rstrip())
