"""What a documentation site's page shows where its source has generator markup.

This pass adds :attr:`~.blocks.Document.markup` to a reader's document: spans with the text the
page shows in their place, which the drafter applies to ``embed_text`` (``text`` stays the
verbatim slice). It runs the rules of :data:`~.markup_rules.MARKUP_RULES`, the block readers
over the parser's blocks and the inline readers inside markdown-it's inline parse; then callout
pairs become ``admonition`` blocks (:mod:`.callouts`) and tab groups ``tabs`` blocks
(:mod:`.tabs`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.backticks import backtick
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from . import markup_rules
from .block_maker import plain_text
from .blocks import Block, Document, Markup, rewrite_spans
from .callouts import group_callouts
from .markup_rules import MarkupRule, inline_trigger, on_page, rules_for
from .site_inline import MarkupEnv
from .site_lines import last_line
from .sites.generators import read_as
from .tabs import group_tabs

__all__ = ["code_markup", "inline_markup", "render_markup"]

#: Blocks whose text is not prose: never read for markup (code is read by its own rules).
_NOT_PROSE = frozenset({"math", "front_matter", "comment", "title", "hr", "esm", "target",
                        "link_definitions"})


def render_markup(doc: Document, site: str = "plain") -> Document:
    """``doc`` with its generator markup (:attr:`~.blocks.Document.markup`), read by the rules
    of :data:`~.markup_rules.MARKUP_RULES` that read a page of ``site``."""
    source = doc.source
    record = read_as(site)
    table = markup_rules.MARKUP_RULES
    rules = on_page(source, rules_for(site, record.mdx, table))
    if not rules:
        return doc
    env: MarkupEnv = {"mdx": record.mdx, "components": set(), "tab_labels": {}}
    walk = _Walk(source, env, rules, record.shortcodes_in_code)
    blocks = walk.top(doc.blocks)
    if env["mdx"] and not record.mdx:  # MDX imports: the document's own rules are MDX's
        walk.use(on_page(source, rules_for(site, True, table)))
    blocks = tuple([walk.done.get(block.start) or walk.block(block) for block in blocks])
    if not walk.found:
        return doc
    markup = tuple(sorted(walk.found))
    blocks = group_callouts(source, blocks, markup)
    return replace(doc, blocks=group_tabs(source, blocks, markup), markup=markup)


class _Walk:
    """Walks the block tree, recording markup."""

    def __init__(self, source: str, env: MarkupEnv, rules: tuple[MarkupRule, ...],
                 in_code: bool) -> None:
        self.source = source
        self.env = env
        self.found: list[Markup] = []
        #: Top-level blocks the top-level rules made another kind, by their start.
        self.done: dict[int, Block] = {}
        self.in_code = in_code
        self.use(rules)

    def use(self, rules: tuple[MarkupRule, ...]) -> None:
        self.rules = rules
        self.block_rules = [r for r in rules if r.block is not None and r.kinds is not None
                            and not r.top_level]
        self.leaf_rules = [r for r in rules if r.block is not None and r.kinds is None]
        self.inline_rules = tuple(r for r in rules if r.inline is not None)
        self.code_rules = tuple(r for r in self.inline_rules if r.in_code) if self.in_code \
            else ()
        self.trigger = inline_trigger(self.inline_rules)

    def holds(self, rule: MarkupRule, block: Block) -> bool:
        return any(self.source.find(mark, block.start, block.end) >= 0 for mark in rule.marks)

    def top(self, blocks: Sequence[Block]) -> Sequence[Block]:
        """Read the top-level rules (MDX ESM, which makes the document MDX) before the rest."""
        for rule in self.rules:
            if rule.top_level and rule.block is not None and rule.kinds is not None:
                for block in blocks:
                    if block.kind in rule.kinds and self.holds(rule, block):
                        self.apply(rule, block, top=True)
        return blocks

    def apply(self, rule: MarkupRule, block: Block, top: bool = False) -> Block | None:
        """``rule`` read on ``block``: the block as the page shows it when it is another kind."""
        assert rule.block is not None
        found = rule.block(self.source, block, self.env)
        if found is None:
            return None
        self.found.extend(found.markup)
        if not found.kind:
            return None
        if found.body is not None:
            self.inline(*found.body)
        shown = replace(block, kind=found.kind, prefix="")
        if top:
            self.done[block.start] = shown
        return shown

    def block(self, block: Block) -> Block:
        kind = block.kind
        if kind in _NOT_PROSE:
            return block
        for rule in self.block_rules:
            if kind in rule.kinds and self.holds(rule, block):  # type: ignore[operator]
                shown = self.apply(rule, block)
                if shown is not None:
                    return shown
        if block.children:
            children = tuple([self.block(child) for child in block.children])
            return replace(block, children=children) if children != block.children else block
        for rule in self.leaf_rules:
            if self.holds(rule, block):
                self.apply(rule, block)
        if kind == "code":
            if self.code_rules:  # the site renders its markup in code blocks too
                self.found.extend(code_markup(self.source, block.start, block.end, self.env,
                                              self.code_rules))
            return block
        self.inline(block.start, block.end)
        return self.heading(block) if kind == "heading" else block

    def inline(self, start: int, end: int) -> None:
        if self.trigger is not None and self.trigger.search(self.source, start, end):
            self.found.extend(inline_markup(self.source, start, end, self.env,
                                            self.inline_rules, self.code_rules))

    def heading(self, block: Block) -> Block:
        """A heading whose title held markup: its title as the page shows it. The heading is
        the block's last line (a setext heading's line above its underline): a block may
        start earlier, over a container's marker (:func:`~.blocks.tile`)."""
        if not block.title or not self.found:
            return block
        start, end = last_line(self.source, block.start, block.end)
        if _SETEXT_UNDERLINE.fullmatch(self.source, start, end) and start > block.start:
            start, end = last_line(self.source, block.start, start - 1)
            start = max(start, block.start)
        inside = [(m.start, m.end, m.shown) for m in _ordered(
            [m for m in self.found if start <= m.start and m.end <= end])]
        if not inside:
            return block
        text = rewrite_spans(self.source, start, end, inside)
        text = re.sub(r"^[ \t]*#{1,6}(?:[ \t]+|$)|[ \t]+#+[ \t]*$", "", text)
        return replace(block, title=plain_text(text))


_SETEXT_UNDERLINE = re.compile(r"[ \t]*(?:=+|-+)[ \t]*")


def _ordered(found: Sequence[Markup]) -> list[Markup]:
    out: list[Markup] = []
    for m in sorted(found):
        if not out or m.start >= out[-1].end:
            out.append(m)
    return out


# -- the inline parse ----------------------------------------------------------------------------

def inline_markup(source: str, start: int, end: int, env: MarkupEnv,
                  rules: tuple[MarkupRule, ...], code_rules: tuple[MarkupRule, ...] = ()
                  ) -> list[Markup]:
    """The markup of the prose block ``source[start:end]`` that the inline ``rules`` read
    (``code_rules`` inside its code spans too), in source offsets."""
    text = source[start:end]
    # markdown-it turns CRLF and CR into LF and NUL into U+FFFD: do it keeping every offset
    text = text.replace("\r\n", " \n").replace("\r", "\n").replace("\x00", "\ufffd")
    starts = "".join(sorted({char for rule in rules for char in rule.starts}))
    env["markup"], env["rules"], env["code_rules"], env["starts"] = [], rules, code_rules, starts
    # the inline rules alone: markdown-it's core and post-processing rules change tokens only
    md = _parser(starts)
    md.inline.tokenize(StateInline(text, md, env, []))
    found = [m._replace(start=start + m.start, end=start + m.end)
             for src, m in env.pop("markup") if src == text]
    return sorted(found)


def code_markup(source: str, start: int, end: int, env: MarkupEnv,
                rules: tuple[MarkupRule, ...]) -> list[Markup]:
    """The markup ``rules`` read in code (a code block, a code span), left to right."""
    if not any(source.find(mark, start, end) >= 0 for rule in rules for mark in rule.marks):
        return []
    starts = _starts_pattern("".join(sorted({c for rule in rules for c in rule.starts})))
    found: list[Markup] = []
    at = starts.search(source, start, end)
    while at is not None:
        pos = at.start()
        read = next((m for rule in rules if source[pos] in rule.starts
                     and (m := rule.inline(source, pos, end, env)) is not None), None)  # type: ignore[misc]
        if read is not None:
            found.append(read)
        at = starts.search(source, read.end if read is not None else pos + 1, end)
    return found


@functools.lru_cache(maxsize=16)
def _starts_pattern(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{re.escape(chars)}]")


def _record(state: StateInline, found: Markup) -> None:
    """Note markup; markup that shows nothing between two blanks takes the one before it
    along, so that no double blank is left (``service {/* x */} and`` → ``service and``)."""
    src, start, end = state.src, found.start, found.end
    if not found.shown and start > 0 and src[start - 1] in " \t" and (
            end == len(src) or src[end] in " \t\n"):
        found = found._replace(start=start - 1)
    state.env["markup"].append((src, found))


def _site_markup(state: StateInline, silent: bool) -> bool:
    """The inline rules of the page (``env["rules"]``), in order, where one may start."""
    src, pos = state.src, state.pos
    char = src[pos]
    if char not in state.env["starts"]:  # most characters the text rule stops at
        return False
    for rule in state.env["rules"]:
        if char in rule.starts:
            found = rule.inline(src, pos, state.posMax, state.env)
            if found is not None:
                if not silent:
                    _record(state, found)
                state.pos = found.end
                return True
    return False


def _code_span(state: StateInline, silent: bool) -> bool:
    """On a site that renders its markup before Markdown (Hugo), a code span as markdown-it
    reads it, its markup as the page shows it."""
    if state.src[state.pos] != "`" or not state.env["code_rules"]:
        return False
    start = state.pos
    if not backtick(state, silent):
        return False
    if not silent:
        state.env["markup"].extend((state.src, m) for m in code_markup(
            state.src, start, state.pos, state.env, state.env["code_rules"]))
    return True


#: The characters markdown-it's own rules of :func:`_parser` start at (newline, math, escape,
#: code span, strikethrough, emphasis, link and footnote reference, image, inline footnote,
#: autolink and HTML, entity), and ``]``, where a link's label ends. markdown-it's text rule
#: stops at more (``-``, ``:``, ``=``, ``#`` …), where every rule is tried for nothing.
_OWN_STARTS = "\n$\\`~*_[]!^<&"


@functools.lru_cache(maxsize=16)
def _parser(starts: str) -> MarkdownIt:
    """markdown-it's inline rules as mdchunk's parser has them, the site rules first where
    they start (after the text rule, which stops at the characters they start at,
    ``starts``), and its text rule stopping only where a rule may start: the same markup
    found at the same places (``tests/test_site_inline_parser.py`` compares it with the
    site rules before markdown-it's own, the text rule as markdown-it has it)."""
    md = MarkdownIt("commonmark").enable(["strikethrough"])
    md.use(dollarmath_plugin).use(footnote_plugin)
    md.inline.ruler.after("text", "site_markup", _site_markup)
    md.inline.ruler.before("backticks", "site_code_span", _code_span)
    md.inline.terminator_re = _starts_pattern(_OWN_STARTS + starts)  # markdown-it-py 4.2's
    return md
