"""Greedy packing of one run of pieces: each piece is handed to the rules of
:mod:`mdchunk.plan.rules`, in order, until one takes it; this module provides the moves they make
(the rules see it through their :class:`~mdchunk.plan.rules.Packer` protocol)."""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Iterable
from dataclasses import replace

from ..formats.blocks import Block
from ..formats.kinds import UNSEEN_KINDS, merge_kinds
from .drafts import Draft
from .kit import PackingKit
from .overlap import overlap_before
from .pieces import Group, Piece, PieceCutter
from .rules import RULES

__all__ = ["Group", "PiecePacker"]


class PiecePacker:
    """Packs one run of pieces under one heading path; see the module docstring."""

    def __init__(self, kit: PackingKit, path: tuple[Block, ...]) -> None:
        self.kit = kit
        self.counts = kit.counts
        self.drafter = kit.drafter
        self.path = path
        self.cutter = PieceCutter(kit.counts, kit.sentences)
        self.max_tokens = kit.max_tokens
        # Room in a chunk that starts after all of the section's headings (the longest
        # breadcrumb): what the last-resort token cuts plan with; drafts recount exactly.
        self.room = kit.max_tokens - kit.crumbs.longest_tokens(path)
        self.squeeze = 0  # tokens held back after an exact count proved an estimate short
        self._heading_starts = [h.start for h in path]
        self._crumb_tokens: dict[int, int] = {}
        self.queue: deque[Piece] = deque()
        self.group = Group()
        self.drafts: list[Draft] = []
        self.last_closed: Group | None = None
        #: Starts of pieces before which a chunk should end: a semantic strategy's plan
        #: (:mod:`mdchunk.plan.strategies.semantic`); greedy plans none.
        self.cuts: frozenset[int] = frozenset()

    # -- weights ------------------------------------------------------------------------------

    def tokens(self, piece: Piece) -> int:
        """What ``piece`` adds to embed_text: HTML comments it leaves out (the default
        ``html_comments="drop"``) add nothing, so they are never cut to fit (guarantee 2), and
        a block holding one (a quote) costs only what it shows."""
        if piece.tokens >= 0:  # weighed before (never a piece left out: it weighs nothing)
            return piece.tokens
        if self.unseen(piece):
            return 0
        visible = self.kit.drafter.visible_tokens(piece.start, piece.end)
        if visible is not None:
            piece.tokens = visible + 1  # and the blank that joins it, as estimates count
        elif piece.cost is None:
            piece.tokens = self.counts.estimate(piece.start, piece.end)
        else:
            piece.tokens = self.counts.count_span(*piece.cost)
        return piece.tokens

    def unseen(self, piece: Piece) -> bool:
        return (len(piece.kinds) == 1 and piece.kinds[0] in UNSEEN_KINDS
                and self.kit.config.html_comments == "drop")

    def limit(self, start: int) -> int:
        """Tokens left for text in a chunk that starts at ``start``: what its breadcrumb (the
        section's headings before ``start``) and any overshoot held back leave of the budget."""
        depth = bisect_left(self._heading_starts, start)  # how many headings lie before it
        crumb = self._crumb_tokens.get(depth)
        if crumb is None:
            crumb = self._crumb_tokens[depth] = self.kit.crumbs.tokens(self.path, start)
        return self.max_tokens - crumb - self.squeeze

    def group_limit(self) -> int:
        group = self.group
        if group.crumb_room is None:
            return self.limit(group.pieces[0].start)
        crumb = self.kit.crumbs.tokens(self.path, group.pieces[0].start, group.crumb_room)
        return self.max_tokens - crumb - self.squeeze

    def fits_bare(self, piece: Piece, lead_tokens: int = 0) -> bool:
        """Would this whole block fit, after ``lead_tokens`` of headings, with no breadcrumb?
        Then the breadcrumb yields rather than the block being cut (guarantee 2)."""
        if not piece.atomic or self.keep_whole(piece):
            return False
        room = self.max_tokens - self.squeeze - lead_tokens
        # the estimate counts the blank after the block; a block at the limit is counted exactly
        return self.tokens(piece) <= room or self.counts.count_span(piece.start, piece.end) <= room

    def yield_breadcrumb(self, piece: Piece, *after: Piece) -> None:
        """Put ``piece`` (and the pieces ``after`` it, its empty sections' headings) in the
        chunk under way, or a fresh one, its breadcrumb cut to what they leave of the budget."""
        room = self.max_tokens - self.squeeze - self.group.tokens
        if self.group.pieces:
            self.add(piece)
        else:
            self.open(piece)
        for part in after:
            self.add(part)
        end = after[-1].end if after else piece.end
        group = self.group  # the header or fence it repeats counts as what it opened with
        need = self.counts.count_span(piece.start, end)
        own = piece.block.prefix if piece.block is not None else ""
        if group.prefix and group.prefix != own and group.prefix_tokens + need > room:
            # what it inherits (a tab's label) yields too; its own header it must repeat
            group.prefix, group.prefix_tokens = "", 0
        group.crumb_room = room - group.prefix_tokens - need

    def cost_in_fresh_chunk(self, piece: Piece) -> int:
        return self.tokens(piece) + self.cutter.prefix_tokens(self.usable_prefix(piece))

    def usable_prefix(self, piece: Piece) -> str:
        """A continuation repeats its block's header or fence, unless that would eat half the
        room."""
        if not piece.continues or not piece.prefix:
            return ""
        fits = self.cutter.prefix_tokens(piece.prefix) * 2 <= self.limit(piece.start)
        return piece.prefix if fits else ""

    def keep_whole(self, piece: Piece) -> bool:
        return self.kit.config.oversized == "keep" and piece.atomic

    # -- the run ------------------------------------------------------------------------------

    def pack(self, pieces: Iterable[Piece]) -> list[Draft]:
        self.queue.extend(pieces)
        while self.queue:
            self.step(self.queue.popleft())
            if not self.queue:
                self.close()
        return self.drafts

    def step(self, piece: Piece) -> None:
        """Hand ``piece`` to the rules in order; the first that applies takes it."""
        for rule in RULES:
            if rule(self, piece):
                return

    # -- moves the rules make -----------------------------------------------------------------

    def requeue(self, *pieces: Piece) -> None:
        """Put ``pieces`` back at the front of the queue, in order."""
        self.queue.extendleft(reversed(pieces))

    def cut(self, piece: Piece, room: int) -> list[Piece]:
        """``piece`` cut one seam finer (see :class:`PieceCutter`); nothing for a comment that
        embed_text leaves out: it costs nothing, so no cut of it could make room."""
        if self.unseen(piece):
            return []
        group = self.group
        return self.cutter.cut(piece, room, self.room - self.squeeze,
                               company=bool(group.pieces) and not group.has_content)

    def add(self, piece: Piece) -> None:
        self.group.pieces.append(piece)
        self.group.tokens += self.tokens(piece)

    def add_following(self) -> None:
        """Add the pieces queued next while each fits the chunk under way, as :meth:`step`
        would one at a time (with a chunk under way, only a planned cut comes before
        :func:`~mdchunk.plan.rules.add_if_it_fits`; a piece at one is left to it): the thousand
        lines of an HTML table go in without a trip through the rules each."""
        queue, group, cuts = self.queue, self.group, self.cuts
        limit = self.group_limit()  # the chunk's first piece and breadcrumb stay as they are
        while queue and queue[0].start not in cuts and group.used + self.tokens(queue[0]) <= limit:
            self.add(queue.popleft())

    def pop(self) -> Piece:
        piece = self.group.pieces.pop()
        self.group.tokens -= self.tokens(piece)
        return piece

    def open(self, piece: Piece) -> None:
        """Start a chunk with ``piece``, led by overlap sentences of the previous chunk."""
        prefix = self.usable_prefix(piece)
        group = Group([piece], self.tokens(piece), prefix, self.cutter.prefix_tokens(prefix))
        self.group = group
        if not piece.glue and not prefix:
            self._add_overlap(group)

    def _add_overlap(self, group: Group) -> None:
        """Guarantee 5: the previous chunk's last whole sentences, if it ended on prose."""
        prev = self.last_closed
        if prev is None or not prev.pieces or prev.pieces[-1].paragraph is None:
            return
        budget = min(self.kit.config.overlap_tokens or 0,
                     self.group_limit() - group.tokens - group.prefix_tokens)
        if budget <= 0:
            return
        floor = prev.pieces[0].start if prev.overlap_start is None else prev.overlap_start
        chosen = overlap_before(prev.pieces[-1].paragraph, prev.pieces[-1].end, floor, budget,
                                self.counts, self.kit.sentences)
        if chosen is not None and chosen[0] < group.pieces[0].start:
            group.overlap_start, group.overlap_tokens = chosen

    def close(self) -> None:
        """Emit the chunk being filled, made to fit: glue never ends it (guarantee 3), and while
        its exact count is over budget (guarantee 1) it gives up its overlap, then its last
        pieces while content stays, then (an estimate was short) holds the overshoot back and
        packs its pieces again: the piece after a heading is then cut to the room left."""
        group = self.group
        if not group.pieces:
            return
        while group.pieces[-1].glue and group.has_content:
            self.queue.appendleft(group.pieces.pop())
        draft = self._draft(group)
        while not self.drafter.fits(draft) and not draft.oversized:
            if group.overlap_start is not None:
                group.overlap_start, group.overlap_tokens = None, 0
            elif any(not p.glue for p in group.pieces[:-1]):  # content stays when it sheds
                self.queue.appendleft(group.pieces.pop())
                while group.pieces[-1].glue and len(group.pieces) > 1:
                    self.queue.appendleft(group.pieces.pop())
            elif len(group.pieces) == 1 and group.pieces[0].end - group.pieces[0].start <= 1:
                break  # one character over an absurdly small budget: nothing smaller exists
            else:  # a heading would be left alone (3), or one piece is over: cut again, tighter
                self.squeeze += draft.token_count - self.max_tokens
                self.requeue(*group.pieces)
                self.group = Group()
                return
            draft = self._draft(group)
        self.drafts.append(draft)
        self.last_closed = group
        self.group = Group()
        self.squeeze = 0  # the overshoot was for the pieces just re-cut, not for every later one

    def _draft(self, group: Group) -> Draft:
        start = group.pieces[0].start if group.overlap_start is None else group.overlap_start
        kinds = merge_kinds([("paragraph",) if group.overlap_start is not None else (),
                             *(p.kinds for p in group.pieces)])
        draft = self.drafter.draft(start, group.pieces[-1].end, self.path, kinds, group.prefix,
                                   crumb_room=group.crumb_room)
        if self.drafter.fits(draft) or not any(self.keep_whole(p) for p in group.pieces):
            return draft
        return replace(draft, oversized=True)
