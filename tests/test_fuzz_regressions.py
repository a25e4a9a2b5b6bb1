"""Inputs the coverage-guided fuzzer (``bench/fuzz_chunk.py``, ``make fuzz``) found failing,
replayed through the fuzz target's own checks: every guarantee holds for each of them now.

Each file under ``tests/data/fuzz/`` is one raw fuzz input: 4 header bytes (entry point,
budget, overlap; see ``decode_header``) and the document. The names say what went wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import bench_module

ROOT = Path(__file__).resolve().parent.parent
INPUTS = sorted((ROOT / "tests" / "data" / "fuzz").glob("*.bin"))
FUZZ = bench_module("fuzz_chunk")


def test_every_regression_input_is_replayed() -> None:
    """The folder holds the fuzzer's failing inputs, and each is a ``.bin`` the test below
    replays (an empty list would make it pass by running nothing)."""
    folder = ROOT / "tests" / "data" / "fuzz"
    assert INPUTS, "tests/data/fuzz/ holds the fuzzer's failing inputs"
    assert sorted(folder.iterdir()) == INPUTS, "a file the glob does not replay"


@pytest.mark.parametrize("path", INPUTS, ids=[p.stem for p in INPUTS])
def test_fuzz_input_keeps_every_guarantee(path: Path) -> None:
    FUZZ.check(path.read_bytes())


def test_header_decoding_stays_in_range() -> None:
    for head in (b"", b"\xff\xff\xff\xff", b"\x00\x80\x00\x01", b"\x03\x7f\xff\xfe"):
        entry, max_tokens, overlap, _ = FUZZ.decode_header(head + b"# T\n\ntext\n")
        assert entry in FUZZ.ENTRY_POINTS
        assert 16 <= max_tokens <= 2048 and 0 <= overlap < max_tokens
