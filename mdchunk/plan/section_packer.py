"""Section level: a section tree → drafts that fit the token budget. A section that fits is one
unit; one that does not is cut into its intro, packed by the boundary strategy, and its
sub-sections. Small siblings share a chunk; units of different parents never do."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..formats.blocks import Block, kinds_of
from ..formats.kinds import UNSEEN_KINDS, kind, merge_kinds
from .drafts import Draft
from .kit import PackingKit
from .pieces import Piece, block_piece, heading_piece
from .sections import Section
from .strategies import BoundaryStrategy, Run

__all__ = ["SectionPacker"]


def _top_level_blocks(root: Section) -> list[Block]:
    """Every block of the tree in document order (headings included)."""
    blocks: list[Block] = []
    stack = [root]
    while stack:
        section = stack.pop()
        blocks += [*([section.heading] if section.heading else []), *section.blocks]
        stack.extend(reversed(section.children))
    return sorted(blocks, key=lambda b: b.start)


def _innermost_path(section: Section) -> tuple[Block, ...]:
    """The deepest heading path that still holds all of ``section``: a section with no text
    of its own and a single sub-section is, as a whole, about that sub-section."""
    while not section.blocks and len(section.children) == 1:
        section = section.children[0]
    return section.path


def _continued_prefix(section: Section) -> str:
    """The header or fence to repeat when ``section`` starts with a block a coarser level cut
    (only the first section of a parent's part of the tree can)."""
    while section.heading is None and not section.blocks and section.children:
        section = section.children[0]
    first = section.heading or (section.blocks[0] if section.blocks else None)
    return first.prefix if first is not None and first.continued else ""


@dataclass(slots=True)
class _Unit:
    """Drafts of one sibling; ``mergeable`` when the sibling fit whole (one draft)."""

    drafts: list[Draft]
    mergeable: bool
    content_tokens: int = 0


class SectionPacker:
    """Walks the section tree; see the module docstring."""

    def __init__(self, kit: PackingKit, strategy: BoundaryStrategy) -> None:
        self.kit = kit
        self.strategy = strategy
        self.counts = kit.counts
        self.drafter = kit.drafter
        self.max_tokens = kit.max_tokens
        self._section_tokens: dict[int, int] = {}
        self._section_kinds: dict[int, tuple[str, ...]] = {}
        self.root: Section | None = None
        #: Starts of empty sections' headings (and of a hierarchy's front matter): they lead
        #: the next section when there is room and may stand alone when there is none
        #: (guarantee 1 before guarantee 3; for front matter, guarantee 2 before it).
        self.spare_headings: set[int] = set()

    def pack(self, root: Section, lead: tuple[Block, ...] = ()) -> list[Draft]:
        """Drafts of the tree under ``root``; ``lead`` blocks (a hierarchy's front matter) go
        before it and into its first chunk."""
        if not lead and not root.heading and not root.blocks and not root.children:
            return []  # no body (a page of front matter alone): nothing to chunk
        self.counts.use_blocks([*lead, *_top_level_blocks(root)])
        self.root = root
        # front matter leads the first chunk when there is room, and stands alone when the
        # first block would otherwise be cut to make room for it (guarantee 2)
        self.spare_headings.update(b.start for b in lead)
        drafts = [d for unit in self.section(root, lead) for d in unit.drafts]
        return self.attach_lone_headings(drafts)

    def block_tokens(self, block: Block) -> int:
        return self.counts.estimate(block.start, block.end)

    def section_tokens(self, section: Section) -> int:
        key = id(section)
        if key not in self._section_tokens:
            own = sum(self.block_tokens(b) for b in ([section.heading] if section.heading else []))
            own += sum(self.block_tokens(b) for b in section.blocks)
            own += sum(self.section_tokens(c) for c in section.children)
            self._section_tokens[key] = own
        return self._section_tokens[key]

    def section_kinds(self, section: Section) -> tuple[str, ...]:
        key = id(section)
        if key not in self._section_kinds:
            blocks = [section.heading] if section.heading else []
            groups = [kinds_of(b) for b in [*blocks, *section.blocks]]
            groups += [self.section_kinds(c) for c in section.children]
            self._section_kinds[key] = merge_kinds(groups)
        return self._section_kinds[key]

    def whole(self, start: int, end: int, path: Sequence[Block], kinds: Sequence[str],
              content_tokens: int, prefix: str = "") -> _Unit | None:
        """One draft for ``[start, end)`` if it fits: planned by estimate, confirmed exactly.
        ``prefix`` is the header or fence of a block a coarser level cut, when it comes first."""
        crumb_tokens = self.kit.crumbs.tokens(path, start) if path else 0
        if content_tokens + crumb_tokens > self.max_tokens:
            return None
        draft = self.drafter.draft(start, end, path, kinds, prefix)
        return _Unit([draft], True, content_tokens) if self.drafter.fits(draft) else None

    def section(self, section: Section, lead: tuple[Block, ...]) -> list[_Unit]:
        """Units for ``section``; ``lead`` are blocks before it that travel with it: headings of
        empty ancestors (or front matter)."""
        lead_tokens = sum(self.block_tokens(h) for h in lead)
        start = lead[0].start if lead else section.start
        end = max(section.end, lead[-1].end) if lead else section.end
        apart = self.keeps_apart(section)
        whole = None if apart else self.whole(start, end, _innermost_path(section),
                           merge_kinds([tuple(b.kind for b in lead), self.section_kinds(section)]),
                           lead_tokens + self.section_tokens(section),
                           "" if lead else _continued_prefix(section))
        if whole:
            return [whole]
        heading = (section.heading,) if section.heading else ()
        units: list[_Unit] = []
        if section.blocks and (section.shows_blocks or not section.children):
            units.append(self.intro(section, (*lead, *heading)))
            lead = ()
        else:  # comments no reader sees (a licence header) lead the first sub-section too
            lead = (*lead, *heading, *section.blocks)
        empty: list[Block] = []  # headings of a run of empty sections
        for i, child in enumerate(section.children):
            if child.is_empty and i + 1 < len(section.children):
                lead = (*lead, *child.heading_blocks())  # an empty section heads the next one
                # its headings, and those leading straight into it, may stand alone
                self.spare_headings.update(b.start for b in lead)
                empty += [child.heading] if child.heading else []
                continue
            if child.blocks and not kind(child.blocks[0].kind).atomic:
                # steps written as empty headings: all but the first travel with the prose
                self.spare_headings.difference_update(b.start for b in empty[1:])  # under them
            empty = []
            child_units = self.section(child, lead)
            lead = ()
            if len(child_units) == 1 and child_units[0].mergeable:
                units.append(child_units[0])
            else:  # a split child is sealed: its parts never mix with its siblings
                units.append(_Unit([d for u in child_units for d in u.drafts], False))
        if lead:  # headings alone: nothing to pack them with at this level
            draft = self.drafter.draft(lead[0].start, lead[-1].end, section.path, ("heading",))
            if self.drafter.fits(draft):
                units.append(_Unit([draft], True))
            else:  # guarantee 1 first: cut between words, as a heading over budget is elsewhere
                pieces = [heading_piece(h, spare=True) for h in lead]
                units.append(_Unit(self.strategy.pack(Run(pieces, section.path), self.kit),
                                   False))
        return units if apart else self.merge_small(units, section.path)

    def keeps_apart(self, section: Section) -> bool:
        """Sections under different top-level headings never share a chunk (guarantee 3), nor
        does the text before the first of them: the root is drafted whole only when it holds
        one top-level section and nothing else, or no heading at all. (A page title is a path,
        not a section: the headings under it are the top level.)"""
        return section is self.root and (len(section.children) > 1  # a licence header may lead
                                         or (bool(section.children) and section.shows_blocks))

    def intro(self, section: Section, headings: tuple[Block, ...]) -> _Unit:
        """The heading(s) and the blocks before the first sub-section."""
        blocks = section.blocks
        tokens = sum(self.block_tokens(b) for b in (*headings, *blocks))
        kinds = merge_kinds([kinds_of(b) for b in (*headings, *blocks)])
        start = headings[0].start if headings else blocks[0].start
        prefix = "" if headings or not blocks[0].continued else blocks[0].prefix
        whole = self.whole(start, blocks[-1].end, section.path, kinds, tokens, prefix)
        if whole:
            return whole
        pieces = [*(self.lead_piece(h) for h in headings), *map(block_piece, blocks)]
        return _Unit(self.strategy.pack(Run(pieces, section.path), self.kit), False)

    def lead_piece(self, block: Block) -> Piece:
        """A heading, or a comment leading a sub-section, as glue; a comment stays a whole
        block (guarantee 2): it is cut only between lines, like any comment that does not fit."""
        spare = block.start in self.spare_headings
        if block.kind in UNSEEN_KINDS:
            return replace(block_piece(block), glue=True, spare=spare)
        return heading_piece(block, spare=spare)

    def merge_small(self, units: list[_Unit], path: tuple[Block, ...]) -> list[_Unit]:
        """Let sibling units smaller than ``min_tokens`` share a chunk with their neighbours."""
        min_tokens = self.kit.config.min_tokens or 0
        out: list[_Unit] = []
        for unit in units:
            prev = out[-1] if out else None
            if (prev and prev.mergeable and unit.mergeable
                    and min(prev.content_tokens, unit.content_tokens) < min_tokens):
                a, b = prev.drafts[0], unit.drafts[0]
                merged = self.whole(a.start, b.end, path, merge_kinds([a.kinds, b.kinds]),
                                    prev.content_tokens + unit.content_tokens, a.prefix)
                if merged:
                    out[-1] = merged
                    continue
            out.append(unit)
        return out

    def attach_lone_headings(self, drafts: list[Draft]) -> list[Draft]:
        """Guarantee 3: a draft of headings alone joins a neighbour — the next one when that is
        the content under it, else the previous one, else whichever fits."""
        out: list[Draft] = []
        queue = deque(drafts)
        while queue:
            draft = queue.popleft()
            if draft.is_headings_only:
                joined = self._join_lone(draft, out[-1] if out else None,
                                         queue[0] if queue else None)
                if joined is not None:
                    into_next, merged = joined
                    if into_next:
                        queue.popleft()
                    else:
                        out.pop()
                    # headings joined to headings (an empty section's to the run it leads)
                    # are weighed again: still alone, they look for content in turn
                    (queue.appendleft if merged.is_headings_only else out.append)(merged)
                    continue
            out.append(draft)
        return out

    def _join_lone(self, lone: Draft, prev: Draft | None, nxt: Draft | None
                   ) -> tuple[bool, Draft] | None:
        options: list[tuple[bool, Draft]] = []
        if nxt is not None and not nxt.prefix and nxt.start >= lone.end:
            options.append((True, self.drafter.draft(lone.start, nxt.end, nxt.path,
                                             merge_kinds([lone.kinds, nxt.kinds]))))
        if prev is not None:
            options.append((False, self.drafter.draft(prev.start, lone.end, prev.path,
                                              merge_kinds([prev.kinds, lone.kinds]), prev.prefix)))
        if nxt is None or not set(lone.path) <= set(nxt.path):
            options.reverse()  # the next draft is not the content under this heading
        return next((option for option in options if self.drafter.fits(option[1])), None)
