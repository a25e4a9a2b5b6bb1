"""The site markup's inline parser finds what the parser it was built as finds (issue 32: the
inline parse was most of ``render_markup``'s time on Hugo and Docusaurus pages).

The reference is the inline parse as it was: markdown-it's full inline parse (``parseInline``:
core rules, post-processing), each inline rule of the table (:data:`MARKUP_RULES`) a
markdown-it rule of its own before markdown-it's text rule, the text rule stopping at every
character markdown-it stops at. The parser tries the table's rules in one rule where they may
start, lets its text rule run on over characters no rule starts at and runs the inline rules
alone. Compared block by block over generated inline text (every construct, the characters
that matter, side by side and inside each other), over generated documents with every site,
and over every fixture and corpus page.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from mdchunk.formats import parse_markdown, site_markup
from mdchunk.formats.blocks import Markup
from mdchunk.formats.markup_rules import MarkupRule, rules_for
from mdchunk.formats.site_inline import MarkupEnv

from .conftest import CORPORA, SITE_CORPORA, corpus_files, fixture_files, site_corpus_mdx
from .test_grammar import profile
from .test_site_markup import markup_documents

SITES = ["plain", "docusaurus", "hugo", "mkdocs"]


def _as_markdown_it_rule(rule: MarkupRule) -> Callable[[StateInline, bool], bool]:
    """``rule``'s reader as a markdown-it rule of its own, read only when it is the page's."""
    def read(state: StateInline, silent: bool) -> bool:
        if rule not in state.env["rules"] or state.src[state.pos] not in rule.starts:
            return False
        assert rule.inline is not None
        found = rule.inline(state.src, state.pos, state.posMax, state.env)
        if found is None:
            return False
        if not silent:
            site_markup._record(state, found)
        state.pos = found.end
        return True
    return read


@functools.lru_cache(maxsize=1)
def reference_parser() -> MarkdownIt:
    """The inline parser as it was: the site rules each before the text rule."""
    md = MarkdownIt("commonmark").enable(["strikethrough"])
    md.use(dollarmath_plugin).use(footnote_plugin)
    for k, rule in enumerate(rules_for("plain", True)):
        if rule.inline is not None:
            md.inline.ruler.before("text", f"site_{k}", _as_markdown_it_rule(rule))
    md.inline.ruler.before("backticks", "site_code_span", site_markup._code_span)
    return md


def reference_markup(source: str, start: int, end: int, env: MarkupEnv,
                     rules: tuple[MarkupRule, ...], code_rules: tuple[MarkupRule, ...] = ()
                     ) -> list[Markup]:
    """``inline_markup`` as it was: every block parsed by ``parseInline``."""
    text = source[start:end]
    text = text.replace("\r\n", " \n").replace("\r", "\n").replace("\x00", "\ufffd")
    env["markup"], env["rules"], env["code_rules"] = [], rules, code_rules
    env["starts"] = "".join({char for rule in rules for char in rule.starts})
    reference_parser().parseInline(text, env)
    found = [m._replace(start=start + m.start, end=start + m.end)
             for src, m in env.pop("markup") if src == text]
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
def envs(draw: st.DrawFn) -> MarkupEnv:
    return {"mdx": draw(st.booleans()),
            "components": draw(st.sampled_from([set(), {"Tabs", "Custom"}])), "tab_labels": {}}


@profile(1500)
@given(text=inline_texts(), env=envs(), in_code=st.booleans())
def test_inline_markup_is_the_reference_parsers(text: str, env: MarkupEnv, in_code: bool
                                               ) -> None:
    source = f"x\n{text}\ny"
    start, end = 2, 2 + len(text)
    rules = tuple(r for r in rules_for("plain", env["mdx"]) if r.inline is not None)
    code_rules = tuple(r for r in rules if r.in_code) if in_code else ()
    reference_env = {**env, "components": set(env["components"]), "tab_labels": {}}
    assert (site_markup.inline_markup(source, start, end, env, rules, code_rules)
            == reference_markup(source, start, end, reference_env, rules, code_rules))
    assert _read_later(env) == _read_later(reference_env)


def _read_later(env: MarkupEnv) -> tuple[object, ...]:
    """What a document's later blocks read of the env: the site rules' keys, the footnotes
    defined and how many inline footnotes were numbered."""
    footnotes = env.get("footnotes", {})
    return (env["mdx"], env["components"], env["tab_labels"],
            footnotes.get("refs", {}), len(footnotes.get("list", {})))


def assert_same_markup(source: str, site: str) -> None:
    doc = parse_markdown(source, site)
    with mock.patch.object(site_markup, "inline_markup", reference_markup):
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


@profile(500)
@given(text=st.lists(st.sampled_from(["{ref}", "{x:y}", "{", "}", "`", "``", "a", " ", "\n",
                                      "<t>", "~", "!", "<", ">", "b c"]), max_size=12
                     ).map("".join))
def test_the_role_reader_reads_as_mdit_py_plugins_role_rule(text: str) -> None:
    """:func:`read_role` consumes what mdit-py-plugins' ``myst_role`` consumes, and shows
    the title (else the target, else the content) of what that rule reads."""
    from mdit_py_plugins.myst_role.index import myst_role

    from mdchunk.formats.site_inline import read_role

    source = "{r}" + text if text[:1] != "{" else text
    state = StateInline(source, reference_parser(), {}, [])
    consumed = myst_role(state, False)
    found = read_role(source, 0, len(source), {})
    if not consumed:
        assert found is None
        return
    assert found is not None and found.end == state.pos
    content = state.tokens[-1].content.strip()
    assert found.shown.lstrip("~!") == found.shown
    assert found.shown in content or content == ""
