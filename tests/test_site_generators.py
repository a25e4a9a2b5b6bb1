"""One record per site generator (issue 30): the records are the one source of the site names,
the ``--site`` help words and everything mdchunk does differently for a site, so that adding a
generator is adding a record."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from mdchunk.cli.options import FLAGS
from mdchunk.errors import ConfigError
from mdchunk.formats import parse_markdown
from mdchunk.formats.markdown_it_parser import full_parser, other_sites_rules, unused_rules
from mdchunk.formats.sites import (
    GENERATORS,
    SITES,
    Site,
    SiteGenerator,
    anchors,
    generator,
    page_path,
    site_help,
    slug_flavour,
)
from mdchunk.formats.sites import generators as records
from mdchunk.formats.sites.routes import mkdocs_route
from mdchunk.formats.sites.slugger import HUGO, MKDOCS

TABS = '=== "Linux"\n\n    Run it.\n\n=== "macOS"\n\n    Brew it.\n'


def test_site_names_are_the_records_names_in_order() -> None:
    assert SITES == get_args(Site) == tuple(g.name for g in GENERATORS)
    assert [generator(site).name for site in SITES] == list(SITES)
    assert GENERATORS[0].name == "plain"  # the default site, and github's own


def test_an_unknown_site_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"site='jekyll' must be one of plain, docusaurus"):
        generator("jekyll")
    with pytest.raises(ConfigError, match="jekyll"):
        page_path("a.md", "jekyll")  # type: ignore[arg-type]


def test_site_help_is_built_from_the_records() -> None:
    help_text = site_help()
    assert help_text.startswith("Whose URLs and heading anchors: ")
    for record in GENERATORS:
        assert f"{record.name} ({record.description})" in help_text
    assert help_text.endswith(f"or {GENERATORS[-1].name} ({GENERATORS[-1].description}).")
    option = get_args(FLAGS["site"].option)[1]
    assert option.help.startswith(help_text)


@pytest.mark.parametrize("site,flavour,explicit_ids,mdx,in_code,rules", [
    ("plain", "github", "in_place", False, False, ()),
    ("docusaurus", "github", "uncounted", True, False, ()),
    ("mkdocs", "mkdocs", "page_first", False, False, ("content_tabs",)),
    ("hugo", "hugo", "in_place", False, True, ()),
])
def test_each_record_says_what_its_site_does(site: str, flavour: str, explicit_ids: str,
                                             mdx: bool, in_code: bool,
                                             rules: tuple[str, ...]) -> None:
    record = generator(site)
    assert (slug_flavour(site), record.explicit_ids, record.mdx,  # type: ignore[arg-type]
            record.shortcodes_in_code) == (flavour, explicit_ids, mdx, in_code)
    assert tuple(rule.name for rule in record.parser_rules) == rules
    assert other_sites_rules(site).isdisjoint(rules)


def test_the_parser_reads_a_records_rules_only_for_its_site() -> None:
    for site in ("plain", "docusaurus", "hugo"):
        assert "content_tabs" in unused_rules(TABS, site), site
    assert "content_tabs" not in unused_rules(TABS, "mkdocs")
    assert "content_tabs" in unused_rules(TABS, "plain")


def test_a_name_no_record_has_reads_as_plain_markdown() -> None:
    assert other_sites_rules("jekyll") == other_sites_rules("plain") == {"content_tabs"}
    assert parse_markdown(TABS, "jekyll") == parse_markdown(TABS, "plain")


def test_adding_a_generator_is_adding_a_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new generator (here MkDocs routes and content tabs with Hugo's slugs) works everywhere
    the site matters once its record is in the table: anchors, URLs and the parser's rules."""
    zensical = SiteGenerator("zensical", "a test record", HUGO, "in_place",  # type: ignore[arg-type]
                             mkdocs_route, parser_rules=generator("mkdocs").parser_rules)
    table: tuple[SiteGenerator, ...] = (*GENERATORS, zensical)
    monkeypatch.setattr(records, "GENERATORS", table)
    monkeypatch.setattr(records, "_BY_NAME", {g.name: g for g in table})
    site: Any = "zensical"
    assert page_path("docs/guides/setup.md", site) == "/guides/setup/"
    doc = parse_markdown("## Setup\n\nx\n\n## Setup\n" + TABS, site)
    assert list(anchors(doc.blocks, site).values()) == ["setup", "setup-1"]
    assert [b.kind for b in doc.blocks][-1] == "tabs"
    assert "content_tabs" not in unused_rules(TABS, site)
    assert "content_tabs_open" in [t.type for t in full_parser(site).parse(TABS)]
    assert doc.blocks == parse_markdown("## Setup\n\nx\n\n## Setup\n" + TABS, "mkdocs").blocks


def test_mkdocs_slugger_and_explicit_ids_come_from_its_record() -> None:
    doc = parse_markdown("## Setup\n\nx\n\n## Install {#setup}\n")
    assert generator("mkdocs").slugger is MKDOCS
    assert list(anchors(doc.blocks, "mkdocs").values()) == ["setup_1", "setup"]
    assert list(anchors(doc.blocks, "hugo").values()) == ["setup", "setup"]
