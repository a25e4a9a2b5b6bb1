"""Guarantee 6 and the hierarchy's shape, as properties over fixtures, corpora and generated
documents at several level sets; one fixture's tree as a snapshot.

Level 1 tiles the source exactly; every chunk lies inside its parent, one level up; a parent
that fits the finer budget is its own only child; every level keeps the leaves' guarantees
under its own budget (the audit re-derives structure from the source, as for flat chunks).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from syrupy.extensions.json import JSONSnapshotExtension

import mdchunk
from mdchunk.formats import parse_markdown
from mdchunk.formats.registry import format_for
from mdchunk.text import document_text
from tests.audit import as_read, audit_markdown

from .conftest import CORPORA, corpus_files, embedded_text, fixture_files, with_corpus
from .test_guarantees import _document

LEVEL_SETS = [(2048, 512, 128), (512, 128, 32), (256, 64), (96,), (1024, 256, 64, 16)]
FIXTURES = fixture_files(".md", ".txt")
CORPUS_MARKDOWN = with_corpus(corpus_files(), CORPORA)


def _ids(paths: list) -> list[str]:
    return [getattr(p, "name", "absent") for p in paths]


def _overlap(levels: tuple[int, ...]) -> int:
    return min(32, levels[-1] // 4)


def assert_hierarchy(source: str, chunks: list[mdchunk.Chunk], levels: tuple[int, ...],
                     counter, markdown: bool = True, site: str = "plain") -> None:
    """Every structural promise of ``chunk_hierarchy`` for one document (chunked for
    ``site``)."""
    depth = len(levels)
    by_id = {c.id: c for c in chunks}
    assert len(by_id) == len(chunks), "ids are unique"
    by_level: dict[int, list[mdchunk.Chunk]] = defaultdict(list)
    for c in chunks:
        by_level[c.level].append(c)
    assert [c.level for c in chunks] == sorted(c.level for c in chunks), "coarsest level first"
    front_matter_alone = all(c.kinds == ["front_matter"] for c in by_level[1])
    assert set(by_level) == (set(range(1, depth + 1)) if not front_matter_alone else {1}), \
        "every level, but below a page of front matter alone (nothing to embed)"
    front = parse_markdown(source, site).front_matter_block if markdown else None
    yaml = source[front.start:front.end].strip("-\r\n \t") if front is not None else ""
    if len(yaml) > 8:
        assert not [c.level for c in chunks if yaml in c.embed_text], "front matter embedded"

    top = by_level[1]
    assert "".join(c.text for c in top) == source, "guarantee 6: level 1 tiles the source"
    assert all(c.parent_id is None for c in top)

    children: dict[str, list[mdchunk.Chunk]] = defaultdict(list)
    for level, group in by_level.items():
        assert [c.index for c in group] == list(range(len(group)))
        assert [c.start for c in group] == sorted(c.start for c in group)
        for c in group:
            assert c.text == source[c.start:c.end]
            assert c.embed_text.endswith(embedded_text(source, c, site))
            assert c.token_count == counter.count(c.embed_text)
            assert c.token_count <= levels[level - 1], "guarantee 1 at every level"
            if level > 1:
                parent = by_id[c.parent_id]
                assert parent.level == level - 1
                assert parent.start <= c.start and c.end <= parent.end, "guarantee 6: inside"
                children[parent.id].append(c)

    for level in range(1, depth):
        for parent in by_level[level]:
            kids = children[parent.id]
            # front matter and what no page shows beside it: nothing to embed below it
            blind = parent.kinds == ["front_matter"] and not (
                embedded_text(source, parent, site).strip() if markdown else True)
            if parent.text.strip() and not blind:
                assert kids, "a parent with text has children"
            if counter.count(parent.embed_text) <= levels[level] and not blind:
                assert [(k.start, k.end) for k in kids] == [(parent.start, parent.end)], \
                    "a parent that fits the finer budget is its own only child"
            for prev, nxt in zip(kids, kids[1:]):  # overlap stays among siblings
                assert prev.start <= nxt.start and prev.end <= nxt.end

    if markdown:  # each level keeps guarantees 1-4 under its own budget
        for level, group in by_level.items():
            read, spans = as_read(source, [(c.start, c.end) for c in group])
            report = audit_markdown(read, spans, [c.token_count for c in group], counter,
                                    levels[level - 1], tiled=level == 1, site=site)
            assert report.over_budget == [] and report.cut == [], (level, report.cut)
            assert report.uncovered == [] and report.shared_top == []
            if levels[level - 1] >= 48:  # below, a heading and its breadcrumb may fill a chunk:
                assert report.headings_only == []  # the budget wins, as for flat chunks


def check_file(path: Path, levels: tuple[int, ...], counter) -> None:
    source = document_text(path)
    chunks = mdchunk.chunk_file(path, doc_id=path.name, levels=levels,
                                overlap_tokens=_overlap(levels))
    markdown = format_for(path.suffix, source) == "markdown"
    assert_hierarchy(source, chunks, levels, counter, markdown=markdown)


@pytest.mark.parametrize("levels", LEVEL_SETS, ids=str)
@pytest.mark.parametrize("path", FIXTURES, ids=_ids(FIXTURES))
def test_hierarchy_on_the_fixtures(path: Path, levels: tuple[int, ...], counter) -> None:
    check_file(path, levels, counter)


@pytest.mark.parametrize("levels", LEVEL_SETS[:3], ids=str)
@pytest.mark.parametrize("path", CORPUS_MARKDOWN, ids=_ids(CORPUS_MARKDOWN))
def test_hierarchy_on_the_runbook_corpora(path: Path, levels: tuple[int, ...], counter) -> None:
    check_file(path, levels, counter)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=_document, levels=st.sampled_from([(256, 64, 16), (160, 48), (64, 24), (48,)]),
       newline=st.sampled_from(["\n", "\r\n"]),
       front=st.sampled_from(["", "---\ntitle: Generated\ntags: [a, b]\n---\n\n"]),
       blank=st.sampled_from(["", "\n\n  \n"]))
def test_hierarchy_on_generated_documents(source: str, levels: tuple[int, ...], newline: str,
                                          front: str, blank: str, counter) -> None:
    source = (front + blank + source + blank).replace("\n", newline)
    chunks = mdchunk.chunk_hierarchy(source, levels=levels, overlap_tokens=_overlap(levels))
    assert_hierarchy(source, chunks, levels, counter)


def test_front_matter_opens_level_one_and_goes_to_every_chunk_metadata() -> None:
    source = ("---\ntitle: Disk full\nowner: storage\n---\n\n# Disk full\n\n"
              + "Free space on the volume. " * 60 + "\n\n## Clean up\n\n"
              + "Remove old snapshots first. " * 60 + "\n")
    chunks = mdchunk.chunk_hierarchy(source, levels=(512, 128, 48), overlap_tokens=8)
    first = chunks[0]
    assert first.level == 1 and first.start == 0 and first.text.startswith("---\ntitle:")
    assert "front_matter" in first.kinds
    leaves = [c for c in chunks if c.level == 3]
    assert len(leaves) > 2 and all("---" not in c.text for c in leaves), \
        "front matter goes to metadata, not into leaves that are cut finer"
    assert all(c.metadata == {"title": "Disk full", "owner": "storage"} for c in chunks)


def test_a_table_cut_by_a_parent_repeats_its_header_in_the_next_parents_leaves() -> None:
    rows = "\n".join(f"| host-{i:03d} | {i * 7 % 100}% | rack {i % 9} |" for i in range(120))
    source = f"# Hosts\n\n| host | disk | rack |\n|---|---|---|\n{rows}\n"
    chunks = mdchunk.chunk_hierarchy(source, levels=(600, 200, 64), overlap_tokens=0)
    later = [c for c in chunks if c.level > 1 and c.start > source.index("host-050")]
    assert later and all("| host | disk | rack |" in c.embed_text for c in later)
    assert all("| host | disk | rack |" not in c.text for c in later)


def test_code_cut_by_a_parent_reopens_its_fence_in_the_next_parents_leaves() -> None:
    lines = "\n".join(f"echo step {i} && kubectl get pods -n ns-{i}" for i in range(150))
    source = f"# Script\n\n```bash\n{lines}\n```\n"
    chunks = mdchunk.chunk_hierarchy(source, levels=(700, 150, 40), overlap_tokens=0)
    later = [c for c in chunks if c.level > 1 and c.start > source.index("step 60 ")]
    assert later and all(c.embed_text.count("```bash") == 1 for c in later)


def test_one_level_is_leaves_that_tile() -> None:
    source = "# A\n\nalpha beta.\n\n\n## B\n\ngamma delta.\n"
    chunks = mdchunk.chunk_hierarchy(source, levels=(64,), overlap_tokens=0)
    assert [c.level for c in chunks] == [1] and chunks[0].text == source


def test_every_reader_builds_a_hierarchy_through_chunk_file(tmp_path: Path, counter) -> None:
    qa = tmp_path / "faq.txt"
    qa.write_text("".join(f"question: How do I rotate key {i}?\nanswer: "
                          + "Run the rotation job and wait for the pods to restart. " * 12
                          + "\n\n" for i in range(6)), encoding="utf-8")
    text = tmp_path / "notes.txt"
    text.write_text("INSTALLATION\n\n" + "Unpack the archive into /opt. " * 80 + "\n",
                    encoding="utf-8")
    for path in (qa, text):
        chunks = mdchunk.chunk_file(path, levels=(256, 64), overlap_tokens=8)
        assert_hierarchy(path.read_text(encoding="utf-8"), chunks, (256, 64), counter,
                         markdown=False)
        assert {c.level for c in chunks} == {1, 2}
    qa_top = [c for c in mdchunk.chunk_file(qa, levels=(256, 64), overlap_tokens=8)
              if c.level == 1]
    assert all(c.text.count("question:") == 1 for c in qa_top), "pairs never share a parent"


def test_the_chunker_method_and_config_levels_agree() -> None:
    source = document_text(fixture_files(".md")[0])
    config = mdchunk.ChunkerConfig(levels=(512, 128), overlap_tokens=16)
    by_config = mdchunk.Chunker(config).chunk_hierarchy(source, doc_id="a.md")
    by_argument = mdchunk.chunk_hierarchy(source, levels=(512, 128), overlap_tokens=16,
                                          doc_id="a.md")
    assert [c.to_dict() for c in by_config] == [c.to_dict() for c in by_argument]
    flat = mdchunk.Chunker(mdchunk.ChunkerConfig(max_tokens=128, overlap_tokens=16))
    assert {c.id for c in flat.chunk(source, "a.md")}.isdisjoint(c.id for c in by_config), \
        "a leaf of a hierarchy is not the flat chunk of the same span: ids say so"


@pytest.mark.parametrize("levels,needle", [
    ((), "1 to 4"),
    ((2048, 1024, 512, 256, 128), "1 to 4"),
    ((512, 512), "decrease strictly"),
    ((128, 512), "decrease strictly"),
    ((512, 8), "at least 16"),
    ((512, 128.5), "128.5"),
    ("512", "sequence"),
    ((512, 64), "overlap_tokens=64"),
])
def test_bad_levels_are_refused_naming_the_value(levels, needle: str) -> None:
    with pytest.raises(mdchunk.ConfigError, match="levels|overlap") as err:
        mdchunk.chunk_hierarchy("# T\n\ntext\n", levels=levels, overlap_tokens=64)
    assert needle in str(err.value)


def test_a_blank_document_has_no_chunks() -> None:
    assert mdchunk.chunk_hierarchy("  \n\n") == []


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


def test_one_fixtures_tree(snapshot_json) -> None:
    """The tree of one fixture with front matter, sections and a long table, at small budgets
    so that every level splits: read the diff when it changes."""
    path = Path(__file__).parent.parent / "fixtures" / "service-page-front-matter.md"
    chunks = mdchunk.chunk_file(path, doc_id=path.name, levels=(384, 128, 48),
                                overlap_tokens=8)
    assert [c.to_dict() for c in chunks] == snapshot_json


def test_a_parent_of_empty_sections_headings_is_cut_under_the_finer_budget(counter) -> None:
    """Found by hypothesis: a coarser chunk made only of empty sections' headings (they stand
    alone when nothing fits with them) was one child over the finer budget."""
    source = "# alpha\n\n" * 21 + "alpha."
    chunks = mdchunk.chunk_hierarchy(source, levels=(256, 64, 16), overlap_tokens=4)
    assert_hierarchy(source, chunks, (256, 64, 16), counter)
