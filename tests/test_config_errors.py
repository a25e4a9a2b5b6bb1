"""A bad chunker config is refused with the value and the reason."""

from __future__ import annotations

import pytest

from mdchunk import chunk_markdown


@pytest.mark.parametrize("kwargs,message", [
    ({"max_tokens": 8}, "max_tokens=8 is too small"),
    ({"overlap_tokens": -1}, "overlap_tokens=-1 must not be negative"),
    ({"max_tokens": 64, "overlap_tokens": 64}, "overlap_tokens=64 must be smaller than max_tokens=64"),
    ({"oversized": "shrink"}, "oversized='shrink'"),
])
def test_bad_config_says_which_value_and_why(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        chunk_markdown("text", **kwargs)
