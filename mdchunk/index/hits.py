"""What a search answers: :class:`SearchHit`, with the places its passage lies
(:class:`Location`) and its matching lines (:class:`Match`). Plain values, the same from every
store, built by :mod:`.rows` and :mod:`.search`, shown by the CLI and the server
(:mod:`.store` names them too, where they were first)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Location", "Match", "SearchHit"]


@dataclass(frozen=True, slots=True)
class Location:
    """Where a passage a search found lies: a chunk's document, lines and page URL. A hit lists
    every location of its passage (:attr:`SearchHit.locations`), its own first; ``similarity``
    is how alike this location's passage is to the hit's (1.0: the same text)."""

    id: str
    doc_id: str
    path: str
    line_start: int
    line_end: int
    url: str | None = None
    anchor: str | None = None
    score: float = 0.0
    similarity: float = 1.0


@dataclass(frozen=True, slots=True)
class Match:
    """A passage of a hit that best answers the query: its matching lines
    (:mod:`mdchunk.index.highlights`). ``hit.text[start:end]`` is the passage (a sentence, list
    item, table row or lines of code, or several adjacent ones merged);
    ``line_start``-``line_end`` are its lines in the document (1-based, as the hit's own);
    ``score`` says how well it matched, higher is better within a hit."""

    start: int
    end: int
    line_start: int
    line_end: int
    score: float


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result; ``score`` is higher-is-better within a mode (RRF, cosine or BM25).

    A hit is a leaf, or with ``expand`` a parent standing for the leaves that matched inside it
    (its score is their best). ``text`` is what to show, ``line_start``-``line_end`` and
    ``start``-``end`` (character offsets in the document) where it lies, ``level`` its depth in
    the hierarchy (1 coarsest). ``leaf_ids[i]`` is a matching leaf and ``marks[i]`` its span in
    ``text``, in document order; an unexpanded leaf marks all of itself. Tuples, so that a hit
    stays hashable (``metadata`` is left out of its hash)."""

    score: float
    id: str
    doc_id: str
    path: str
    title: str
    section_path: str
    line_start: int
    line_end: int
    text: str
    level: int = 0
    parent_id: str | None = None
    start: int = 0
    end: int = 0
    marks: tuple[tuple[int, int], ...] = ()
    leaf_ids: tuple[str, ...] = ()
    #: Where the hit is published (page URL plus ``#anchor``) when the index was built with a
    #: ``base_url``, and its heading's anchor; ``None`` otherwise.
    url: str | None = None
    anchor: str | None = None
    #: Every place the hit's passage lies, its own first: a search collapses hits of the
    #: same text (and nearly the same) into one that lists them all (:mod:`.collapse`);
    #: empty on a hit no search has placed yet (a store's own hits).
    locations: tuple[Location, ...] = ()
    #: The passages of ``text`` that best match the query, in document order, at most
    #: :data:`~mdchunk.index.highlights.MAX_MATCHES`, inside the matching leaves' ``marks``;
    #: empty when nothing in the text shares a word with the query (and no unit says it).
    matches: tuple[Match, ...] = ()
    #: Its page's metadata as indexed: the front matter over the run's own (``index --meta``,
    #: ``IndexConfig.metadata``), what ``where=`` filters on; ``lang`` and ``version`` are the
    #: page's language and site version (``""``: not known).
    metadata: dict[str, Any] = field(default_factory=dict, hash=False)
    lang: str = ""
    version: str = ""
