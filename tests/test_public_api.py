"""The public API's shapes: every field of a chunk's dict, and the Chunker object agreeing
with the function."""

from __future__ import annotations

import mdchunk
from mdchunk import ChunkerConfig, chunk_markdown


def test_to_dict_has_every_contract_field() -> None:
    (chunk,) = chunk_markdown("# T\n\nText.\n", doc_id="t.md")
    assert set(chunk.to_dict()) == {
        "id", "doc_id", "index", "level", "parent_id", "text", "start", "end", "line_start",
        "line_end", "headings", "section_path", "embed_text", "token_count", "kinds", "metadata",
        "oversized", "anchor", "url", "title"}
    assert chunk.level == 3 and chunk.parent_id is None and chunk.doc_id == "t.md"


def test_chunker_object_matches_the_function() -> None:
    source = "# T\n\n" + "Words and more words. " * 50
    config = ChunkerConfig(max_tokens=64, overlap_tokens=8)
    assert mdchunk.Chunker(config).chunk(source) == chunk_markdown(source, max_tokens=64,
                                                                   overlap_tokens=8)
