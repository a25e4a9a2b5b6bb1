"""Tab groups as structure: the blocks from an opening group tag (found by :mod:`.site_markup`)
to its closing one, in any run of sibling blocks, become one atomic ``tabs`` block whose
children are its ``tab`` s (the rules, and when a group stays blocks: docs/sites.md, "Tab
groups")."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from .blocks import Block, Markup, clip, rstrip_end

__all__ = ["group_tabs", "tab_spans", "tabs_in"]

_Tag = Literal["open", "close", "tab"]

#: The tab group tags by their markup's role (a tab's closing tag marks nothing).
_TAGS: dict[str, _Tag] = {"tabs": "open", "tabs_end": "close", "tab": "tab"}


def _tags(source: str, markup: Sequence[Markup]) -> list[tuple[int, int, _Tag, str]]:
    """The tab group tags among ``markup``: where each starts (blanks it took along left
    out) and ends, what it is, and the label a tab shows."""
    out: list[tuple[int, int, _Tag, str]] = []
    for m in markup:
        tag = _TAGS.get(m.role)
        if tag is not None:
            a = m.start
            while a < m.end and source[a] in " \t":
                a += 1
            out.append((a, m.end, tag, " ".join(m.shown.split())))
    return out


#: Blocks whose children are blocks a tab group may lie among.
_HOLDERS = frozenset({"list", "item", "blockquote", "container", "admonition"})


def group_tabs(source: str, blocks: Sequence[Block], markup: Sequence[Markup]
               ) -> tuple[Block, ...]:
    """``blocks`` (a document's top level) with each whole tab group, in any run of sibling
    blocks (the top level, a list item's, a quote's), made one ``tabs`` block."""
    tags = _tags(source, markup)
    if not tags:
        return tuple(blocks)
    return _grouped(source, blocks, tags)


def _grouped(source: str, blocks: Sequence[Block], tags: Sequence[tuple[int, int, _Tag, str]]
             ) -> tuple[Block, ...]:
    if not blocks:
        return ()
    lo = bisect.bisect_left(tags, (blocks[0].start,))
    hi = bisect.bisect_left(tags, (blocks[-1].end,))
    tags = tags[lo:hi]  # the tags among these blocks
    if not tags:
        return tuple(blocks)
    blocks = [replace(b, children=_grouped(source, b.children, tags))
              if b.children and b.kind in _HOLDERS else b for b in blocks]
    inner = tab_spans(blocks)  # groups made deeper down: their tags are theirs
    if inner:
        tags = [t for t in tags if not any(a <= t[0] and t[1] <= b for a, b, _ in inner)]
    starts = [b.start for b in blocks]
    groups: list[tuple[int, int, Block]] = []  # first and last block index, the group
    opened: tuple[int, int] | None = None  # the opening tag's block index and start
    tabs: list[tuple[int, str]] = []
    for a, b, tag, label in tags:
        k = bisect.bisect_right(starts, a) - 1
        if k < 0 or blocks[k].end < b:
            opened = None  # not in a top-level block's own text
            continue
        if tag == "open":  # a block in a list item or quote starts at its line's start
            opened = (k, a) if not source[blocks[k].start:a].strip(" \t>") else None
            tabs = []
        elif tag == "tab" and opened is not None:
            tabs.append((a, label))
        elif tag == "close" and opened is not None:
            first = opened[0]
            opened = None
            if b != blocks[k].end or not tabs or \
                    any(block.kind == "heading" for block in blocks[first:k + 1]):
                continue
            groups.append((first, k, _group(source, blocks[first:k + 1], tabs)))
    if not groups:
        return tuple(blocks)
    out: list[Block] = []
    pos = 0
    for first, last, group in groups:
        out.extend(blocks[pos:first])
        out.append(group)
        pos = last + 1
    out.extend(blocks[pos:])
    return tuple(out)


def _group(source: str, blocks: Sequence[Block], tabs: Sequence[tuple[int, str]]) -> Block:
    """The ``tabs`` block over ``blocks``: each tab from its tag to the next one's (the first
    from the group's opening tag, the last to its closing one)."""
    start, end = blocks[0].start, blocks[-1].end
    children = []
    for i, (at, label) in enumerate(tabs):
        tab_start = start if i == 0 else at
        tab_end = rstrip_end(source, tab_start, tabs[i + 1][0]) if i + 1 < len(tabs) else end
        parts = tuple(part for part in (clip(source, b, tab_start, tab_end) for b in blocks)
                      if part is not None)
        children.append(Block("tab", tab_start, tab_end, parts, title=label, prefix=label))
    return Block("tabs", start, end, tuple(children))


def tab_spans(blocks: Sequence[Block]) -> list[tuple[int, int, str]]:
    """Every tab of the outermost ``tabs`` blocks (at the top level, or in a list, quote or
    admonition: MkDocs content tabs may be anywhere): its span and label, in order."""
    out: list[tuple[int, int, str]] = []
    for block in blocks:
        if block.kind == "tabs":
            out.extend((tab.start, tab.end, tab.title) for tab in block.children)
        elif block.children:
            out.extend(tab_spans(block.children))
    return out


def tabs_in(tabs: Sequence[tuple[int, int, str]], start: int, end: int) -> list[str]:
    """The labels of ``tabs`` (ordered, as :func:`tab_spans` gives them) that
    ``[start, end)`` holds text of."""
    i = max(0, bisect.bisect_right([a for a, _, _ in tabs], start) - 1)
    out = []
    for a, b, label in tabs[i:]:
        if a >= end:
            break
        if b > start:
            out.append(label)
    return out
