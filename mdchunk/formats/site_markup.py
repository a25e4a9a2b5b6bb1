"""What a documentation site's page shows where its source has generator markup.

A reader's :class:`~.blocks.Document` keeps every block's span of the source; this pass adds
:attr:`~.blocks.Document.rewrites`, spans of markup with the text the page shows in their place,
which the drafter applies to ``embed_text`` (``text`` stays the verbatim slice):

- line markers of blocks the parser already made: an admonition's ``!!! warning "Retention"``,
  a container's ``::: tip Title`` and closing ``:::`` (VitePress, Docusaurus, MyST colon
  fences ``:::{note}``), a GitHub alert's ``[!NOTE]`` → ``Warning: Retention``, ``Tip: Title``,
  ``Note:``; a MyST directive fence ```` ```{note} ```` becomes an admonition the same way;
- MDX ``import`` / ``export`` paragraphs at the top level, which no page shows;
- MkDocs snippets (``--8<-- "file"``) as a short visible line;
- Hugo callout pairs (``{{< note >}}`` … ``{{< /note >}}``) made one ``admonition`` block
  (:mod:`.callouts`);
- tab groups (Docusaurus ``<Tabs>``, Hugo ``{{< tabs >}}``) made ``tabs`` blocks of ``tab`` s
  (:mod:`.tabs`); an MkDocs content tab's marker ``=== "Label"`` (the parser made its block,
  :mod:`.content_tabs`) → ``Label``;
- inline markup in the text of every prose block (:mod:`.site_inline`): shortcodes, JSX, MDX
  comments and expressions, MyST roles.

Markup that means nothing else in Markdown is read whatever ``site`` says; what could be plain
text elsewhere (a ``{…}`` expression, a capitalised tag not imported) only on the page of a site
whose record says its pages are MDX (Docusaurus) or a document with MDX imports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from .block_maker import plain_text
from .blocks import NEWLINE, Block, Document, Rewrite, rewrite_spans
from .callouts import group_callouts
from .content_tabs import CONTENT_TAB_LINE
from .site_inline import (
    MarkupEnv,
    admonition_label,
    inline_rewrites,
    markup_trigger,
    rendered_shortcodes,
)
from .sites.generators import read_as
from .tabs import group_tabs

__all__ = ["render_markup"]

#: Blocks whose text is not prose: never read for markup.
_NOT_PROSE = frozenset({"code", "math", "front_matter", "comment", "title", "hr", "esm", "target"})

#: A paragraph of MDX ESM: import and export statements only.
_ESM = re.compile(r"(?:import\s[^\n]*?(?:\sfrom\s*)?(['\"])[^'\"\n]+\1;?[ \t]*(?:\n|$)"
                  r"|import\s*\{[^}]*\}\s*from\s*(['\"])[^'\"\n]+\2;?[ \t]*(?:\n|$)"
                  r"|export\s+(?:const|let|var|function|default|class|async)\s[\s\S]*)+")
#: A MyST target: ``(label)=`` alone in its paragraph.
_TARGET = re.compile(r"[ \t]*\([\w.:/-]+\)=[ \t]*")
_IMPORTED = re.compile(r"import\s+(?:(\w+)|\{([^}]*)\})")

#: ``!!! type "title"``, ``??? type``, ``???+ type inline end "title"``.
_ADMONITION = re.compile(r"[ \t]*(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?P<mods>[^\"\n]*)"
                         r"(?:\"(?P<title>[^\n]*)\")?[ \t]*$")
#: ``::: tip Title``, ``:::tip[Title]``, ``:::{note} Title``.
_CONTAINER = re.compile(r"[ \t]*(?P<fence>:{3,})[ \t]*(?:\{(?P<directive>[\w-]+)\}|"
                        r"(?P<kind>[\w-]+))(?:\[(?P<bracket>[^\]\n]*)\])?[ \t]*(?P<title>[^\n]*)$")
_CLOSING = re.compile(r"[ \t]*:{3,}[ \t]*$")
#: A GitHub alert's marker, the first line of its quote.
_ALERT = re.compile(r"[ \t]*>[ \t]*(?P<marker>\[!(?P<kind>NOTE|TIP|IMPORTANT|WARNING|CAUTION)\])"
                    r"[ \t]*$", re.IGNORECASE)
#: A MyST directive fence: ```` ```{note} Title ````.
_DIRECTIVE_FENCE = re.compile(r"[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*\{(?P<name>[\w-]+)\}"
                              r"[ \t]*(?P<title>[^\n]*)$")
#: MyST directives that are admonitions (the rest, ``{code-block}``, ``{toctree}`` …, stay).
_MYST_ADMONITIONS = frozenset({"note", "warning", "tip", "important", "caution", "danger",
                               "attention", "hint", "error", "seealso", "admonition",
                               "versionadded", "versionchanged", "deprecated", "todo"})
#: A MkDocs (pymdownx) snippet line.
_SNIPPET = re.compile(r"[ \t]*-{1,}8<-{1,}[ \t]+(['\"])(?P<file>[^'\"\n]+)\1[ \t]*$",
                      re.MULTILINE)
#: What every snippet line holds: a block without it is not scanned (``UTF-8</td>`` holds
#: ``8<``, and scanning a 60,000-character HTML table for snippets took a millisecond).
_SNIPPET_MARK = "-8<-"


def render_markup(doc: Document, site: str = "plain") -> Document:
    """``doc`` with its generator markup's :attr:`~.blocks.Document.rewrites` (and a MyST
    directive fence read as an admonition)."""
    source = doc.source
    if not _may_hold_markup(source):
        return doc
    record = read_as(site)
    env: MarkupEnv = {"mdx": record.mdx, "shortcodes_in_code": record.shortcodes_in_code,
                      "components": set(), "tab_labels": {}}
    found: list[Rewrite] = []
    esm = [block for block in doc.blocks
           if block.kind == "paragraph" and _is_esm(source, block)]
    for block in esm:
        env["mdx"] = True
        for default, named in _IMPORTED.findall(source[block.start:block.end]):
            env["components"].update(filter(None, [default, *re.split(r"[\s,]+", named)]))
    marker = _Marker(source, env, found, {block.start for block in esm})
    blocks = tuple([marker.block(block, top=True) for block in doc.blocks])
    if not found:
        return doc
    rewrites = tuple(sorted(found))
    blocks = group_callouts(source, blocks, rewrites)
    return replace(doc, blocks=group_tabs(source, blocks, rewrites), rewrites=rewrites)


#: Text without any of these holds no markup this module reads (an MDX statement starts a
#: line; a content tab's marker is ``===`` with a flag or a space before its label, which a
#: setext underline has not).
_TRIGGERS = ("{", "<", ":::", "!!!", "???", "[!", "\nimport", "\nexport", "8<", ")=",
             "=== ", "===!", "===+")


def _is_esm(source: str, block: Block) -> bool:
    """Whether the paragraph ``block`` is MDX ESM; the regex is asked only of a paragraph that
    starts with ``import`` or ``export``, as every match does."""
    return (source.startswith(_ESM_STARTS, block.start)
            and _ESM.fullmatch(source, block.start, block.end) is not None)


#: How every match of :data:`_ESM` starts.
_ESM_STARTS = ("import", "export")
#: What a match of :data:`_TARGET` starts with: the walk asks the regex of no other paragraph.
_TARGET_STARTS = ("(", " ", "\t")


def _is_target(source: str, block: Block) -> bool:
    """Whether the paragraph ``block`` is a MyST target; the regex is asked only of a
    paragraph that starts as every match does."""
    return (source.startswith(_TARGET_STARTS, block.start)
            and _TARGET.fullmatch(source, block.start, block.end) is not None)


def _may_hold_markup(source: str) -> bool:
    """Whether ``source`` may hold markup: each trigger looked for by ``in``, which is many
    times faster than one search for an alternation of them (20 ms on a 0.7 MB page)."""
    return source.startswith(("import", "export")) or any(t in source for t in _TRIGGERS)


class _Marker:
    """Walks the block tree, recording rewrites."""

    def __init__(self, source: str, env: MarkupEnv, found: list[Rewrite],
                 esm: set[int]) -> None:
        self.source = source
        self.env = env
        self.found = found
        #: The starts of the top-level ESM paragraphs (:func:`render_markup` found them).
        self.esm = esm
        #: Whether a span may hold inline markup: asked before a call to inline_rewrites.
        self.may_hold = markup_trigger(env).search
        #: Whether the page holds a snippet's ``8<`` at all: most have none.
        self.has_snippets = _SNIPPET_MARK in source

    def first_line(self, block: Block) -> tuple[int, int]:
        line_end = NEWLINE.search(self.source, block.start, block.end)
        return block.start, line_end.start() if line_end else block.end

    def last_line(self, block: Block) -> tuple[int, int]:
        brk = max(self.source.rfind("\n", block.start, block.end),
                  self.source.rfind("\r", block.start, block.end))
        return (brk + 1 if brk >= 0 else block.start), block.end

    def block(self, block: Block, top: bool = False) -> Block:
        source, kind = self.source, block.kind
        if kind == "paragraph":
            if top and block.start in self.esm:
                self.found.append((block.start, block.end, ""))
                return replace(block, kind="esm")
            if _is_target(source, block):
                self.found.append((block.start, block.end, ""))
                return replace(block, kind="target")
        elif kind == "code":
            return self.code(block)
        elif kind in _NOT_PROSE:
            return block
        elif kind == "admonition":
            self.admonition(block)
        elif kind == "container":
            self.container(block)
        elif kind == "blockquote":
            self.alert(block)
        elif kind == "tab":
            self.content_tab(block)
        if block.children:
            children = tuple([self.block(child) for child in block.children])
            return replace(block, children=children) if children != block.children else block
        self.snippets(block.start, block.end)
        if self.may_hold(source, block.start, block.end):
            self.found.extend(inline_rewrites(source, block.start, block.end, self.env))
        if kind == "heading":
            return self.heading(block)
        return block

    def admonition(self, block: Block) -> None:
        start, end = self.first_line(block)
        match = _ADMONITION.fullmatch(self.source, start, end)
        if match is not None:
            self.found.append((start, end, admonition_label(match["kind"], match["title"] or "")))

    def container(self, block: Block) -> None:
        start, end = self.first_line(block)
        match = _CONTAINER.fullmatch(self.source, start, end)
        if match is None:
            return
        name = match["directive"] or match["kind"]
        title = match["bracket"] or match["title"]
        label = (" ".join(title.split()) or "Details") if name == "details" else \
            admonition_label(name, title)
        self.found.append((start, end, label))
        close_start, close_end = self.last_line(block)
        if close_start > end and _CLOSING.fullmatch(self.source, close_start, close_end):
            self.found.append((close_start, close_end, ""))

    def content_tab(self, block: Block) -> None:
        """An MkDocs content tab's marker line shows its label."""
        start, end = self.first_line(block)
        while start < end and self.source[start] in " \t>":  # a tab in a quote: after its >
            start += 1
        if CONTENT_TAB_LINE.fullmatch(self.source, start, end):
            self.found.append((start, end, block.title))

    def alert(self, block: Block) -> None:
        start, end = self.first_line(block)
        match = _ALERT.fullmatch(self.source, start, end)
        if match is not None:
            self.found.append((match.start("marker"), match.end("marker"),
                               admonition_label(match["kind"])))

    def code(self, block: Block) -> Block:
        """A MyST admonition directive's fence becomes an admonition (its fences its label and
        nothing); a snippet line in a code block shows as a short line."""
        start, end = self.first_line(block)
        match = _DIRECTIVE_FENCE.fullmatch(self.source, start, end)
        if match is None or match["name"] not in _MYST_ADMONITIONS:
            self.snippets(block.start, block.end)
            if self.env.get("shortcodes_in_code"):  # rendered in code blocks too
                self.found.extend(rendered_shortcodes(self.source, block.start, block.end))
            return block
        name = match["name"] if match["name"] != "admonition" else ""
        self.found.append((start, end, admonition_label(name or "Note", match["title"])
                           if name or not match["title"] else " ".join(match["title"].split())))
        close_start, close_end = self.last_line(block)
        fence = match["fence"]
        if close_start > end and self.source[close_start:close_end].strip().startswith(fence):
            self.found.append((close_start, close_end, ""))
        self.found.extend(inline_rewrites(self.source, end, close_start, self.env))
        return replace(block, kind="admonition", prefix="")

    def snippets(self, start: int, end: int) -> None:
        if not self.has_snippets or self.source.find(_SNIPPET_MARK, start, end) < 0:
            return
        for match in _SNIPPET.finditer(self.source, start, end):
            self.found.append((match.start(), match.end(), f"snippet: {match['file']}"))

    def heading(self, block: Block) -> Block:
        """A heading whose title held markup: its title as the page shows it. The heading is
        the block's last line (a setext heading's line above its underline): a block may
        start earlier, over a container's marker (:func:`~.blocks.tile`)."""
        if not block.title or not self.found:
            return block
        start, end = self.last_line(block)
        if _SETEXT_UNDERLINE.fullmatch(self.source, start, end) and start > block.start:
            start, end = self.last_line(replace(block, end=start - 1))
            start = max(start, block.start)
        inside = [r for r in self.found if start <= r[0] and r[1] <= end]
        if not inside:
            return block
        text = rewrite_spans(self.source, start, end, _ordered(inside))
        text = re.sub(r"^[ \t]*#{1,6}(?:[ \t]+|$)|[ \t]+#+[ \t]*$", "", text)
        return replace(block, title=plain_text(text))


_SETEXT_UNDERLINE = re.compile(r"[ \t]*(?:=+|-+)[ \t]*")


def _ordered(rewrites: Sequence[Rewrite]) -> list[Rewrite]:
    out: list[Rewrite] = []
    for r in sorted(rewrites):
        if not out or r[0] >= out[-1][1]:
            out.append(r)
    return out
