"""Hugo callout pairs (issue #26): ``{{< note >}}`` … ``{{< /note >}}`` (``caution``,
``warning``, the ``{{% %}}`` forms) is one atomic ``admonition`` block, its type in
``embed_text``, its closing tag not."""

from __future__ import annotations

import pytest

import mdchunk
from mdchunk.formats import Block, parse_markdown
from mdchunk.formats.site_markup import render_markup

from .test_guarantees import assert_markdown_guarantees


def _blocks(source: str, site: str = "hugo") -> tuple[Block, ...]:
    return render_markup(parse_markdown(source, site), site).blocks


def _one(source: str) -> mdchunk.Chunk:
    chunks = mdchunk.chunk_markdown(source, max_tokens=512, overlap_tokens=0, site="hugo")
    assert len(chunks) == 1
    return chunks[0]


@pytest.mark.parametrize("source,shown", [
    ("{{< note >}}\nBe careful.\n{{< /note >}}", "Note:\nBe careful."),
    ("{{% caution %}}\nBe careful.\n{{% /caution %}}", "Caution:\nBe careful."),
    ('{{< warning title="Data loss" >}}\n\nBack up first.\n\n- stop\n- copy\n\n{{< /warning >}}',
     "Warning: Data loss\n\nBack up first.\n\n- stop\n- copy"),
    ("{{< note >}}One line.{{< /note >}}", "Note:One line."),
])
def test_a_pair_is_one_admonition(source: str, shown: str) -> None:
    blocks = _blocks(source)
    assert [b.kind for b in blocks] == ["admonition"]
    assert (blocks[0].start, blocks[0].end) == (0, len(source))  # exact offsets: the tags too
    chunk = _one(source)
    assert chunk.embed_text == shown and chunk.text == source
    assert chunk.kinds[0] == "admonition"


def test_whatever_the_site() -> None:
    """Shortcodes mean nothing else in Markdown: read on any site's page."""
    source = "Intro.\n\n{{< note >}}\n\nA.\n\nB.\n\n{{< /note >}}\n\nAfter.\n"
    for site in ("plain", "docusaurus", "mkdocs", "hugo"):
        assert [b.kind for b in _blocks(source, site)] == ["paragraph", "admonition", "paragraph"]


def test_the_tags_alone_travel_with_their_neighbours() -> None:
    source = "{{< note >}}\n\nFirst.\n\nSecond.\n\n{{< /note >}}\n"
    note, = _blocks(source)
    first, second = note.children
    assert source[first.start:first.end] == "{{< note >}}\n\nFirst."
    assert source[second.start:second.end] == "Second.\n\n{{< /note >}}"
    assert note.prefix == "Note:"


def test_in_a_quote() -> None:
    quote, = _blocks("> {{< note >}}\n> Quoted note.\n> {{< /note >}}\n")
    assert quote.kind == "blockquote" and [c.kind for c in quote.children] == ["admonition"]


def test_in_a_list_item_and_a_tab() -> None:
    item = "1. Restart it.\n\n   {{< caution >}}\n   Drain the node first.\n   {{< /caution >}}\n"
    listing, = _blocks(item)
    assert [c.kind for c in listing.children[0].children] == ["paragraph", "admonition"]
    tabbed = ('{{< tabs >}}\n{{% tab name="kubectl" %}}\n{{< note >}}\nNeeds 1.29.\n'
              "{{< /note >}}\n{{% /tab %}}\n{{< /tabs >}}\n")
    group, = _blocks(tabbed)
    assert group.kind == "tabs"
    chunk = _one(tabbed)
    assert chunk.embed_text == "kubectl\nNote:\nNeeds 1.29." and chunk.metadata["tab"] == "kubectl"


@pytest.mark.parametrize("source", [
    "{{< note >}}\nNo closing tag.\n",
    "Text {{< note >}}\nstarts mid-paragraph.\n{{< /note >}}\n",
    "{{< note >}}\n\n## A heading\n\nText.\n\n{{< /note >}}\n",
    "{{< note >}}\nClosed by another.\n{{< /warning >}}\n",
])
def test_what_is_not_a_whole_pair_stays_blocks_of_the_page(source: str) -> None:
    assert "admonition" not in [b.kind for b in _blocks(source)]


def test_nested_pairs_of_one_name_close_in_order() -> None:
    source = ("{{< note >}}\n\nOuter.\n\n{{< note >}}\nInner.\n{{< /note >}}\n\nMore outer.\n\n"
              "{{< /note >}}\n")
    outer, = _blocks(source)
    assert outer.kind == "admonition" and (outer.start, outer.end) == (0, len(source.rstrip()))
    assert [c.kind for c in outer.children] == ["paragraph", "admonition", "paragraph"]


LONG = "{{< warning >}}\n\n" + "\n\n".join(
    " ".join(f"Sentence {p}.{n} of the warning says what to check." for n in range(4))
    for p in range(5)) + "\n\n{{< /warning >}}\n"
PAGE = ("## Restart\n\nDelete the pod.\n\n{{< note >}}\nA short note.\n{{< /note >}}\n\n"
        + LONG + "\nThen check.\n")


@pytest.mark.parametrize("max_tokens,overlap", [(32, 0), (48, 8), (64, 8), (128, 16),
                                                (256, 32), (1024, 64)])
def test_a_note_that_fits_is_whole_and_a_cut_one_names_its_type(max_tokens: int, overlap: int,
                                                                counter) -> None:
    chunks = mdchunk.chunk_markdown(PAGE, max_tokens=max_tokens, overlap_tokens=overlap,
                                    site="hugo", doc_id="p.md")
    assert_markdown_guarantees(PAGE, chunks, counter, max_tokens, overlap,
                               headings=max_tokens >= 48, site="hugo")
    short, long = [b for b in _blocks(PAGE) if b.kind == "admonition"]
    assert sum(c.start <= short.start and short.end <= c.end for c in chunks) == 1
    for chunk in chunks:
        assert "{{" not in chunk.embed_text
        if long.start < chunk.start < long.end:  # starts inside the cut warning: it says so
            assert "Warning:\n" in chunk.embed_text, chunk.embed_text
