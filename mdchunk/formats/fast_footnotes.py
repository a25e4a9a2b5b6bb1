"""Footnotes read fast: a page with footnote definitions read by the Rust parser as
markdown-it-py with mdit-py-plugins' ``footnote`` plugin reads it (:mod:`.markdown_rs`).

markdown-it-py's ``footnote_tail`` rule moves every definition that the inline pass found
referenced to the end of the token stream and drops the others; mdchunk puts a moved one back
where its lines are (:func:`~.markdown._outermost`), as a ``footnote`` block whose span is
the lines of its content. So what the fast reader needs is where each definition lies, its
content's blocks, and which labels markdown-it-py's inline pass references.

The Rust parser's ``footnote`` plugin parses a definition's content as markdown-it-py does only
where both start one alike: here, at the first column, after a blank line (or right after a
definition's paragraph, which both end at the next definition), and with fewer than four
spaces and no tab after its colon; a page with a definition-like ``[^label]:`` anywhere else
or a label defined twice goes to the reference. The Rust plugin's own references (a
``[^label]`` or ``^[note]`` anywhere in inline text, code spans too) are hidden from it: each
``[^`` but a definition's, and each ``^[``, is given to it with a character the page does not
hold in place of ``^``, and one line of references after the page keeps every definition in
its tree. Which labels are referenced is decided by markdown-it-py's own inline rules over the
inline content that holds a ``[^``, with the link reference definitions and footnote labels of
the page, as its inline pass decides it (an inline footnote makes no block: the reference's
``footnote`` block of one has no lines; the references inside it are found).
The footnotes are read after the rest, in the order of their first references, as the
reference reads the tokens ``footnote_tail`` moved (the comments and heading ids found in them
recorded in that order).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from markdown_it.common.utils import normalizeReference

from .blocks import Block, tile
from .markdown_it_parser import full_parser

if TYPE_CHECKING:
    from markdown_it_pyrs import MarkdownIt as RustMarkdownIt

    from .block_maker import BlockMaker

__all__ = ["Definition", "FootnotedTree", "NodeReader", "definitions"]

#: A definition's start as markdown-it-py's ``footnote_def`` rule reads it: ``[^``, a label
#: without a space, ``]:``; anywhere, so that one off the first column is seen.
_DEFINITION = re.compile(r"\[\^([^ \n\]]+)\]:")
#: What may follow a definition's colon on its line for both parsers to read its content
#: alike: up to three spaces (the content's indentation counts them alike), no tab.
_AFTER_COLON = re.compile(r" {0,3}(?![ \t])")
#: Characters the Rust parser reads as text like ``^``, one of which stands for the ``^`` of a
#: reference hidden from it (one the page does not hold, so that it is found again).
_STAND_INS = "\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17"
#: Where an HTML comment may be: any comment markdown-it finds lies inside one of these.
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
#: Nodes whose children are blocks: where a link reference definition may lie.
_HOLDERS = frozenset({"bullet_list", "ordered_list", "list_item", "blockquote",
                      "definition_list", "definition_description", "footnote_def",
                      "footnote_container"})


@dataclass(frozen=True)
class Definition:
    """A footnote definition: its label and the line (of the text parsed) it starts on."""

    label: str
    line: int


def definitions(lines: Sequence[str]) -> list[Definition] | None:
    """The footnote definitions of a page's ``lines`` (LF line breaks), each at the first
    column of a line both parsers start it on; ``None`` when one may lie elsewhere or a label
    is defined twice (see the module docstring)."""
    found = []
    for number, line in enumerate(lines):
        if "[^" not in line:
            continue
        match = _DEFINITION.search(line)
        if match is None:
            continue
        if match.start() != 0 or _DEFINITION.search(line, match.end()) is not None:
            return None
        if not _AFTER_COLON.match(line, match.end()):
            return None
        found.append(Definition(match[1], number))
    labels = {definition.label for definition in found}
    return found if len(labels) == len(found) else None


@dataclass
class FootnotedTree:
    """The Rust parser's tree of a page with footnote definitions, its references hidden."""

    text: str
    defs: Sequence[Definition]
    byte_starts: Sequence[int]
    #: The top-level nodes of the page, without the definitions (which the Rust plugin moves
    #: to a container at the end) and the line of references after it.
    nodes: list[Any]
    #: Each definition's node (the Rust plugin keeps every referenced one), by its first line.
    def_nodes: dict[int, Any]
    stand_in: str

    @classmethod
    def parse(cls, parser: RustMarkdownIt, text: str, defs: Sequence[Definition],
              byte_starts: Sequence[int]) -> FootnotedTree | None:
        """``text`` parsed by ``parser`` (with the ``footnote`` plugin), ``None`` when a
        definition's node is missing, the line after the page does not stand alone, or a
        reference to hide lies in an HTML comment (whose text the reader looks for)."""
        stand_in = next((char for char in _STAND_INS if char not in text), None)
        if stand_in is None or ("<!--" in text and any(
                "[^" in comment or "^[" in comment for comment in _COMMENT.findall(text))):
            return None  # the reader finds an HTML block's comments by the content it gets
        starts = {byte_starts[definition.line] for definition in defs}
        hidden = _hide_references(text, stand_in, {d.line for d in defs})
        end = byte_starts[-1] - 1  # the text's length in bytes
        refs = "".join(f"[^{d.label}]" for d in defs)
        tree = parser.tree(f"{hidden}\n\nx{refs}\n")
        children = list(tree.children)
        if not children or children[-1].name != "footnote_container" or len(children) < 2:
            return None
        after, nodes = children[-2], children[:-2]
        if after.name != "paragraph" or after.srcmap is None or after.srcmap[0] != end + 2:
            return None
        if any(node.srcmap is None or node.srcmap[1] > end + 1 for node in nodes):
            return None
        def_nodes = {}
        for node in children[-1].children:
            if node.srcmap is None or node.srcmap[0] not in starts:
                return None
            def_nodes[bisect_left(byte_starts, node.srcmap[0])] = node
        if len(def_nodes) != len(defs):
            return None
        return cls(text, defs, byte_starts, nodes, def_nodes, stand_in)

    def started_alike(self, lines: Sequence[str]) -> bool:
        """Whether each definition starts where markdown-it-py's rule starts it too: after a
        blank line or the page's start, or right after the paragraph that ends the definition
        before (markdown-it-py's rule ends any paragraph, the Rust one a definition's only)."""
        for definition in self.defs:
            before = definition.line - 1
            if before < 0 or not lines[before].strip(" \t"):  # markdown-it's blank line
                continue
            previous = self.def_nodes.get(_line_start(self.def_nodes, before))
            last = previous.children[-1] if previous is not None and previous.children else None
            if last is None or last.name != "paragraph" or last.srcmap is None \
                    or bisect_left(self.byte_starts, last.srcmap[1]) - 1 != before:
                return False
        return True

    def referenced(self, site: str) -> list[str] | None:
        """The labels markdown-it-py's inline pass references, in the order it first does
        (``footnote_tail`` puts their definitions in that order, and with them the comments and
        heading ids found in them): its inline rules run over each inline content holding a
        ``[^``, in the page's order, with the page's link reference labels and footnote labels;
        ``None`` when an inline node is not plain text."""
        md = full_parser(site)
        env = self.env()
        env["references"] = {label: {"href": "", "title": ""} for label in self.link_labels()}
        positions = _reference_positions(self.text, self.byte_starts, self.defs)
        in_order = sorted([*self.nodes, *self.def_nodes.values()], key=lambda n: n.srcmap[0])
        for content in _inline_contents(in_order, positions, self.stand_in):
            if content is None:
                return None
            md.inline.parse(content, md, env, [])
        # footnote_tail keeps the definitions of the labels the rule recorded, wherever it
        # ran (an image's description, an inline footnote's content too)
        return [note["label"] for note in env["footnotes"]["list"].values() if "label" in note]

    def link_labels(self) -> Iterator[str]:
        """The labels of the page's link reference definitions, as markdown-it-py keys them."""
        pending = [*self.nodes, *self.def_nodes.values()]
        while pending:
            node = pending.pop()
            if node.name == "definition":
                yield normalizeReference(node.meta["label"].replace(self.stand_in, "^"))
            elif node.name in _HOLDERS:
                pending.extend(node.children)

    def with_footnotes(self, blocks: Sequence[Block], reader: NodeReader, site: str
                       ) -> list[Block] | None:
        """``blocks`` (the page's, in order) and a ``footnote`` block of each definition
        markdown-it-py's inline pass references, in order; ``None`` when the reference must
        read the page. The footnotes are read after the rest, in the order of their first
        references, as the reference reads the tokens ``footnote_tail`` moved."""
        referenced = self.referenced(site)
        if referenced is None:
            return None
        lines = {definition.label: definition.line for definition in self.defs}
        notes = []
        for label in referenced:
            note = self.footnote(self.def_nodes[lines[label]], reader)
            if note is False:
                return None
            if note is not None:
                notes.append(note)
        return sorted([*blocks, *notes], key=lambda block: block.start)

    def footnote(self, node: Any, reader: NodeReader) -> Block | Literal[False] | None:
        """A definition's ``footnote`` block, its content's blocks inside, as markdown-it-py's
        tokens give it: spanning the lines of its content (``None`` without any), which the
        rule moved out of its tokens; ``False`` for a paragraph with a comment (which the
        reference finds by the link references its inline parse reads)."""
        children: list[Block] = []
        for child in node.children:
            if child.name == "footnote_ref_anchor":  # the Rust plugin's back references
                continue
            if child.name == "paragraph" and child.children \
                    and child.children[-1].name == "footnote_ref_anchor":
                content = _plain_content(child.children, self.stand_in)
                if content is None or "<!--" in content:
                    return False
                children.append(reader.make.paragraph(*reader.span(child.srcmap), content))
            else:
                children.extend(reader.blocks([child], depth=1))
        lined = [block for block in children if block.start < block.end]
        if not lined:
            return None
        start, end = lined[0].start, max(block.end for block in lined)
        return Block("footnote", start, end, tuple(tile(reader.source, children, start, end)))

    def env(self) -> dict[str, Any]:
        """What markdown-it-py's footnote rules leave in the parse's ``env`` (the labels
        defined), which the reference's inline parses of comments and titles read by."""
        return {"footnotes": {"refs": {f":{d.label}": -1 for d in self.defs}, "list": {}}}


class NodeReader(Protocol):
    """What :meth:`FootnotedTree.footnote` asks of the fast reader's tree reader."""

    make: BlockMaker
    source: str

    def blocks(self, nodes: Sequence[Any], in_item: bool = False, depth: int = 0
               ) -> list[Block]: ...

    def span(self, srcmap: tuple[int, int] | None) -> tuple[int, int]: ...


def _hide_references(text: str, stand_in: str, def_lines: set[int]) -> str:
    """``text`` with the ``^`` of each ``[^`` but a definition's own, and of each inline
    footnote's ``^[``, replaced by ``stand_in``."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if "[^" in line or "^[" in line:
            head = 2 if number in def_lines else 0
            rest = line[head:].replace("[^", "[" + stand_in).replace("^[", stand_in + "[")
            lines[number] = line[:head] + rest
    return "\n".join(lines)


def _line_start(def_nodes: dict[int, Any], line: int) -> int:
    """The first line of the last definition that starts at or before ``line``."""
    return max((first for first in def_nodes if first <= line), default=-1)


def _reference_positions(text: str, byte_starts: Sequence[int],
                         defs: Sequence[Definition]) -> list[int]:
    """The byte offsets of each ``[^`` of ``text`` but the definitions' own."""
    own = {byte_starts[d.line] for d in defs}
    encoded = text.encode("utf-8")
    out = []
    at = encoded.find(b"[^")
    while at >= 0:
        if at not in own:
            out.append(at)
        at = encoded.find(b"[^", at + 1)
    return out


def _inline_contents(nodes: Sequence[Any], positions: Sequence[int], stand_in: str
                     ) -> Iterator[str | None]:
    """The inline content of each node under ``nodes`` whose byte span holds one of the
    sorted ``positions``, in order: a text node's, or a paragraph's, heading's or cell's text
    nodes joined; ``None`` for one that holds any other node."""
    pending = list(reversed(nodes))
    while pending:
        node = pending.pop()
        if node.srcmap is not None:
            first = bisect_left(positions, node.srcmap[0])
            if first == len(positions) or positions[first] >= node.srcmap[1]:
                continue
        children = node.children
        if node.name == "text":
            yield _plain_content([node], stand_in)
        elif children and children[0].name == "text" and node.name not in _HOLDERS:
            yield _plain_content(children, stand_in)  # a paragraph's, heading's, cell's
        else:
            pending.extend(reversed(children))


def _plain_content(nodes: Sequence[Any], stand_in: str) -> str | None:
    """The text of text ``nodes`` as written (the hidden ``^`` given back; the Rust plugin's
    back references after a definition's last paragraph are none of it), ``None`` when one is
    another node."""
    texts = [node for node in nodes if node.name != "footnote_ref_anchor"]
    if any(node.name != "text" for node in texts):
        return None
    return "".join(node.meta["content"] for node in texts).replace(stand_in, "^")
