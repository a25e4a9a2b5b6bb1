"""Packing pauses the cyclic garbage collector and gives it back as it found it (issue 32: the
collector's walks over a huge page's pieces made nested lists superlinear)."""

from __future__ import annotations

import gc

import pytest

import mdchunk
from mdchunk.plan.collector import collector_paused
from mdchunk.plan.section_packer import SectionPacker


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_on_again_after_an_error() -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("packing failed")
    assert gc.isenabled()


def test_packing_runs_with_the_collector_paused(monkeypatch) -> None:
    states = []
    section = SectionPacker.section

    def watched(self, *args):
        states.append(gc.isenabled())
        return section(self, *args)

    monkeypatch.setattr(SectionPacker, "section", watched)
    chunks = mdchunk.chunk_markdown("# A\n\ntext " * 50, max_tokens=32, overlap_tokens=0)
    assert chunks and states and not any(states)
    assert gc.isenabled()


@pytest.mark.parametrize("entry", ["chunk", "chunk_file"])
def test_reading_runs_with_the_collector_paused(monkeypatch, tmp_path, entry: str) -> None:
    """Reading makes the page's blocks, which live as long as its chunks: the collector rests
    while the page is read too, by either entry point, and is on again after."""
    from mdchunk.chunks import reading

    states = []
    parse = reading.parse_markdown

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        states.append(gc.isenabled())
        return parse(*args, **kwargs)

    monkeypatch.setattr(reading, "parse_markdown", watched)
    chunker = mdchunk.Chunker(mdchunk.ChunkerConfig(max_tokens=32, overlap_tokens=0))
    text = "# A\n\ntext " * 50
    if entry == "chunk":
        chunks = chunker.chunk(text)
    else:
        page = tmp_path / "page.md"
        page.write_text(text, encoding="utf-8")
        chunks = chunker.chunk_file(page)
    assert chunks and states and not any(states)
    assert gc.isenabled()
