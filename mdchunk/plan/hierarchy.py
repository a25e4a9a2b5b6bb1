"""Hierarchy: level 1 tiles the document, each finer level is packed inside its parent.

Level 1 is packed like leaves, with the coarsest budget and no overlap, each span stretched
over the blanks after it, so its chunks concatenated are the source. Each finer level is packed
from the part of the tree inside one parent (:meth:`Section.within`): a chunk (and its
overlap) never crosses its parent's span. A parent that fits the finer budget is its own only
child."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..formats.blocks import Block
from .drafts import Draft
from .kit import PackingKit
from .section_packer import SectionPacker
from .sections import Section
from .strategies import BoundaryStrategy

__all__ = ["Node", "plan_hierarchy"]


@dataclass(frozen=True, slots=True)
class Node:
    """A planned chunk of one level: its draft, its parent's position in the level above
    (``None`` at level 1), and the part of the section tree inside it."""

    level: int
    draft: Draft
    parent: int | None
    tree: Section | None


def plan_hierarchy(tops: Sequence[Section], kits: Sequence[PackingKit],
                   strategy: BoundaryStrategy, lead: tuple[Block, ...] = ()) -> list[list[Node]]:
    """The nodes of every level, coarsest first, each level in document order. ``tops`` are the
    document's independent section trees, ``kits[i]`` packs level ``i + 1``, and ``lead`` (front
    matter) goes into the first chunk of level 1."""
    levels = [_top_level(tops, kits[0], strategy, lead)]
    for number, kit in enumerate(kits[1:], start=2):
        levels.append([child for position, parent in enumerate(levels[-1])
                       for child in _children(parent, position, number, kit, strategy)])
    return levels


def _top_level(tops: Sequence[Section], kit: PackingKit, strategy: BoundaryStrategy,
               lead: tuple[Block, ...]) -> list[Node]:
    """Level 1: each top tree packed on its own; ``lead`` joins the first."""
    source = kit.source
    nodes: list[Node] = []
    for i, top in enumerate(tops):
        for draft in SectionPacker(kit, strategy).pack(top, lead if i == 0 else ()):
            nodes.append(Node(1, draft, None, top.within(source, draft.start, draft.end)))
    if not nodes and source.strip():  # front matter and nothing else: one chunk holds it
        draft = kit.drafter.draft(0, len(source), (), [b.kind for b in lead])
        nodes.append(Node(1, draft, None, None))
    return nodes


def _children(parent: Node, position: int, level: int, kit: PackingKit,
              strategy: BoundaryStrategy) -> list[Node]:
    """``parent``'s chunks one level down: itself when it fits the finer budget, else its
    part of the tree packed with that budget; none when it holds front matter alone (no chunk
    embeds raw YAML, and no other text would be left uncovered)."""
    span = parent.draft
    if tuple(span.kinds) == ("front_matter",) and not kit.drafter.shows_text(span.start,
                                                                             span.end):
        return []  # front matter alone (no first block fit beside it): nothing to embed
    alone = kit.drafter.draft(span.start, span.end, span.path, span.kinds, span.prefix)
    if kit.drafter.fits(alone):  # weighed again: the finer budget allows a shorter breadcrumb
        return [Node(level, alone, position, parent.tree)]
    if parent.tree is None:
        return []
    drafts = SectionPacker(kit, strategy).pack(parent.tree)
    return [Node(level, draft, position, parent.tree.within(kit.source, draft.start, draft.end))
            for draft in drafts]
