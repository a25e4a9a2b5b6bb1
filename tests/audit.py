"""Check chunks against the contract's guarantees, independently of how they were made.

A test oracle, not a feature: no command offers it, so it lives with the tests (and the
benchmarks import it from here to judge peer chunkers alike).

The checks take only the source and chunk spans (plus token counts), so the same code judges
mdchunk in the property tests and every peer chunker in the benchmarks. Structure is re-derived
from markdown-it here, never taken from the chunker under test.
"""

from __future__ import annotations

import bisect
import functools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from mdchunk.formats import Block, parse_markdown
from mdchunk.formats.kinds import ATOMIC_KINDS, UNSEEN_KINDS
from mdchunk.formats.site_markup import render_markup
from mdchunk.plan import Section, build_sections
from mdchunk.plan.breadcrumbs import CRUMB_SHARE
from mdchunk.text import clean_text, sentence_spans
from mdchunk.text.inline import inline_spans
from mdchunk.tokens import TokenCounter

__all__ = ["Span", "StructureReport", "as_read", "audit_markdown", "cut_blocks",
           "embed_text_problems", "headings_only", "inline_code", "inline_cuts",
           "shared_top_sections", "uncovered"]

Span = tuple[int, int]


@dataclass(slots=True)
class StructureReport:
    """Violations found in one document's chunks (empty lists mean none)."""

    chunks: int = 0
    over_budget: list[int] = field(default_factory=list)
    cut: list[tuple[str, Span]] = field(default_factory=list)
    headings_only: list[int] = field(default_factory=list)
    shared_top: list[int] = field(default_factory=list)
    uncovered: list[Span] = field(default_factory=list)
    tiny: list[int] = field(default_factory=list)
    #: Chunk boundaries inside an inline construct (a link, an image, a code span, emphasis,
    #: an HTML element) that does not alone exceed the budget, with that construct's span.
    inline_cut: list[tuple[int, Span]] = field(default_factory=list)

    def cut_by_kind(self) -> Counter[str]:
        return Counter(kind for kind, _ in self.cut)


def _atomic_blocks(blocks: Sequence[Block]) -> Iterator[Block]:
    """Atomic blocks at any depth: a code block inside a list item is atomic too."""
    for block in blocks:
        if block.kind in ATOMIC_KINDS:
            yield block
        yield from _atomic_blocks(block.children)


def _leads(blocks: Sequence[Block]) -> dict[int, int]:
    """For each top-level block that directly follows headings: where those headings start.
    Blocks no site shows (HTML comments) between them do not end the run: a heading with only
    a comment under it has no content of its own either."""
    out: dict[int, int] = {}
    lead_start: int | None = None
    for block in blocks:
        if block.kind == "heading":
            lead_start = block.start if lead_start is None else lead_start
        elif block.kind in UNSEEN_KINDS and lead_start is not None:
            continue
        else:
            if lead_start is not None:
                out[block.start] = lead_start
            lead_start = None
    return out


def _tails(blocks: Sequence[Block]) -> dict[int, int]:
    """For each top-level block followed by headings of empty sections at the end of their
    parent (``## TODO`` with nothing under it): where those headings end. Such headings have
    no content of their own, so they travel with the block before them."""
    out: dict[int, int] = {}

    def walk(section: Section) -> None:
        for i, block in enumerate(section.blocks):
            if block.kind == "heading" and i > 0 and section.blocks[i - 1].kind != "heading":
                owner = section.blocks[i - 1]
                end = block.end
                for later in section.blocks[i + 1:]:
                    if later.kind != "heading":
                        break
                    end = later.end
                out[owner.start] = end
        for child in section.children:
            walk(child)

    walk(build_sections(blocks))
    return out


def cut_blocks(source: str, blocks: Sequence[Block], spans: Sequence[Span], counter: TokenCounter,
               max_tokens: int, tiled: bool = False) -> list[tuple[str, Span]]:
    """Atomic blocks that fit a chunk yet have a chunk boundary strictly inside them.

    A block "fits" when it and the headings that must travel with it (those right before it,
    and empty sections' headings right after it or after the top-level block it ends) fit
    ``max_tokens`` together: a breadcrumb
    yields to the block, down to nothing if need be. When the chunks are ``tiled`` (a
    hierarchy's level 1, guarantee 6), the chunk holding a block also holds the blank lines
    after it and the indentation before it, so they count too.
    """

    bounds = sorted({p for span in spans for p in span})
    leads, tails = _leads(blocks), _tails(blocks)
    # a block nested last in a top-level block ends where it does: the headings after it travel
    # with it too
    ends = {b.end: tails[b.start] for b in blocks if b.start in tails}
    top_ends = sorted(ends)
    cut = []
    for block in _atomic_blocks(blocks):
        lead = leads.get(block.start, block.start)
        tail = max(block.end, tails.get(block.start, block.end))
        k = bisect.bisect_left(top_ends, block.end)
        if k < len(top_ends) and not source[block.end:top_ends[k]].strip():
            tail = max(tail, ends[top_ends[k]])
        if tiled:
            lead, tail = _line_start(source, lead), _after_blank_lines(source, tail)
        need = counter.count(source[lead:tail])
        if need > max_tokens:
            continue
        i = bisect.bisect_right(bounds, block.start)
        j = bisect.bisect_left(bounds, block.end)
        if any(source[block.start:p].strip() and source[p:block.end].strip() for p in bounds[i:j]):
            cut.append((block.kind, (block.start, block.end)))
    return cut


def _line_start(source: str, start: int) -> int:
    """Where a tile that starts with the text at ``start`` starts: before the indentation in
    front of it (a tile's indentation is its own)."""
    while start > 0 and source[start - 1] in " \t":
        start -= 1
    return start


def _after_blank_lines(source: str, end: int) -> int:
    """Where a tile that ends with the text before ``end`` ends: after the line breaks that
    follow it (all of the tail at the end of the source)."""
    after = len(source) - len(source[end:].lstrip()) if source[end:].strip() else len(source)
    if after == len(source):
        return after
    return max(end, source.rfind("\n", end, after) + 1, source.rfind("\r", end, after) + 1)


def as_read(source: str, spans: Sequence[Span], clean: bool = True) -> tuple[str, list[Span]]:
    """The text a chunker with hygiene on reads (``source`` cleaned by
    :func:`mdchunk.text.clean_text`) and ``spans`` of ``source`` as spans of it.

    Structure (headings, blocks, sentences) is found in the cleaned text, while chunks' offsets
    refer to ``source``; the structural checks judge chunks against the text that was read.
    Characters hygiene removes are no text to cover (guarantee 4).

    >>> as_read("a\\u200bb\\n\\nc", [(0, 3), (5, 6)])
    ('ab\\n\\nc', [(0, 2), (4, 5)])
    """
    if not clean:
        return source, list(spans)
    cleaned = clean_text(source)
    if not cleaned.changed:
        return source, list(spans)
    return cleaned.text, [(cleaned.from_source(a), cleaned.from_source(b)) for a, b in spans]


def uncovered(source: str, spans: Sequence[Span], body_start: int = 0) -> list[Span]:
    """Runs of non-blank characters after ``body_start`` that no chunk contains (guarantee 4)."""
    covered = sorted(spans)
    gaps, pos = [], body_start
    for start, end in covered:
        if start > pos and source[pos:start].strip():
            gaps.append((pos, start))
        pos = max(pos, end)
    if source[pos:].strip():
        gaps.append((pos, len(source)))
    return gaps


def _empty_headings(blocks: Sequence[Block]) -> set[int]:
    """Starts of headings whose section (up to the next heading of the same or a higher
    level) holds nothing but headings: sections with no content to travel with."""
    empty = set()
    for i, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        for later in blocks[i + 1:]:
            if later.kind == "heading" and later.level <= block.level:
                empty.add(block.start)
                break
            if later.kind != "heading":
                break
        else:
            empty.add(block.start)
    return empty


def _leading_headings(blocks: Sequence[Block], empty: set[int]) -> set[int]:
    """Starts of headings followed straight by a deeper heading of an ``empty`` section, or of
    a section that leads to one: ``# Ops`` before ``## TODO`` travels with it."""
    leading: set[int] = set()
    for block, after in reversed(list(zip(blocks, blocks[1:]))):
        if (block.kind == "heading" and after.kind == "heading" and after.level > block.level
                and (after.start in empty or after.start in leading)):
            leading.add(block.start)
    return leading


def headings_only(blocks: Sequence[Block], spans: Sequence[Span]) -> list[int]:
    """Indices of chunks whose every block is a heading (guarantee 3).

    Headings of empty sections have no content to travel with; they join a neighbour when one
    has room, and may stand alone when none does (the budget comes first), so a chunk made only
    of them is not counted; nor is one of the headings that lead straight into them.
    """
    if all(b.kind == "heading" for b in blocks):
        return []  # a document of nothing but headings has no body to join
    starts = [b.start for b in blocks]
    empty = _empty_headings(blocks)
    empty |= _leading_headings(blocks, empty)
    out = []
    for index, (start, end) in enumerate(spans):
        i = max(0, bisect.bisect_right(starts, start) - 1)
        inside = [b for b in blocks[i:] if b.start < end and b.end > start]
        if (inside and all(b.kind == "heading" for b in inside)
                and not all(b.start in empty for b in inside)):
            out.append(index)
    return out


def shared_top_sections(blocks: Sequence[Block], spans: Sequence[Span]) -> list[int]:
    """Indices of chunks holding content (anything but headings) of two top-level sections, or
    of one and the text before the first heading (guarantee 3's second sentence).

    Top-level sections are the children of the section tree's root: under a lone ``#`` title,
    its ``##`` sections share that parent and are not top-level.
    """
    root = build_sections(blocks)
    not_content = {"heading", *UNSEEN_KINDS}  # a section's headings, and comments no reader sees
    owners: list[tuple[int, int, int]] = [(b.start, b.end, -1) for b in root.blocks
                                          if b.kind not in not_content]
    for number, top in enumerate(root.children):
        stack = [top]
        while stack:
            section = stack.pop()
            owners += [(b.start, b.end, number) for b in section.blocks
                       if b.kind not in not_content]
            stack.extend(section.children)
    owners.sort()
    starts = [start for start, _, _ in owners]
    out = []
    for index, (start, end) in enumerate(spans):
        i = max(0, bisect.bisect_right(starts, start) - 1)
        tops = {top for a, b, top in owners[i:bisect.bisect_left(starts, end)]
                if a < end and b > start}
        if len(tops) > 1:
            out.append(index)
    return out


def _recording_backtick(state: StateInline, silent: bool) -> bool:
    """markdown-it's code span rule, noting where each code span of the text parsed lies."""
    start, tokens = state.pos, len(state.tokens)
    if not backtick(state, silent):
        return False
    if not silent and len(state.tokens) > tokens and state.tokens[-1].type == "code_inline":
        state.env["code"].append((state.src, start, state.pos))
    return True


@functools.lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    """markdown-it's inline rules with the plugins whose syntax can hold a backtick (math,
    footnote references), the code span rule recording."""
    md = MarkdownIt("commonmark").enable(["strikethrough"])
    md.use(dollarmath_plugin).use(footnote_plugin)
    md.inline.ruler.at("backticks", _recording_backtick)
    return md


def inline_code(source: str, start: int, end: int) -> list[Span]:
    """Spans of ``source`` that markdown-it reads as code spans in the paragraph
    ``source[start:end]`` (backticks included). Code in an image's description, which
    markdown-it parses as a text of its own, is left out."""
    text = source[start:end]
    if "`" not in text:
        return []
    # markdown-it turns CRLF and CR into LF and NUL into U+FFFD: do it keeping every offset
    text = text.replace("\r\n", " \n").replace("\r", "\n").replace("\x00", "\ufffd")
    env: dict[str, Any] = {"code": []}
    _inline_parser().parseInline(text, env)
    return [(start + a, start + b) for src, a, b in env["code"] if src == text]


def overlap_problems(source: str, blocks: Sequence[Block], spans: Sequence[Span],
                     counter: TokenCounter, overlap_tokens: int) -> list[str]:
    """Guarantee 5: an overlap is whole sentences of one paragraph (ended by punctuation or the
    paragraph, not by a line break inside a sentence), within ``overlap_tokens``; neither of its
    ends lies inside a code span, as markdown-it reads the paragraph (:func:`inline_code`)."""
    problems = []
    for i in range(1, len(spans)):
        prev_end, start = spans[i - 1][1], spans[i][0]
        if start >= prev_end:
            continue
        region = source[start:prev_end]
        where = f"chunk {i} overlap {region[:40]!r}"
        if counter.count(region) > overlap_tokens:
            problems.append(f"{where}: {counter.count(region)} tokens > {overlap_tokens}")
        holder = [b for b in blocks if b.start <= start and prev_end <= b.end]
        if not holder or holder[0].kind != "paragraph":
            problems.append(f"{where}: not inside one top-level paragraph")
            continue
        whole = sentence_spans(source, holder[0].start, holder[0].end, at_line_breaks=False)
        if start not in {a for a, _ in whole}:  # a line break inside a sentence is no start
            problems.append(f"{where}: does not start at a sentence")
        if prev_end not in {b for _, b in whole}:
            problems.append(f"{where}: does not end at a sentence's end")
        for a, b in inline_code(source, holder[0].start, holder[0].end):
            if a < start < b or a < prev_end < b:  # a sentence starts at a span's backtick
                problems.append(f"{where}: an end inside the code span {source[a:b][:40]!r}")
    return problems


def _prose_leaves(blocks: Sequence[Block], prefix: str = "") -> Iterator[tuple[Block, str]]:
    """The paragraphs, headings and table rows of the block tree, in order, each with the
    header a chunk that starts inside it repeats (a table's)."""
    for block in blocks:
        if block.kind in ("paragraph", "heading", "row"):
            yield block, prefix
        else:
            yield from _prose_leaves(block.children, block.prefix or prefix)


def inline_cuts(source: str, blocks: Sequence[Block], spans: Sequence[Span],
                counter: TokenCounter, max_tokens: int, company: bool = True
                ) -> list[tuple[int, Span]]:
    """Chunk ends and starts inside an inline construct of prose (:func:`inline_spans`: a
    link, an image, a code span, emphasis, an HTML element) that fits a chunk of its own with
    the largest breadcrumb: ``(chunk index, construct)``. With ``company``, a cut that gives
    headings alone their company (guarantees 1 and 3 leave no other) is excused."""
    room = max_tokens - max_tokens // CRUMB_SHARE - 2
    found_leaves = [(b, prefix) for b, prefix in _prose_leaves(blocks)
                    if any(c in source[b.start:b.end] for c in "[*_~<`")]
    if not found_leaves:
        return []
    leaves = [b for b, _ in found_leaves]
    rooms = []
    for _, prefix in found_leaves:  # a repeated header takes its share, unless half the room
        header = counter.count(prefix + "\n") if prefix else 0
        rooms.append(room - header if 2 * header <= room else room)
    starts = [b.start for b in leaves]
    headings = [(b.start, b.end) for b in blocks if b.kind == "heading"]
    found: dict[int, list[Span]] = {}
    out = []
    excused: set[Span] = set()
    for index, span in enumerate(spans):
        for at in span:
            i = bisect.bisect_right(starts, at) - 1
            if i < 0 or not leaves[i].start < at < leaves[i].end:
                continue
            if i not in found:
                found[i] = inline_spans(source, leaves[i].start, leaves[i].end)
            for a, b in found[i]:
                if not a < at < b or counter.count(source[a:b]) > rooms[i] or (a, b) in excused:
                    continue
                if company and at == span[1] and _headings_alone(source, headings, span[0], a):
                    excused.add((a, b))  # guarantee 3 first: cut so the headings have company
                    continue
                out.append((index, (a, b)))
    return out


def _headings_alone(source: str, headings: Sequence[Span], start: int, end: int) -> bool:
    """Does ``source[start:end]`` hold headings and nothing else a reader sees (blanks, list
    and quote markers)?"""
    text = source[start:end]
    for a, b in headings:
        if a < end and b > start:
            text = text.replace(source[max(a, start):min(b, end)], " ", 1)
    return bool(headings) and not text.strip(" \t\r\n>-*+0123456789.)")


def embed_text_problems(source: str, chunks: Sequence[tuple[int, int, str]],
                        site: str = "plain") -> list[str]:
    """What ``embed_text`` must never hold, for ``chunks`` as ``(start, end, embed_text)`` of
    ``source`` read for ``site`` with comments dropped: the front matter (raw YAML) and any
    HTML comment, wherever it stands (a list item, a quote, a table, a tab)."""
    doc = parse_markdown(source, site)
    front = doc.front_matter_block
    yaml = source[front.start:front.end].strip("-\r\n \t") if front is not None else ""
    problems = []
    for i, (start, end, embed_text) in enumerate(chunks):
        if len(yaml) > 8 and start < front.end and yaml in embed_text:  # type: ignore[union-attr]
            problems.append(f"chunk {i}: front matter in embed_text")
        for a, b in doc.comments:
            if start <= a and b <= end and b - a > 8 and source[a:b] in embed_text:
                problems.append(f"chunk {i}: comment {source[a:b][:40]!r} in embed_text")
    return problems


def _crowded_heading_runs(source: str, blocks: Sequence[Block], counter: TokenCounter,
                          max_tokens: int) -> list[Span]:
    """Spans of the runs of consecutive headings that leave no room for content: with the
    largest breadcrumb a chunk may carry (a sixteenth of the budget), a blank line and one token
    of content they exceed ``max_tokens``. The budget comes first (guarantee 1): such headings,
    or the pieces of one cut to fit, may stand alone, like the headings of empty sections."""
    room = max_tokens - max_tokens // CRUMB_SHARE - 2
    runs: list[Span] = []
    run: list[Block] = []
    for block in [*blocks, None]:
        if block is not None and block.kind == "heading":
            run.append(block)
            continue
        if run and counter.count(source[run[0].start:run[-1].end]) > room:
            runs.append((run[0].start, run[-1].end))
        run = []
    return runs


def audit_markdown(source: str, spans: Sequence[Span], token_counts: Sequence[int],
                   counter: TokenCounter, max_tokens: int, tiny_tokens: int = 16,
                   tiled: bool = False, site: str = "plain") -> StructureReport:
    """Judge any chunker's output on a Markdown document by the contract's guarantees
    (``tiled``: the spans tile the source, as a hierarchy's level 1 does), as read for
    ``site`` (MkDocs content tabs are blocks only on an MkDocs page)."""
    doc = render_markup(parse_markdown(source, site), site)  # its kinds as the chunker reads them
    body_start = doc.blocks[0].start if doc.blocks else len(source)
    big = _crowded_heading_runs(source, doc.blocks, counter, max_tokens)
    return StructureReport(
        inline_cut=inline_cuts(source, doc.blocks, spans, counter, max_tokens),
        chunks=len(spans),
        over_budget=[i for i, n in enumerate(token_counts) if n > max_tokens],
        cut=cut_blocks(source, doc.blocks, spans, counter, max_tokens, tiled),
        headings_only=[i for i in headings_only(doc.blocks, spans)
                       if not any(a <= spans[i][0] and spans[i][1] <= b for a, b in big)],
        shared_top=shared_top_sections(doc.blocks, spans),
        uncovered=uncovered(source, spans, body_start),
        tiny=[i for i, n in enumerate(token_counts) if n < tiny_tokens],
    )
