"""Context for a leaf that its own text does not carry, put in its ``embed_text`` only: what the
page is about, or the sentence that introduced the list a leaf starts inside. Each is a line
between the breadcrumb and the text (:func:`with_line`), from the document itself
(``doc_context``: :func:`doc_context`) or from a caller's model (``enrich=``:
:class:`Enricher`, asked once per distinct document and leaf, :class:`EnrichCache`). A line
only takes room the budget leaves (guarantee 1): it is cut to fit, or left out."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from ..formats.blocks import Block
from ..plan import Draft
from ..tokens import TokenCounter

__all__ = ["CONTEXT_SHARE", "DESCRIPTION_KEYS", "LEAD_IN_KINDS", "Enrich", "EnrichCache",
           "Enricher", "doc_context", "lead_in", "with_line"]

#: A line of context takes at most this fraction of the budget (64 tokens of 512), like the
#: breadcrumb's cap: past that it dilutes what the leaf says more than it tells where it is.
CONTEXT_SHARE = 8
#: Front matter keys whose value says what the page is about.
DESCRIPTION_KEYS = ("description", "summary")
#: Blocks a paragraph introduces ("run these:") and a leaf may start inside.
LEAD_IN_KINDS = frozenset({"list", "code", "table"})
_ELLIPSIS = "…"

#: ``(document, leaf_text) -> one line``: what a model says the leaf is about within its page.
Enrich = Callable[[str, str], str]


def lead_in(blocks: Sequence[Block], starts: Sequence[int], source: str, at: int) -> str:
    """The paragraph just before the list, code block or table that position ``at`` lies in
    (its start included), when one introduces it; else ``""``. ``starts`` are the blocks'
    starts (sorted, as the blocks are)."""
    i = bisect_right(starts, at) - 1
    if i < 1 or blocks[i].kind not in LEAD_IN_KINDS or at >= blocks[i].end:
        return ""
    before = blocks[i - 1]
    if before.kind != "paragraph":
        return ""
    return " ".join(source[before.start:before.end].split())


def doc_context(metadata: dict[str, object], headings: Sequence[str], lead: str) -> str:
    """The page's title (when no heading of the leaf's path is it) and description, then the
    lead-in, one line each; ``""`` when there is none."""
    parts: list[str] = []
    title = metadata.get("title")
    if isinstance(title, str) and title.strip() and title.strip() not in headings:
        parts.append(title.strip())
    for key in DESCRIPTION_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(" ".join(value.split()))
            break
    if lead:
        parts.append(lead)
    return "\n".join(parts)


def with_line(draft: Draft, line: str, counter: TokenCounter, max_tokens: int,
              keep_end: bool = False) -> Draft:
    """``draft`` with ``line`` between its breadcrumb and its text in ``embed_text``, counted:
    in at most a :data:`CONTEXT_SHARE` th of the budget and the room the draft leaves, its end
    (its start with ``keep_end``: what lies next to the text matters most) cut with ``…`` to
    fit, or not at all. An oversized draft gets none."""
    line = line.strip()
    if not line or draft.token_count >= max_tokens:
        return draft
    head, rest = draft.embed_text[:draft.crumb], draft.embed_text[draft.crumb:]
    cap = max_tokens // CONTEXT_SHARE
    keep = len(line)
    while keep > 0:
        shown = line if keep == len(line) else (
            _ELLIPSIS + line[len(line) - keep:].lstrip() if keep_end
            else line[:keep].rstrip() + _ELLIPSIS)
        embed_text = f"{head}{shown}\n\n{rest}"
        tokens = counter.count(embed_text)
        if tokens <= max_tokens and counter.count(shown) <= cap:
            return replace(draft, embed_text=embed_text, token_count=tokens)
        keep = keep * 3 // 4 if keep > 8 else keep - 1
    return draft


class EnrichCache:
    """Lines already written, by the hash of their document and leaf text: in memory, or in a
    SQLite file at ``path`` that later runs (an index re-run) read again."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.memory: dict[str, str] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if path is not None:
            self._db = sqlite3.connect(str(path), check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS lines (key TEXT PRIMARY KEY, "
                             "line TEXT NOT NULL)")
            self._db.commit()

    @staticmethod
    def key(document: str, leaf: str) -> str:
        """The content hash of a document and a leaf of it (each length-prefixed, so that no
        two pairs run together into the same bytes)."""
        digest = hashlib.blake2b(digest_size=16)
        for part in (document, leaf):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "big") + data)
        return digest.hexdigest()

    def get(self, key: str) -> str | None:
        """The line kept for ``key``, or ``None`` when it was never written."""
        with self._lock:
            if key in self.memory or self._db is None:
                return self.memory.get(key)
            row = self._db.execute("SELECT line FROM lines WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            line = self.memory[key] = str(row[0])
            return line

    def put(self, key: str, line: str) -> None:
        """Keep ``line`` for ``key`` (on disk too, committed at once: a run that stops keeps
        what its model already answered)."""
        with self._lock:
            self.memory[key] = line
            if self._db is not None:
                self._db.execute("INSERT OR REPLACE INTO lines VALUES (?, ?)", (key, line))
                self._db.commit()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


class Enricher:
    """A caller's ``enrich`` callable, asked once per distinct document and leaf text (its
    first line kept, stripped), the answers kept in ``cache``. ``calls`` counts the times it
    was asked."""

    def __init__(self, enrich: Enrich, cache: EnrichCache | None = None) -> None:
        self.enrich = enrich
        self.cache = cache if cache is not None else EnrichCache()
        self.calls = 0

    def line(self, document: str, leaf: str) -> str:
        """The line for ``leaf`` within ``document``: from the cache, else asked once."""
        key = EnrichCache.key(document, leaf)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        self.calls += 1
        answer = self.enrich(document, leaf)
        if not isinstance(answer, str):
            raise TypeError(f"enrich returned {type(answer).__name__}, not a line of text")
        line = next((part.strip() for part in answer.splitlines() if part.strip()), "")
        self.cache.put(key, line)
        return line
