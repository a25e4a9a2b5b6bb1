"""Token accounting: exact counts that add up, breadcrumbs, and drafts.

The budget counts ``embed_text`` (breadcrumb, repeated header or fence, then the text), exactly.
Encoding every candidate chunk would tokenize the document several times over; instead, with a
tokenizer whose counts add up at line starts and before spaces (cl100k_base, property-tested),
the text between two such cuts is encoded once and every chunk containing it sums the parts.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate
from dataclasses import dataclass

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


class Drafter:
    """What every packer shares: the source, the tokenizer, the budget and draft assembly."""

    def __init__(self, source: str, counter: TokenCounter, config: ChunkerConfig) -> None:
        self.source = source
        self.counter = counter
        self.config = config
        self.max_tokens = config.max_tokens
        self._segments: dict[tuple[int, int], int] = {}
        self._next_start: dict[tuple[int, int], int] = {}
        self._cuts: list[int] = []
        self._crumbs: dict[tuple[str, ...], str] = {}
        self._head_tokens: dict[str, int] = {}
        self._sentences: dict[tuple[int, int], list[tuple[int, int]]] = {}
        self._sentence_index: dict[tuple[int, int], tuple[list[int], frozenset[int]]] = {}

    def use_blocks(self, blocks: Sequence[Block]) -> None:
        """Register the document's top-level blocks: their starts are where exact counts may be
        summed (line-additive tokenizers), and each block is planned with the blank after it."""
        for block, following in zip(blocks, [*blocks[1:], None]):
            self._next_start[(block.start, block.end)] = following.start if following else block.end
        if self.counter.line_additive:
            starts = {b.start for b in blocks if self.is_cut(b.start)}
            self._cuts = sorted(starts.union(self._cuts))

    def add_cut(self, pos: int) -> None:
        i = bisect_left(self._cuts, pos)
        if i == len(self._cuts) or self._cuts[i] != pos:
            self._cuts.insert(i, pos)

    def is_cut(self, pos: int) -> bool:
        source = self.source
        return 0 < pos < len(source) and source[pos - 1] in "\r\n" and not source[pos].isspace()

    def count_span(self, start: int, end: int) -> int:
        """Exact tokens of ``source[start:end]``; with a line-additive tokenizer, the sum over
        the pieces between block starts, each encoded once however many chunks contain it."""
        cuts = self._cuts
        i, j = bisect_right(cuts, start), bisect_left(cuts, end)
        total, pos = 0, start
        for cut in (*cuts[i:j], end):
            key = (pos, cut)
            tokens = self._segments.get(key)
            if tokens is None:
                tokens = self._segments[key] = self.counter.count(self.source[pos:cut])
            total += tokens
            pos = cut
        return total

    def prime(self, cuts: Sequence[int], start: int, end: int) -> None:
        """Encode ``[start, end)`` once and record the count of each stretch between ``cuts``
        (all inside it, all registered): a paragraph cut into sentences is then counted with
        one pass, not one per sentence."""
        token_bytes = self.counter.token_bytes
        if token_bytes is None or not cuts:
            return
        ends = list(accumulate(token_bytes(self.source[start:end])))
        taken, pos, offset = 0, start, 0
        for cut in (*cuts, end):
            offset += len(self.source[pos:cut].encode("utf-8", "surrogatepass"))
            upto = bisect_right(ends, offset)
            if upto == 0 or ends[upto - 1] != offset:
                return  # a token crosses the cut after all: leave these to be encoded alone
            self._segments[(pos, cut)] = upto - taken
            taken, pos = upto, cut

    def estimate(self, start: int, end: int) -> int:
        """Planning cost of ``source[start:end]`` in a chunk: a top-level block with the blank
        after it (exactly what it adds when another block follows), else the text plus one."""
        following = self._next_start.get((start, end))
        if following is not None and following > end:
            return self.count_span(start, following)
        return self.count_span(start, end) + 1

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
        titles = tuple(h.title for h in path if h.start < start)
        text = self._crumbs.get(titles)
        if text is None:
            text = self._crumbs[titles] = breadcrumb(titles, self.counter, self.max_tokens // 4)
        return text

    def count_head(self, text: str) -> int:
        """Tokens of a breadcrumb or prefix; the few distinct ones are counted once."""
        tokens = self._head_tokens.get(text)
        if tokens is None:
            tokens = self._head_tokens[text] = self.counter.count(text)
        return tokens

    def draft(self, start: int, end: int, path: Sequence[Block], kinds: Sequence[str],
              prefix: str = "", oversized: bool = False) -> Draft:
        """Assemble a draft and count its ``embed_text`` exactly."""
        head = self.crumb(path, start) + (prefix + "\n" if prefix else "")
        embed_text = head + self.source[start:end]
        if not head:
            tokens = self.count_span(start, end)
        elif self.counter.line_additive and not self.source[start].isspace():
            tokens = self.count_head(head) + self.count_span(start, end)  # head ends with "\n"
        else:
            tokens = self.counter.count(embed_text)
        return Draft(start, end, tuple(path), prefix, tuple(kinds), embed_text, tokens, oversized)

    def fits(self, draft: Draft) -> bool:
        return draft.token_count <= self.max_tokens
