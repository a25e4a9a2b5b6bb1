"""Piece level: a run of pieces packed greedily, each cut only at its own seams.

A piece that does not fit is cut one "semantic level" down (text-splitter's idea): a list
between items, a table between rows (header repeated), code between lines (fence reopened),
prose between sentences, then words, then tokens. Overlap repeats whole sentences of the
previous chunk's prose, within ``overlap_tokens`` and the budget.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from .budget import HEADING_KINDS, Draft, Drafter
from .parse import ATOMIC_KINDS, Block
from .sentences import line_spans, word_spans

__all__ = ["PiecePacker", "kinds_of", "merge_kinds"]

# Kinds that only exist as seams of a larger block; a chunk reports the larger block's kind.
_STRUCTURAL = frozenset({"item", "row", "term", "definition"})
_LEAF_SEAM = {"code": "lines", "html": "lines", "math": "lines", "front_matter": "lines"}


def kinds_of(block: Block) -> tuple[str, ...]:
    """The block's kind and the blocks nested in it, in order of first appearance.

    Paragraphs inside a list or quote are how markdown-it spells an item's text, not a
    paragraph a reader sees, so only the outer kind and nested atomic blocks are reported.
    """
    seen: dict[str, None] = {} if block.kind in _STRUCTURAL else {block.kind: None}
    stack = list(reversed(block.children))
    while stack:
        node = stack.pop()
        if node.kind in ATOMIC_KINDS:
            seen.setdefault(node.kind, None)
        stack.extend(reversed(node.children))
    return tuple(seen)


def merge_kinds(groups: Iterable[Sequence[str]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(kind for group in groups for kind in group))


@dataclass(slots=True)
class _Piece:
    """A span that is packed whole or cut further at ``seam``."""

    start: int
    end: int
    kinds: tuple[str, ...]
    #: How to cut it: "children" (of ``block``), "lines", "sentences", "words" or "tokens".
    seam: str
    block: Block | None = None
    #: Repeated in ``embed_text`` when a chunk starts at a continuation of the cut block.
    prefix: str = ""
    continues: bool = False
    #: Must not end a chunk: headings, a table's header row.
    glue: bool = False
    #: Must not start a chunk: an empty section's heading folded onto the text before it.
    tail: bool = False
    #: An empty section's heading leading the next section: glue, but it may be shed into a
    #: chunk of its own when it and the next section's first content cannot fit together.
    spare: bool = False
    #: The top-level paragraph this piece is (part of): the only text overlap may repeat.
    paragraph: tuple[int, int] | None = None
    #: A whole atomic block: ``oversized="keep"`` keeps it whole when it does not fit.
    atomic: bool = False
    #: The span whose exact count is the piece's cost: the piece plus the blank that joins it
    #: to a neighbour, where that blank is a cut at which exact counts add up.
    cost: tuple[int, int] | None = None
    #: That count, once known (-1 before): a piece is weighed at every step that meets it.
    tokens: int = -1


def _seam_of(block: Block) -> str:
    if block.children:
        return "children"
    return _LEAF_SEAM.get(block.kind, "sentences")


@dataclass(slots=True)
class _Group:
    pieces: list[_Piece] = field(default_factory=list)
    tokens: int = 0
    prefix: str = ""
    prefix_tokens: int = 0
    overlap_start: int | None = None
    overlap_tokens: int = 0

    @property
    def used(self) -> int:
        return self.tokens + self.prefix_tokens + self.overlap_tokens

    @property
    def has_content(self) -> bool:
        return any(not p.glue for p in self.pieces)


class PiecePacker:
    """Greedy packing of a section's pieces with overlap; see the module docstring."""

    def __init__(self, drafter: Drafter, path: tuple[Block, ...]) -> None:
        self.d = drafter
        self.path = path
        self.config = drafter.config
        # Room in a chunk that starts after all of the section's headings (the longest
        # breadcrumb): what the last-resort token cuts plan with; drafts recount exactly.
        self.room = drafter.max_tokens - drafter.longest_crumb_tokens(path)
        self.squeeze = 0  # tokens held back after an exact count proved an estimate short
        self._heading_starts = [h.start for h in path]
        self._crumb_tokens: dict[int, int] = {}
        self.queue: deque[_Piece] = deque()
        self.group = _Group()
        self.drafts: list[Draft] = []
        self.last_closed: _Group | None = None

    # -- pieces -------------------------------------------------------------------------------

    def heading_piece(self, block: Block) -> _Piece:
        spare = block.start in getattr(self.d, "spare_headings", ())
        return _Piece(block.start, block.end, (block.kind,), "words", block, glue=True, spare=spare)

    def block_piece(self, block: Block) -> _Piece:
        return _Piece(block.start, block.end, kinds_of(block), _seam_of(block), block,
                      tail=block.kind in HEADING_KINDS,
                      paragraph=(block.start, block.end) if block.kind == "paragraph" else None,
                      atomic=block.kind in ATOMIC_KINDS)

    def tokens(self, piece: _Piece) -> int:
        if piece.tokens < 0:
            piece.tokens = (self.d.estimate(piece.start, piece.end) if piece.cost is None
                            else self.d.count_span(*piece.cost))
        return piece.tokens

    def seams(self, piece: _Piece, room: int) -> list[_Piece]:
        """Cut ``piece`` one semantic level down; every cut keeps all non-blank text.

        ``room`` is what is left in the chunk being filled: a last-resort cut by tokens makes
        its first part that size, so a heading before it is never left alone.
        """
        kind = piece.kinds[:1]
        # What a chunk starting inside this piece repeats: its own header or fence, else its
        # ancestors'. A whole block never repeats its own prefix: it starts with it.
        prefix = piece.block.prefix if piece.block is not None and piece.block.prefix else piece.prefix
        if piece.seam == "children" and piece.block is not None:
            block = piece.block
            parts = []
            for i, child in enumerate(block.children):
                parts.append(_Piece(child.start, child.end, merge_kinds([kind, kinds_of(child)]),
                                    _seam_of(child), child, prefix=prefix,
                                    continues=piece.continues or i > 0,
                                    glue=block.kind == "table" and i == 0 and len(block.children) > 1))
            return self._stretch(piece, parts)
        spans = self._spans(piece, room)
        if len(spans) <= 1:  # nothing to cut at this level: go one level down
            deeper = {"lines": "sentences", "sentences": "words", "words": "tokens"}.get(piece.seam)
            if deeper is None:
                return []
            return self.seams(replace(piece, seam=deeper), room)
        next_seam = {"lines": "words", "sentences": "words"}.get(piece.seam, "tokens")
        # Text-level parts keep the piece's kinds and paragraph; built directly, as a long
        # paragraph has thousands of sentences (dataclasses.replace is slow).
        kinds, paragraph, tail, continues = piece.kinds, piece.paragraph, piece.tail, piece.continues
        parts = [_Piece(a, b, kinds, next_seam, prefix=prefix, continues=continues or i > 0,
                        tail=tail, spare=piece.spare, paragraph=paragraph)
                 for i, (a, b) in enumerate(spans)]
        return self._stretch(piece, parts)

    def _spans(self, piece: _Piece, room: int) -> list[tuple[int, int]]:
        source = self.d.source
        if piece.seam == "lines":
            lines = line_spans(source, piece.start, piece.end)
            fenced = piece.block is not None and piece.block.kind == "code" and piece.block.prefix
            if fenced and len(lines) >= 2:  # keep each fence on its neighbour line
                lines = [(lines[0][0], lines[1][1]), *lines[2:]]
                if len(lines) >= 3:
                    lines[-2:] = [(lines[-2][0], lines[-1][1])]
            return lines
        if piece.seam == "sentences":
            return self.d.sentence_spans(piece.start, piece.end)
        if piece.seam == "words":
            return word_spans(source, piece.start, piece.end)
        return self._token_spans(piece, room)

    def _token_spans(self, piece: _Piece, room: int) -> list[tuple[int, int]]:
        """The last resort: cuts at token counts; the first part fills ``room``, the rest fill
        fresh chunks."""
        limit = max(1, self.room - self.squeeze - self._prefix_tokens(piece.prefix) - 2)
        spans, pos = [], piece.start
        text = self.d.source
        size_limit = max(1, min(room - 2, limit))
        while pos < piece.end:
            size = self.d.counter.prefix_within(text[pos:piece.end], size_limit)
            if size == 0 and size_limit < limit:  # not even one token fits here: start afresh
                size_limit = limit
                continue
            size = max(1, size)
            spans.append((pos, pos + size))
            pos += size
            size_limit = limit
        return spans

    def _stretch(self, piece: _Piece, parts: list[_Piece]) -> list[_Piece]:
        """Parts tile their piece, blanks aside, so no cut between them drops text (guarantee 4)."""
        if parts:
            parts[0].start = min(parts[0].start, piece.start)
            parts[-1].end = max(parts[-1].end, piece.end)
            source = self.d.source
            for prev, part in zip(parts, parts[1:]):
                gap = source[prev.end:part.start]
                if gap.strip():
                    part.start = prev.end + len(gap) - len(gap.lstrip())
            self._cut_between(parts)
        return parts

    def _cut_between(self, parts: list[_Piece]) -> None:
        """Where the blank between two parts is a cut at which exact counts add up, register it
        and let each part's cost include the blank; chunks then sum parts instead of encoding."""
        if not self.d.counter.line_additive:
            return
        cuts = []
        for prev, part in zip(parts, parts[1:]):
            cut = self.d.cut_before(part.start, after=prev.end)
            if cut is None:
                continue
            cuts.append(cut)
            prev.cost = ((prev.cost or (prev.start, prev.end))[0], cut)
            part.cost = (cut, part.end)
        for part in parts:  # a part with a blank on neither side keeps the "+1" estimate
            if part.cost == (part.start, part.end):
                part.cost = None
        self.d.prime(cuts, parts[0].start, parts[-1].end)

    # -- packing ------------------------------------------------------------------------------

    def _prefix_tokens(self, prefix: str) -> int:
        return self.d.count_small(prefix + "\n") if prefix else 0

    def _limit(self, start: int) -> int:
        """Tokens left for text in a chunk that starts at ``start``: what its breadcrumb (the
        section's headings before ``start``) and any overshoot held back leave of the budget."""
        depth = bisect_left(self._heading_starts, start)  # how many headings lie before it
        crumb = self._crumb_tokens.get(depth)
        if crumb is None:
            crumb = self._crumb_tokens[depth] = self.d.crumb_tokens(self.path, start)
        return self.d.max_tokens - crumb - self.squeeze

    def _group_limit(self) -> int:
        return self._limit(self.group.pieces[0].start)

    def _cost_in_fresh_group(self, piece: _Piece) -> int:
        prefix = self._usable_prefix(piece)
        return self.tokens(piece) + self._prefix_tokens(prefix)

    def _usable_prefix(self, piece: _Piece) -> str:
        """A continuation repeats its block's header or fence, unless that would eat half the room."""
        if not piece.continues or not piece.prefix:
            return ""
        return piece.prefix if self._prefix_tokens(piece.prefix) * 2 <= self._limit(piece.start) else ""

    def pack(self, pieces: Iterable[_Piece]) -> list[Draft]:
        self.queue.extend(pieces)
        while self.queue:
            self.step(self.queue.popleft())
            if not self.queue:
                self.close()
        return self.drafts

    def step(self, piece: _Piece) -> None:
        group = self.group
        fresh_limit = self._limit(piece.start)  # for a chunk that would start with this piece
        if not group.pieces:
            if self._cost_in_fresh_group(piece) <= fresh_limit:
                self.open(piece)
                return
        elif group.used + self.tokens(piece) <= self._group_limit():
            self.add(piece)
            return
        elif piece.tail and any(not (p.tail or p.glue) for p in group.pieces):
            self.keep_tail_company(piece)
            return
        elif group.has_content and (self._cost_in_fresh_group(piece) <= fresh_limit
                                    or self._keep_whole(piece)):
            self.queue.appendleft(piece)  # it goes first into the next chunk
            self.close()
            return
        if group.pieces and group.pieces[0].spare and not group.has_content:
            self.shed_spare(piece)
            return
        if group.pieces and not group.has_content and piece.glue and piece.kinds[0] in HEADING_KINDS:
            # A heading is never cut to sit after headings with no content: those (a heading
            # that leads only empty sections, and theirs) stand alone; it starts afresh.
            self.queue.appendleft(piece)
            self.close()
            return
        room = (self._group_limit() - group.used if group.pieces
                else fresh_limit - self._prefix_tokens(self._usable_prefix(piece)))
        parts = [] if self._keep_whole(piece) else self.seams(piece, room)
        if parts:
            self.queue.extendleft(reversed(parts))
        elif group.pieces:  # kept whole (oversized="keep"), or one character over: nothing smaller
            self.add(piece)
        else:
            self.open(piece)

    def keep_tail_company(self, tail: _Piece) -> None:
        """A trailing heading that does not fit takes the last content piece (and any headings
        after it) along into a new chunk; when that piece is the chunk's only content, it is
        cut so that part of it can come."""
        group = self.group
        limit = self._group_limit()  # of the chunk as it starts now, before any piece leaves
        moved = [tail]
        while group.pieces[-1].tail:
            moved.insert(0, self._pop())
        last = self._pop()
        if group.has_content:
            self.queue.extendleft(reversed([last, *moved]))
            self.close()
            return
        parts = self.seams(last, limit - group.used)
        if parts:
            self.queue.extendleft(reversed([*parts, *moved]))
            return
        self.add(last)  # nothing left to cut: the budget wins over company
        self.queue.extendleft(reversed([replace(p, tail=False) for p in moved]))
        self.close()

    def shed_spare(self, piece: _Piece) -> None:
        """Close the empty sections' headings at the front of the group as a chunk of their own
        and start again with the rest, so the next section's heading still meets its content."""
        group = self.group
        n = next((i for i, p in enumerate(group.pieces) if not p.spare), len(group.pieces))
        keep = group.pieces[n:]
        del group.pieces[n:]
        group.tokens = sum(self.tokens(p) for p in group.pieces)
        self.queue.appendleft(piece)
        self.queue.extendleft(reversed(keep))
        self.close()

    def _pop(self) -> _Piece:
        piece = self.group.pieces.pop()
        self.group.tokens -= self.tokens(piece)
        return piece

    def add(self, piece: _Piece) -> None:
        self.group.pieces.append(piece)
        self.group.tokens += self.tokens(piece)

    def _keep_whole(self, piece: _Piece) -> bool:
        return self.config.oversized == "keep" and piece.atomic

    def open(self, piece: _Piece) -> None:
        """Start a group with ``piece``, led by overlap sentences of the previous group."""
        prefix = self._usable_prefix(piece)
        group = _Group([piece], self.tokens(piece), prefix, self._prefix_tokens(prefix))
        self.group = group
        if not piece.glue and not prefix:
            self._add_overlap(group)

    def _add_overlap(self, group: _Group) -> None:
        """Guarantee 5: whole trailing sentences of the previous chunk's prose, within budget.

        The previous chunk must end at a sentence end of a top-level paragraph; the overlap is
        the longest run of its last sentences that stays inside that chunk and the budget.
        """
        prev = self.last_closed
        if prev is None or not prev.pieces or prev.pieces[-1].paragraph is None:
            return
        budget = min(self.config.overlap_tokens,
                     self._group_limit() - group.tokens - group.prefix_tokens)
        if budget <= 0:
            return
        end = prev.pieces[-1].end
        floor = prev.pieces[0].start if prev.overlap_start is None else prev.overlap_start
        starts, ends = self.d.sentences(*prev.pieces[-1].paragraph)
        if end not in ends:
            return  # the previous chunk stopped mid-sentence: no whole sentence to repeat
        chosen: int | None = None
        chosen_tokens = 0
        for start in reversed(starts[:bisect_left(starts, end)]):
            if start < floor:
                break
            self.d.cut_before(start)  # the blank before the sentence: its stretch is counted once
            tokens = self.d.count_span(start, end)
            if tokens > budget:
                break
            chosen, chosen_tokens = start, tokens
        if chosen is not None and chosen < group.pieces[0].start:
            group.overlap_start, group.overlap_tokens = chosen, chosen_tokens

    def close(self) -> None:
        group = self.group
        if not group.pieces:
            return
        while group.pieces[-1].glue and group.has_content:  # glue never ends a chunk
            self.queue.appendleft(group.pieces.pop())
        draft = self._draft(group)
        while not self.d.fits(draft) and not draft.oversized:
            if group.overlap_start is not None:  # first give up the overlap
                group.overlap_start, group.overlap_tokens = None, 0
            elif len(group.pieces) > 1:  # then move the last piece on to the next chunk
                self.queue.appendleft(group.pieces.pop())
                while group.pieces[-1].glue and len(group.pieces) > 1:
                    self.queue.appendleft(group.pieces.pop())
            elif group.pieces[0].end - group.pieces[0].start <= 1:
                break  # one character over an absurdly small budget: nothing smaller exists
            else:  # an estimate was short: hold the overshoot back and cut this piece smaller
                self.squeeze += draft.token_count - self.d.max_tokens
                self.queue.appendleft(group.pieces.pop())
                self.group = _Group()
                return
            draft = self._draft(group)
        self.drafts.append(draft)
        self.last_closed = group
        self.group = _Group()

    def _draft(self, group: _Group) -> Draft:
        start = group.pieces[0].start if group.overlap_start is None else group.overlap_start
        kinds = merge_kinds([("paragraph",) if group.overlap_start is not None else (),
                              *(p.kinds for p in group.pieces)])
        draft = self.d.draft(start, group.pieces[-1].end, self.path, kinds, group.prefix)
        kept = any(self._keep_whole(p) for p in group.pieces)
        return replace(draft, oversized=kept and not self.d.fits(draft))
