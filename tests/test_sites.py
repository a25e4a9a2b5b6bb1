"""Documentation sites: heading ids, anchors as each generator slugs them, page titles, URLs.

The slug examples restate the generators' own documented and tested behaviour (github-slugger's
fixtures, Python-Markdown's ``toc`` tests, Hugo's ``autoid`` tests), replayed in order where a
generator numbers duplicates across a page.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mdchunk
from mdchunk import ChunkerConfig, ConfigError
from mdchunk.formats import parse_markdown
from mdchunk.formats.block_maker import split_heading_id
from mdchunk.formats.sites import (
    anchors,
    github_slug,
    hugo_slug,
    join_url,
    mkdocs_slug,
    page_path,
    page_title,
    slugger,
    slugs,
)
from tests.audit import audit_markdown, headings_only, overlap_problems

from .test_guarantees import _document

# -- heading ids ------------------------------------------------------------------------------


@pytest.mark.parametrize("content,expected", [
    ("Rolling restarts {#rolling-restarts}", ("Rolling restarts", "rolling-restarts")),
    ("Rolling restarts {#rolling-restarts}  ", ("Rolling restarts", "rolling-restarts")),
    ("Title {#id .class key=value}", ("Title", "id")),
    ("Title { #spaced }", ("Title", "spaced")),
    ("Title {: #colon }", ("Title", "colon")),  # Python-Markdown attr_list
    ("Title {.unnumbered}", ("Title", "")),  # attributes without an id leave the title too
    ("Title {/* #my-id */}", ("Title", "my-id")),  # Docusaurus MDX comment
    ("Title {/* #my-id more words */}", ("Title", "my-id")),
    ("安装 {#install}", ("安装", "install")),
    ("{#only-an-id}", ("", "only-an-id")),
])
def test_heading_ids_are_split_from_the_title(content: str, expected: tuple[str, str]) -> None:
    assert split_heading_id(content) == expected


@pytest.mark.parametrize("content", [
    "Length: ${#var}",           # no blank before the brace: shell, not attributes
    "Route /items/{id}",         # not an attribute block
    "Params {index}",            # a bare word is no attribute
    "Empty braces {}",
    "Comment without hash {/* my-id */}",  # Docusaurus wants the leading #
    "Text after {#id} the block",
    "Escaped \\{#id}",
])
def test_text_that_only_looks_like_an_id_stays(content: str) -> None:
    assert split_heading_id(content) == (content, None)


def test_heading_id_never_reaches_headings_but_stays_in_the_text() -> None:
    source = "# Ops {#ops}\n\n## Rolling restarts {#rolling}\n\nRestart one node at a time.\n"
    (chunk,) = mdchunk.chunk_markdown(source, max_tokens=64, overlap_tokens=0)
    assert chunk.headings == ["Ops", "Rolling restarts"]
    assert chunk.section_path == "Ops > Rolling restarts"
    assert chunk.text == source.rstrip()  # verbatim: the markup is still there
    assert chunk.anchor == "rolling"
    blocks = parse_markdown(source).blocks
    assert [(b.title, b.heading_id) for b in blocks if b.kind == "heading"] == [
        ("Ops", "ops"), ("Rolling restarts", "rolling")]


def test_heading_id_is_removed_from_breadcrumbs() -> None:
    source = ("## Setup {/* #setup-id */}\n\n" + "A sentence about the setup. " * 30 + "\n")
    chunks = mdchunk.chunk_markdown(source, max_tokens=48, overlap_tokens=0)
    assert len(chunks) > 1
    assert all("#setup-id" not in c.embed_text[: -len(c.text)] for c in chunks)
    assert all(c.headings == ["Setup"] and c.anchor == "setup-id" for c in chunks)


# -- slugs ------------------------------------------------------------------------------------


def test_github_slugs_follow_github_slugger() -> None:
    # github-slugger's fixtures, replayed on one slugger: duplicates count across the page
    cases = [
        ("alpha", "alpha"), ("alpha", "alpha-1"), ("bravoCharlieDelta", "bravocharliedelta"),
        ("__proto__", "__proto__"), ("__proto__", "__proto__-1"),
        ("echo", "echo"), ("echo", "echo-1"), ("echo 1", "echo-1-1"), ("echo-1", "echo-1-2"),
        ("echo", "echo-2"),
        ("foxtrot-1", "foxtrot-1"), ("foxtrot", "foxtrot"), ("foxtrot", "foxtrot-2"),
        ("heading with a - dash", "heading-with-a---dash"),
        ("heading with an _ underscore", "heading-with-an-_-underscore"),
        ("heading with a period.txt", "heading-with-a-periodtxt"),
        ("exchange.bind_headers(exchange, routing [, bindCallback])",
         "exchangebind_headersexchange-routing--bindcallback"),
        (" a ", "-a-"), ("-a-", "-a--1"),
        ("apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"),
        ("I ♥ unicode", "i--unicode"), ("en–dash", "endash"),
        ("😄 unicode emoji", "-unicode-emoji"), ("😄_😄 unicode emoji", "_-unicode-emoji"),
        (":smile: - a gemoji", "smile---a-gemoji"),
        ("Привет non-latin 你好", "привет-non-latin-你好"),
        ("Ⓐ circled", "ⓐ-circled"),  # alphabetic symbols stay, other numbers go
        ("½ off", "-off"),
        ("हिन्दी", "हिन्दी"),  # combining marks stay
    ]
    assert slugs([text for text, _ in cases], "github") == [slug for _, slug in cases]


def test_github_slug_examples_from_the_brief() -> None:
    assert github_slug("Hello World") == "hello-world"
    assert github_slug("安装 步骤") == "安装-步骤"
    assert slugs(["foo", "foo"], "github") == ["foo", "foo-1"]


@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40))
def test_ascii_slugs_are_the_per_character_rules(text: str) -> None:
    # github_slug and hugo_slug take a one-pass path on ASCII headings: it keeps exactly the
    # characters the per-character rules (Unicode categories) keep, on any ASCII text
    assert github_slug(text) == "".join(
        c for c in text.lower() if slugger._github_keeps(c)).replace(" ", "-")
    assert hugo_slug(text) == "".join(
        "-" if c in "- \t" else c.lower() for c in text
        if c in "- \t_" or unicodedata.category(c) in slugger._HUGO_KEPT)


def test_every_ascii_character_slugs_as_its_category_says() -> None:
    for code in range(0x80):
        char = chr(code)
        kept = char in " -_" or unicodedata.category(char) in {"Lu", "Ll", "Nd"}
        assert github_slug(f"a{char}b") == ("a-b" if char == " " else
                                            f"a{char.lower()}b" if kept else "ab"), code
        hugo = "a-b" if char in " \t-" else f"a{char.lower()}b" if kept else "ab"
        assert hugo_slug(f"a{char}b") == hugo, code


def test_mkdocs_slugs_follow_python_markdown_toc() -> None:
    assert mkdocs_slug("Hello World!") == "hello-world"
    assert mkdocs_slug("Some *Header* with markup.") == "some-header-with-markup"
    assert mkdocs_slug("Foo & bar") == "foo-bar"
    assert mkdocs_slug("Žlutý kůň") == "zluty-kun"
    assert mkdocs_slug("  -- spaced -- out --  ") == "-spaced-out-"
    assert mkdocs_slug("Unicode ヘッダー") == "unicode"
    # toc.unique: ``_1``, ``_2``; an empty id (a CJK heading) is numbered too
    assert slugs(["Header", "Header", "Header"], "mkdocs") == ["header", "header_1", "header_2"]
    assert slugs(["安装 步骤", "配置"], "mkdocs") == ["_1", "_2"]
    assert slugs(["Step_1", "Step", "Step"], "mkdocs") == ["step_1", "step", "step_2"]


def test_mkdocs_counts_every_explicit_id_of_the_page_first() -> None:
    # toc collects the page's ids before it slugs: a later {#setup} pushes an earlier Setup on
    titles, given = ["Setup", "Install", "Setup"], [None, "setup", None]
    assert slugs(titles, "mkdocs", given) == ["setup_1", "setup", "setup_2"]


def test_hugo_slugs_follow_hugo_autoid() -> None:
    cases = {
        "God is good: 神真美好": "god-is-good-神真美好",
        "Number 32": "number-32",
        "Question?": "question",
        "1+2=3": "123",
        'Special !"#$%&(parens)=?´* chars': "special-parens-chars",
        "Resumé": "resumé",
        "One-Hyphen": "one-hyphen",
        "Multiple--Hyphens": "multiple--hyphens",
        "Trailing hyphen-": "trailing-hyphen-",
        "Forward/slash": "forwardslash",
        "Under_score": "under_score",
        "Nonbreaking\u00a0Space": "nonbreakingspace",
        "Tab\tSpace": "tab-space",
    }
    assert {text: hugo_slug(text) for text in cases} == cases
    # an empty id is "heading"; a taken one gets the first free -N; explicit ids count from
    # where they stand
    assert slugs(["🚀", "🚀", "Foo", "Bar", "Foo"], "hugo", [None, None, None, "foo-1", None]) \
        == ["heading", "heading-1", "foo", "foo-1", "foo-2"]


def test_docusaurus_does_not_count_explicit_ids() -> None:
    source = "## Setup {#setup}\n\nx\n\n## Setup\n\ny\n\n## Setup\n\nz\n"
    blocks = parse_markdown(source).blocks
    assert list(anchors(blocks, "docusaurus").values()) == ["setup", "setup", "setup-1"]
    assert list(anchors(blocks, "plain").values()) == ["setup", "setup-1", "setup-2"]


def test_headings_in_quotes_and_admonitions_count_for_duplicates() -> None:
    source = (":::note\n\n## Setup\n\ninside\n\n:::\n\n> ## Setup\n\n## Setup\n\n"
              + "Outside the note. " * 20 + "\n")
    assert list(anchors(parse_markdown(source).blocks).values()) == ["setup", "setup-1", "setup-2"]
    chunks = mdchunk.chunk_markdown(source, max_tokens=64, overlap_tokens=0, min_tokens=0)
    assert chunks[-1].headings == ["Setup"] and chunks[-1].anchor == "setup-2"


def test_an_empty_slug_gives_no_anchor() -> None:
    (chunk,) = mdchunk.chunk_markdown("## 🚀\n\nLaunch.\n", max_tokens=64, overlap_tokens=0,
                                      base_url="https://example.com")
    assert chunk.anchor is None and chunk.url == "https://example.com/"


# -- page titles ------------------------------------------------------------------------------

PAGE = """---
title: Rolling upgrades
sidebar_label: Upgrades
---

Read this before you upgrade.

## Drain

Drain the node.

## Upgrade

Upgrade the node.
"""


def test_front_matter_title_heads_every_chunk() -> None:
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=96, overlap_tokens=0, min_tokens=0)
    assert [c.headings for c in chunks] == [
        ["Rolling upgrades"], ["Rolling upgrades", "Drain"], ["Rolling upgrades", "Upgrade"]]
    assert {c.title for c in chunks} == {"Rolling upgrades"}
    assert all(c.embed_text.startswith("Rolling upgrades") for c in chunks)
    assert chunks[1].section_path == "Rolling upgrades > Drain"
    assert chunks[0].anchor is None and chunks[1].anchor == "drain"
    counter = mdchunk.Chunker().counter
    assert all(c.token_count == counter.count(c.embed_text) <= 96 for c in chunks)


def test_title_keys_choose_and_can_turn_the_title_off() -> None:
    label = mdchunk.chunk_markdown(PAGE, title_keys=("sidebar_label", "title"))
    assert {c.title for c in label} == {"Upgrades"}
    off = mdchunk.chunk_markdown(PAGE, title_keys=())
    assert {c.title for c in off} == {None}
    assert off[0].headings == []
    only_label = mdchunk.chunk_markdown(PAGE.replace("title: Rolling upgrades\n", ""))
    assert only_label[0].headings == ["Upgrades"]


def test_a_level_one_heading_is_the_title_already() -> None:
    source = "---\ntitle: Front matter title\n---\n\n# Page heading\n\n## Part\n\nText.\n"
    (chunk,) = mdchunk.chunk_markdown(source)
    assert chunk.headings == ["Page heading", "Part"] and chunk.title is None
    setext = "---\ntitle: T\n---\n\nPage heading\n============\n\nText.\n"
    assert mdchunk.chunk_markdown(setext)[0].title is None


def test_page_title_is_not_a_heading_of_the_text() -> None:
    blocks = parse_markdown("## A\n\nx\n").blocks
    title = page_title({"title": 2024}, blocks)
    assert title is not None and title.kind == "title" and title.title == "2024"
    assert title.start < 0  # before every chunk: always in the breadcrumb
    assert page_title({"title": ["not", "a", "title"]}, blocks) is None
    assert page_title({"title": "  "}, blocks) is None


def test_title_is_in_the_hierarchy_too() -> None:
    chunks = mdchunk.chunk_hierarchy(PAGE, levels=(64, 24), overlap_tokens=0)
    assert {c.title for c in chunks} == {"Rolling upgrades"}


def test_long_title_shortens_in_the_breadcrumb_before_a_block_is_cut() -> None:
    long_title = "A very long page title that goes on and on about many things " * 3
    source = f"---\ntitle: {long_title}\n---\n\n## Steps\n\n" + "Do a step now. " * 8 + "\n"
    chunks = mdchunk.chunk_markdown(source, max_tokens=48, overlap_tokens=0)
    assert all(c.token_count <= 48 for c in chunks)
    assert chunks[0].headings[0] == " ".join(long_title.split())
    assert chunks[0].embed_text.startswith("…")


# -- page URLs --------------------------------------------------------------------------------


@pytest.mark.parametrize("doc_id,front,expected", [
    ("docs/intro.md", {}, "/docs/intro"),
    ("intro.md", {}, "/intro"),  # the docs folder itself was indexed: base_url is its route
    ("docs/01-guides/02-install.mdx", {}, "/docs/guides/install"),
    ("docs/guides/0 --- Client API.md", {}, "/docs/guides/Client API"),
    ("docs/2021-01-release.md", {}, "/docs/2021-01-release"),  # date-like: kept
    ("docs/1.2-notes.md", {}, "/docs/1.2-notes"),  # version-like: kept
    ("docs/index.md", {}, "/docs/"),
    ("docs/guides/index.md", {}, "/docs/guides/"),
    ("docs/guides/README.md", {}, "/docs/guides/"),
    ("docs/guides/Guides.md", {}, "/docs/guides/"),  # named like its folder
    ("docs/01-guides/01-guides.md", {}, "/docs/guides/"),
    ("docs/docs.md", {}, "/docs/docs"),  # at the root, a doc named docs is not an index
    ("docs/guides/install.md", {"slug": "/setup"}, "/docs/setup"),
    ("docs/guides/install.md", {"slug": "setup"}, "/docs/guides/setup"),
    ("docs/guides/install.md", {"slug": "../setup"}, "/docs/setup"),
    ("docs/guides/index.md", {"slug": "start"}, "/docs/guides/start"),
    ("docs/guides/install.md", {"id": "installing"}, "/docs/guides/installing"),
    ("docs/guides/index.md", {"id": "overview"}, "/docs/guides/"),
    ("docs/x.md", {"slug": "/"}, "/docs/"),
])
def test_docusaurus_routes(doc_id: str, front: dict[str, str], expected: str) -> None:
    assert page_path(doc_id, "docusaurus", front) == expected


@pytest.mark.parametrize("doc_id,expected", [
    ("docs/index.md", "/"),
    ("index.md", "/"),
    ("docs/guides/install.md", "/guides/install/"),
    ("guides/index.md", "/guides/"),
    ("guides/README.md", "/guides/"),
    ("guides/readme.md", "/guides/readme/"),  # only README in capitals is an index
    ("a b/c.md", "/a b/c/"),
])
def test_mkdocs_routes(doc_id: str, expected: str) -> None:
    assert page_path(doc_id, "mkdocs") == expected


@pytest.mark.parametrize("doc_id,front,expected", [
    ("content/posts/post-1.md", {}, "/posts/post-1/"),
    ("posts/post-1.md", {}, "/posts/post-1/"),
    ("content/posts/My First Post.md", {}, "/posts/my-first-post/"),
    ("content/posts/_index.md", {}, "/posts/"),
    ("content/_index.md", {}, "/"),
    ("content/posts/my-bundle/index.md", {}, "/posts/my-bundle/"),
    ("content/posts/post-1.md", {"slug": "my-first-post"}, "/posts/my-first-post/"),
    ("content/posts/my-bundle/index.md", {"slug": "renamed"}, "/posts/renamed/"),
    ("content/posts/_index.md", {"slug": "ignored"}, "/posts/"),  # not for sections
    ("content/posts/post-1.md", {"url": "/articles/First-Article"}, "/articles/First-Article/"),
    ("content/posts/post-1.md", {"url": "/feed.xml"}, "/feed.xml"),
    ("content/posts/post-1.md", {"slug": "s", "url": "/u/"}, "/u/"),  # url wins
    ("content/posts/_index.md", {"url": "/writing/"}, "/writing/"),
])
def test_hugo_routes(doc_id: str, front: dict[str, str], expected: str) -> None:
    assert page_path(doc_id, "hugo", front) == expected


def test_plain_routes_are_the_path_as_it_is() -> None:
    assert page_path("docs/a.md", "plain") == "/docs/a.md"
    assert page_path("./docs\\README.md", "plain") == "/docs/README.md"
    assert page_path("", "plain") == "/"


def test_urls_escape_what_a_url_cannot_hold_and_keep_readable_text() -> None:
    assert join_url("https://example.com/", "/a b/安装.md", "安装-步骤") == \
        "https://example.com/a%20b/安装.md#安装-步骤"
    assert join_url("https://example.com/blob/main", "/x%y.md", None) == \
        "https://example.com/blob/main/x%25y.md"


def test_chunks_get_page_urls_with_their_anchor() -> None:
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=24, overlap_tokens=0, min_tokens=0,
                                    doc_id="docs/ops/upgrades.md", site="docusaurus",
                                    base_url="https://example.com/")
    assert [c.url for c in chunks] == [
        "https://example.com/docs/ops/upgrades",
        "https://example.com/docs/ops/upgrades#drain",
        "https://example.com/docs/ops/upgrades#upgrade"]
    plain = mdchunk.chunk_markdown(PAGE, doc_id="docs/ops/upgrades.md",
                                   base_url="https://github.com/o/r/blob/main")
    assert plain[0].url == "https://github.com/o/r/blob/main/docs/ops/upgrades.md"
    assert {c.url for c in mdchunk.chunk_markdown(PAGE)} == {None}


def test_text_and_qa_get_page_urls_but_no_anchors(tmp_path) -> None:
    text = mdchunk.chunk_text("INSTALLATION\n\nRun the installer.\n", doc_id="manual.txt",
                              base_url="https://example.com")
    assert {(c.anchor, c.url) for c in text} == {(None, "https://example.com/manual.txt")}
    qa = mdchunk.chunk_qa("question: Why?\nanswer: Because.\n", doc_id="faq.txt",
                          base_url="https://example.com", site="mkdocs")
    assert {(c.anchor, c.url) for c in qa} == {(None, "https://example.com/faq/")}


def test_chunk_file_and_chunker_take_the_site_settings(tmp_path) -> None:
    page = tmp_path / "install.md"
    page.write_text(PAGE, encoding="utf-8")
    chunks = mdchunk.chunk_file(page, doc_id="guides/install.md", site="mkdocs",
                                base_url="https://example.com/", max_tokens=24,
                                overlap_tokens=0, min_tokens=0)
    assert chunks[1].url == "https://example.com/guides/install/#drain"
    config = ChunkerConfig(site="hugo", base_url="https://example.com")
    (first, *_) = mdchunk.Chunker(config).chunk(PAGE, doc_id="content/ops/Upgrades.md")
    assert first.url == "https://example.com/ops/upgrades/"


# -- configuration ----------------------------------------------------------------------------


def test_bad_site_settings_are_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="site='jekyll'"):
        ChunkerConfig(site="jekyll")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="base_url=42"):
        ChunkerConfig(base_url=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="title_keys='title'"):
        mdchunk.chunk_markdown("x", title_keys="title")  # type: ignore[arg-type]


def test_site_settings_are_hashed_only_when_set() -> None:
    default = ChunkerConfig().fingerprint
    assert ChunkerConfig(site="plain", title_keys=["title", "sidebar_label"]).fingerprint \
        == default
    changed = {ChunkerConfig(site="mkdocs").fingerprint,
               ChunkerConfig(base_url="https://example.com").fingerprint,
               ChunkerConfig(title_keys=("title",)).fingerprint}
    assert default not in changed and len(changed) == 3


# -- guarantees with a page title -------------------------------------------------------------

_title_words = st.lists(st.sampled_from(["Rolling", "upgrades", "of", "the", "服务", "重启",
                                         "cluster", "v1.2"]), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(body=_document, title=_title_words, max_tokens=st.sampled_from([32, 64, 160]),
       with_ids=st.booleans())
def test_guarantees_hold_with_a_page_title(body: str, title: list[str], max_tokens: int,
                                           with_ids: bool, counter) -> None:
    """Guarantee 1 counts the title in the budget; the others hold as without one."""
    body = re.sub(r"^# ", "## ", body, flags=re.MULTILINE)  # no `#` heading: the title is used
    if with_ids:
        body = re.sub(r"^(#+ .*)$", r"\1 {#an-id}", body, flags=re.MULTILINE)
    source = f"---\ntitle: {' '.join(title)}\n---\n\n{body}\n"
    overlap = max_tokens // 8
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap)
    spans = [(c.start, c.end) for c in chunks]
    report = audit_markdown(source, spans, [c.token_count for c in chunks], counter, max_tokens)
    assert report.over_budget == [] and report.cut == [] and report.uncovered == []
    blocks = parse_markdown(source).blocks
    assert headings_only(blocks, spans) == []
    assert overlap_problems(source, blocks, spans, counter, overlap) == []
    for c in chunks:
        assert c.text == source[c.start:c.end]
        assert c.token_count == counter.count(c.embed_text) <= max_tokens
        assert c.title == " ".join(title) == c.headings[0]
        assert all("{#" not in h for h in c.headings)
        assert not with_ids or c.anchor in (None, "an-id")


# -- docsearch records ------------------------------------------------------------------------


def test_docsearch_record_maps_the_page_title_to_lvl1() -> None:
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=24, overlap_tokens=0, min_tokens=0,
                                    doc_id="docs/ops/upgrades.md", site="docusaurus",
                                    base_url="https://example.com")
    first, drain, _ = (mdchunk.docsearch_record(c) for c in chunks)
    assert first["hierarchy"] == {"lvl0": "Documentation", "lvl1": "Rolling upgrades",
                                  "lvl2": None, "lvl3": None, "lvl4": None, "lvl5": None,
                                  "lvl6": None}
    assert drain["hierarchy"]["lvl2"] == "Drain"
    assert drain["type"] == "content" and drain["content"] == chunks[1].text
    assert drain["url"] == "https://example.com/docs/ops/upgrades#drain"
    assert drain["url_without_anchor"] == "https://example.com/docs/ops/upgrades"
    assert drain["anchor"] == "drain" and drain["objectID"] == chunks[1].id
    assert set(drain["hierarchy_radio"].values()) == {None}  # content records fill none
    assert drain["weight"] == {"page_rank": 0, "level": 0, "position": 1}


def test_docsearch_record_of_a_heading_alone_is_a_level_record() -> None:
    chunk = mdchunk.Chunk(id="x", doc_id="a.md", index=3, level=3, parent_id=None,
                          text="### Empty", start=0, end=9, line_start=1, line_end=1,
                          headings=["Guide", "Setup", "Empty"], section_path="Guide > Setup > Empty",
                          embed_text="### Empty", token_count=3, kinds=["heading"])
    record = mdchunk.docsearch_record(chunk, lvl0="Ops")
    assert record["type"] == "lvl3" and record["content"] is None
    assert record["hierarchy_radio"]["lvl3"] == "Empty"
    assert [v for v in record["hierarchy_radio"].values() if v] == ["Empty"]
    assert record["weight"]["level"] == 70 and record["hierarchy"]["lvl0"] == "Ops"
    assert record["url"] is None and record["url_without_anchor"] is None


def test_docsearch_records_flatten_for_typesense_and_meilisearch() -> None:
    (chunk,) = mdchunk.chunk_markdown("# Guide\n\nText.\n", base_url="https://example.com")
    dotted = mdchunk.docsearch_record(chunk, separator=".")
    assert dotted["hierarchy.lvl1"] == "Guide" and "hierarchy" not in dotted
    assert dotted["weight.level"] == 0
    underscored = mdchunk.docsearch_record(chunk, separator="_")
    assert underscored["hierarchy_lvl0"] == "Documentation"
    assert underscored["hierarchy_radio_lvl1"] is None


def test_docsearch_folds_headings_past_lvl6() -> None:
    source = "".join(f"{'#' * n} H{n}\n\n" for n in range(1, 7)) + "Text.\n"
    (chunk,) = mdchunk.chunk_markdown(source, max_tokens=128, overlap_tokens=0)
    record = mdchunk.docsearch_record(chunk)
    assert [record["hierarchy"][f"lvl{n}"] for n in range(1, 7)] == [
        "H1", "H2", "H3", "H4", "H5", "H6"]
    long_path = mdchunk.Chunk(**{**chunk.to_dict(), "headings": [f"T{n}" for n in range(8)]})
    assert mdchunk.docsearch_record(long_path)["hierarchy"]["lvl6"] == "T5 > T6 > T7"
