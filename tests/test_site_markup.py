"""Generator markup in ``embed_text``: each construct shows what its rendered page shows
(``docs/sites.md``), ``text`` stays the verbatim slice, counts stay exact."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mdchunk
from mdchunk.formats import site_lines, site_markup
from mdchunk.formats.blocks import Block
from mdchunk.formats.markup_rules import inline_trigger, rules_for
from mdchunk.formats.site_inline import MarkupEnv
from mdchunk.formats.site_markup import inline_markup
from mdchunk.text import document_text
from mdchunk.tokens import get_counter

from .conftest import FIXTURES, bench_module
from .test_grammar import HEADINGS_CHECKED_FROM, _block, budgets, profile
from .test_guarantees import assert_markdown_guarantees

COUNT = get_counter("cl100k_base").count


def embedded(source: str, site: str = "plain") -> str:
    """The one chunk's embed_text (checked verbatim and exactly counted on the way)."""
    chunks = mdchunk.chunk_markdown(source, max_tokens=1024, overlap_tokens=0, site=site,
                                    doc_id="page.md")
    assert len(chunks) == 1
    chunk = chunks[0]
    assert chunk.text == source.strip()
    assert chunk.token_count == COUNT(chunk.embed_text)
    return chunk.embed_text


CASES = [
    # Hugo shortcodes
    ('A {{< glossary_tooltip text="node" term_id="node" >}} runs pods.', "A node runs pods."),
    ('{{< feature-state for_k8s_version="v1.29" state="stable" >}}',
     "FEATURE STATE: Kubernetes v1.29 [stable]"),
    ("{{< note >}}\nBe careful.\n{{< /note >}}", "Note:\nBe careful."),
    ('{{< caution title="Heads up" >}}\nBe careful.\n{{< /caution >}}',
     "Caution: Heads up\nBe careful."),
    ('{{% code_sample file="pods/pod.yaml" %}}', "code sample: pods/pod.yaml"),
    ("Use {{< unknown-thing a=1 >}}inner text{{< /unknown-thing >}} here.",
     "Use inner text here."),
    ('{{< tabs name="t" >}}\n{{% tab name="kubectl" %}}\nRun it.\n{{% /tab %}}\n{{< /tabs >}}',
     "kubectl\nRun it."),
    # MyST roles and directives
    ("See {ref}`the checklist <target>` and {doc}`guide/setup`.",
     "See the checklist and guide/setup."),
    ("Read {ref}`<target-only>`.", "Read target-only."),
    ("```{note}\nA note.\n```", "Note:\nA note."),
    ("```{admonition} Retention\nKeep it.\n```", "Retention\nKeep it."),
    (":::{warning}\nColon fence.\n:::", "Warning:\nColon fence."),
    # containers, admonitions, alerts
    ("::: tip Title\nTip body.\n:::", "Tip: Title\nTip body."),
    (":::note[Read this]\n\nBody.\n\n:::", "Note: Read this\n\nBody."),
    ('!!! warning "Retention"\n    Keep it.', "Warning: Retention\n    Keep it."),
    ('???+ note "Open"\n    Body.', "Note: Open\n    Body."),
    ("> [!NOTE]\n> Alert body.", "> Note:\n> Alert body."),
    # MDX
    ("{/* a comment */}Text.", "Text."),
    ('<Admonition type="caution" title="Careful">\nBody.\n</Admonition>',
     "Caution: Careful\nBody."),
    ('<Tabs groupId="os" values={[{label: \'Linux\', value: \'linux\'}]}>\n<TabItem value="linux">'
     "\n\nRun apt.\n\n</TabItem>\n</Tabs>", "Linux\n\nRun apt."),
    # MkDocs snippets
    ('--8<-- "includes/abbreviations.md"', "snippet: includes/abbreviations.md"),
]


@pytest.mark.parametrize("source,shown", CASES, ids=[c[0][:40] for c in CASES])
def test_markup_shows_what_the_page_shows(source: str, shown: str) -> None:
    assert embedded(source) == shown


def test_code_keeps_its_markup() -> None:
    """Markup inside a code span or a code block is the page's text: it stays."""
    source = "Write `{{< note >}}` to open a note.\n\n```\n{{< note >}}\n<Tabs>\n```"
    assert embedded(source) == source


def test_mdx_imports_and_expressions() -> None:
    source = ("import Tabs from '@theme/Tabs';\nimport Foo from './foo';\n\n# Title\n\n"
              "Total: {props.count} items. <Foo bar={1}>inside</Foo>")
    assert embedded(source) == "# Title\n\nTotal: items. inside"


def test_braces_and_tags_of_plain_markdown_stay() -> None:
    """What means something else in plain Markdown is read only on an MDX page."""
    source = "Set {count} in `Vec<String>` and a <String> tag."
    assert embedded(source) == source
    assert embedded(source, site="docusaurus") == "Set in `Vec<String>` and a tag."


def test_heading_title_is_rendered() -> None:
    chunks = mdchunk.chunk_markdown(
        '# Pods {{< feature-state for_k8s_version="v1.29" state="stable" >}}\n\nBody.\n',
        max_tokens=64, overlap_tokens=0)
    assert chunks[0].headings == ["Pods FEATURE STATE: Kubernetes v1.29 [stable]"]


# -- the generator fixtures ----------------------------------------------------------------

#: The bench's list of generator markup patterns, its fixtures and their sites.
BENCH = bench_module("bench_sites")
MARKUP = BENCH.MARKUP
SITE_FIXTURES = BENCH.CASES
GUARANTEE_BUDGETS = [(32, 0), (64, 8), (128, 16), (256, 32), (512, 64), (1024, 64)]


def test_the_fixtures_hold_markup() -> None:
    """The pattern list finds what it must (so that the test below proves something)."""
    for name, _ in SITE_FIXTURES:
        assert MARKUP.search((FIXTURES / name).read_text(encoding="utf-8")), name


@pytest.mark.parametrize("max_tokens,overlap", GUARANTEE_BUDGETS)
@pytest.mark.parametrize("name,site", SITE_FIXTURES, ids=[n for n, _ in SITE_FIXTURES])
def test_no_generator_markup_reaches_embed_text(name: str, site: str, max_tokens: int,
                                                overlap: int, counter) -> None:
    """No chunk's embed_text holds generator markup, at any budget, and every guarantee holds
    with the markup present."""
    source = document_text(FIXTURES / name)
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap,
                                    doc_id=name, site=site)
    leaks = [(c.index, m.group()) for c in chunks for m in MARKUP.finditer(c.embed_text)]
    assert leaks == []
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap,
                               headings=max_tokens >= 48, site=site)


# -- random documents with markup ------------------------------------------------------------

_INLINE_MARKUP = st.sampled_from([
    '{{< glossary_tooltip text="node" term_id="node" >}}', "{{< param version >}}",
    '{{< feature-state for_k8s_version="v1.29" state="beta" >}}', "{{< note >}}", "{{< /note >}}",
    "{ref}`the list <a-target>`", "{doc}`guide/setup`", "{/* hidden */}", "<TabItem value=\"x\">",
    "</TabItem>", '<Admonition type="tip" title="T">', "<DocCardList />", "`{{< code >}}`"])


@st.composite
def _markup_paragraph(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.one_of(st.sampled_from(["alpha", "beta", "服务", "gamma."]),
                                    _INLINE_MARKUP), min_size=1, max_size=14))
    return " ".join(words)


_MARKUP_BLOCKS = st.one_of(
    _markup_paragraph(),
    st.builds(lambda p: f"::: warning Careful\n{p}\n:::", _markup_paragraph()),
    st.builds(lambda p: f":::{{note}}\n{p}\n:::", _markup_paragraph()),
    st.builds(lambda p: f"> [!WARNING]\n> {p}", _markup_paragraph()),
    st.builds(lambda p: f"```{{tip}}\n{p}\n```", _markup_paragraph()),
    st.builds(lambda p: f"{{{{< caution >}}}}\n{p}\n{{{{< /caution >}}}}", _markup_paragraph()),
    st.builds(lambda p: f'<Tabs>\n<TabItem value="a" label="A">\n\n{p}\n\n</TabItem>\n</Tabs>',
              _markup_paragraph()),
    st.just("import Tabs from '@theme/Tabs';"),
    st.just('--8<-- "snippets/a.md"'),
    st.just("(a-target)="),
)


@st.composite
def markup_documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.one_of(_block, _MARKUP_BLOCKS, _MARKUP_BLOCKS), min_size=1,
                           max_size=10))
    source = "\n\n".join(blocks) + "\n"
    return source.replace("\n", draw(st.sampled_from(["\n", "\n", "\r\n"])))


@profile(60)
@given(source=markup_documents(), budget=budgets(),
       site=st.sampled_from(["plain", "docusaurus", "hugo", "mkdocs"]))
def test_guarantees_with_markup_on_grammar_documents(source: str, budget: tuple[int, int],
                                                     site: str, counter) -> None:
    """``text`` verbatim, counts exact, embed_text the page's text, every guarantee, with
    generator markup anywhere."""
    max_tokens, overlap = budget
    try:
        chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap,
                                        doc_id="g.md", site=site)
    except (mdchunk.InputError, mdchunk.ConfigError):
        return
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap,
                               headings=max_tokens >= HEADINGS_CHECKED_FROM, site=site)


def test_the_bench_measures_no_leak_and_some_markup_tokens() -> None:
    leaks = BENCH.leaks()
    assert all(leaking == 0 for _, leaking in leaks.values())
    tokens = BENCH.markup_tokens()
    assert all(now <= before for now, before in tokens.values())


#: Prose that holds a trigger character and no markup (outside MDX): comparisons, JSON, HTML.
_NEAR_MARKUP = st.sampled_from(["a < b", "x<y", "{x}", '{"k": 1}', "<div>", "<span>", "<br>",
                                "{note}", "}`", "{{", "</", "<Tabs", "import", "export x"])


@st.composite
def _near_markup_documents(draw: st.DrawFn) -> str:
    words = st.lists(st.one_of(_NEAR_MARKUP, _INLINE_MARKUP, st.just("alpha")), max_size=8)
    extra = draw(st.lists(words.map(" ".join), max_size=3))
    return "\n\n".join([draw(markup_documents()), *extra]) + "\n"


@profile(100)
@given(source=_near_markup_documents(),
       site=st.sampled_from(["plain", "docusaurus", "hugo", "mkdocs"]))
def test_the_markup_triggers_skip_only_text_without_markup(source: str, site: str) -> None:
    """The marks of the table's rules, the one pre-filter (a page, a block, a prose block),
    never skip markup: the markup is what is found when every rule reads everything."""
    import re
    from unittest import mock

    from mdchunk.formats import parse_markdown

    doc = parse_markdown(source)
    found = site_markup.render_markup(doc, site)
    with mock.patch.object(site_markup, "on_page", lambda source, rules: rules), \
            mock.patch.object(site_markup._Walk, "holds", lambda self, rule, block: True), \
            mock.patch.object(site_markup, "inline_trigger", lambda rules: re.compile("")):
        assert site_markup.render_markup(doc, site) == found


# -- the walk's cheap tests before a regex (issue 32) -------------------------------------------

_WORDS = st.sampled_from(["import", "export", "const", "from", "{", "}", " ", "\t", "\n", "'",
                          '"', ";", "x", "(", ")=", "a.b", "=", "default", "Tabs"])


@given(st.one_of(st.from_regex(site_lines.ESM, fullmatch=True),
                 st.lists(_WORDS, max_size=12).map("".join)))
def test_the_esm_check_asks_the_regex_of_every_paragraph_it_could_match(text: str) -> None:
    """The cheap test (its start) never refuses a paragraph the regex reads as ESM, also
    with text around it."""
    padded = f"x\n\n{text}\n\ny"
    block = Block("paragraph", 3, 3 + len(text))
    expected = site_lines.ESM.fullmatch(padded, block.start, block.end) is not None
    env: MarkupEnv = {"mdx": False, "components": set(), "tab_labels": {}}
    assert (site_lines.read_esm(padded, block, env) is not None) is expected
    if expected:
        assert text.startswith(site_lines.ESM_STARTS)


@given(st.one_of(st.from_regex(site_lines.TARGET, fullmatch=True),
                 st.lists(_WORDS, max_size=8).map("".join)))
def test_the_target_check_asks_the_regex_of_every_paragraph_it_could_match(text: str) -> None:
    """A MyST target's paragraph starts with what :data:`TARGET_STARTS` names: the reader,
    which asks the regex only of those, finds every one."""
    if site_lines.TARGET.fullmatch(text):
        assert text.startswith(site_lines.TARGET_STARTS)
        assert site_lines.read_target(text, Block("paragraph", 0, len(text)), {}) is not None


@pytest.mark.parametrize("mdx", [False, True])
@given(text=st.lists(st.sampled_from(["{{<", "{/*", "}`", "<Tabs>", "</TabItem>", "<b>", "{x}",
                                      "a", " ", "\n", ">}}", "*/}", "`"]), max_size=10
                     ).map("".join))
def test_a_leaf_the_walk_skips_holds_no_inline_markup(mdx: bool, text: str) -> None:
    """The walk asks :func:`inline_trigger` (the inline rules' marks) before the inline parse:
    where it finds nothing, there is no markup to miss."""
    env: MarkupEnv = {"mdx": mdx, "components": set(), "tab_labels": {}}
    rules = tuple(rule for rule in rules_for("hugo", mdx) if rule.inline is not None)
    trigger = inline_trigger(rules)
    if trigger is None or not trigger.search(text):
        assert inline_markup(text, 0, len(text), env, rules) == []


# -- a generator's new tag is one row of the table (issue 44) ----------------------------------

def test_a_new_tag_is_one_row_of_the_table() -> None:
    """Jekyll's Liquid tags, added as one :class:`MarkupRule` (marks, a reader, its sites):
    every pre-filter, the walk, the inline parse and ``embed_text`` follow from the row, on
    the sites it names only; a Liquid tag in a code span stays code."""
    import re
    from unittest import mock

    import mdchunk
    from mdchunk.formats import markup_rules
    from mdchunk.formats.blocks import Markup
    from mdchunk.formats.markup_rules import MarkupRule

    liquid = re.compile(r"\{%-?\s*(\w+)[^%]*?-?%\}|\{\{-?\s*[\w.]+\s*-?\}\}")

    def read_liquid(src: str, pos: int, limit: int, env: MarkupEnv) -> Markup | None:
        match = liquid.match(src, pos, limit)
        return Markup(pos, match.end(), "") if match else None

    row = MarkupRule("Liquid tag", ("{%", "{{"), read_liquid, "{", sites=frozenset({"plain"}))
    source = ("# Posts\n\nThe site {% if site.show %}lists{% endif %} every post by "
              "{{ site.author }}; write `{% raw %}` to keep a tag as it is.\n")
    with mock.patch.object(markup_rules, "MARKUP_RULES", (*markup_rules.MARKUP_RULES, row)):
        [plain] = mdchunk.chunk_markdown(source, site="plain")
        [hugo] = mdchunk.chunk_markdown(source, site="hugo")
    assert plain.embed_text == ("# Posts\n\nThe site lists every post by ; write "
                                "`{% raw %}` to keep a tag as it is.")
    assert "{% if site.show %}" in hugo.embed_text  # a site the row does not name
    [before] = mdchunk.chunk_markdown(source, site="plain")
    assert "{% if site.show %}" in before.embed_text  # the table as it ships
