"""One reading path (issue 30): ``mdchunk inspect``, ``chunk --stats`` and the chunker read a
document the same way — decoded, cleaned, read by the reader its format calls for, with the
config's ``site``, generator markup and includes — so the blocks ``inspect`` flags are the
blocks the chunks were cut from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import mdchunk
from mdchunk import ConfigError
from mdchunk.chunks import chunker as chunker_module
from mdchunk.chunks.read import read, read_file
from mdchunk.chunks.reading import Reading
from mdchunk.cli import app
from mdchunk.cli import render as render_module
from mdchunk.cli.anatomy import split_blocks
from mdchunk.cli.views import Inspection
from mdchunk.formats import format_for, parse_markdown, parse_plain_text, parse_qa
from mdchunk.formats.registry import reader_for
from mdchunk.text import document_text

from .conftest import FIXTURES

runner = CliRunner()
SITES = ("plain", "docusaurus", "mkdocs", "hugo")
INCLUDES = FIXTURES / "includes" / "examples"
DOCUMENTS = sorted(p for p in FIXTURES.iterdir() if p.is_file())


def _inspected(path: Path, site: str, monkeypatch: pytest.MonkeyPatch) -> Inspection:
    """What ``mdchunk inspect`` shows of ``path``, taken where it is printed."""
    shown: list[Inspection] = []
    monkeypatch.setattr(render_module, "print_inspection", lambda console, view: shown.append(view))
    result = runner.invoke(app, ["inspect", str(path), "--max-tokens", "128", "--overlap", "16",
                                 "--site", site, "--includes", str(INCLUDES)])
    assert result.exit_code == 0, result.output
    (view,) = shown
    return view


def _chunked(path: Path, site: str, monkeypatch: pytest.MonkeyPatch
             ) -> tuple[Reading | None, list[mdchunk.Chunk]]:
    """``mdchunk.chunk_file``'s chunks of ``path``, and the document the chunker read."""
    readings: list[Reading | None] = []
    real = chunker_module.read_file

    def spy(*args: Any, **kwargs: Any) -> Reading | None:
        readings.append(real(*args, **kwargs))
        return readings[-1]

    with monkeypatch.context() as patch:
        patch.setattr(chunker_module, "read_file", spy)
        chunks = mdchunk.chunk_file(path, max_tokens=128, overlap_tokens=16, doc_id=path.name,
                                    site=site, includes=INCLUDES)
    (reading,) = readings
    return reading, chunks


@pytest.mark.parametrize("site", SITES)
def test_inspect_shows_the_blocks_the_chunker_read(site: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for path in DOCUMENTS:
        reading, chunks = _chunked(path, site, monkeypatch)
        view = _inspected(path, site, monkeypatch)
        assert view.chunks == chunks, path.name
        assert reading is not None, path.name
        assert view.blocks == reading.source_blocks(), path.name
        assert view.source == document_text(path) == reading.source, path.name
        # each block is a span of the file as inspect shows it, children inside their parent
        for block in view.blocks:
            assert 0 <= block.start <= block.end <= len(view.source), (path.name, block)
            assert all(block.start <= c.start <= c.end <= block.end for c in block.children)


def _old_blocks(path: Path, text: str) -> tuple[Any, ...]:
    """What ``inspect`` flagged before issue 30: the raw text parsed again, no site, no
    hygiene, no generator markup, no includes."""
    fmt = format_for(path.suffix, text)
    if fmt == "markdown":
        return parse_markdown(text).blocks
    if fmt == "qa":
        loose, pairs = parse_qa(text)
        return (*loose, *(b for p in pairs for b in (p.question, *p.answer)))
    return parse_plain_text(text).blocks


def test_the_chunkers_blocks_differ_from_a_plain_parse_where_site_or_hygiene_matter() -> None:
    """Why the reading path is shared: for these the site-less re-parse ``inspect`` used to
    flag differs from what the chunker cut (tabs, callouts and content tabs are single blocks
    for their site; a zero-width character moves every span after it)."""
    differing = set()
    for path in DOCUMENTS:
        for site in SITES:
            config = mdchunk.ChunkerConfig(site=site, includes=str(INCLUDES))
            reading = read_file(path, config, path.name)
            assert reading is not None
            if reading.source_blocks() != _old_blocks(path, document_text(path)):
                differing.add((path.name, site))
    assert {("docusaurus-tabs-install.mdx", "docusaurus"), ("mkdocs-content-tabs.md", "mkdocs"),
            ("hugo-callouts-drain.md", "hugo"),
            ("utf8-bom-zero-width-runbook.md", "plain")} <= differing
    assert ("mkdocs-content-tabs.md", "plain") not in differing  # content tabs are MkDocs'


def test_stats_count_the_splits_of_the_site_the_run_reads(tmp_path: Path) -> None:
    """``--stats`` reads each file as the chunker did: MkDocs content tabs cut between their
    tabs are a split ``tabs`` block under ``--site mkdocs``; on a plain site the same lines are
    indented code, and no tab group exists to split."""
    page = FIXTURES / "mkdocs-content-tabs.md"
    lines = {}
    for site in ("mkdocs", "plain"):
        result = runner.invoke(app, ["chunk", str(page), "--max-tokens", "64", "--overlap", "0",
                                     "--site", site, "--stats", "-o", str(tmp_path / "out.jsonl")])
        assert result.exit_code == 0, result.output
        (lines[site],) = [line for line in result.stdout.splitlines() if "split blocks:" in line]
    config = mdchunk.ChunkerConfig(max_tokens=64, overlap_tokens=0, site="mkdocs")
    reading, chunks = mdchunk.Chunker(config).read_and_chunk_file(page)
    assert reading is not None
    splits = split_blocks(reading.source, reading.source_blocks(), chunks)
    assert f"split blocks: {len(splits)} " in lines["mkdocs"]
    tabs = sum(s.kind == "tabs" for s in splits)
    assert tabs > 0 and f"tabs blocks {tabs}" in lines["mkdocs"]
    assert "tabs" not in lines["plain"]


def test_read_is_the_chunkers_reading_of_a_text() -> None:
    source = ("---\ntitle: Install\n---\n\n<Tabs>\n<TabItem value=\"a\" label=\"apt\">\n\n"
              "Run apt.\n\n</TabItem>\n</Tabs>\n")
    config = mdchunk.ChunkerConfig(site="docusaurus")
    reading = read(source, "a.mdx", None, config)
    assert reading is not None
    assert [b.kind for b in reading.source_blocks()] == ["tabs"]
    assert reading.metadata == {"title": "Install"}
    assert read(" \n\n", "a.md", None, config) is None
    with pytest.raises(mdchunk.InputError, match="expected str"):
        read(b"# A", "a.md", None, config)  # type: ignore[arg-type]


def test_reader_for_is_the_one_dispatch_of_a_reader_choice() -> None:
    qa = "Q: why?\nA: because.\n"
    assert reader_for("auto", "faq.txt", qa) == "qa"
    assert reader_for("auto", "notes.txt", "Notes\n\nText.\n") == "text"
    assert reader_for("auto", "page.md", qa) == "markdown"  # the extension first
    assert reader_for("auto", "", qa) == "markdown"  # no extension: Markdown
    assert reader_for("qa", "page.md", "x") == "qa"
    with pytest.raises(ConfigError, match=r"reader='xml' must be one of 'auto', 'markdown'"):
        reader_for("xml", "a.md", "x")
