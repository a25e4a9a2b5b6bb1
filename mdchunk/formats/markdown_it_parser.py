"""The markdown-it-py parser as mdchunk configures it, and which of its rules a document may use.

:mod:`.markdown` parses with it, leaving out the rules a page cannot trigger
(:data:`RULE_TRIGGERS`), and :meth:`~.block_maker.BlockMaker.heading` parses a heading's inline
markup with it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import html_block as markdown_it_html_block
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from .content_tabs import content_tabs_plugin
from .sites.generators import read_as, site_rules

__all__ = ["RULE_TRIGGERS", "block_parser", "comment_blocks_plugin", "configured", "full_parser",
           "html_block", "inline_pass", "other_sites_rules", "unused_rules",
           "valid_container_name"]


def configured() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for plugin in (front_matter_plugin, footnote_plugin, deflist_plugin, dollarmath_plugin,
                   tasklists_plugin, admon_plugin, content_tabs_plugin, comment_blocks_plugin):
        md.use(plugin)
    # One rule for every ``::: name`` container (one rule per name cost ~5% of parse time).
    md.use(container_plugin, name="container", validate=valid_container_name)
    return md


def html_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's HTML block rule, with an HTML comment inside a list item or a quote read as
    CommonMark (goldmark, commonmark.js, GitHub) reads it: one block to its ``-->``, blank lines
    and all, where markdown-it stops at the blank line and would put the rest of the comment in
    ``embed_text`` (the zh-cn pages of a Hugo site keep each English original that way). The
    comment runs on when every line up to its ``-->`` is blank or indented into the container
    (else the block stays as markdown-it ends it)."""
    if silent or not markdown_it_html_block(state, start_line, end_line, silent):
        return silent and markdown_it_html_block(state, start_line, end_line, silent)
    token = state.tokens[-1]
    if not token.content.startswith("<!--") or "-->" in token.content:
        return True
    line = state.line
    if line >= end_line or not state.isEmpty(line):
        return True  # ended by a less indented line: the container ended there too
    while line < end_line:
        if not state.isEmpty(line):
            if state.sCount[line] < state.blkIndent:
                return True  # the container ends before the comment closes
            text = state.src[state.bMarks[line] + state.tShift[line]:state.eMarks[line]]
            if "-->" in text:
                line += 1
                state.line = line
                assert token.map is not None
                token.map = [token.map[0], line]
                token.content = state.getLines(start_line, line, state.blkIndent, True)
                return True
        line += 1
    return True


def comment_blocks_plugin(md: MarkdownIt) -> None:
    """Put :func:`html_block` in the place of markdown-it's rule (the same name and chains)."""
    md.block.ruler.at("html_block", html_block,
                      {"alt": ["paragraph", "reference", "blockquote"]})


def valid_container_name(params: str, markup: str) -> bool:
    """Accept ``::: note``, ``::: warning Title``, ``:::tip[Title]`` …: any container opened
    with a word, or a MyST directive's ``{name}`` (a colon fence, ``:::{warning}``)."""
    words = params.split()
    if not words:
        return False
    word = words[0].split("[", 1)[0]
    if word.startswith("{") and word.endswith("}"):
        word = word[1:-1]
    return bool(word) and word.replace("-", "").replace("_", "").isalnum()


@functools.lru_cache(maxsize=4)
def full_parser(site: str = "plain") -> MarkdownIt:
    """The full parser (block and inline rules), without the rules of other sites' syntax
    (:func:`other_sites_rules`)."""
    return configured().disable(sorted(other_sites_rules(site)))


@functools.lru_cache(maxsize=32)
def block_parser(unused: frozenset[str] = frozenset()) -> MarkdownIt:
    """The same parser without its inline pass (about 40% of parse time): chunking needs block
    structure only, and :meth:`~.block_maker.BlockMaker.heading` parses a heading's inline markup
    when it needs it. Nor the footnotes' tail rule, which without the inline pass would drop
    every footnote (none referenced): :func:`inline_pass` runs it after that pass.
    ``unused`` block rules are left out too (see :func:`unused_rules`)."""
    return configured().disable(["inline", "text_join", "github-tasklists", "footnote_tail",
                                 *sorted(unused)])


def inline_pass(source: str, tokens: list[Token], env: dict[str, Any], site: str = "plain"
                ) -> list[Token]:
    """What ``full_parser(site).parse(source, env)`` gives, from the ``tokens`` and ``env``
    that :func:`block_parser` left: the full parser's core rules after its block rule (the
    inline parse, footnotes, task lists, text join) run over them. A document with footnotes
    needs the inline parse (which footnote blocks exist depends on its references), not its
    block parse again."""
    md = _after_block(site)
    state = StateCore(source, md, env, list(tokens))
    md.core.process(state)
    return state.tokens


@functools.lru_cache(maxsize=4)
def _after_block(site: str) -> MarkdownIt:
    """:func:`full_parser` without its core rules up to the block parse."""
    return configured().disable(sorted({*other_sites_rules(site), "normalize", "block"}))


def _may_hold_deflist(source: str) -> bool:
    """A definition's ``:`` or ``~`` starts its line, after indentation and quote markers, and
    a space or tab follows it (the rule's ``skipMarker`` wants one: a ``:::`` container or a
    ``~~~`` fence is no definition). (Searched after a literal line break: a multi-line ``^``
    search is five times slower.)"""
    return bool(_DEFINITION_AT_START.match(source) or _DEFINITION_AFTER_LF.search(source)
                or ("\r" in source and _DEFINITION_AFTER_CR.search(source)))


_DEFINITION_AT_START = re.compile(r"[ \t>]*[:~][ \t]")
_DEFINITION_AFTER_LF = re.compile(r"\n[ \t>]*[:~][ \t]")
_DEFINITION_AFTER_CR = re.compile(r"\r[ \t>]*[:~][ \t]")

#: Parser rules, each with a test that any document the rule acts on passes. Every block rule
#: is tried at every block start, so leaving out the rules a document cannot use parses it to
#: the same tokens about 15% faster.
RULE_TRIGGERS: dict[str, Callable[[str], bool]] = {
    # a character looked for first: one absent is found so at memchr's speed, many times faster
    # than a pair or triple of it (issue 32: half the cost over Ory's and RocketMQ's pages)
    "math_block": lambda source: "$" in source and "$$" in source,
    "admonition": lambda source: ("!" in source and "!!!" in source)
    or ("?" in source and "???" in source),
    "container_container": lambda source: ":::" in source,
    "footnote_def": lambda source: "[^" in source,
    "deflist": _may_hold_deflist,
    # the core rule that rewrites CR and CRLF to LF and NUL to U+FFFD: a no-op without them
    "normalize": lambda source: "\r" in source or "\0" in source,
}


def other_sites_rules(site: str) -> frozenset[str]:
    """The site rules (:func:`~.sites.generators.site_rules`) that ``site``'s record does not
    turn on: the parser reads their syntax as plain Markdown does."""
    own = read_as(site).parser_rules
    return frozenset(rule.name for rule in site_rules() if rule not in own)


def unused_rules(source: str, site: str = "plain") -> frozenset[str]:
    """The rules of :data:`RULE_TRIGGERS` that ``source`` cannot use, and the site rules that
    ``site`` does not turn on or ``source`` cannot use."""
    acting = read_as(site).rules_that_may_act(source)
    return frozenset([*(rule for rule, may_use in RULE_TRIGGERS.items() if not may_use(source)),
                      *(rule.name for rule in site_rules() if rule not in acting)])
