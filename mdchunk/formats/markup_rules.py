"""The one table of generator markup: what triggers each kind, what reads it, on which pages.

Each :class:`MarkupRule` of :data:`MARKUP_RULES` holds the literal text every match holds (its
``marks``), the reader that gives the markup's span and what the page shows in its place, and
the pages it is read on. The marks are the one pre-filter, for every rule alike (:func:`on_page`,
:func:`inline_trigger`, the block readers' kinds): a rule cannot be left out of a filter by
mistake, since there is no other.

An *inline* reader looks at a position of a prose block's text inside markdown-it's inline
parse (so a code span is never read as markup); a *block* one looks at a block the parser made.
What plain Markdown reads otherwise is read only in MDX (``mdx``) or on the ``sites`` a rule
names; ``in_code`` rules are read inside code too (Hugo renders shortcodes before Markdown).
Adding a tag: ``docs/architecture.md``, "A generator's new tag"."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from .blocks import Block, Markup
from .site_inline import (
    KNOWN_COMPONENTS,
    MarkupEnv,
    read_component,
    read_escaped_shortcode,
    read_jsx_tag,
    read_mdx_comment,
    read_mdx_expression,
    read_role,
    read_shortcode,
)
from .site_lines import (
    BlockFound,
    read_admonition,
    read_alert,
    read_container,
    read_content_tab,
    read_directive,
    read_esm,
    read_snippets,
    read_target,
)

__all__ = ["MARKUP_RULES", "BlockReader", "InlineReader", "MarkupRule", "inline_trigger",
           "on_page", "rules_for"]

#: Reads the markup that starts at ``src[pos]`` (before ``limit``), if any.
InlineReader = Callable[[str, int, int, MarkupEnv], "Markup | None"]
#: Reads the markup of one block.
BlockReader = Callable[[str, Block, MarkupEnv], "BlockFound | None"]


@dataclass(frozen=True, slots=True)
class MarkupRule:
    """One kind of generator markup."""

    name: str
    #: Literal text every match holds one of: the pre-filter of the page, the block and the
    #: prose this rule reads.
    marks: tuple[str, ...]
    #: The inline reader, and the characters a match starts at.
    inline: InlineReader | None = None
    starts: str = ""
    #: The block reader, and the kinds of block it reads (``None``: every prose leaf and code
    #: block).
    block: BlockReader | None = None
    kinds: frozenset[str] | None = None
    #: Read only among the page's top-level blocks (before the rest: MDX ESM).
    top_level: bool = False
    #: Read only in an MDX document: a page of a site whose record says MDX, or one with MDX
    #: ``import`` / ``export`` statements.
    mdx: bool = False
    #: The sites it is read on (``None``: every site).
    sites: frozenset[str] | None = None
    #: Read inside code spans and code blocks too, on a site whose record says it renders
    #: shortcodes before Markdown (``shortcodes_in_code``).
    in_code: bool = False


#: Every rule, in the order they are tried (at one position, the first that reads wins).
MARKUP_RULES: tuple[MarkupRule, ...] = (
    # Hugo: {{</* x */>}} shows as {{< x >}}; {{< x >}}, {{% x %}} as what each shortcode shows
    MarkupRule("escaped shortcode", ("{{",), read_escaped_shortcode, "{", in_code=True),
    MarkupRule("shortcode", ("{{",), read_shortcode, "{", in_code=True),
    # MyST: {ref}`title <target>` shows its title
    MarkupRule("MyST role", ("}`",), read_role, "{"),
    # MDX: comments, expressions, components and JSX tags
    MarkupRule("MDX comment", ("{/*",), read_mdx_comment, "{"),
    MarkupRule("MDX expression", ("{",), read_mdx_expression, "{", mdx=True),
    MarkupRule("component", tuple(sorted(f"<{slash}{name}" for name in KNOWN_COMPONENTS
                                         for slash in ("", "/"))), read_component, "<"),
    MarkupRule("JSX tag", ("<",), read_jsx_tag, "<", mdx=True),
    # lines and blocks the parser made
    MarkupRule("MDX ESM", ("import", "export"), block=read_esm,
               kinds=frozenset({"paragraph"}), top_level=True),
    MarkupRule("MyST target", (")=",), block=read_target, kinds=frozenset({"paragraph"})),
    MarkupRule("MyST directive", ("{",), block=read_directive, kinds=frozenset({"code"})),
    MarkupRule("admonition marker", ("!!!", "???"), block=read_admonition,
               kinds=frozenset({"admonition"})),
    MarkupRule("container marker", (":::",), block=read_container,
               kinds=frozenset({"container"})),
    MarkupRule("GitHub alert", ("[!",), block=read_alert, kinds=frozenset({"blockquote"})),
    MarkupRule("content tab", ("=== ", "===!", "===+"), block=read_content_tab,
               kinds=frozenset({"tab"})),
    MarkupRule("snippet", ("-8<-",), block=read_snippets),
)


@functools.lru_cache(maxsize=64)
def rules_for(site: str, mdx: bool, table: tuple[MarkupRule, ...] = MARKUP_RULES
              ) -> tuple[MarkupRule, ...]:
    """The rules of ``table`` that read a page of ``site`` (``mdx``: an MDX document)."""
    return tuple(rule for rule in table
                 if (mdx or not rule.mdx) and (rule.sites is None or site in rule.sites))


def on_page(source: str, rules: tuple[MarkupRule, ...]) -> tuple[MarkupRule, ...]:
    """The ``rules`` one of whose marks ``source`` holds (the others read nothing there): each
    mark looked for by ``in``, many times faster than one search for an alternation of them."""
    return tuple(rule for rule in rules if any(mark in source for mark in rule.marks))


@functools.lru_cache(maxsize=64)
def _marks(rules: tuple[MarkupRule, ...]) -> tuple[str, ...]:
    """The marks of ``rules``, each once, none that holds another (that one is found first)."""
    marks = {mark for rule in rules for mark in rule.marks}
    return tuple(sorted(m for m in marks if not any(o != m and o in m for o in marks)))


@functools.lru_cache(maxsize=64)
def inline_trigger(rules: tuple[MarkupRule, ...]) -> re.Pattern[str] | None:
    """What prose must hold for one of the inline ``rules`` to read in it (``None``: none)."""
    marks = _marks(tuple(rule for rule in rules if rule.inline is not None))
    return re.compile("|".join(map(re.escape, marks))) if marks else None
