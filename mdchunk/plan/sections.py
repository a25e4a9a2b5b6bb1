"""Top-level blocks → a tree of sections, by a heading stack (ATX and setext alike).

Only top-level headings open sections: a heading inside a list or quote belongs to that block.
A skipped level (``#`` then ``###``) simply nests the deeper heading under the shallower one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..formats.blocks import Block, clip
from ..formats.kinds import UNSEEN_KINDS

__all__ = ["Section", "build_sections"]


@dataclass(slots=True)
class Section:
    """A heading, the blocks under it before its first sub-heading, and its sub-sections.

    The root section has no heading and holds what comes before the first heading.
    """

    heading: Block | None
    #: Heading blocks from the outermost ancestor down to this section's own heading.
    path: tuple[Block, ...]
    blocks: list[Block] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)

    @property
    def start(self) -> int:
        first = self.heading or (self.blocks[0] if self.blocks else None)
        return first.start if first else (self.children[0].start if self.children else 0)

    @property
    def end(self) -> int:
        if self.children:
            return self.children[-1].end
        last = self.blocks[-1] if self.blocks else self.heading
        return last.end if last else 0

    @property
    def is_empty(self) -> bool:
        """Nothing under the heading but, at most, other empty sections' headings."""
        return not self.children and all(b.kind == "heading" for b in self.blocks)

    @property
    def shows_blocks(self) -> bool:
        """Does a reader see any of its own blocks (not only HTML comments, or none)?"""
        return any(b.kind not in UNSEEN_KINDS for b in self.blocks)

    def heading_blocks(self) -> list[Block]:
        """This section's heading followed by the headings folded into it."""
        return [*([self.heading] if self.heading else []), *self.blocks]

    def titles(self) -> tuple[str, ...]:
        return tuple(h.title for h in self.path)

    def within(self, source: str, start: int, end: int) -> Section | None:
        """The part of this section inside ``source[start:end]`` (a coarser chunk), blocks the
        span cuts clipped. A section whose heading lies before ``start`` keeps it in ``path``
        only, so chunks of the part carry it in their breadcrumb, not in their text."""
        heading = clip(source, self.heading, start, end) if self.heading else None
        blocks = [part for part in (clip(source, b, start, end) for b in self.blocks) if part]
        children = [part for part in (c.within(source, start, end) for c in self.children
                                      if c.start < end and c.end > start) if part]
        if heading is None and not blocks and not children:
            return None
        return Section(heading, self.path, blocks, children)


def build_sections(blocks: Sequence[Block], root_path: tuple[Block, ...] = ()) -> Section:
    """Nest ``blocks`` under their headings and return the root section.

    ``root_path`` heads every path of the tree (a page title that no heading of the text
    gives): it reaches each chunk's breadcrumb and headings but opens no section.

    >>> from mdchunk.formats import parse_markdown
    >>> doc = parse_markdown("# A\\n\\n## B\\n\\ntext\\n\\n# C\\n\\nmore\\n")
    >>> root = build_sections(doc.blocks)
    >>> [(c.titles(), [g.titles() for g in c.children]) for c in root.children]
    [(('A',), [('A', 'B')]), (('C',), [])]
    """
    root = Section(heading=None, path=root_path)
    stack = [root]
    for block in blocks:
        if block.kind == "heading":
            while len(stack) > 1 and stack[-1].heading.level >= block.level:  # type: ignore[union-attr]
                stack.pop()
            section = Section(heading=block, path=(*stack[-1].path, block))
            stack[-1].children.append(section)
            stack.append(section)
        else:
            stack[-1].blocks.append(block)
    _fold_empty_tails(root)
    return root


def _fold_empty_tails(section: Section) -> None:
    """An empty last sub-section (``## TODO`` at the end) has no content to travel with, so its
    heading becomes a trailing block of the section just before it in the document."""
    for child in section.children:
        _fold_empty_tails(child)
    tails: list[Section] = []
    while section.children and section.children[-1].is_empty:
        tails.append(section.children.pop())  # a section stays empty when headings join it:
    if not tails:                              # all the tails go to one place, in one move
        return
    before = section
    if section.children:
        before = section.children[-1]
        while before.children:
            before = before.children[-1]
    before.blocks.extend(b for tail in reversed(tails) for b in tail.heading_blocks())
