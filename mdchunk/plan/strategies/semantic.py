"""The semantic strategy: chunks that hold what belongs together, under the budget.

A run is laid out as *units* (pieces cut at the seams the packer allows anyway, atomic blocks
that fit kept whole), grouped (:func:`groups_of`), scored by a
:class:`~mdchunk.plan.strategies.scorers.SeamScorer`, and
:func:`~mdchunk.plan.strategies.optimal.plan_chunks` chooses the most cohesive chunks. The
greedy :class:`~mdchunk.plan.piece_packer.PiecePacker` then packs the units, closing at each
planned cut, so every guarantee is kept by the same rules as greedy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...text import line_spans
from ..drafts import Draft
from ..kit import PackingKit
from ..overlap import overlap_before
from ..piece_packer import PiecePacker
from ..pieces import Piece
from . import Run
from .optimal import baseline, plan_chunks, reach
from .scorers import SeamScorer

__all__ = ["MAX_REACH", "MIN_UNIT_TOKENS", "Layout", "SemanticStrategy", "groups_of", "lay_out"]

#: Units shorter than this join their neighbour before scoring: "Yes." tells nothing.
MIN_UNIT_TOKENS = 6
#: The farthest apart (in groups) two groups are scored; pairs farther apart count as the
#: baseline. A chunk of 256 tokens holds at most about 40 groups, so this binds only at large
#: budgets (a hierarchy's top level), where it keeps the band (groups x reach numbers) small.
MAX_REACH = 64


@dataclass(frozen=True, slots=True)
class Layout:
    """A run as units, with what the planner weighs: each unit's tokens, the room of a chunk
    that starts with it (its breadcrumb, repeated header and likely overlap taken off), and
    which seams may end a chunk (never after glue, never before a tail)."""

    packer: PiecePacker
    units: list[Piece]
    weights: list[int]
    rooms: list[int]
    allowed: list[bool]

    def texts(self) -> list[str]:
        source = self.packer.kit.source
        return [source[u.start:u.end] for u in self.units]

    def pack(self, cuts: Sequence[int]) -> list[Draft]:
        """The drafts, each chunk closed at the planned ``cuts`` (unit indices)."""
        self.packer.cuts = frozenset(self.units[k].start for k in cuts)
        return self.packer.pack(self.units)


def _splits(packer: PiecePacker, piece: Piece) -> bool:
    """Would cutting ``piece`` one seam finer stop at a seam the strategy weighs (children,
    lines, sentences) rather than fall through to words?"""
    kit = packer.kit
    if piece.seam == "children":
        return piece.block is not None and len(piece.block.children) > 1
    if piece.seam == "lines":
        return len(line_spans(kit.source, piece.start, piece.end)) > 2
    if piece.seam == "sentences":
        return len(kit.sentences.spans(piece.start, piece.end)) > 1
    return False


def _units(packer: PiecePacker, pieces: Sequence[Piece]) -> list[Piece]:
    """Pieces cut into units: prose into sentences; what does not fit a fresh chunk one seam
    finer, while the seam is one of structure (a list into items, code into lines); atomic
    blocks that fit, headings and words stay whole."""
    units: list[Piece] = []
    stack = list(reversed(pieces))
    while stack:
        piece = stack.pop()
        # a block that fits only when its breadcrumb yields stays whole too (guarantee 2)
        fits = (packer.cost_in_fresh_chunk(piece) <= packer.limit(piece.start)
                or packer.fits_bare(piece))
        prose = piece.seam == "sentences" and not piece.atomic
        if (piece.glue or piece.tail or packer.keep_whole(piece) or (fits and not prose)
                or not _splits(packer, piece)):
            units.append(piece)
            continue
        parts = packer.cut(piece, packer.limit(piece.start))
        if len(parts) <= 1:
            units.append(piece)
        else:
            stack.extend(reversed(parts))
    return units


def lay_out(packer: PiecePacker, pieces: Sequence[Piece]) -> Layout:
    """The run's units and their weights, rooms and cuttable seams (see :class:`Layout`)."""
    kit = packer.kit
    units = _units(packer, pieces)
    weights = [packer.tokens(u) for u in units]
    overlap = kit.config.overlap_tokens or 0
    rooms = []
    for k, unit in enumerate(units):
        prefix = packer.usable_prefix(unit)
        room = packer.limit(unit.start) - packer.cutter.prefix_tokens(prefix)
        before = units[k - 1] if k else None
        if (before is not None and before.paragraph is not None and overlap and not prefix
                and not unit.glue):  # the overlap it will likely open with (at most this)
            chosen = overlap_before(before.paragraph, before.end, before.paragraph[0], overlap,
                                    kit.counts, kit.sentences)
            room -= chosen[1] if chosen else 0
        rooms.append(room)
    allowed = [not a.glue and not b.tail for a, b in zip(units, units[1:])]
    return Layout(packer, units, weights, rooms, allowed)


def groups_of(layout: Layout) -> list[list[int]]:
    """The units as the plan weighs them: a unit under :data:`MIN_UNIT_TOKENS` joins the one
    before it (a short sentence ends the thought before it), a heading or a short first unit the
    one after it, and units no allowed seam separates stay together. Chunks end only between
    groups, so every planned cut is at an allowed seam."""
    groups: list[list[int]] = []
    size = 0
    for k, weight in enumerate(layout.weights):
        joins = bool(groups) and (weight < MIN_UNIT_TOKENS or size < MIN_UNIT_TOKENS
                                  or not layout.allowed[k - 1])
        if joins:
            groups[-1].append(k)
            size += weight
        else:
            groups.append([k])
            size = weight
    return groups


class SemanticStrategy:
    """Chunks as cohesive as the scorer finds them. ``threshold`` is the quantile of the run's
    own similarities below which two units are better apart: higher gives more, smaller chunks."""

    def __init__(self, scorer: SeamScorer, threshold: float = 0.5) -> None:
        self.scorer = scorer
        self.name = f"semantic-{scorer.name}"
        self.threshold = threshold

    def pack(self, run: Run, kit: PackingKit) -> list[Draft]:
        layout = lay_out(PiecePacker(kit, run.path), run.pieces)
        return layout.pack(self.plan(layout))

    def plan(self, layout: Layout) -> list[int]:
        """The cuts (unit indices) that make the chunks most cohesive."""
        groups = groups_of(layout)
        if len(groups) < 2:
            return []
        texts = layout.texts()
        weights = [sum(layout.weights[k] for k in g) for g in groups]
        rooms = [layout.rooms[g[0]] for g in groups]
        band = self.scorer.band(["".join(texts[k] + " " for k in g).strip() for g in groups],
                                min(reach(weights, rooms), MAX_REACH))
        cuts = plan_chunks(weights, rooms, band, baseline(band, self.threshold),
                           layout.packer.kit.config.min_tokens or 0)
        return [groups[c][0] for c in cuts]
