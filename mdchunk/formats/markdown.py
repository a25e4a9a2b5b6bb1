"""Markdown → a flat list of top-level :class:`Block` s with exact character spans.

markdown-it-py does all structure recognition (a ``#`` inside a fence is code, not a heading);
this module only maps its token stream onto spans of the *original* string. markdown-it
normalises CRLF and lone CR to LF but keeps line numbers, so spans are built from line
numbers against the original line starts and stay exact for any line ending.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.attrs.parse import ParseError
from mdit_py_plugins.attrs.parse import parse as parse_attrs
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from .blocks import NEWLINE, Block, Document, LineIndex, rstrip_end, tile, without_spans
from .kinds import KIND_OF_TOKEN, kind

__all__ = ["parse_markdown", "parse_markdown_it", "split_heading_id"]

# Wrappers whose children are the real blocks (markdown-it gives footnote_block no map).
_TRANSPARENT = frozenset({"footnote_block", "thead", "tbody"})


def _configured() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for plugin in (front_matter_plugin, footnote_plugin, deflist_plugin, dollarmath_plugin,
                   tasklists_plugin, admon_plugin):
        md.use(plugin)
    # One rule for every ``::: name`` container (one rule per name cost ~5% of parse time).
    md.use(container_plugin, name="container", validate=_container_name)
    return md


def _container_name(params: str, markup: str) -> bool:
    """Accept ``::: note``, ``::: warning Title`` …: any container opened with a word."""
    words = params.split()
    return bool(words) and words[0].replace("-", "").replace("_", "").isalnum()


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """The full parser (block and inline rules)."""
    return _configured()


@functools.lru_cache(maxsize=32)
def _block_parser(unused: frozenset[str] = frozenset()) -> MarkdownIt:
    """The same parser without its inline pass (about 40% of parse time): chunking needs block
    structure only, and :func:`_plain` parses a heading's inline markup when it needs it.
    ``unused`` block rules are left out too (see :func:`_unused_rules`)."""
    return _configured().disable(["inline", "text_join", "github-tasklists", *sorted(unused)])


def _may_hold_deflist(source: str) -> bool:
    """A definition's ``:`` or ``~`` starts its line, after indentation and quote markers.
    (Searched after a literal line break: a multi-line ``^`` search is five times slower.)"""
    return bool(_DEFINITION_AT_START.match(source) or _DEFINITION_AFTER_LF.search(source)
                or ("\r" in source and _DEFINITION_AFTER_CR.search(source)))


_DEFINITION_AT_START = re.compile(r"[ \t>]*[:~]")
_DEFINITION_AFTER_LF = re.compile(r"\n[ \t>]*[:~]")
_DEFINITION_AFTER_CR = re.compile(r"\r[ \t>]*[:~]")

#: Parser rules, each with a test that any document the rule acts on passes. Every block rule
#: is tried at every block start, so leaving out the rules a document cannot use parses it to
#: the same tokens about 15% faster.
_RULE_TRIGGERS: dict[str, Callable[[str], bool]] = {
    "math_block": lambda source: "$$" in source,
    "admonition": lambda source: "!!!" in source or "???" in source,
    "container_container": lambda source: ":::" in source,
    "footnote_def": lambda source: "[^" in source,
    "deflist": _may_hold_deflist,
    # the core rule that rewrites CR and CRLF to LF and NUL to U+FFFD: a no-op without them
    "normalize": lambda source: "\r" in source or "\0" in source,
}


def _unused_rules(source: str) -> frozenset[str]:
    return frozenset(rule for rule, may_use in _RULE_TRIGGERS.items() if not may_use(source))


def parse_markdown(source: str) -> Document:
    """Parse ``source`` into top-level blocks whose spans index ``source`` itself.

    The Rust parser reads the documents it is known to read alike (:mod:`.markdown_rs`), many
    times faster on documents of many small blocks; markdown-it-py reads every other one.

    >>> doc = parse_markdown("# Title\\r\\n\\r\\nSome text.\\r\\n")
    >>> [(b.kind, doc.source[b.start:b.end]) for b in doc.blocks]
    [('heading', '# Title'), ('paragraph', 'Some text.')]
    """
    from .markdown_rs import read_fast  # builds on this module's block maker: imported late

    return read_fast(source) or parse_markdown_it(source)


def parse_markdown_it(source: str) -> Document:
    """:func:`parse_markdown` by markdown-it-py and its plugins: the reference reader."""
    env: dict[str, Any] = {}
    tokens = _block_parser(_unused_rules(source)).parse(source, env)
    if "footnotes" in env:  # which footnote blocks exist depends on inline references: full parse
        env = {}
        tokens = _parser().parse(source, env)
    builder = _BlockBuilder(source, LineIndex.of(source), env, _closing_indices(tokens))
    blocks = builder.blocks(tokens, 0, len(tokens))
    front = [b for b in blocks if b.kind == "front_matter"]
    body = _outermost(b for b in blocks if b.kind != "front_matter")
    body_start = front[0].end if front else 0
    front_text = (next((t.content for t in tokens if t.type == "front_matter"), None)
                  if front else None)
    return Document(source, tuple(tile(source, body, body_start, len(source))), front_text,
                    builder.lines, front[0] if front else None, tuple(builder.comments),
                    tuple(builder.id_markup))


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


class _BlockBuilder:
    """Turns a token range into blocks; one method per idea, no state but the source."""

    def __init__(self, source: str, lines: LineIndex, env: dict[str, Any],
                 closes: dict[int, int]) -> None:
        self.source = source
        self.lines = lines
        self.env = env  # link reference definitions, for heading titles
        self.closes = closes  # index of each opening token -> index of its closing token
        self.comments: list[tuple[int, int]] = []  # HTML comments found on the way
        self.id_markup: list[tuple[int, int]] = []  # headings' {#id} blocks

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
        start, end = self.span(line_map)
        if start >= end:
            return None
        prefix = self.fence_line(start) if token.type == "fence" else ""
        name = KIND_OF_TOKEN.get(token.type, token.type)
        if name == "html" and "<!--" in token.content:
            found = self.find_comments(start, end, _html_comments(token.content))
            if found and not without_spans(self.source, start, end, found).strip():
                name = "comment"  # nothing but comments: no site shows any of it
        return Block(name, start, end, prefix=prefix)

    def hide_id_markup(self, start: int, end: int, markup: str) -> None:
        """Record where a heading's ``{#id}`` lies (with the blank before it): no site shows it,
        so what the model reads leaves it out."""
        at = self.source.rfind(markup, start, end)
        if at >= 0:
            begin = at
            while begin > start and self.source[begin - 1] in " \t":
                begin -= 1
            self.id_markup.append((begin, at + len(markup)))

    def find_comments(self, start: int, end: int, comments: Sequence[str]) -> list[tuple[int, int]]:
        """Record where each of ``comments`` (as the parser gave them, in order) lies in
        ``source[start:end]``."""
        found = []
        pos = start
        for comment in comments:
            at = self.source.find(comment, pos, end)
            if at < 0:
                continue
            found.append((at, at + len(comment)))
            pos = at + len(comment)
        self.comments.extend(found)
        return found

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
        if kind(name).inline:
            if name == "paragraph" and "<!--" in tokens[i + 1].content:
                self.find_comments(start, end, _inline_comments(tokens[i + 1], self.env))
            return Block(name, start, end)
        children = tuple(tile(self.source, self.blocks(tokens, i + 1, close), start, end))
        if name == "table":
            return self.table(start, end, children)
        return Block(name, start, end, children)

    def heading(self, start: int, end: int, level: int, content: str,
                children: Sequence[Token] | None = None) -> Block:
        """A heading of ``content`` (its inline text; ``children`` its inline tokens, when the
        parse made them), its ``{#id}`` markup recorded as hidden."""
        title, heading_id, markup = _heading_title(content, self.env, children)
        if markup:
            self.hide_id_markup(start, end, markup)
        return Block("heading", start, end, level=level, title=title, heading_id=heading_id)

    def table(self, start: int, end: int, rows: tuple[Block, ...]) -> Block:
        """A table's first child is its header (header row and delimiter row), repeated as
        prefix."""
        body = rows[1:]
        header_end = body[0].start if body else end
        header = Block("row", start, rstrip_end(self.source, start, header_end))
        prefix = self.source[header.start:header.end]
        return Block("table", start, end, (header, *body), prefix=prefix)

    def span(self, line_map: Sequence[int]) -> tuple[int, int]:
        """Character span of a line range, without the trailing line break and blank lines."""
        start = self.lines.offset(line_map[0])
        end = self.lines.offset(line_map[1])
        return start, rstrip_end(self.source, start, end)

    def fence_line(self, start: int) -> str:
        """The opening fence line (e.g. ```` ```bash ````), stripped of indentation."""
        line_end = NEWLINE.search(self.source, start)
        return self.source[start: line_end.start() if line_end else len(self.source)].strip()


def _html_comments(html: str) -> list[str]:
    """The comments of an HTML block's content, by markdown-it's own HTML comment pattern."""
    from markdown_it.common.html_re import HTML_TAG_RE

    return [m.group() for m in HTML_TAG_RE.finditer(html) if m.group().startswith("<!--")]


def _inline_comments(inline: Token, env: dict[str, Any]) -> list[str]:
    """The HTML comments of a paragraph, as its inline parse finds them (not in code spans)."""
    md = _parser()
    children = md.inline.parse(inline.content, md, env, [])
    return [t.content for t in children if t.type == "html_inline" and t.content.startswith("<!--")]


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


#: Characters that may start inline markup (CommonMark, strikethrough, math, footnotes) or a
#: soft line break; a heading without any is its own plain text.
_INLINE_MARKUP = re.compile(r"[\\`*_\[\]<>&!~$\r\n]")


def split_heading_id(content: str) -> tuple[str, str | None]:
    """A heading's text and its explicit id, when a trailing attribute block gives one.

    Two syntaxes, as documentation sites write them: an attribute block (Pandoc, Hugo's
    goldmark, Python-Markdown's ``attr_list`` with its optional colon, Docusaurus' classic
    form), parsed by mdit-py-plugins' own attribute parser and set off from the text by a
    blank (so ``${#var}`` stays text); and Docusaurus' MDX comment, whose first word after
    ``#`` is the id. The block is taken out of the text even when it names no id (``{.cls}``);
    the id is ``None`` when there is no block at all.

    >>> split_heading_id("Rolling restarts {#rolling-restarts}")
    ('Rolling restarts', 'rolling-restarts')
    >>> split_heading_id("Title {/* #my-id */}")
    ('Title', 'my-id')
    >>> split_heading_id("Step 2 {: #step-2 .note }")
    ('Step 2', 'step-2')
    >>> split_heading_id("Length: ${#var}")
    ('Length: ${#var}', None)
    """
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
        md = _parser()
        children = md.inline.parse(content, md, env, [])
    # ``text_special`` (escapes, entities) is what the skipped text_join rule turns into text
    parts = [child.content for child in children or ()
             if child.type in ("text", "code_inline", "text_special")]
    return " ".join("".join(parts).split())
