"""What the page shows, to the last case (issue 44): markup a generator renders inside code, a
translation's English original kept in a comment inside a list item, and link reference
definitions, which are the page's metadata and never its text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mdchunk
from mdchunk.formats import parse_markdown
from mdchunk.formats.site_markup import render_markup
from mdchunk.tokens import get_counter

from .conftest import CORPORA
from .test_guarantees import assert_markdown_guarantees

FIXTURE = Path(__file__).parent.parent / "fixtures" / "hugo-zh-kubelet-upgrade.md"
HUGO_DOCS = CORPORA / "hugo-docs" / "content" / "en"


def test_a_shortcode_in_a_fenced_code_block_shows_as_hugo_renders_it() -> None:
    """Hugo renders shortcodes before Markdown, code blocks included: the YAML comment shows
    the shortcode's visible text (nothing, for one mdchunk cannot evaluate), never ``{{<``."""
    source = ("# Upgrade\n\n```yaml\n# the kubelet v{{< skew currentVersion >}} config\n"
              "note: {{</* tab name=\"x\" */>}}\n```\n")
    [chunk] = mdchunk.chunk_markdown(source, site="hugo")
    assert "# the kubelet v config\n" in chunk.embed_text
    assert 'note: {{< tab name="x" >}}' in chunk.embed_text  # an escaped one: the tag itself
    assert chunk.text == source.rstrip("\n")
    [plain] = mdchunk.chunk_markdown(source, site="plain")  # a page of another site: code
    assert "v{{< skew currentVersion >}}" in plain.embed_text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("lead,marker", [("   ", "1. "), ("  ", "- "), ("   > ", "> 1. ")])
def test_a_comment_over_a_blank_line_in_a_list_item_is_dropped(lead: str, marker: str,
                                                                newline: str) -> None:
    """CommonMark (goldmark, GitHub) reads the comment to its ``-->`` through the blank line
    inside the item, as it does at the top level: none of the English original is shown."""
    quote = "> " if marker.startswith(">") else ""
    lines = [f"{marker}第一步", f"{lead}<!--", f"{lead}English paragraph one.", quote.rstrip(),
             f"{lead}English paragraph two.", f"{lead}-->", f"{lead}中文说明。"]
    source = "# 标题\n\n" + "\n".join(lines) + "\n"
    source = source.replace("\n", newline)
    [chunk] = mdchunk.chunk_markdown(source)
    assert "English" not in chunk.embed_text and "-->" not in chunk.embed_text
    assert "中文说明。" in chunk.embed_text and "第一步" in chunk.embed_text
    doc = parse_markdown(source)
    assert [source[a:b].count("English") for a, b in doc.comments] == [2]


def test_a_comment_the_item_ends_before_it_closes_stays_markdown_its() -> None:
    """A comment whose item ends (a line less indented) before any ``-->`` is not read on
    past it: the item's HTML block ends there, as CommonMark's does."""
    source = "- item\n  <!--\n  open\n\nOutside the list.\n-->\n"
    doc = parse_markdown(source)
    assert [b.kind for b in doc.blocks][:2] == ["list", "paragraph"]
    assert source[doc.blocks[1].start:doc.blocks[1].end] == "Outside the list.\n-->"


def test_link_reference_definitions_are_a_block_no_page_shows() -> None:
    source = ("# Page\n\nSee [with][] and [the docs].\n\n```go\n{{ with . }}{{ end }}\n```\n\n"
              "[with]: /functions/go-template/with/\n[the docs]: https://gohugo.io/ \"Hugo\"\n")
    doc = parse_markdown(source)
    assert [b.kind for b in doc.blocks] == ["heading", "paragraph", "code", "link_definitions"]
    code, definitions = doc.blocks[2], doc.blocks[3]
    assert source[code.start:code.end].endswith("```")
    assert source[definitions.start:definitions.end].startswith("[with]:")
    for chunk in mdchunk.chunk_markdown(source, max_tokens=32, overlap_tokens=0):
        assert "/functions/go-template/with/" not in chunk.embed_text
        assert chunk.text == source[chunk.start:chunk.end]
    chunks = mdchunk.chunk_markdown(source, max_tokens=32, overlap_tokens=0)
    assert chunks[-1].end == len(source.rstrip("\n"))  # covered: the last chunk holds them
    assert chunks[-1].embed_text.endswith("```")  # and shows the code block before them


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_definitions_in_a_list_item_or_a_quote_are_not_embedded(newline: str) -> None:
    """Nested in a list item or a quote, definitions are metadata as at the top level: the
    chunk stays a slice of the page, its ``embed_text`` leaves their lines out (a quote's
    lines with their ``>``, an item's marker kept when the definition is all the item holds),
    and its count is still exact."""
    source = ("# Links\n\n- Read [the guide][g] first.\n\n  [g]: /guide/ \"Guide\"\n"
              "  [h]:\n  /multi-line/\n\n  Then go on.\n- [solo]: /solo/\n- Last item.\n\n"
              "> Quoted [q] text.\n>\n> [q]: https://example.org/q\n>\n> After it.\n\n"
              "Top [g] [q] [solo] [h].\n").replace("\n", newline)
    chunks = mdchunk.chunk_markdown(source, max_tokens=512, overlap_tokens=0)
    [chunk] = chunks
    assert chunk.text == source[chunk.start:chunk.end] == source.rstrip()
    shown = chunk.embed_text.replace("\r\n", "\n")
    if newline == "\r\n":  # blank lines left behind collapse only between LF line breaks
        shown = re.sub(r"\n\n+", "\n\n", shown)
    for hidden in ("/guide/", "/multi-line/", "/solo/", "example.org", "]:"):
        assert hidden not in shown, hidden
    assert "- Read [the guide][g] first.\n\n  Then go on.\n- \n- Last item." in shown
    assert "> Quoted [q] text.\n>\n>\n> After it." in shown
    assert chunk.token_count == get_counter("cl100k_base").count(chunk.embed_text)
    doc = parse_markdown(source)
    assert [source[a:b].strip() for a, b in doc.definitions] == [
        '[g]: /guide/ "Guide"', "[h]:" + newline + "  /multi-line/", "[solo]: /solo/",
        "> [q]: https://example.org/q"]


def test_a_definition_nested_again_or_defined_twice_is_left_out_too() -> None:
    """markdown-it keeps the first definition of a label (``env["references"]``) and records
    the others (``env["duplicate_refs"]``): neither is text; a top-level one stays its block."""
    source = ("Intro [a].\n\n> - item\n>\n>   [a]: /first/\n>   [a]: /second/\n\n"
              "[a]: /third/\n")
    doc = parse_markdown(source)
    assert [source[a:b] for a, b in doc.definitions] == [">   [a]: /first/\n",
                                                         ">   [a]: /second/\n"]
    assert doc.blocks[-1].kind == "link_definitions"
    for max_tokens in (512, 16):
        embedded = "\n".join(c.embed_text for c in mdchunk.chunk_markdown(
            source, max_tokens=max_tokens, overlap_tokens=0))
        assert "/first/" not in embedded and "/second/" not in embedded
        assert "/third/" not in embedded and "item" in embedded


def test_a_section_of_definitions_alone_is_no_chunk_of_headings_alone() -> None:
    """Under a heading, definitions are no content: the heading joins the text before it as
    an empty section's does (guarantee 3), and the definitions are covered (guarantee 4)."""
    source = "# Page\n\nSome text here.\n\n## Links\n\n[a]: /a\n[b]: /b\n"
    chunks = mdchunk.chunk_markdown(source, max_tokens=64, overlap_tokens=0)
    assert len(chunks) == 1 and chunks[0].end == len(source.rstrip("\n"))
    assert "/a" not in chunks[0].embed_text


def test_the_fixture_shows_what_its_page_shows(counter) -> None:
    source = FIXTURE.read_text(encoding="utf-8")
    for max_tokens, overlap in [(128, 16), (64, 8), (48, 8)]:
        chunks = mdchunk.chunk_file(FIXTURE, max_tokens=max_tokens, overlap_tokens=overlap,
                                    site="hugo")
        assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap,
                                   headings=max_tokens >= 48, site="hugo")
        embedded = "\n".join(c.embed_text for c in chunks)
        for hidden in ("{{<", "English", "Drain the node", "-->", "]: /", "]: https"):
            assert hidden not in embedded, (max_tokens, hidden)
        for shown in ("# kubelet v 的配置", "阅读[版本偏差策略][skew]", "![kubelet 升级流程]"):
            assert shown in embedded, (max_tokens, shown)


@pytest.mark.corpus
@pytest.mark.parametrize("page,kind", [("functions/js/Batch.md", "code"),
                                       ("templates/shortcode.md", "code"),
                                       ("configuration/http-cache.md", "list")])
def test_a_block_before_a_pages_definitions_is_whole_at_128_tokens(page: str, kind: str) -> None:
    """On the Hugo docs, the definitions at a page's end were read as part of the block before
    them, which then no longer fitted and was cut at 128 tokens."""
    path = HUGO_DOCS / page
    if not path.is_file():
        pytest.skip("the hugo-docs corpus is absent")
    source = path.read_text(encoding="utf-8")
    doc = render_markup(parse_markdown(source, "hugo"), "hugo")
    assert doc.blocks[-1].kind == "link_definitions"
    before = doc.blocks[-2]
    assert before.kind == kind
    chunks = mdchunk.chunk_file(path, max_tokens=128, overlap_tokens=16, site="hugo")
    assert any(c.start <= before.start and before.end <= c.end for c in chunks)
    assert chunks[-1].end >= doc.blocks[-1].end
    assert not any("]: /" in c.embed_text for c in chunks)



def test_a_footnote_nothing_references_is_shown_by_no_page() -> None:
    """markdown-it drops a footnote definition no reference uses, as goldmark and GitHub do:
    it is a gap of the page like a link's definition, and a referenced one stays a footnote."""
    [dropped] = mdchunk.chunk_markdown("Text.\n\n[^1]: A note.\n")
    assert dropped.embed_text == "Text." and dropped.text.endswith("[^1]: A note.")
    [kept] = mdchunk.chunk_markdown("Text[^1].\n\n[^1]: A note.\n")
    assert kept.embed_text.endswith("[^1]: A note.") and "footnote" in kept.kinds
