"""Documentation sites: heading ids, anchors as each generator slugs them, page titles, URLs.

The slug examples restate the generators' own documented and tested behaviour (github-slugger's
fixtures, Python-Markdown's ``toc`` tests, Hugo's ``autoid`` tests), replayed in order where a
generator numbers duplicates across a page.
"""

from __future__ import annotations

import pytest

from mdchunk.formats import parse_markdown
from mdchunk.formats.markdown import split_heading_id
from mdchunk.formats.sites import (
    anchors,
    github_slug,
    hugo_slug,
    join_url,
    mkdocs_slug,
    page_path,
    page_title,
    slugs,
)

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


# -- page titles ------------------------------------------------------------------------------

def test_page_title_is_not_a_heading_of_the_text() -> None:
    blocks = parse_markdown("## A\n\nx\n").blocks
    title = page_title({"title": 2024}, blocks)
    assert title is not None and title.kind == "title" and title.title == "2024"
    assert title.start < 0  # before every chunk: always in the breadcrumb
    assert page_title({"title": ["not", "a", "title"]}, blocks) is None
    assert page_title({"title": "  "}, blocks) is None


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


# -- configuration ----------------------------------------------------------------------------

