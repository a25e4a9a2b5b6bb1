"""Generator markup in ``embed_text``: each construct shows what its rendered page shows
(``docs/sites.md``), ``text`` stays the verbatim slice, counts stay exact."""

from __future__ import annotations

import pytest

import mdchunk
from mdchunk.tokens import get_counter

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
    assert embedded(source) == "# Title\n\nTotal:  items. inside"


def test_braces_and_tags_of_plain_markdown_stay() -> None:
    """What means something else in plain Markdown is read only on an MDX page."""
    source = "Set {count} in `Vec<String>` and a <String> tag."
    assert embedded(source) == source
    assert embedded(source, site="docusaurus") == "Set  in `Vec<String>` and a  tag."


def test_heading_title_is_rendered() -> None:
    chunks = mdchunk.chunk_markdown(
        '# Pods {{< feature-state for_k8s_version="v1.29" state="stable" >}}\n\nBody.\n',
        max_tokens=64, overlap_tokens=0)
    assert chunks[0].headings == ["Pods FEATURE STATE: Kubernetes v1.29 [stable]"]
