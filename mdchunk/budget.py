"""Drafts: a planned chunk's span, breadcrumb, ``embed_text`` and exact token count.

The budget counts ``embed_text`` (breadcrumb, repeated header or fence, then the text), exactly,
from the counts of :mod:`mdchunk.counts`, which encodes each stretch of the source once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .counts import TEXT_AHEAD, SpanCounts
from .model import ChunkerConfig
from .parse import Block
from .sentences import sentence_spans
from .tokens import TokenCounter

__all__ = ["Draft", "Drafter", "breadcrumb", "HEADING_KINDS"]

_ELLIPSIS = "…"
#: Kinds that head a section: a chunk of these alone would be a heading with no body.
HEADING_KINDS = frozenset({"heading", "question"})


@dataclass(frozen=True, slots=True)
class Draft:
    """A planned chunk: a span of the source and everything derived from where it sits."""

    start: int
    end: int
    path: tuple[Block, ...]
    prefix: str
    kinds: tuple[str, ...]
    embed_text: str
    token_count: int
    oversized: bool = False

    @property
    def is_headings_only(self) -> bool:
        return set(self.kinds) <= HEADING_KINDS


def breadcrumb(titles: Sequence[str], counter: TokenCounter, limit: int) -> str:
    """``"A > B > C\\n\\n"`` in at most ``limit`` tokens, shortened from the outermost heading.

    >>> from mdchunk.tokens import TokenCounter
    >>> breadcrumb(["Guide", "Install", "Linux"], TokenCounter("chars", len), 16)
    '… > Linux\\n\\n'
    """
    parts = list(titles)
    if not parts:
        return ""
    text = " > ".join(parts) + "\n\n"
    while counter.count(text) > limit and len(parts) > 1:
        parts.pop(0)
        text = f"{_ELLIPSIS} > " + " > ".join(parts) + "\n\n"
    if counter.count(text) > limit:  # one heading alone is too long: keep its end
        title = parts[0]
        keep = len(title)
        while keep > 0 and counter.count(f"{_ELLIPSIS}{title[-keep:]}\n\n") > limit:
            keep = keep * 3 // 4 if keep > 8 else keep - 1
        text = f"{_ELLIPSIS}{title[len(title) - keep:]}\n\n" if keep else ""
    return text


class Drafter(SpanCounts):
    """What every packer shares: exact counts of the source, the budget and draft assembly."""

    def __init__(self, source: str, counter: TokenCounter, config: ChunkerConfig) -> None:
        super().__init__(source, counter, long_text=3 * config.max_tokens)
        self.config = config
        self.max_tokens = config.max_tokens
        self._crumbs: dict[tuple[str, ...], str] = {}
        self._sentences: dict[tuple[int, int], list[tuple[int, int]]] = {}
        self._sentence_index: dict[tuple[int, int], tuple[list[int], frozenset[int]]] = {}

    def sentences(self, start: int, end: int) -> tuple[list[int], frozenset[int]]:
        """Starts and ends of the sentences of the paragraph ``[start, end)``, found once: a long
        paragraph cut into many chunks would otherwise be re-scanned for each (quadratic)."""
        key = (start, end)
        found = self._sentence_index.get(key)
        if found is None:
            spans = self.sentence_spans(start, end)
            found = ([a for a, _ in spans], frozenset(b for _, b in spans))
            self._sentence_index[key] = found
        return found

    def sentence_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        """:func:`~mdchunk.sentences.sentence_spans` of ``[start, end)``, scanned once."""
        key = (start, end)
        spans = self._sentences.get(key)
        if spans is None:
            spans = self._sentences[key] = sentence_spans(self.source, start, end)
        return spans

    def crumb(self, path: Sequence[Block], start: int) -> str:
        """Breadcrumb of the headings in ``path`` that lie before ``start`` (not in the text)."""
        return self._crumb(tuple(h.title for h in path if h.start < start))

    def crumb_tokens(self, path: Sequence[Block], start: int) -> int:
        return self.count_small(self.crumb(path, start))

    def longest_crumb_tokens(self, path: Sequence[Block]) -> int:
        """Tokens of the breadcrumb of all of ``path``: what any chunk under it may carry."""
        return self.count_small(self._crumb(tuple(h.title for h in path)))

    def _crumb(self, titles: tuple[str, ...]) -> str:
        text = self._crumbs.get(titles)
        if text is None:
            text = self._crumbs[titles] = breadcrumb(titles, self.counter, self.max_tokens // 4)
        return text

    def draft(self, start: int, end: int, path: Sequence[Block], kinds: Sequence[str],
              prefix: str = "", oversized: bool = False) -> Draft:
        """Assemble a draft and count its ``embed_text`` exactly."""
        head = self.crumb(path, start) + (prefix + "\n" if prefix else "")
        embed_text = head + self.source[start:end]
        if not head:
            tokens = self.count_span(start, end)
        elif self.counter.line_additive and TEXT_AHEAD.match(self.source, start, end):
            tokens = self.count_small(head) + self.count_span(start, end)  # head ends with "\n"
        else:
            tokens = self.counter.count(embed_text)
        return Draft(start, end, tuple(path), prefix, tuple(kinds), embed_text, tokens, oversized)

    def fits(self, draft: Draft) -> bool:
        return draft.token_count <= self.max_tokens
