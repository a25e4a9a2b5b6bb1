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
