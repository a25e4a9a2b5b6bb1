"""The site markup's inline parser finds what the parser it was built as finds (issue 32: the
inline parse was most of ``render_markup``'s time on Hugo and Docusaurus pages).

The reference is the inline parse as it was: markdown-it's full inline parse (``parseInline``:
core rules, post-processing), the five site rules before markdown-it's text rule, the text rule
stopping at every character markdown-it stops at, the MyST role rule tried at every brace.
The parser now tries the site rules in one rule where they may start, lets its text rule run on
over characters no rule starts at and runs the inline rules alone. Compared block by block over
generated inline text (every construct, the characters that matter, side by side and inside
each other), over generated documents with every site, and over every fixture and corpus page.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from mdchunk.formats import parse_markdown, site_inline, site_markup
from mdchunk.formats.blocks import Rewrite

from .conftest import CORPORA, SITE_CORPORA, corpus_files, fixture_files, site_corpus_mdx
from .test_grammar import profile
from .test_site_markup import markup_documents

SITES = ["plain", "docusaurus", "hugo", "mkdocs"]


@functools.lru_cache(maxsize=1)
def reference_parser() -> MarkdownIt:
    """The inline parser as it was: the site rules each before the text rule."""
    md = MarkdownIt("commonmark").enable(["strikethrough"])
    md.use(dollarmath_plugin).use(footnote_plugin)
    for name, rule in site_inline._RULES:
        md.inline.ruler.before("text", name, rule)
    md.inline.ruler.before("backticks", "site_code_span", site_inline._code_span)
    return md


def reference_rewrites(source: str, start: int, end: int, env: site_inline.MarkupEnv
                       ) -> list[Rewrite]:
    """``inline_rewrites`` as it was: every block with a trigger parsed by ``parseInline``."""
    if not (site_inline._MAY_HOLD_MDX if env.get("mdx") else site_inline._MAY_HOLD).search(
            source, start, end):
        return []
    text = source[start:end]
    text = text.replace("\r\n", " \n").replace("\r", "\n").replace("\x00", "\ufffd")
    env["rewrites"] = []
    with mock.patch.object(site_inline, "_ROLE_START", re.compile(r"\{")):
        reference_parser().parseInline(text, env)
    found = [(start + a, start + b, shown) for src, a, b, shown in env.pop("rewrites")
             if src == text]
    return sorted(found)


#: Inline pieces: each construct the rules read (alone, escaped, broken), the characters
#: markdown-it's text rule stops at that no rule starts at, and constructs that hide markup
#: (code spans, links' labels and destinations, autolinks, HTML, math, footnotes, escapes).
_PIECES = st.sampled_from([
    "alpha", " ", "\n", "  \n", "\t", "-", ":", "=", "#", "%", "+", ">", "@", "}", "{", "{{",
    "}}", "<", "</", "[", "]", "(", ")", "![", "](", "`", "``", "\\", "$", "$$", "^[", "[^",
    "*", "**", "_", "~~", "&amp;", "&", "'", '"', "<span>", "</span>", "<http://x.y/{z}>",
    '<a href="{{< x >}}">', "{{< note >}}", "{{< /note >}}", '{{< tab name="x" >}}',
    "{{</* tab */>}}", "{{%/* x */%}}", '{{% tab name="x" %}}', "{{< x %}}", "{{ .Title }}",
    "{ref}`t <a>`", "{doc}`guide`", "{x}`", "{py:func}`f`", "{a+b_c-d}`e`", "{/* c */}",
    "{/* open", "{x}", "{a: {b: 'c}'}}",
    '<TabItem value="x">', "</TabItem>", "<Tabs values={[{label: 'L', value: 'x'}]}>",
    "<DocCardList />", "<div a={b}>", "<Admonition type=\"tip\" title={'T'}>", "{name}",
    "`{{< code >}}`", "[l {{< x >}}](http://{{< y >}})", "[a]: /x", "$x {{< z >}}$",
    "\\{{< x >}}", "<!-- {{< c >}} -->", "\ufffd", "\0", "\r", "服务",
])


@st.composite
def inline_texts(draw: st.DrawFn) -> str:
    return "".join(draw(st.lists(_PIECES, max_size=24)))


@st.composite
def envs(draw: st.DrawFn) -> site_inline.MarkupEnv:
    return {"mdx": draw(st.booleans()), "shortcodes_in_code": draw(st.booleans()),
            "components": draw(st.sampled_from([set(), {"Tabs", "Custom"}])), "tab_labels": {}}


@profile(1500)
@given(text=inline_texts(), env=envs())
def test_inline_rewrites_are_the_reference_parsers(text: str, env: site_inline.MarkupEnv
                                                   ) -> None:
    source = f"x\n{text}\ny"
    start, end = 2, 2 + len(text)
    reference_env = {**env, "components": set(env["components"]), "tab_labels": {}}
    assert (site_inline.inline_rewrites(source, start, end, env)
            == reference_rewrites(source, start, end, reference_env))
    assert _read_later(env) == _read_later(reference_env)


def _read_later(env: site_inline.MarkupEnv) -> tuple[object, ...]:
    """What a document's later blocks read of the env: the site rules' keys, the footnotes
    defined and how many inline footnotes were numbered."""
    footnotes = env.get("footnotes", {})
    return (env["mdx"], env["shortcodes_in_code"], env["components"], env["tab_labels"],
            footnotes.get("refs", {}), len(footnotes.get("list", {})))


def assert_same_markup(source: str, site: str) -> None:
    doc = parse_markdown(source, site)
    with mock.patch.object(site_markup, "inline_rewrites", reference_rewrites):
        reference = site_markup.render_markup(doc, site)
    assert site_markup.render_markup(doc, site) == reference


@profile(200)
@given(source=markup_documents(), pieces=st.lists(inline_texts(), max_size=3),
       site=st.sampled_from(SITES))
def test_documents_hold_the_reference_parsers_markup(source: str, pieces: list[str],
                                                      site: str) -> None:
    assert_same_markup("\n\n".join([source, *pieces]) + "\n", site)


@pytest.mark.parametrize("site", SITES)
def test_every_fixture(site: str) -> None:
    for path in fixture_files(".md", ".mdx", ".markdown"):
        assert_same_markup(path.read_text(encoding="utf-8-sig"), site)


@pytest.mark.corpus
@pytest.mark.skipif(not CORPORA.is_dir(), reason="corpus not present")
def test_every_corpus_page_with_its_site() -> None:
    pages: list[Path] = [*corpus_files(), *site_corpus_mdx()]
    for path in pages:
        corpus = path.relative_to(CORPORA).parts[0]
        assert_same_markup(path.read_text(encoding="utf-8-sig"), SITE_CORPORA.get(corpus, "plain"))
