"""How the Markdown reader builds blocks: spans from line ranges, fence lines, headings.

markdown-it-py names the lines a block covers; a :class:`BlockMaker` turns those into character
spans of the original source, and a heading's inline content into its plain title and explicit
id (:func:`split_heading_id`). :mod:`.markdown` walks the token stream with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it.common.html_re import comment as html_comment
from markdown_it.token import Token
from mdit_py_plugins.attrs.parse import ParseError
from mdit_py_plugins.attrs.parse import parse as parse_attrs

from .blocks import NEWLINE, Block, Document, LineIndex, rewrite_spans, rstrip_end, tile
from .markdown_it_parser import full_parser

__all__ = ["BlockMaker", "link_definitions", "plain_text", "split_heading_id"]


class BlockMaker:
    """Blocks of one source from the line ranges a parser names; records the headings'
    ``{#id}`` markup on the way (:attr:`id_markup`)."""

    def __init__(self, source: str, lines: LineIndex, env: dict[str, Any]) -> None:
        self.source = source
        self.lines = lines
        self.env = env  # link reference definitions, for heading titles
        self.id_markup: list[tuple[int, int]] = []  # headings' {#id} blocks
        self.comments: list[tuple[int, int]] = []  # HTML comments found on the way

    def html(self, start: int, end: int, content: str) -> Block:
        """An HTML block of ``content`` (its lines as the parser gives them), its comments
        recorded; a ``comment`` block when it is nothing but comments."""
        if "<!--" in content:
            found = self.find_comments(start, end, _html_comments(content))
            shown = rewrite_spans(self.source, start, end, [(a, b, "") for a, b in found])
            if found and not shown.strip():
                return Block("comment", start, end)  # no site shows any of it
        return Block("html", start, end)

    def paragraph(self, start: int, end: int, content: str) -> Block:
        """A paragraph of inline ``content`` (its lines as the parser gives them), its HTML
        comments recorded as its inline parse finds them (not in code spans)."""
        self.inline_comments(start, end, content)
        return Block("paragraph", start, end)

    def inline_comments(self, start: int, end: int, content: str) -> None:
        """Record the HTML comments of inline ``content`` (a paragraph's, a heading's, a table
        row's cells) as its inline parse finds them (not in code spans)."""
        if "<!--" in content:
            self.find_comments(start, end, self.comments_of(content))

    def comments_of(self, content: str) -> list[str]:
        """The HTML comments of inline ``content``, in order, as its inline parse finds them."""
        if "<!--" not in content:
            return []
        md = full_parser()
        children = md.inline.parse(content, md, self.env, [])
        return [t.content for t in children
                if t.type == "html_inline" and t.content.startswith("<!--")]

    def row(self, start: int, end: int) -> Block:
        """A table's row, the HTML comments of its cells recorded (each cell's text between
        unescaped pipes, parsed inline)."""
        if "<!--" in self.source[start:end]:
            self.find_comments(start, end, [comment for cell in _CELL_SEPARATOR.split(
                self.source[start:end]) for comment in self.comments_of(cell.strip())])
        return Block("row", start, end)

    def find_comments(self, start: int, end: int, comments: Sequence[str]) -> list[tuple[int, int]]:
        """Record where each of ``comments`` (as the parser gave them, in order) lies in
        ``source[start:end]``: inside a list item or a quote, the lines of a comment that runs
        over several lines lie in the source behind the container's indentation and ``>``
        markers, which the parser's content has taken away."""
        found = []
        pos = start
        for comment in comments:
            match = _find_behind_markers(self.source, comment, pos, end)
            if match is None:
                continue
            found.append(match)
            pos = match[1]
        self.comments.extend(found)
        return found

    def hide_id_markup(self, start: int, end: int, markup: str) -> None:
        """Record where a heading's ``{#id}`` lies (with the blank before it): no site shows it,
        so what the model reads leaves it out."""
        at = self.source.rfind(markup, start, end)
        if at >= 0:
            begin = at
            while begin > start and self.source[begin - 1] in " \t":
                begin -= 1
            self.id_markup.append((begin, at + len(markup)))

    def heading(self, start: int, end: int, level: int, content: str,
                children: Sequence[Token] | None = None) -> Block:
        """A heading of ``content`` (its inline text; ``children`` its inline tokens, when the
        parse made them), its ``{#id}`` markup recorded as hidden."""
        if not children and not _INLINE_MARKUP.search(content) \
                and not content.rstrip().endswith("}"):  # most: plain words, no id, no comment
            return Block("heading", start, end, (), level, " ".join(content.split()))
        title, heading_id, markup = _heading_title(content, self.env, children)
        self.inline_comments(start, end, content)
        if markup:
            self.hide_id_markup(start, end, markup)
        return Block("heading", start, end, level=level, title=title, heading_id=heading_id)

    def front_matter(self, token: Token) -> Block:
        """The block of the front matter token of markdown-it-py's ``front_matter`` rule
        (mdit-py-plugins), fences included."""
        assert token.map is not None
        return Block("front_matter", *self.span(token.map))

    def document(self, body: Sequence[Block], front: Token | None = None) -> Document:
        """The document of ``body`` (top-level blocks after the front matter, in order) and
        the ``front`` matter token, if any: the blocks tile what follows the front matter."""
        block = self.front_matter(front) if front is not None else None
        start = block.end if block else 0
        blocks = tile(self.source, link_definitions(self.source, body, start), start,
                      len(self.source))
        return Document(self.source, tuple(blocks), front.content if front is not None else None,
                        self.lines, block, tuple(self.comments), tuple(self.id_markup),
                        definitions=self.nested_definitions(blocks))

    def nested_definitions(self, blocks: Sequence[Block]) -> tuple[tuple[int, int], ...]:
        """Where the link reference definitions inside list items and quotes lie: the lines
        markdown-it's reference rule recorded for each (``env["references"]``, and
        ``env["duplicate_refs"]`` for a label defined again), from the label's ``[`` on. A
        definition whose line holds nothing else but quote markers and blanks before it takes
        its whole lines, line breaks included, so no line of bare ``>`` stays behind."""
        found = [ref["map"] for ref in (*self.env.get("references", {}).values(),
                                        *self.env.get("duplicate_refs", ()))
                 if ref.get("map")]
        if not found:
            return ()
        top = [(b.start, b.end) for b in blocks if b.kind == "link_definitions"]
        out = []
        for first, last in sorted(found):
            line = self.lines.offset(first)
            label = self.source.find("[", line, self.lines.offset(first + 1))
            if label < 0 or any(a <= label < b for a, b in top):
                continue  # at the top level: a block of its own
            end = self.lines.offset(last)
            if self.source[line:label].strip(_MARKERS):  # a list marker: the item shows it
                out.append((label, rstrip_end(self.source, label, end)))
            else:
                out.append((line, end))
        return tuple(out)

    def span(self, line_map: Sequence[int]) -> tuple[int, int]:
        """Character span of a line range, without the trailing line break and blank lines."""
        start = self.lines.offset(line_map[0])
        end = self.lines.offset(line_map[1])
        return start, rstrip_end(self.source, start, end)

    def table(self, start: int, end: int, rows: Sequence[Block]) -> Block:
        """A table of ``rows`` (its header row first, its comments recorded): the first child
        is its header (header row and delimiter row), repeated as prefix."""
        body = tuple(rows[1:])
        header_end = body[0].start if body else end
        header = Block("row", start, rstrip_end(self.source, start, header_end))
        # repeated in embed_text as the page shows it: without its comments
        hidden = [(a, b, "") for a, b in self.comments if header.start <= a and b <= header.end]
        prefix = rewrite_spans(self.source, header.start, header.end, hidden)
        return Block("table", start, end, (header, *body), prefix=prefix)

    def fence_line(self, start: int) -> str:
        """The opening fence line (e.g. ```` ```bash ````), stripped of indentation."""
        line_end = NEWLINE.search(self.source, start)
        return self.source[start: line_end.start() if line_end else len(self.source)].strip()


#: A pipe between two cells of a table's row (a backslash escapes it).
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")

#: Characters that may start inline markup (CommonMark, strikethrough, math, footnotes) or a
#: soft line break; a heading without any is its own plain text.
_INLINE_MARKUP = re.compile(r"[\\`*_\[\]<>&!~$\r\n]")


def split_heading_id(content: str) -> tuple[str, str | None]:
    """A heading's text and its explicit id, when a trailing attribute block gives one: an attribute
    block (Pandoc, goldmark, Python-Markdown's ``attr_list``, Docusaurus' classic form), parsed by
    mdit-py-plugins' attribute parser and set off by a blank (so ``${#var}`` stays text), or
    Docusaurus' MDX comment. The block is taken out of the text even when it names no id.

    >>> split_heading_id("Rolling restarts {#rolling-restarts}")
    ('Rolling restarts', 'rolling-restarts')
    >>> split_heading_id("Title {/* #my-id */}")
    ('Title', 'my-id')
    >>> split_heading_id("Step 2 {: #step-2 .note }")
    ('Step 2', 'step-2')
    >>> split_heading_id("Length: ${#var}")
    ('Length: ${#var}', None)"""
    text = content.rstrip()
    if not text.endswith("}"):
        return content, None
    comment = _MDX_COMMENT_ID.search(text)
    if comment:
        words = comment["body"].split()
        if words and words[0].startswith("#") and len(words[0]) > 1:
            return text[:comment.start()].rstrip(), words[0][1:]
    pos = text.rfind("{")
    while pos >= 0:
        if pos == 0 or text[pos - 1] in " \t":
            found = _attributes(text[pos:])
            if found is not None:
                return text[:pos].rstrip(), found
        pos = text.rfind("{", 0, pos)
    return content, None


#: ``{/* ... */}`` at the end of a heading: one MDX comment and nothing else in the braces.
_MDX_COMMENT_ID = re.compile(r"\{/\*(?P<body>(?:(?!\*/).)*)\*/\}$")


def _attributes(block: str) -> str | None:
    """The id in ``block`` when the whole of it is one attribute block naming at least one
    attribute (``""`` for one without an id), else ``None``."""
    if block.startswith("{:"):  # Python-Markdown's attr_list allows ``{: #id }``
        block = "{" + block[2:]
    try:
        end, attrs = parse_attrs(block)
    except ParseError:
        return None
    if end != len(block) - 1 or not attrs:
        return None
    return attrs.get("id", "")


def _heading_title(content: str, env: dict[str, Any],
                   children: Sequence[Token] | None = None) -> tuple[str, str, str]:
    """A heading's plain title, explicit id (``""`` when none) and the attribute markup that
    gave it (``""`` when none), from its inline ``content``; the markup is not part of the
    title, so it never reaches a breadcrumb."""
    text, heading_id = split_heading_id(content)
    if heading_id is None:
        return _plain(content, children, env), "", ""
    markup = content.rstrip()[len(text):].strip()
    return _plain(text, None, env), heading_id, markup


def _plain(content: str, children: Sequence[Token] | None, env: dict[str, Any]) -> str:
    """Heading text as a reader sees it: code spans, emphasis and links reduced to their text.
    ``children`` are the inline tokens of ``content`` when the parse made them."""
    if not children and not _INLINE_MARKUP.search(content):
        return " ".join(content.split())  # nothing for the inline parser to reduce
    if not children and content:  # block-only parse: parse this heading's inline now
        md = full_parser()
        children = md.inline.parse(content, md, env, [])
    # ``text_special`` (escapes, entities) is what the skipped text_join rule turns into text
    parts = [child.content for child in children or ()
             if child.type in ("text", "code_inline", "text_special")]
    return " ".join("".join(parts).split())


def link_definitions(source: str, blocks: Sequence[Block], start: int) -> list[Block]:
    """``blocks`` (the top level, in order, from ``start`` on) with a ``link_definitions`` block
    over each run of link reference definitions between them. markdown-it emits no token for a
    definition, so its text lies in a gap between two blocks, starting with the label's ``[``. It
    is the page's metadata, not its text: a block of a kind no page shows keeps it out of
    ``embed_text`` and out of the block before it, which :func:`~.blocks.tile` would otherwise
    stretch over it."""
    out: list[Block] = []
    pos = start
    for block in [*blocks, None]:
        gap_end = block.start if block is not None else len(source)
        if gap_end > pos and not source[pos:gap_end].isspace():
            first = gap_end - len(source[pos:gap_end].lstrip())
            if source.startswith("[", first):
                out.append(Block("link_definitions", first, rstrip_end(source, first, gap_end)))
        if block is not None:
            out.append(block)
            pos = block.end
    return out


def _find_behind_markers(source: str, comment: str, pos: int, end: int
                         ) -> tuple[int, int] | None:
    """Where ``comment`` (as a parser gives a container's content: several lines, each after the
    first without its indentation and ``>`` markers) first lies in ``source[pos:end]``: its
    first line, then before each later line any line break and any run of blanks and ``>``
    markers. Found by ``str.find`` and ``startswith``, not by a pattern built from the comment's
    text: a page that keeps its original in comments would compile one per comment."""
    first, *rest = NEWLINE.split(comment)
    at = source.find(first, pos, end)
    while at >= 0:
        stop = _lines_behind_markers(source, rest, at + len(first), end)
        if stop is not None:
            return at, stop
        at = source.find(first, at + 1, end)
    return None


def _lines_behind_markers(source: str, lines: Sequence[str], at: int, end: int) -> int | None:
    """Where ``lines`` end when each follows, from ``at``, a line break and a run of blanks
    and ``>`` markers; ``None`` where one does not. A line that itself starts with markers
    (``> quoted`` inside a comment) takes them from the end of that run."""
    for line in lines:
        if source.startswith("\r\n", at, end):
            at += 2
        elif at < end and source[at] in "\r\n":
            at += 1
        else:
            return None
        run = at
        while at < end and source[at] in _MARKERS:
            at += 1
        text = line.lstrip(" \t")
        words = text.lstrip(_MARKERS)
        lead = text[:len(text) - len(words)]
        if not source.endswith(lead, run, at) or not source.startswith(words, at, end):
            return None
        at += len(words)
    return at


#: What a container puts before each line of its content in the source.
_MARKERS = " \t>"


def _html_comments(html: str) -> list[str]:
    """The comments of an HTML block's content, by markdown-it's own HTML comment pattern,
    wherever they stand in it (its tag pattern matches only at the start: a second comment on
    the line, or one inside a ``<div>``, went unseen)."""
    return [m.group() for m in _HTML_COMMENT.finditer(html)]


_HTML_COMMENT = re.compile(html_comment)


def plain_text(content: str) -> str:
    """Inline ``content`` as a reader sees it (a heading's title): markup reduced to its text."""
    return _plain(content, None, {})
