"""Issue 32: what the model reads is what the page shows, and no cut falls inside a link.

Regression tests for each case the issue names (front matter through a hierarchy, comments
inside containers, shortcodes in code spans, a cut inside an image, a run of empty headings),
and a property over generated documents with comments, shortcodes, links and images inside
every container (lists, quotes, tables, tabs, admonitions) at budgets 32–1024.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import mdchunk
from mdchunk.formats import parse_markdown
from tests.audit import as_read, audit_markdown, embed_text_problems, inline_cuts

from .conftest import CORPORA, corpus_files, site_corpus_mdx, site_of, with_corpus
from .test_grammar import profile
from .test_guarantees import assert_markdown_guarantees
from .test_hierarchy import assert_hierarchy

FRONT = ("---\nslug: /concepts/storage\nkeywords: [broker, commitlog]\nsidebar_position: 2\n"
         "title: Storage design\n---\n\n")
BODY = ("# Storage\n\nThe broker appends every message to one commit log. Consume queues index "
        "it per topic.\n\n## Index files\n\nIndex files let a client look a message up by key. "
        "They are rebuilt at start.\n")


# -- 1. front matter is never embedded ---------------------------------------------------------

@pytest.mark.parametrize("levels", [(2048, 512, 128), (512, 64), (256, 32), (64, 24), (40, 16),
                                    (1024, 256, 64, 16), (96,)])
def test_no_chunk_embeds_front_matter_at_any_level(levels: tuple[int, ...], counter) -> None:
    long_front = FRONT[:-5] + "".join(f"k{i}: value {i}\n" for i in range(30)) + "---\n\n"
    for front in (FRONT, long_front):
        source = front + BODY
        chunks = mdchunk.chunk_hierarchy(source, levels=levels, overlap_tokens=8, doc_id="a.md")
        assert_hierarchy(source, chunks, levels, counter)
        for c in chunks:
            assert "sidebar_position" not in c.embed_text and "keywords:" not in c.embed_text
            assert c.token_count == counter.count(c.embed_text)
        assert "sidebar_position" in chunks[0].text  # level 1 still tiles it
        flat = mdchunk.chunk_markdown(source, max_tokens=levels[-1], overlap_tokens=0)
        assert not any("sidebar_position" in c.embed_text for c in flat)


def test_a_page_of_front_matter_and_a_block_too_large_to_join_it(counter) -> None:
    """Front matter that stands alone at level 1 (the first block would be cut to make room
    for it) gives no leaf: a leaf would embed nothing (or the YAML, as it did)."""
    front = "---\n" + "".join(f"key{i}: value number {i}\n" for i in range(12)) + "---\n\n"
    source = front + "# Title\n\n" + " ".join(f"word{i}" for i in range(40)) + ".\n"
    chunks = mdchunk.chunk_hierarchy(source, levels=(64, 32), overlap_tokens=0)
    assert_hierarchy(source, chunks, (64, 32), counter)
    assert all(c.embed_text.strip() for c in chunks if c.level == 2)
    assert not any("key3" in c.embed_text for c in chunks)


@pytest.mark.slow
def test_the_index_embeds_no_front_matter(tmp_path: Path) -> None:
    from mdchunk.index import index_paths

    from .conftest_milvus import CountingEmbedder, HashEmbedder

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"page{i}.md").write_text(FRONT + BODY.replace("Storage", f"Storage {i}"),
                                          encoding="utf-8")
    model = CountingEmbedder(HashEmbedder())
    index_paths([docs], db=str(tmp_path / "i.db"), collection="kb", model=model, max_tokens=128)
    assert model.texts and not any("sidebar_position" in t or "slug:" in t for t in model.texts)


# -- 2. HTML comments wherever they stand ------------------------------------------------------

TRANSLATED = """# 部署

- 先检查节点状态。
  <!-- First check the state of the nodes. -->
- 然后重启服务。<!-- Then restart the service. -->

  <!--
  The English original of a whole paragraph,
  over two lines.
  -->

> 注意：请先备份。
> <!-- Note: back up first,
> over two lines. -->

| 项 | 说明 <!-- Item, description --> |
|---|---|
| 端口 <!-- port --> | 8080 |

{{< note >}}
提示文字。<!-- A hint. -->
{{< /note >}}

{{< tabs >}}
{{% tab name="Linux" %}}
运行脚本。<!-- Run the script. -->
{{% /tab %}}
{{< /tabs >}}

## 标题 <!-- A heading's original -->

正文。
"""


@pytest.mark.parametrize("budget", [32, 64, 128, 1024])
def test_comments_in_every_container_are_left_out_of_embed_text(budget: int, counter) -> None:
    chunks = mdchunk.chunk_markdown(TRANSLATED, max_tokens=budget, overlap_tokens=0, site="hugo")
    assert_markdown_guarantees(TRANSLATED, chunks, counter, budget, 0, headings=budget >= 48,
                               site="hugo")
    embedded = "\n".join(c.embed_text for c in chunks)
    assert "<!--" not in embedded and "-->" not in embedded
    for english in ("First check", "Then restart", "English original", "back up first", "Item,",
                    "port", "A hint", "Run the script", "A heading's original"):
        assert english not in embedded, english
    assert "".join(c.text for c in chunks).count("<!--") == TRANSLATED.count("<!--")


def test_the_comments_of_a_table_row_are_found() -> None:
    source = "| a <!-- c --> |\n| --- |\n| <!-- d --> x |\n"
    assert parse_markdown(source).comments == ((4, 14), (27, 37))


def _behind_markers_pattern(comment: str) -> re.Pattern[str]:
    """The reference: ``comment``'s lines with any line break, then any blanks and ``>``
    markers, before each line after the first."""
    lines = re.split(r"\r\n?|\n", comment)
    return re.compile(re.escape(lines[0]) + "".join(
        r"(?:\r\n?|\n)[ \t>]*" + re.escape(line.lstrip(" \t")) for line in lines[1:]))


_MARKED = st.text(alphabet=" \t>\n\rab-!<", max_size=30)


@given(_MARKED, _MARKED, st.integers(0, 40), st.integers(0, 40))
@profile(400)
def test_a_comment_is_found_behind_markers_as_the_pattern_finds_it(
        source: str, comment: str, pos: int, end: int) -> None:
    """A comment's lines, found behind a container's markers without compiling its text, lie
    where the pattern of its text finds them."""
    from mdchunk.formats.block_maker import _find_behind_markers

    comment = "<!--" + re.sub(r"\r\n?", "\n", comment) + "-->"  # as markdown-it gives it
    pos, end = min(pos, end), max(pos, end)
    source = source[:pos] + comment.replace("\n", "\n> ") + source[pos:]
    hit = _behind_markers_pattern(comment).search(source, pos, end)
    assert _find_behind_markers(source, comment, pos, end) == (hit.span() if hit else None)


@pytest.mark.parametrize("source,found", [("<!--a\n b-->", None), ("<!--a\n  > >b-->", (0, 15)),
                                          ("<!--a\n b--> <!--a\n> >b-->", (12, 25))])
def test_a_comment_line_that_starts_with_a_marker_keeps_it(source: str,
                                                           found: tuple[int, int] | None) -> None:
    from mdchunk.formats.block_maker import _find_behind_markers

    comment = "<!--a\n>b-->"
    hit = _behind_markers_pattern(comment).search(source)
    assert _find_behind_markers(source, comment, 0, len(source)) == found == (
        hit.span() if hit else None)


def test_comments_in_containers_are_found_without_compiling_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A page that keeps its original in comments inside list items and quotes (a Hugo site's
    translations) compiles no pattern per comment: 995 compiles for 70 pages were 57% of
    chunking them."""
    page = "".join(f"- 检查节点 {i}。\n  <!--\n  Check node {i}\n  and its pods.\n  -->\n"
                   f"\n> 注意 {i}。\n> <!-- Back up {i}\n> first. -->\n\n" for i in range(60))
    compiled: list[str] = []
    compile_pattern = re.compile

    def counting(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return compile_pattern(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    doc = parse_markdown(page)
    assert len(doc.comments) == 120
    assert all(page[a:b].startswith("<!--") and page[a:b].endswith("-->") for a, b in doc.comments)
    assert compiled == []


# -- 3. shortcodes in code spans ---------------------------------------------------------------

def test_a_shortcode_in_a_code_span_is_read_as_hugo_reads_it() -> None:
    source = ("Download `kubelet-config-{{< glossary_tooltip text=\"v1.31\" term_id=\"v\" >}}` "
              "now.\n\nUse `{{%/* shortcode */%}}` or {{</* tab name=\"x\" */>}} here.\n\n"
              "```go-html-template\n{{</* myshortcode */>}}\n```\n")
    [hugo] = mdchunk.chunk_markdown(source, max_tokens=512, site="hugo")
    assert "`kubelet-config-v1.31`" in hugo.embed_text
    assert "`{{% shortcode %}}`" in hugo.embed_text
    assert '{{< tab name="x" >}} here' in hugo.embed_text
    assert "\n{{< myshortcode >}}\n" in hugo.embed_text
    assert hugo.text == source.rstrip("\n")
    [plain] = mdchunk.chunk_markdown(source, max_tokens=512)
    assert "{{< glossary_tooltip" in plain.embed_text  # elsewhere a code span is code
    assert '{{< tab name="x" >}} here' in plain.embed_text  # the escape is Hugo's alone


# -- 4. no seam inside an inline construct -----------------------------------------------------

IMAGE_PARAGRAPH = (
    "RocketMQ stores messages in the commit log and builds consume queues from it so that "
    "consumers can read quickly ![Image text](https://example.org/a/b/design_8.png) and the "
    "broker keeps index files for lookups by key, see [the storage design document]"
    "(https://example.org/docs/storage \"Storage design\") for **more details about the "
    "layout** and `mqadmin topicList -n host` usage, or <kbd>Ctrl C</kbd> to stop")


@pytest.mark.parametrize("budget", range(16, 96, 3))
def test_a_long_paragraph_is_never_cut_inside_an_image_or_link(budget: int, counter) -> None:
    source = "# Design\n\n" + IMAGE_PARAGRAPH + "\n"
    chunks = mdchunk.chunk_markdown(source, max_tokens=budget, overlap_tokens=8)
    for c in chunks:
        assert not c.text.endswith("![Image") and not c.text.startswith("text](")
        assert not c.text.endswith("**more") and not c.text.endswith("`mqadmin")
    spans = [(c.start, c.end) for c in chunks]
    assert inline_cuts(source, parse_markdown(source).blocks, spans, counter, budget) == []


def test_a_link_alone_over_the_budget_is_cut_between_words_of_its_text() -> None:
    text = " ".join(f"word{i}" for i in range(60))
    source = f"Intro. [{text}](https://example.org/a/very/long/destination \"a b c\") end.\n"
    chunks = mdchunk.chunk_markdown(source, max_tokens=32, overlap_tokens=0)
    assert len(chunks) > 2
    destination = source.index("](")
    for c in chunks:  # never inside the destination
        assert not destination < c.start < source.index(") end") + 1
        assert not destination < c.end < source.index(") end")


#: A heading that is a paragraph's worth (as some pages write their steps), an image alone
#: under it: at 128 tokens the two fit only as the page shows them, without the image's address.
LONG_HEADING = (
    "# Rebalancing\n\n## Assignment\n\n##### 3) Before the broker hands a queue to a consumer it "
    "checks the lease held by every member of the group, compares the offsets stored for each "
    "partition against the commit log, and sorts the members by their client identifiers so "
    "that each member computes the same assignment without asking the others; the figure "
    "below shows which member ends up owning which queue once a rebalance has finished and "
    "the broker has recorded the new owners in its table (queue here).\n"
    "![Figure 8](https://example.org/static/images/design/rebalance/queue-assignment-after-"
    "a-rebalance-of-the-consumer-group-figure-8.png \"Figure 8\")\n\n"
    "##### 4) Then each member compares its old queues with the new ones.\n"
    "It drops the queues it no longer owns and starts pulling from the new ones.\n")


@pytest.mark.parametrize("budget", [104, 112, 120, 128])
def test_an_image_under_a_long_heading_is_never_cut(budget: int, counter) -> None:
    """The heading may not stand alone (guarantee 3) and the image's address would not fit
    beside it: ``embed_text`` shows the image as the page does, by its alt text, and the
    chunk holds it whole (it ended ``![Figure`` before, the next chunk ``8](https://…)``)."""
    chunks = mdchunk.chunk_markdown(LONG_HEADING, max_tokens=budget, overlap_tokens=0)
    assert_markdown_guarantees(LONG_HEADING, chunks, counter, budget, 0)
    spans = [(c.start, c.end) for c in chunks]
    blocks = parse_markdown(LONG_HEADING).blocks
    assert inline_cuts(LONG_HEADING, blocks, spans, counter, budget, company=False) == []
    image = LONG_HEADING.index("![Figure 8]")
    [holder] = [c for c in chunks if c.start <= image < c.end]
    assert "##### 3)" in holder.text and holder.text.endswith('figure-8.png "Figure 8")')
    assert holder.embed_text.endswith("(queue here).\n![Figure 8]")
    assert holder.token_count == counter.count(holder.embed_text) <= budget


def test_an_image_is_embedded_by_its_alt_text_where_the_page_shows_one() -> None:
    """The page shows an image, never its address: an inline or a reference image's destination
    is left out of ``embed_text``; a link's stays (its words name the page it leads to), and
    so does anything in code, or an image inside a link (a badge)."""
    source = ("See ![the flow](img/flow.png) and ![the table][t] or [the guide](/guide/).\n\n"
              "A badge [![build](https://ci.example.org/badge.svg)](https://ci.example.org/).\n\n"
              "Code `![x](y.png)` here.\n\n```md\n![kept](in/code.png)\n```\n\n"
              "| a | b |\n| - | - |\n| ![cell](c.png) | x |\n\n[t]: /img/table.png\n")
    [chunk] = mdchunk.chunk_markdown(source)
    assert chunk.text == source.rstrip()
    shown = chunk.embed_text
    assert "See ![the flow] and ![the table] or [the guide](/guide/)." in shown
    assert "[![build](https://ci.example.org/badge.svg)](https://ci.example.org/)" in shown
    assert "`![x](y.png)`" in shown and "![kept](in/code.png)" in shown
    assert "| ![cell] | x |" in shown and "/img/table.png" not in shown


@pytest.mark.parametrize("path", with_corpus([*corpus_files(), *site_corpus_mdx()], CORPORA))
def test_no_chunk_of_a_corpus_page_starts_or_ends_inside_an_inline_construct(
        path: Path, counter) -> None:
    """At 128 and 256 tokens, not even to give a long heading company (RocketMQ's
    ``Design_LoadBlancing.md`` ended a chunk with ``![Image text`` at 128)."""
    source = path.read_text(encoding="utf-8")
    site = site_of(path)
    for budget in (128, 256):
        chunks = mdchunk.chunk_markdown(source, max_tokens=budget, overlap_tokens=budget // 8,
                                        site=site)
        read, spans = as_read(source, [(c.start, c.end) for c in chunks])
        blocks = parse_markdown(read, site).blocks
        assert inline_cuts(read, blocks, spans, counter, budget, company=False) == [], budget


# -- 5. a run of empty headings ----------------------------------------------------------------

STEPS = """# Deploy

Intro text for the deployment guide.

##### 1) Prepare the machine and install the required packages
##### 2) Configure the network interfaces for the cluster
##### 3) Start the service

Run the start script and wait until the broker reports it is ready to serve traffic.

More text that follows the steps here in a longer sentence.
"""


@pytest.mark.parametrize("budget", [28, 32, 40, 48, 64, 128])
def test_consecutive_empty_headings_travel_with_the_content_under_them(budget: int,
                                                                      counter) -> None:
    chunks = mdchunk.chunk_markdown(STEPS, max_tokens=budget, overlap_tokens=0)
    assert_markdown_guarantees(STEPS, chunks, counter, budget, 0)
    assert not [c.text for c in chunks if set(c.kinds) <= {"heading"}]
    assert any("##### 3)" in c.text and "Run the start" in c.text for c in chunks)


# -- 6. the property ---------------------------------------------------------------------------

_INLINE = st.sampled_from([
    "![Image text](https://example.org/a/b/design_8.png)", "[the storage guide](https://x.org/s)",
    "[ref link][ref]", "`kubectl get pods -n kube-system`", "**bold words here**",
    "*emphasis in a few words*", "<kbd>Ctrl C</kbd>", "<!-- an English original -->",
    "{{< glossary_tooltip text=\"node\" term_id=\"node\" >}}", "`config-{{< skew current >}}`",
    "{{</* tab name=\"x\" */>}}", "alpha", "beta gamma", "服务重启。", "delta.", "e.g. this",
    "<https://example.org/x>", "~~struck words~~"])
_prose = st.lists(_INLINE, min_size=1, max_size=14).map(" ".join)
#: What a comment holds: anything but another comment (the first ``-->`` would end it).
_commented = st.lists(_INLINE.filter(lambda t: "<!--" not in t), min_size=1,
                      max_size=14).map(" ".join)


#: Every container with TEXT shown, HIDDEN in a comment and MORE beside it.
_CONTAINERS = {
    "para": "TEXT",
    "list": "- TEXT\n  <!-- HIDDEN -->\n- MORE",
    "ordered": "1. TEXT\n\n   <!--\n   HIDDEN\n   -->\n2. MORE",
    "quote": "> TEXT\n> <!-- HIDDEN\n> second line -->",
    "table": "| a | b <!-- c --> |\n|---|---|\n| TEXT | MORE |",
    "tabs": ("{{< tabs >}}\n{{% tab name=\"Linux\" %}}\nTEXT\n{{% /tab %}}\n"
             "{{% tab name=\"Mac\" %}}\nMORE\n{{% /tab %}}\n{{< /tabs >}}"),
    "admonition": "!!! note \"Title\"\n    TEXT\n    <!-- HIDDEN -->",
    "hugo-note": "{{< note >}}\nTEXT\n{{< /note >}}",
    "comment-block": "<!--\nHIDDEN\n-->",
}


@st.composite
def _container(draw: st.DrawFn) -> str:
    shape = draw(st.sampled_from(sorted(_CONTAINERS)))
    return (_CONTAINERS[shape].replace("TEXT", draw(_prose)).replace("MORE", draw(_prose))
            .replace("HIDDEN", draw(_commented)))


@st.composite
def site_documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.one_of(_container(), st.sampled_from(
        ["# Title", "## Section", "##### 1) Step one", "##### 2) Step two"])), min_size=1,
        max_size=8))
    front = draw(st.sampled_from(["", "---\ntitle: Generated page\nslug: /gen\n---\n\n"]))
    return front + "\n\n".join(blocks) + "\n\n[ref]: https://example.org/ref\n"


@profile(40)
@given(source=site_documents(), budget=st.one_of(st.integers(32, 96),
                                                 st.sampled_from([128, 256, 512, 1024])))
def test_site_pages_show_no_markup_and_no_cut_inside_a_construct(source: str, budget: int,
                                                                 counter) -> None:
    note(source)
    chunks = mdchunk.chunk_markdown(source, max_tokens=budget, overlap_tokens=budget // 8,
                                    site="hugo")
    assert_markdown_guarantees(source, chunks, counter, budget, budget // 8,
                               headings=budget >= 48, site="hugo")
    spans = [(c.start, c.end) for c in chunks]
    report = audit_markdown(source, spans, [c.token_count for c in chunks], counter, budget,
                            site="hugo")
    assert report.inline_cut == []
    for c in chunks:
        assert c.text == source[c.start:c.end]
        for markup in ("<!--", "-->", "glossary_tooltip", "{{</*", "slug:"):
            assert markup not in c.embed_text, markup
    assert embed_text_problems(source, [(c.start, c.end, c.embed_text) for c in chunks],
                               "hugo") == []
    levels = (budget * 4, budget)
    tree = mdchunk.chunk_hierarchy(source, levels=levels, overlap_tokens=budget // 8,
                                   site="hugo")
    assert_hierarchy(source, tree, levels, counter, site="hugo")
    assert not any("slug:" in c.embed_text or "<!--" in c.embed_text for c in tree)
