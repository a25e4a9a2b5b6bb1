"""Reading Markdown into blocks and sections: what is a heading, exact spans for every line
ending, front matter, and the markup left out of embed_text but kept in text."""

from __future__ import annotations

import pytest

import mdchunk
from mdchunk import ChunkerConfig, ConfigError, InputError, chunk_markdown
from mdchunk.tokens import get_counter


def test_hash_inside_code_is_code_not_a_heading() -> None:
    source = "# Real\n\nIntro.\n\n```python\n# not a heading\nx = 1\n```\n"
    (chunk,) = chunk_markdown(source, max_tokens=100, overlap_tokens=0)
    assert chunk.headings == ["Real"]
    assert chunk.kinds == ["heading", "paragraph", "code"]


def test_setext_headings_and_inline_markup_in_titles() -> None:
    source = "Guide\n=====\n\nIntro text.\n\nThe `kubectl` **drain** [command](http://x)\n---\n\nBody.\n"
    chunks = chunk_markdown(source, max_tokens=20, overlap_tokens=0, min_tokens=0)
    assert chunks[-1].headings == ["Guide", "The kubectl drain command"]
    assert chunks[-1].section_path == "Guide > The kubectl drain command"


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_spans_are_exact_for_every_line_ending(newline: str) -> None:
    source = newline.join(["# Title", "", "Para one.", "", "- a", "- b", "", "## Next", "", "Text."])
    chunks = chunk_markdown(source, max_tokens=24, overlap_tokens=0, min_tokens=0)
    assert all(c.text == source[c.start:c.end] for c in chunks)
    assert chunks[-1].text.endswith("Text.")
    assert chunks[-1].line_end == 10
    assert chunks[0].line_start == 1


def test_front_matter_goes_to_metadata_not_chunks() -> None:
    source = "---\ntitle: API\ntags: [a, b]\n---\n# API\n\nBody.\n"
    (chunk,) = chunk_markdown(source, metadata={"repo": "docs"})
    assert chunk.metadata == {"title": "API", "tags": ["a", "b"], "repo": "docs"}
    assert "title:" not in chunk.text and chunk.line_start == 5


def test_bad_front_matter_names_the_document() -> None:
    with pytest.raises(InputError, match="docs/a.md: front matter is not valid YAML"):
        chunk_markdown("---\ntitle: [unclosed\n---\n# A\n\nText.\n", doc_id="docs/a.md")


def test_html_comments_are_left_out_of_embed_text_by_default_but_kept_in_text() -> None:
    source = ("<!-- Licensed under CC BY 4.0. -->\n\n# Restart\n\nDrain the node <!-- TODO -->"
              " first.\n\n```html\n<!-- kept: this is code -->\n```\n")
    counter = get_counter("cl100k_base")
    (chunk,) = chunk_markdown(source, max_tokens=256, overlap_tokens=0)
    assert chunk.text == source.rstrip("\n"), "the licence header leads the section, verbatim"
    assert "Licensed" not in chunk.embed_text and "TODO" not in chunk.embed_text
    assert "<!-- kept: this is code -->" in chunk.embed_text
    assert chunk.token_count == counter.count(chunk.embed_text)
    assert chunk.kinds[0] == "comment"
    (kept,) = mdchunk.Chunker(ChunkerConfig(max_tokens=256, overlap_tokens=0,
                                            html_comments="keep")).chunk(source)
    assert kept.embed_text == kept.text
    with pytest.raises(ConfigError, match="html_comments"):
        ChunkerConfig(html_comments="strip")  # type: ignore[arg-type]


def test_heading_id_markup_is_left_out_of_embed_text_but_kept_in_text() -> None:
    source = "## Rolling restarts {#rolling-restarts}\n\nRestart one node at a time.\n"
    counter = get_counter("cl100k_base")
    (chunk,) = chunk_markdown(source, max_tokens=64, overlap_tokens=0)
    assert "{#rolling-restarts}" in chunk.text and "{#" not in chunk.embed_text
    assert chunk.embed_text.startswith("## Rolling restarts\n\nRestart")
    assert chunk.anchor == "rolling-restarts" and chunk.headings == ["Rolling restarts"]
    assert chunk.token_count == counter.count(chunk.embed_text)
