"""Hugo callout shortcodes as blocks: the blocks from ``{{< note >}}`` to ``{{< /note >}}``
(tags found by :mod:`.site_markup`), in any run of sibling blocks, become one atomic
``admonition`` block (the rules, and when a pair stays blocks: docs/sites.md, "Callouts")."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

from .blocks import Block, Markup

__all__ = ["group_callouts"]

#: Blocks whose children are blocks a callout may lie among.
_HOLDERS = frozenset({"list", "item", "blockquote", "tabs", "tab", "container", "admonition"})
#: The roles of a tab group's tags.
_TAB_ROLES = frozenset({"tabs", "tabs_end", "tab", "tab_end"})


class _Tags:
    """The callout tags among a document's markup: where each starts (blanks it took along
    left out) and ends, whether it closes, its name; and where tab group tags start."""

    def __init__(self, source: str, markup: Sequence[Markup]) -> None:
        self.found: list[tuple[int, int, bool, str]] = []
        self.shown: list[str] = []  # what the page shows for each
        self.tab_tags: list[int] = []
        for m in markup:
            if m.role in ("callout", "callout_end"):
                self.found.append((_lead(source, m), m.end, m.role == "callout_end", m.name))
                self.shown.append(m.shown)
            elif m.role in _TAB_ROLES:
                self.tab_tags.append(_lead(source, m))
        self.starts = [t[0] for t in self.found]

    def opening_at(self, pos: int) -> int | None:
        """The index of the opening callout tag at ``pos``, if one is there."""
        i = bisect.bisect_left(self.starts, pos)
        if i < len(self.found) and self.found[i][0] == pos and not self.found[i][2]:
            return i
        return None

    def closing_of(self, i: int) -> tuple[int, int] | None:
        """The span of the tag that closes the opening tag ``i`` (same name, nesting counted)."""
        name, depth = self.found[i][3], 0
        for a, b, closing, other in self.found[i + 1:]:
            if other != name:
                continue
            if not closing:
                depth += 1
            elif depth:
                depth -= 1
            else:
                return a, b
        return None

    def tab_tag_within(self, start: int, end: int) -> bool:
        k = bisect.bisect_left(self.tab_tags, start)
        return k < len(self.tab_tags) and self.tab_tags[k] < end


def _lead(source: str, markup: Markup) -> int:
    """Where the tag of ``markup`` starts: after the blanks it took along."""
    start = markup.start
    while start < markup.end and source[start] in " \t":
        start += 1
    return start


def group_callouts(source: str, blocks: Sequence[Block], markup: Sequence[Markup]
                   ) -> tuple[Block, ...]:
    """``blocks`` with each whole callout pair, in any run of siblings, made one
    ``admonition`` block."""
    tags = _Tags(source, markup)
    if not tags.found:
        return tuple(blocks)
    return _group(source, blocks, tags, set())


def _group(source: str, blocks: Sequence[Block], tags: _Tags, used: set[int]
           ) -> tuple[Block, ...]:
    """``blocks`` grouped; ``used`` are the opening tags of pairs already made blocks, which
    each pair made here joins (the innermost run that holds a pair whole makes it: a note in
    a quote is the quote's child, not the quote)."""
    blocks = [replace(b, children=_group(source, b.children, tags, used))
              if b.children and b.kind in _HOLDERS else b for b in blocks]
    out: list[Block] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        lead = block.start  # a block in an item or a quote starts at its line, indentation
        while lead < block.end and source[lead] in " \t>":  # and > and all
            lead += 1
        opening = tags.opening_at(lead)
        if opening in used:
            opening = None
        closing = tags.closing_of(opening) if opening is not None else None
        j = _ending(blocks, i, closing[1]) if closing is not None else None
        if j is None or tags.tab_tag_within(block.start, blocks[j].end) or \
                any(b.kind == "heading" for b in blocks[i:j + 1]):
            out.append(block)
            i += 1
            continue
        assert opening is not None and closing is not None
        note = _callout(blocks[i:j + 1], tags.found[opening][1], closing[0],
                        tags.shown[opening])
        used.add(opening)
        if note.children:  # a pair nested in it
            note = replace(note, children=_group(source, note.children, tags, used))
        out.append(note)
        i = j + 1
    return tuple(out)


def _ending(blocks: Sequence[Block], i: int, end: int) -> int | None:
    """The index of the block from ``i`` on that ends at ``end``, if one does."""
    for j in range(i, len(blocks)):
        if blocks[j].end == end:
            return j
        if blocks[j].end > end:
            return None
    return None


def _callout(blocks: Sequence[Block], open_end: int, close_start: int, label: str) -> Block:
    """The admonition over ``blocks``: one block when the pair lies in one (a paragraph), else
    its blocks as children, a tag alone in its block joined to its neighbour. Its ``label``
    (``Caution: Title``) is its prefix: a chunk that starts inside it repeats it."""
    start, end = blocks[0].start, blocks[-1].end
    label = " ".join(label.split())
    if len(blocks) == 1:
        return Block("admonition", start, end, prefix=label)
    children = list(blocks)
    if children[0].end == open_end:  # the opening tag alone: it leads the next block
        children[1:2] = [replace(children[1], start=children[0].start)]
        del children[0]
    if len(children) > 1 and children[-1].start == close_start:  # the closing tag alone
        children[-2:] = [replace(children[-2], end=children[-1].end)]
    if len(children) == 1 and not children[0].children:
        return Block("admonition", start, end, prefix=label)
    return Block("admonition", start, end, tuple(children), prefix=label)
