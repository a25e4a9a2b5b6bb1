"""Documentation-site conventions: the anchor each generator gives a heading, the page title, and
the URL each gives a page, asked of the site's record (:mod:`.generators`). ``docs/sites.md``
gives every rule and the differences from the real generators."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..blocks import Block
from .generators import GENERATORS, SITES, Site, SiteGenerator, SiteRule, generator, site_help
from .routes import front_text, join_url
from .slugger import SLUGGERS, SlugFlavour, github_slug, hugo_slug, mkdocs_slug, number_headings

__all__ = ["GENERATORS", "SITES", "Site", "SiteGenerator", "SiteRule", "SlugFlavour", "anchors",
           "generator", "github_slug", "hugo_slug", "join_url", "mkdocs_slug", "page_path",
           "page_title", "page_url", "site_help", "slug_flavour", "slugs"]

# -- anchors ----------------------------------------------------------------------------------


def slugs(titles: Sequence[str], flavour: SlugFlavour = "github",
          explicit: Sequence[str | None] | None = None, site: Site | None = None) -> list[str]:
    """The anchor of each heading of one page, in order: its explicit id when it has one
    (``explicit[i]``), else its slug with duplicates numbered as ``flavour`` numbers them.

    ``site`` decides whether explicit ids take part in the numbering (its record's
    ``explicit_ids``); by default, as the first site of that flavour does (``plain`` for
    ``github``).

    >>> slugs(["Foo", "Foo", "Foo"])
    ['foo', 'foo-1', 'foo-2']
    >>> slugs(["Foo", "Foo"], "mkdocs")
    ['foo', 'foo_1']
    >>> slugs(["Foo", "Bar"], "mkdocs", [None, "foo"])
    ['foo_1', 'foo']
    """
    ids = list(explicit) if explicit is not None else [None] * len(titles)
    slugger = SLUGGERS[flavour]
    record = generator(site) if site else next(g for g in GENERATORS if g.slugger == slugger)
    return number_headings(titles, slugger, ids, record.explicit_ids)


def slug_flavour(site: Site) -> SlugFlavour:
    """The slug rules ``site`` follows: Docusaurus and GitHub share github-slugger."""
    return generator(site).slugger.flavour


def _headings(blocks: Iterable[Block], found: list[Block] | None = None) -> list[Block]:
    """Every heading in document order, those inside quotes, lists and admonitions too: the
    generators number them all. A list built in one walk that descends only into blocks with
    children (a generator per block cost more than the numbering)."""
    found = [] if found is None else found
    for block in blocks:
        if block.kind == "heading":
            found.append(block)
        elif block.children:
            _headings(block.children, found)
    return found


def anchors(blocks: Sequence[Block], site: Site = "plain") -> dict[int, str]:
    """The anchor of every heading of a page, by its start; an empty slug (GitHub's for a
    heading of emoji alone) is left out.

    >>> from mdchunk.formats import parse_markdown
    >>> doc = parse_markdown("## Setup\\n\\nx\\n\\n## Setup {#again}\\n\\ny\\n\\n## Setup\\n")
    >>> list(anchors(doc.blocks, "docusaurus").values())
    ['setup', 'again', 'setup-1']
    """
    headings = _headings(blocks)
    record = generator(site)
    found = number_headings([h.title for h in headings], record.slugger,
                            [h.heading_id or None for h in headings], record.explicit_ids)
    return {h.start: anchor for h, anchor in zip(headings, found) if anchor}


# -- page titles ------------------------------------------------------------------------------


def page_title(front: Mapping[str, Any], blocks: Sequence[Block],
               keys: Sequence[str] = ("title", "sidebar_label")) -> Block | None:
    """The page title as the root of every heading path: the first of ``keys`` that front
    matter gives (a string or number), unless a top-level ``#`` heading already says it.

    It is a ``title`` block at ``-1``: before every chunk, so always in the breadcrumb, and
    never a block of the text.

    >>> from mdchunk.formats import parse_markdown
    >>> page_title({"title": "Install"}, parse_markdown("## Linux\\n\\nRun it.\\n").blocks).title
    'Install'
    >>> page_title({"title": "Install"}, parse_markdown("# Install\\n\\nRun it.\\n").blocks)
    """
    if any(b.kind == "heading" and b.level == 1 for b in blocks):
        return None
    for key in keys:
        title = front_text(front, key)
        if title is not None:
            return Block("title", -1, -1, title=" ".join(title.split()))
    return None


# -- page URLs --------------------------------------------------------------------------------


def page_path(doc_id: str, site: Site, front: Mapping[str, Any] | None = None) -> str:
    """The path, from the site's root, of the page ``site`` builds from the document
    ``doc_id`` (relative to the indexed root) and its front matter.

    >>> page_path("docs/guides/01-setup.md", "docusaurus")
    '/docs/guides/setup'
    >>> page_path("docs/guides/index.md", "mkdocs")
    '/guides/'
    >>> page_path("content/posts/My Post.md", "hugo", {"slug": "first"})
    '/posts/first/'
    >>> page_path("docs/a.md", "plain")
    '/docs/a.md'
    """
    return generator(site).route(doc_id, front or {})


def page_url(base_url: str, doc_id: str, site: Site,
             front: Mapping[str, Any] | None = None) -> str:
    """The URL of the page built from ``doc_id`` (:func:`page_path`) under ``base_url``.

    >>> page_url("https://example.com", "docs/index.md", "docusaurus")
    'https://example.com/docs/'
    """
    return join_url(base_url, page_path(doc_id, site, front))
