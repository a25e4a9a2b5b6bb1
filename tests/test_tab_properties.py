"""Properties of tab groups and callouts on generated pages (issue #26): ``text`` verbatim,
counts exact, no chunk over budget at 32–1024 tokens, every guarantee (a tab or a note that
fits is never cut: both are atomic, which the audit checks at any depth), and every chunk of a
tab names it, with MkDocs content tabs, Docusaurus and Hugo groups and Hugo callouts present,
at the top level, in lists and in quotes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import mdchunk
from mdchunk.formats import parse_markdown
from mdchunk.formats.site_markup import render_markup
from mdchunk.formats.tabs import tab_spans

from .test_grammar import HEADINGS_CHECKED_FROM, _block, profile
from .test_guarantees import assert_markdown_guarantees

_WORDS = st.sampled_from(["alpha", "beta", "the", "node", "drains", "服务", "`kubectl`", "gamma.",
                          "Restart it.", "e.g.", "v1.2"])
_text = st.lists(_WORDS, min_size=1, max_size=40).map(" ".join)
_label = st.sampled_from(["Linux", "macOS", "Windows", "`pip`", "Helm chart", "日本語"])
_code = st.builds(lambda n: "```bash\n" + "".join(f"run step {i}\n" for i in range(n)) + "```",
                  st.integers(1, 12))
_body = st.lists(st.one_of(_text, _code, st.just("- one\n- two"), st.just("### Inside\n\nText.")),
                 min_size=1, max_size=3).map("\n\n".join)


def _indent(text: str, by: str) -> str:
    return "".join(by + line if line.strip() else line for line in text.splitlines(True))


@st.composite
def _mkdocs_group(draw: st.DrawFn) -> str:
    tabs = draw(st.lists(st.tuples(_label, _body, st.booleans()), min_size=1, max_size=3))
    return "\n\n".join(f'==={"!" if new else ""} "{label}"\n\n' + _indent(body, "    ")
                       for label, body, new in tabs)


@st.composite
def _docusaurus_group(draw: st.DrawFn) -> str:
    tabs = draw(st.lists(st.tuples(_label, _body.filter(lambda b: "#" not in b)), min_size=1,
                         max_size=3))
    return "<Tabs>\n" + "".join(f'<TabItem value="v{i}" label="{label}">\n\n{body}\n\n'
                                "</TabItem>\n" for i, (label, body) in enumerate(tabs)) + "</Tabs>"


@st.composite
def _hugo_group(draw: st.DrawFn) -> str:
    tabs = draw(st.lists(st.tuples(_label, _body.filter(lambda b: "#" not in b)), min_size=1,
                         max_size=3))
    return "{{< tabs >}}\n" + "".join(f'{{{{% tab name="{label}" %}}}}\n{body}\n{{{{% /tab %}}}}\n'
                                      for label, body in tabs) + "{{< /tabs >}}"


@st.composite
def _callout(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(["note", "caution", "warning"]))
    left, right = draw(st.sampled_from([("<", ">"), ("%", "%")]))
    body = draw(_body.filter(lambda b: "#" not in b))
    gap = draw(st.sampled_from(["\n", "\n\n"]))
    return f"{{{{{left} {name} {right}}}}}{gap}{body}{gap}{{{{{left} /{name} {right}}}}}"


def _wrapped(group: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A group as it is, in a list item, or in a quote."""
    return st.one_of(group, group.map(lambda g: "1. Do this:\n\n" + _indent(g, "    ")),
                     group.map(lambda g: "".join(f"> {line}" if line.strip() else ">\n"
                                                 for line in g.splitlines(True))))


_GROUPS = {"mkdocs": _mkdocs_group(), "docusaurus": _docusaurus_group(), "hugo": _hugo_group()}


@st.composite
def pages(draw: st.DrawFn) -> tuple[str, str]:
    site = draw(st.sampled_from(sorted(_GROUPS)))
    blocks = draw(st.lists(st.one_of(_block, _wrapped(_GROUPS[site]), _wrapped(_GROUPS[site]),
                                     _callout()), min_size=1, max_size=6))
    return "\n\n".join(blocks) + "\n", site


@profile(60)
@given(page=pages(), max_tokens=st.one_of(st.integers(32, 160), st.sampled_from([256, 512, 1024])),
       overlap=st.sampled_from([0, 0, 8, 16]))
def test_tabs_and_callouts_keep_every_guarantee(page: tuple[str, str], max_tokens: int,
                                                overlap: int, counter) -> None:
    source, site = page
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap,
                                    site=site, doc_id="g.md")
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap,
                               headings=max_tokens >= 48, site=site)
    tabs = tab_spans(render_markup(parse_markdown(source, site), site).blocks)
    for chunk in chunks:
        labels = [label for a, b, label in tabs if chunk.start < b and chunk.end > a]
        if len(labels) == 1:
            assert chunk.metadata["tab"] == labels[0]
        elif labels:
            assert chunk.metadata["tabs"] == labels
        else:
            assert "tab" not in chunk.metadata and "tabs" not in chunk.metadata
        if max_tokens < HEADINGS_CHECKED_FROM:
            continue  # like the breadcrumb, a repeated label yields to a block that fits
        for a, b, label in tabs:  # a chunk of a tab shows its label, repeated or as its tag
            shown = label.strip("`")
            if chunk.start < b and chunk.end > a and shown:
                assert shown in chunk.embed_text, (label, chunk.embed_text)
