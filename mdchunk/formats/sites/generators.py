"""One record per site generator: everything mdchunk does differently for its pages (slugs,
explicit ids, URLs, parser rules, MDX, ``--site`` help). Whatever differs by site asks the
record. Markup that means nothing else in Markdown is read on every site, so a page mixing
conventions still reads as its site renders it (``docs/sites.md``). Adding a generator is adding
a record to :data:`GENERATORS` and its name to :data:`Site`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

from ...errors import ConfigError
from ..content_tabs import may_hold_content_tabs
from .routes import Router, docusaurus_route, hugo_route, mkdocs_route, plain_route
from .slugger import GITHUB, HUGO, MKDOCS, ExplicitIds, Slugger

__all__ = ["GENERATORS", "SITES", "Site", "SiteGenerator", "SiteRule", "generator", "read_as",
           "site_help", "site_rules"]

#: The documentation sites whose conventions mdchunk knows: the names of :data:`GENERATORS`,
#: in order (a literal, so that type checkers and the command line's choices know them).
Site = Literal["plain", "docusaurus", "mkdocs", "hugo"]
SITES: tuple[str, ...] = get_args(Site)


@dataclass(frozen=True, slots=True)
class SiteRule:
    """A markdown-it rule for syntax that means something else in plain Markdown, on only for
    the sites whose records name it."""

    #: The rule's name in the parser (:func:`~..markdown_it_parser.configured` adds it).
    name: str
    #: A test every document the rule acts on passes: the parser leaves the rule out for the
    #: others.
    may_act: Callable[[str], bool]


#: MkDocs Material content tabs: ``=== "Label"`` is a paragraph and a code block elsewhere.
CONTENT_TABS = SiteRule("content_tabs", may_hold_content_tabs)


@dataclass(frozen=True, slots=True)
class SiteGenerator:
    """What one site generator does with a page that mdchunk reproduces."""

    name: Site
    #: The words ``--site`` shows for it, after its name.
    description: str
    #: How it slugs a heading and numbers a page's duplicates.
    slugger: Slugger
    #: Whether explicit ids take part in that numbering, and from where.
    explicit_ids: ExplicitIds
    #: The path of a document's page, from its id and front matter.
    route: Router
    #: Parser rules its pages turn on; every other site reads that syntax as plain Markdown.
    parser_rules: tuple[SiteRule, ...] = ()
    #: Its pages are MDX: a ``{…}`` expression and a capitalised tag nobody imported are
    #: markup on every page (elsewhere only on a page with MDX ``import``/``export``).
    mdx: bool = False
    #: It renders shortcodes before Markdown, so a shortcode inside a code span or code block
    #: shows its text there too, and an escaped one (``{{</* x */>}}``) shows as ``{{< x >}}``.
    shortcodes_in_code: bool = False

    def rules_that_may_act(self, source: str) -> tuple[SiteRule, ...]:
        """Its parser rules that may act on ``source``."""
        return tuple(rule for rule in self.parser_rules if rule.may_act(source))


#: Every site generator mdchunk knows, in :data:`SITES` order; ``plain`` first, the site a
#: slug flavour names by default (:func:`~mdchunk.formats.sites.slugs`).
GENERATORS: tuple[SiteGenerator, ...] = (
    SiteGenerator("plain", "a repository on GitHub", GITHUB, "in_place", plain_route),
    SiteGenerator("docusaurus", "docs plugin, MDX", GITHUB, "uncounted", docusaurus_route,
                  mdx=True),
    SiteGenerator("mkdocs", "directory URLs, content tabs", MKDOCS, "page_first",
                  mkdocs_route, parser_rules=(CONTENT_TABS,)),
    SiteGenerator("hugo", "pretty URLs, goldmark ids", HUGO, "in_place", hugo_route,
                  shortcodes_in_code=True),
)
_BY_NAME: dict[str, SiteGenerator] = {g.name: g for g in GENERATORS}


def generator(site: str) -> SiteGenerator:
    """The record of ``site``; a :class:`~mdchunk.errors.ConfigError` naming any other value.

    >>> generator("mkdocs").slugger.flavour
    'mkdocs'
    """
    found = _BY_NAME.get(site)
    if found is None:
        raise ConfigError(f"site={site!r} must be one of {', '.join(SITES)}")
    return found


def read_as(site: str) -> SiteGenerator:
    """The record whose syntax a reader turns on for ``site``: plain Markdown's for a name no
    record has (the config refuses one; a reader called directly reads what every site
    reads)."""
    return _BY_NAME.get(site, GENERATORS[0])


def site_rules() -> tuple[SiteRule, ...]:
    """Every site's parser rules, each once."""
    return tuple(dict.fromkeys(rule for g in GENERATORS for rule in g.parser_rules))


def site_help() -> str:
    """``--site``'s help, from the records.

    >>> site_help().split(", ")[0]
    'Whose URLs and heading anchors: plain (a repository on GitHub)'
    """
    names = [f"{g.name} ({g.description})" for g in GENERATORS]
    return f"Whose URLs and heading anchors: {', '.join(names[:-1])} or {names[-1]}."
