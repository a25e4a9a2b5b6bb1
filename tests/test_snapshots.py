"""Snapshots of every fixture's chunks: any change in chunking shows up as a reviewed diff.

Update deliberately with ``pytest tests/test_snapshots.py --snapshot-update`` and read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

import mdchunk

from .conftest import fixture_files

FIXTURES = fixture_files(".md", ".txt")


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_chunks(path: Path, snapshot_json) -> None:
    chunks = mdchunk.chunk_file(path, doc_id=path.name, max_tokens=256, overlap_tokens=32)
    assert [c.to_dict() for c in chunks] == snapshot_json
