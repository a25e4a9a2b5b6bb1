"""The packing rules: what happens to the next piece, tried in order until one applies.

Like markdown-it's rule chains: each rule looks at the packer's state and the piece, and either
takes the piece (returns ``True``) or leaves it to the next rule. Each names the guarantee of
``docs/contract.md`` it serves (the map: ``docs/guarantees.md``); :meth:`PiecePacker.close` adds
the last two safeguards when a chunk is emitted (glue never ends a chunk, and an exact count over
budget sheds overlap and pieces). A rule sees the packer as a :class:`Packer`, so that the packer
imports its rules and the rules import nothing of the packer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from ..formats.kinds import HEADING_KINDS, kind
from .pieces import Group, Piece, PieceCutter

if TYPE_CHECKING:
    from ..tokens import SpanCounts

__all__ = ["RULES", "Packer", "Rule"]


class Packer(Protocol):
    """What a rule reads of a packer and the moves it makes
    (:class:`~mdchunk.plan.piece_packer.PiecePacker` is the one implementation)."""

    group: Group
    counts: SpanCounts
    cutter: PieceCutter
    cuts: frozenset[int]
    max_tokens: int
    squeeze: int

    def tokens(self, piece: Piece) -> int: ...
    def limit(self, start: int) -> int: ...
    def group_limit(self) -> int: ...
    def fits_bare(self, piece: Piece, lead_tokens: int = 0) -> bool: ...
    def cost_in_fresh_chunk(self, piece: Piece) -> int: ...
    def usable_prefix(self, piece: Piece) -> str: ...
    def keep_whole(self, piece: Piece) -> bool: ...
    def yield_breadcrumb(self, piece: Piece, *after: Piece) -> None: ...
    def requeue(self, *pieces: Piece) -> None: ...
    def cut(self, piece: Piece, room: int) -> list[Piece]: ...
    def add(self, piece: Piece) -> None: ...
    def add_following(self) -> None: ...
    def pop(self) -> Piece: ...
    def open(self, piece: Piece) -> None: ...
    def close(self) -> None: ...


#: ``rule(packer, piece) -> taken``.
Rule = Callable[[Packer, Piece], bool]


def _close_before(packer: Packer, *pieces: Piece) -> bool:
    """Close the chunk under way; ``pieces`` go first into the next."""
    packer.requeue(*pieces)
    packer.close()
    return True


def close_at_planned_cut(packer: Packer, piece: Piece) -> bool:
    """A semantic strategy planned a cut before ``piece``: the chunk under way ends here, if it
    has content and ``piece`` may start a chunk (guarantee 3: a tail never does; glue at the
    chunk's end goes back to the queue in :meth:`PiecePacker.close`). The budget rules still
    apply inside the planned chunks."""
    if piece.start not in packer.cuts or piece.tail or not packer.group.has_content:
        return False
    return _close_before(packer, piece)


def open_fresh_chunk(packer: Packer, piece: Piece) -> bool:
    """Guarantee 1: with no chunk under way, a piece that fits a fresh one starts it."""
    if packer.group.pieces or packer.cost_in_fresh_chunk(piece) > packer.limit(piece.start):
        return False
    packer.open(piece)
    return True


def add_if_it_fits(packer: Packer, piece: Piece) -> bool:
    """Guarantee 1: a piece that fits what is left of the chunk under way joins it, and so do
    the pieces after it that fit, as this rule would take each."""
    group = packer.group
    if not group.pieces or group.used + packer.tokens(piece) > packer.group_limit():
        return False
    packer.add(piece)
    packer.add_following()
    return True


def tail_keeps_company(packer: Packer, tail: Piece) -> bool:
    """Guarantee 3: an empty section's heading folded onto the text before it does not fit.

    It takes the last content piece (and such headings after it) along into a new chunk; when
    that piece is the chunk's only content, the overlap goes first, then (for a block) the
    breadcrumb shortens, and only then is the piece cut so that part of it can come."""
    group = packer.group
    if not group.pieces or not tail.tail or all(p.tail or p.glue for p in group.pieces):
        return False
    limit = packer.group_limit()  # of the chunk as it starts now, before any piece leaves
    moved = [tail]
    while group.pieces[-1].tail:
        moved.insert(0, packer.pop())
    last = packer.pop()
    if group.has_content:
        return _close_before(packer, last, *moved)
    if group.overlap_start is not None:  # 2 before 5: the overlap yields before a block is cut
        group.overlap_start, group.overlap_tokens = None, 0
        if group.used + sum(packer.tokens(p) for p in (last, *moved)) <= limit:
            for p in (last, *moved):
                packer.add(p)
            return True
    if last.atomic and not packer.keep_whole(last):  # 2 before the breadcrumb, as it yields
        need = packer.counts.count_span(last.start, moved[-1].end)
        room = packer.max_tokens - packer.squeeze - group.tokens - group.prefix_tokens
        if need <= room:
            packer.yield_breadcrumb(last, *moved)
            return True
    parts = packer.cut(last, limit - group.used)
    if parts:
        packer.requeue(*parts, *moved)
        return True
    packer.add(last)  # nothing left to cut: the budget wins over company
    return _close_before(packer, *[replace(p, tail=False) for p in moved])


def start_next_chunk(packer: Packer, piece: Piece) -> bool:
    """Guarantee 2: a piece that does not fit the chunk under way, but fits a fresh one (or is
    kept whole, or fits one with a shorter breadcrumb), closes the chunk and goes first into
    the next: a block that fits is never cut."""
    group = packer.group
    if not group.pieces or not group.has_content:
        return False
    if (packer.cost_in_fresh_chunk(piece) > packer.limit(piece.start)
            and not packer.keep_whole(piece) and not packer.fits_bare(piece)):
        return False
    return _close_before(packer, piece)


def breadcrumb_yields(packer: Packer, piece: Piece) -> bool:
    """Guarantee 2 before the breadcrumb: a block that fits the budget with the headings before
    it, but not with its breadcrumb too, keeps a shorter breadcrumb (down to none), not a cut."""
    group = packer.group
    if group.has_content or group.overlap_start is not None:
        return False
    if not packer.fits_bare(piece, group.tokens + group.prefix_tokens):
        return False
    packer.yield_breadcrumb(piece)
    return True


def shed_spare_headings(packer: Packer, piece: Piece) -> bool:
    """Guarantee 1 before 3: empty sections' headings at the front of a chunk, with the next
    section's first content too large to join them, are closed as a chunk of their own; the
    rest starts again, so the next section's heading still meets its content."""
    group = packer.group
    if not group.pieces or not group.pieces[0].spare or group.has_content:
        return False
    n = next((i for i, p in enumerate(group.pieces) if not p.spare), len(group.pieces))
    keep = group.pieces[n:]
    del group.pieces[n:]
    group.tokens = sum(packer.tokens(p) for p in group.pieces)
    return _close_before(packer, *keep, piece)


def close_heading_run(packer: Packer, piece: Piece) -> bool:
    """Guarantee 3: a heading is never cut to sit after headings with no content; those (a
    heading that leads only empty sections, and theirs) stand alone, and it starts afresh."""
    group = packer.group
    if (not group.pieces or group.has_content or not piece.glue
            or piece.kinds[0] not in HEADING_KINDS):
        return False
    return _close_before(packer, piece)


def nested_heading_yields(packer: Packer, piece: Piece) -> bool:
    """Guarantee 2 before 3 inside a container: after a heading nested in a quote or list item
    (glue no breadcrumb carries), a block that fits a chunk of its own, but not beside that
    heading, is not cut for it: the chunk of headings closes and the block starts the next."""
    group = packer.group
    if not piece.atomic or not group.pieces or group.has_content:
        return False
    last = group.pieces[-1]
    nested = (last.block is not None and kind(last.block.kind).heads
              and last.kinds[0] not in HEADING_KINDS)
    if not nested or (packer.cost_in_fresh_chunk(piece) > packer.limit(piece.start)
                      and not packer.fits_bare(piece)):
        return False
    return _close_before(packer, piece)


def cut_finer(packer: Packer, piece: Piece) -> bool:
    """Guarantees 2 and 1: what fits nowhere whole is cut one seam finer, its first part sized
    to the room left; a block kept whole (``oversized="keep"``), or one character over an
    absurdly small budget, goes in as it is."""
    group = packer.group
    if group.pieces:
        room = packer.group_limit() - group.used
    else:
        room = packer.limit(piece.start) - packer.cutter.prefix_tokens(packer.usable_prefix(piece))
    parts = [] if packer.keep_whole(piece) else packer.cut(piece, room)
    if parts:
        packer.requeue(*parts)
    elif group.pieces:
        packer.add(piece)
    else:
        packer.open(piece)
    return True


#: In order; the last always applies.
RULES: tuple[Rule, ...] = (
    close_at_planned_cut,
    open_fresh_chunk,
    add_if_it_fits,
    tail_keeps_company,
    start_next_chunk,
    breadcrumb_yields,
    shed_spare_headings,
    close_heading_run,
    nested_heading_yields,
    cut_finer,
)
