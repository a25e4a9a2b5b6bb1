"""What every format reader produces: blocks with exact character spans of the source.

A :class:`Document` is a flat list of top-level :class:`Block` s; blocks that may be cut between
their parts (a list's items, a table's rows, a quote's blocks) carry them as children.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Literal, NamedTuple

from .kinds import ATOMIC_KINDS, kind

__all__ = ["NEWLINE", "Block", "Document", "Line", "LineIndex", "Markup", "Rewrite", "Role", "clip",
           "kinds_of", "line_start", "lines_of", "rewrite_spans", "rstrip_end", "tile"]

#: The line breaks markdown-it normalises, and the only ones mdchunk knows.
NEWLINE = re.compile(r"\r\n?|\n")


def line_start(source: str, at: int) -> int:
    """Where the line holding ``at`` starts (after the last ``\\n`` or ``\\r`` before it), in time
    that follows the line's length, not the source's: ``rfind`` of one kind of break runs to
    the start of a source that has none of that kind (a page of lone-CR lines), so the search
    widens a window fourfold until a break or the start is inside it."""
    width = 256
    while True:
        low = max(0, at - width)
        found = max(source.rfind("\n", low, at), source.rfind("\r", low, at))
        if found >= 0 or low == 0:
            return found + 1
        width *= 4

#: A span of the source and what ``embed_text`` shows in its place: ``""`` for markup no page
#: shows (a comment, ``{#id}``, ``{{< /note >}}``), the visible text for markup a page renders
#: as other text (``{{< glossary_tooltip text="node" >}}`` → ``node``).
Rewrite = tuple[int, int, str]

#: What a span of generator markup is, beyond the text it shows: ``text`` (only that), the
#: opening and closing tags of a callout (``{{< note >}}``), of a tab group and of a tab (the
#: passes of :mod:`.callouts` and :mod:`.tabs` make blocks of them), and a reference to another
#: file's text (``include``: a shortcode or a ``CodeBlock``; ``snippet``: an MkDocs snippet
#: line), which :mod:`.includes` puts in.
Role = Literal["text", "callout", "callout_end", "tabs", "tabs_end", "tab", "tab_end",
               "include", "snippet"]


class Markup(NamedTuple):
    """A span of generator markup: what the page shows in its place, and what it is."""

    start: int
    end: int
    #: The text the rendered page shows instead (``""``: nothing).
    shown: str
    role: Role = "text"
    #: What the role needs besides: a callout's type (``note``), an include's path as written.
    name: str = ""


@dataclass(frozen=True, slots=True)
class Block:
    """A node of the block tree: a kind, a span of the source, and the children it may be cut
    between (list items, table rows, the blocks of a quote). Leaves have no children; the packer
    cuts those by lines, sentences or words."""

    kind: str
    start: int
    end: int
    children: tuple[Block, ...] = ()
    #: Heading level 1–6 for headings, 0 otherwise.
    level: int = 0
    #: Heading text without markup; empty for other kinds.
    title: str = ""
    #: A heading's explicit id (``## Title {#id}``, ``## Title {/* #id */}``), taken out of
    #: ``title``; empty when it has none (see :func:`mdchunk.formats.block_maker.split_heading_id`).
    heading_id: str = ""
    #: Text repeated in ``embed_text`` when the block is cut: a table's header, a code fence.
    prefix: str = ""
    #: The rest of a block whose start a coarser chunk took (see :func:`clip`): a chunk that
    #: starts with it repeats ``prefix``, as one that starts inside a cut block does.
    continued: bool = False


@dataclass(frozen=True, slots=True)
class LineIndex:
    """Character offset of every line start, for any mix of CRLF, CR and LF."""

    starts: tuple[int, ...]
    length: int

    @classmethod
    def of(cls, source: str, lines: Sequence[str] | None = None) -> LineIndex:
        """The index of ``source``; ``lines``: its ``split("\\n")``, when the caller has it."""
        if "\r" in source:
            starts = [0, *[m.end() for m in NEWLINE.finditer(source)]]
        else:  # LF only: line lengths from split, summed in C
            lengths = map(len, source.split("\n") if lines is None else lines)
            starts = list(accumulate(map((1).__add__, lengths), initial=0))
            starts.pop()  # the start of a line after the end
        return cls(tuple(starts), len(source))

    def offset(self, line: int) -> int:
        """Start of 0-based ``line``; past the last line, the end of the source."""
        return self.starts[line] if line < len(self.starts) else self.length

    def line_of(self, offset: int) -> int:
        """1-based line number holding character ``offset``."""
        return bisect.bisect_right(self.starts, offset)


@dataclass(frozen=True, slots=True)
class Document:
    """A read document: top-level blocks in source order and the raw front matter, if any."""

    source: str
    blocks: tuple[Block, ...]
    front_matter: str | None
    lines: LineIndex
    #: Where the front matter lies, fences included: the chunks of a hierarchy's first level
    #: tile the whole source, so the first one holds it.
    front_matter_block: Block | None = None
    #: Spans of HTML comments (``<!-- -->``, block or inline, outside code), in order: text no
    #: site shows, which ``html_comments="drop"`` leaves out of ``embed_text``.
    comments: tuple[tuple[int, int], ...] = ()
    #: Spans of headings' attribute blocks (``{#id}``, ``{/* #id */}``): markup no site shows,
    #: always left out of ``embed_text``.
    id_markup: tuple[tuple[int, int], ...] = ()
    #: Generator markup (shortcodes, JSX, MDX imports, roles, admonition markers), the text
    #: its page shows instead and what each is, in order (:mod:`mdchunk.formats.site_markup`).
    markup: tuple[Markup, ...] = ()
    #: Spans of link reference definitions inside a list item or a quote, their lines' quote
    #: markers with them (those at the top level are ``link_definitions`` blocks): the page's
    #: metadata, never its text, always left out of ``embed_text``.
    definitions: tuple[tuple[int, int], ...] = ()

    def hidden(self, comments: bool, also: Sequence[tuple[int, int]] = ()
               ) -> tuple[Rewrite, ...]:
        """What ``embed_text`` shows differently, in order, none overlapping another: the
        front matter (which only a hierarchy's first level tiles: no chunk embeds raw YAML),
        link reference definitions (the page's metadata, at the top level or nested), heading
        id markup, ``also`` (spans a later stage finds: images' destinations, see
        :func:`mdchunk.plan.visible.page_hidden`) and, when ``comments``, the HTML comments
        left out; generator markup rewritten."""
        front = self.front_matter_block
        spans = sorted((*(((front.start, front.end, ""),) if front is not None else ()),
                        *((a, b, "") for a, b in also),
                        *((b.start, b.end, "") for b in self.blocks
                          if b.kind == "link_definitions"),
                        *((a, b, "") for a, b in self.definitions),
                        *((a, b, "") for a, b in self.id_markup),
                        *((a, b, "") for a, b in (self.comments if comments else ())),
                        *((m.start, m.end, m.shown) for m in self.markup)),
                       key=lambda r: (r[0], -r[1]))
        out: list[Rewrite] = []
        for span in spans:
            if out and span[0] < out[-1][1]:
                continue  # inside one already taken (an MDX comment that gives a heading id)
            out.append(span)
        return tuple(out)


@dataclass(slots=True)
class Line:
    """One line of the source, without its line break."""

    start: int
    end: int
    text: str


def lines_of(source: str) -> list[Line]:
    """Every line of ``source``, for any mix of CRLF, CR and LF."""
    index = LineIndex.of(source)
    out = []
    for i, start in enumerate(index.starts):
        end = index.starts[i + 1] if i + 1 < len(index.starts) else len(source)
        text = source[start:end].rstrip("\r\n")
        out.append(Line(start, start + len(text), text))
    return out


def tile(source: str, blocks: list[Block], start: int, end: int) -> list[Block]:
    """Stretch ``blocks`` so that, blanks aside, they cover ``source[start:end]`` without gaps.

    markdown-it emits no token for some text (link reference definitions, a quote's bare ``>``
    lines). Each such gap joins the block before it (the first block takes what precedes it),
    so a heading still starts a section and a cut between blocks never drops a non-blank
    character (guarantee 4).
    """
    out: list[Block] = []
    count = len(blocks)
    for i, block in enumerate(blocks):
        first, last = block.start, block.end
        if i == 0 and start < first:
            first = _lstrip_start(source, start, first)
        next_start = blocks[i + 1].start if i + 1 < count else end
        if last < next_start and not source[last:next_start].isspace():
            last = rstrip_end(source, last, next_start)
        out.append(block if first == block.start and last == block.end
                   else replace(block, start=first, end=last))
    return out


def clip(source: str, block: Block, start: int, end: int) -> Block | None:
    """The part of ``block`` inside ``source[start:end]``, blanks at its ends left out; ``None``
    when no text of it lies there.

    A hierarchy packs each level inside the chunks of the level above, which may have cut a
    block between its items, rows, lines or sentences; the part keeps the kind, the children
    that fall inside and, when its start was cut away, is ``continued``.
    """
    if start <= block.start and block.end <= end:
        return block
    lo, hi = max(block.start, start), min(block.end, end)
    if lo >= hi:
        return None
    # A block may hold text after its last child (tile() gives it what markdown-it skipped):
    # the part spans what lies inside, not just its children.
    lo, hi = _lstrip_start(source, lo, hi), rstrip_end(source, lo, hi)
    if lo >= hi:
        return None
    children = tuple(part for part in (clip(source, child, lo, hi) for child in block.children)
                     if part is not None)
    prefix = block.prefix
    if not prefix and children and children[0].kind == "tab" and children[0].continued:
        prefix = children[0].prefix  # a tab group cut inside a tab repeats that tab's label
    return replace(block, start=lo, end=hi, children=children, prefix=prefix,
                   continued=block.continued or block.start < start)


def rewrite_spans(source: str, start: int, end: int, rewrites: Sequence[Rewrite]) -> str:
    """``source[start:end]`` with each of ``rewrites`` (ordered, within it) replaced by its
    text."""
    parts, pos = [], start
    for a, b, text in rewrites:
        parts.append(source[pos:a])
        parts.append(text)
        pos = b
    parts.append(source[pos:end])
    return "".join(parts)


def _lstrip_start(source: str, start: int, end: int) -> int:
    """``start`` moved on over blanks, not past ``end``."""
    return end - len(source[start:end].lstrip())


def rstrip_end(source: str, start: int, end: int) -> int:
    """``end`` moved back over blanks, not past ``start``."""
    tail = source[max(start, end - _TAIL):end]  # a block ends in a line break or a few blanks:
    kept = len(tail.rstrip())                    # stripped in C, in a bounded slice
    if kept or len(tail) < _TAIL:
        return end - len(tail) + kept
    while end > start and source[end - 1].isspace():
        end -= 1
    return end


#: Characters :func:`rstrip_end` strips at once; longer runs of blanks are walked.
_TAIL = 64


def kinds_of(block: Block) -> tuple[str, ...]:
    """The block's kind and the atomic blocks nested in it, in order of first appearance.

    Paragraphs inside a list or quote are how markdown-it spells an item's text, not a
    paragraph a reader sees, so only the outer kind and nested atomic blocks are reported.
    """
    if not block.children:  # most blocks: nothing nested to look through
        return () if kind(block.kind).structural else (block.kind,)
    seen: dict[str, None] = {} if kind(block.kind).structural else {block.kind: None}
    stack = list(reversed(block.children))
    while stack:
        node = stack.pop()
        if node.kind in ATOMIC_KINDS and not kind(node.kind).structural:
            seen.setdefault(node.kind, None)
        stack.extend(reversed(node.children))
    return tuple(seen)
