"""Headings travel with their content (guarantee 3): empty sections, small siblings merged
under their parent, and top-level sections kept apart."""

from __future__ import annotations

from mdchunk import chunk_markdown


def test_heading_straight_after_heading_joins_first_child_chunk() -> None:
    body = "这是一段很长的说明文字，用来撑满预算。" * 12
    source = f"# CPU高负载问题排查指南\n## 问题现象\n\n{body}\n\n## 处理方案\n\n{body}\n"
    chunks = chunk_markdown(source, max_tokens=200, overlap_tokens=0)
    assert chunks[0].text.startswith("# CPU高负载问题排查指南\n## 问题现象\n\n这是")
    assert chunks[0].headings == ["CPU高负载问题排查指南", "问题现象"]
    assert all(set(c.kinds) != {"heading"} for c in chunks)


def test_empty_trailing_section_is_not_a_chunk_of_its_own() -> None:
    source = "# Doc\n\n" + "Some words here. " * 30 + "\n\n## TODO\n"
    chunks = chunk_markdown(source, max_tokens=200, overlap_tokens=0, min_tokens=0)
    assert chunks[-1].text.endswith("## TODO")
    assert chunks[-1].kinds != ["heading"]


def test_small_sections_merge_under_their_parent_but_never_across_parents() -> None:
    faq = "\n\n".join(f"### Q{i}\n\nShort answer {i}." for i in range(6))
    source = f"# A\n\n## Accounts\n\n{faq}\n\n## Billing\n\n{faq}\n"
    chunks = chunk_markdown(source, max_tokens=90, overlap_tokens=0, min_tokens=40)
    assert len(chunks) < 12
    for chunk in chunks:
        assert not ("Accounts" in chunk.text and "Billing" in chunk.text)
    merged = [c for c in chunks if c.text.count("### Q") > 1]
    assert merged and all(c.headings[-1] in ("Accounts", "Billing") for c in merged)


def test_sections_under_different_top_level_headings_never_share_a_chunk() -> None:
    source = ("# CPU\n\nCheck the load average.\n\n# Memory\n\nCheck the OOM killer log.\n")
    chunks = chunk_markdown(source, max_tokens=256, overlap_tokens=0)
    assert [c.section_path for c in chunks] == ["CPU", "Memory"]
    intro = "Runbooks for the database hosts.\n\n" + source
    assert [c.section_path for c in chunk_markdown(intro, max_tokens=256, overlap_tokens=0)] == [
        "", "CPU", "Memory"], "the text before the first heading keeps apart too"
    under_one = "# Hosts\n\n" + source.replace("# ", "## ")
    assert len(chunk_markdown(under_one, max_tokens=256, overlap_tokens=0)) == 1, \
        "small siblings under a common heading still merge"


def test_headings_leading_empty_sections_stand_alone_rather_than_cut_what_follows() -> None:
    """At a tiny budget, ``# P`` and three empty sections cannot fit with ``## S`` and its table:
    they stand alone (as empty sections' headings may), and ``## S`` keeps its whole table."""
    source = ("# alpha\n\n## alpha\n\n## alpha\n\n## alpha alpha alpha alpha\n\n"
              "## alpha alpha 重启 重启\n\n| a | b |\n|---|---|\n| alpha | alpha |")
    chunks = chunk_markdown(source, max_tokens=32, overlap_tokens=4)
    assert [c.text for c in chunks] == [
        "# alpha\n\n## alpha\n\n## alpha\n\n## alpha alpha alpha alpha",
        "## alpha alpha 重启 重启\n\n| a | b |\n|---|---|\n| alpha | alpha |",
    ]
    from mdchunk.formats import parse_markdown
    from tests.audit import headings_only

    assert headings_only(parse_markdown(source).blocks, [(c.start, c.end) for c in chunks]) == []
