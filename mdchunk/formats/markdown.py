"""Markdown → a flat list of top-level :class:`Block` s with exact character spans.

markdown-it-py does all structure recognition (a ``#`` inside a fence is code, not a heading);
this module only maps its token stream onto spans of the *original* string. markdown-it
normalises CRLF and lone CR to LF but keeps line numbers, so spans are built from line
numbers against the original line starts and stay exact for any line ending.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from markdown_it.token import Token

from .block_maker import BlockMaker, plain_text
from .blocks import Block, Document, LineIndex, tile
from .kinds import KIND_OF_TOKEN, kind
from .markdown_it_parser import block_parser, inline_pass, unused_rules

__all__ = ["parse_markdown"]

# Wrappers whose children are the real blocks (markdown-it gives footnote_block no map).
_TRANSPARENT = frozenset({"footnote_block", "thead", "tbody"})


def parse_markdown(source: str, site: str = "plain") -> Document:
    """Parse ``source`` into top-level blocks whose spans index ``source`` itself; syntax that
    only ``site``'s pages mean (MkDocs content tabs) is read only for it.

    >>> doc = parse_markdown("# Title\\r\\n\\r\\nSome text.\\r\\n")
    >>> [(b.kind, doc.source[b.start:b.end]) for b in doc.blocks]
    [('heading', '# Title'), ('paragraph', 'Some text.')]
    """
    env: dict[str, Any] = {}
    unused = unused_rules(source, site)
    tokens = block_parser(unused).parse(source, env)
    if "footnotes" in env:  # which footnote blocks exist depends on inline references
        tokens = inline_pass(source, tokens, env, site)
    builder = _BlockBuilder(source, LineIndex.of(source), env, _closing_indices(tokens))
    blocks = builder.blocks(tokens, 0, len(tokens))
    # the front_matter rule reads only the document's first line on: its token comes first
    front = tokens[0] if tokens and tokens[0].type == "front_matter" else None
    body = _outermost(b for b in blocks if b.kind != "front_matter")
    return builder.document(body, front)


def _outermost(blocks: Iterable[Block]) -> list[Block]:
    """``blocks`` in order, without those inside another: markdown-it moves a footnote defined
    in a blockquote or list item to the end, as a top-level block whose lines are the
    container's too; the container holds it (a chunk boundary there would cut the container
    and give its lines twice)."""
    out: list[Block] = []
    for block in sorted(blocks, key=lambda b: (b.start, -b.end)):
        if out and block.end <= out[-1].end:
            continue
        out.append(block)
    return out


class _BlockBuilder(BlockMaker):
    """Turns a token range into blocks; one method per idea, no state but the source."""

    def __init__(self, source: str, lines: LineIndex, env: dict[str, Any],
                 closes: dict[int, int]) -> None:
        super().__init__(source, lines, env)
        self.closes = closes  # index of each opening token -> index of its closing token

    def blocks(self, tokens: Sequence[Token], i: int, j: int) -> list[Block]:
        """Blocks for the tokens in ``[i, j)`` that sit at the shallowest nesting depth."""
        out: list[Block] = []
        while i < j:
            token = tokens[i]
            if token.nesting == 1:
                close = self.closes.get(i, j - 1)
                base = token.type[: -len("_open")]
                if base in _TRANSPARENT:
                    out.extend(self.blocks(tokens, i + 1, close))
                else:
                    block = self.container(tokens, i, close, base)
                    if block is not None:
                        out.append(block)
                i = close + 1
            else:
                if token.nesting == 0 and token.map is not None and token.type != "inline":
                    block = self.leaf(token, token.map)
                    if block is not None:
                        out.append(block)
                i += 1
        return out

    def leaf(self, token: Token, line_map: Sequence[int]) -> Block | None:
        """A block of a token without children; ``line_map`` is its (present) ``token.map``."""
        if token.type == "front_matter":
            return self.front_matter(token)
        start, end = self.span(line_map)
        if start >= end:
            return None
        prefix = self.fence_line(start) if token.type == "fence" else ""
        name = KIND_OF_TOKEN.get(token.type, token.type)
        if name == "html":
            return self.html(start, end, token.content)
        return Block(name, start, end, prefix=prefix)

    def container(self, tokens: Sequence[Token], i: int, close: int, base: str) -> Block | None:
        opening = tokens[i]
        line_map = opening.map or _union_map(tokens, i, close)
        if line_map is None:
            return None
        start, end = self.span(line_map)
        if start >= end:
            return None
        name = KIND_OF_TOKEN.get(base, "container" if base.startswith("container_") else base)
        if name == "heading":
            inline = tokens[i + 1]
            if inline.type != "inline":
                return Block(name, start, end, level=int(opening.tag[1:]))
            return self.heading(start, end, int(opening.tag[1:]), inline.content, inline.children)
        if name == "paragraph":
            return self.paragraph(start, end, tokens[i + 1].content)
        if name == "row":
            return self.row(start, end)
        if kind(name).inline:
            return Block(name, start, end)
        children = tuple(tile(self.source, self.blocks(tokens, i + 1, close), start, end))
        if name == "table":
            return self.table(start, end, children)
        if name == "tab":  # a content tab: its label leads a chunk that starts inside it
            label = plain_text(opening.meta.get("label", ""))
            return Block(name, start, end, children, title=label, prefix=label)
        return Block(name, start, end, children)

def _closing_indices(tokens: Sequence[Token]) -> dict[int, int]:
    """Each opening token's index -> its closing token's index, in one pass."""
    closes: dict[int, int] = {}
    opened: list[int] = []
    for k, token in enumerate(tokens):
        if token.nesting == 1:
            opened.append(k)
        elif token.nesting == -1 and opened:
            closes[opened.pop()] = k
    return closes


def _union_map(tokens: Sequence[Token], i: int, close: int) -> tuple[int, int] | None:
    """Line range covered by the tokens inside a block that has no map of its own (footnotes)."""
    maps = [t.map for t in tokens[i:close + 1] if t.map is not None]
    if not maps:
        return None
    return min(m[0] for m in maps), max(m[1] for m in maps)


