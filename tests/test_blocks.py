"""Blocks, drafts and chunks are frozen dataclasses built field by field; the readers' tiling of
blocks is what it was written to be."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.chunks.chunk import Chunk
from mdchunk.formats.blocks import Block, tile
from mdchunk.plan.drafts import Draft

from .test_grammar import profile


def test_a_chunk_is_built_as_the_dataclass_would() -> None:
    """Each argument lands in its own field, ``metadata`` left out is a new dict each time, and
    the chunk stays frozen."""
    values = ["x", "a.md", 3, 3, None, "text", 0, 4, 1, 1, ["H"], "H", "H\n\ntext", 5,
              ["paragraph"], {"k": 1}, True, "h", "u#h", "T"]
    chunk = Chunk(*values)
    assert [getattr(chunk, f.name) for f in fields(Chunk)] == values
    bare = Chunk(*values[:15])
    assert bare.metadata == {} and bare.metadata is not Chunk(*values[:15]).metadata
    assert (bare.oversized, bare.anchor, bare.url, bare.title) == (False, None, None, None)
    assert replace(chunk, index=4).index == 4 and replace(chunk, index=4).metadata == {"k": 1}
    with pytest.raises(FrozenInstanceError):
        chunk.text = "other"  # type: ignore[misc]


def test_a_draft_is_built_and_copied_as_the_dataclass_would() -> None:
    """Each argument lands in its own field, ``replace`` goes through the constructor, and the
    draft stays frozen."""
    path = (Block("heading", 0, 4, level=1, title="T"),)
    draft = Draft(0, 9, path, "```", ("heading", "code"), "T\n\nbody", 7, True, 3)
    assert [getattr(draft, f.name) for f in fields(Draft)] == [
        0, 9, path, "```", ("heading", "code"), "T\n\nbody", 7, True, 3]
    assert replace(draft, token_count=8) == Draft(0, 9, path, "```", ("heading", "code"),
                                                  "T\n\nbody", 8, True, 3)
    with pytest.raises(FrozenInstanceError):
        draft.start = 1  # type: ignore[misc]


def test_a_block_is_still_frozen() -> None:
    block = Block("paragraph", 0, 3)
    try:
        block.start = 1  # type: ignore[misc]
    except AttributeError:
        return
    raise AssertionError("a Block's field could be set")


def _tile_as_it_was(source: str, blocks: list[Block], start: int, end: int) -> list[Block]:
    """:func:`tile` as written before issue 32 made it faster: the reference it must equal."""
    out: list[Block] = []
    for i, block in enumerate(blocks):
        tiled = block
        if i == 0:
            begin = min(start, block.start)
            while begin < block.start and source[begin].isspace():
                begin += 1
            tiled = replace(block, start=begin)
        next_start = blocks[i + 1].start if i + 1 < len(blocks) else end
        if source[block.end:next_start].strip():
            stop = next_start
            while stop > block.end and source[stop - 1].isspace():
                stop -= 1
            tiled = replace(tiled, end=stop)
        out.append(tiled)
    return out


@profile(300)
@given(data=st.data(), source=st.text(st.sampled_from(" \n\t\r\u3000\xa0ab>"), max_size=40))
def test_tile_is_what_it_was(data: st.DataObject, source: str) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(source)), max_size=8)))
    blocks = [Block("paragraph", a, b) for a, b in zip(cuts[::2], cuts[1::2])]
    start = data.draw(st.integers(0, blocks[0].start if blocks else len(source)))
    end = data.draw(st.integers(blocks[-1].end if blocks else start, len(source)))
    assert tile(source, blocks, start, end) == _tile_as_it_was(source, blocks, start, end)
