"""Blocks over the budget are cut at their seams (guarantee 2): tables between rows with the
header repeated, code between lines with the fence reopened, lists between items; or kept
whole and marked with ``oversized="keep"``."""

from __future__ import annotations

from mdchunk import chunk_markdown


def test_table_split_between_rows_repeats_the_header() -> None:
    rows = "\n".join(f"| param_{i} | string | the value of parameter {i} |" for i in range(40))
    source = f"# Params\n\n| Name | Type | Description |\n|---|---|---|\n{rows}\n"
    chunks = chunk_markdown(source, max_tokens=120, overlap_tokens=0)
    assert len(chunks) > 2
    for chunk in chunks[1:]:
        assert chunk.text.startswith("| param_")
        assert "| Name | Type | Description |\n|---|---|---|\n| param_" in chunk.embed_text
        assert all(line.startswith("| ") for line in chunk.text.splitlines())


def test_code_split_between_lines_reopens_the_fence() -> None:
    lines = "\n".join(f"echo step {i} && sleep 1" for i in range(80))
    source = f"# Script\n\n```bash\n{lines}\n```\n"
    chunks = chunk_markdown(source, max_tokens=100, overlap_tokens=10)
    assert len(chunks) > 2
    for chunk in chunks[1:]:
        assert chunk.embed_text.split("\n\n", 1)[1].startswith("```bash\necho step")
        assert chunk.text.startswith("echo step")
    assert chunks[-1].text.endswith("```")


def test_list_split_between_items() -> None:
    items = "\n".join(f"{i}. Restart the service number {i} and check its logs." for i in range(1, 40))
    chunks = chunk_markdown(f"# Steps\n\n{items}\n", max_tokens=80, overlap_tokens=0)
    assert len(chunks) > 2, "the list is over the budget"
    numbers = []
    for chunk in chunks:
        body = chunk.text.split("\n\n", 1)[-1]
        assert all(line.split(". ", 1)[0].isdigit() and line.endswith("logs.")
                   for line in body.splitlines()), "whole items only"
        numbers += [int(line.split(". ", 1)[0]) for line in body.splitlines()]
    assert numbers == list(range(1, 40)), "every item once, in order"


def test_oversized_keep_leaves_the_block_whole_and_marks_it() -> None:
    code = "```\n" + "\n".join(f"line {i}" for i in range(100)) + "\n```"
    source = f"# T\n\nIntro.\n\n{code}\n\nAfter.\n"
    chunks = chunk_markdown(source, max_tokens=64, overlap_tokens=0, oversized="keep")
    kept = [c for c in chunks if c.oversized]
    assert len(kept) == 1 and code in kept[0].text and kept[0].token_count > 64
    assert all(c.token_count <= 64 for c in chunks if not c.oversized)
