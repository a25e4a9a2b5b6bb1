"""Where a seam's run of quote markers and blanks starts (``_LineMarkers.back_over``): its
shortcut for a short run after text answers as the walk from the line's start does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mdchunk.formats.blocks import line_start
from mdchunk.plan.pieces import _LineMarkers

from .test_grammar import profile

_TEXT = st.lists(st.sampled_from([" ", "\t", ">", "> ", "\n", "\r\n", "\r", "a", "word", "<tr>",
                                  "-", "1.", " " * 20, ">" * 18, "服务"]),
                 min_size=1, max_size=40).map("".join)


def _walked(source: str, at: int) -> tuple[int, bool]:
    """The run that ends at ``at``, found from its line's start: markers and blanks leading
    the line, or the run after the line's last text before ``at``."""
    line = max(source.rfind("\n", 0, at), source.rfind("\r", 0, at)) + 1
    lead = line
    while lead < len(source) and source[lead] in " \t>":
        lead += 1
    start = at
    while start > max(line, min(lead, at)) and source[start - 1] in " \t>":
        start -= 1
    if at <= lead:
        start = line
    return start, ">" in source[start:at]


@profile(400)
@given(source=_TEXT, data=st.data())
def test_a_run_of_markers_starts_where_the_walk_from_its_line_finds_it(source: str,
                                                                        data: st.DataObject
                                                                        ) -> None:
    markers = _LineMarkers(source)
    for at in data.draw(st.lists(st.integers(0, len(source)), min_size=1, max_size=8)):
        assert markers.back_over(at) == _walked(source, at), at


_LONG_LINES = st.lists(st.sampled_from(["\n", "\r\n", "\r", "a", "服务", "> " * 150, "x" * 1100,
                                        ">" * 5000]),
                       min_size=1, max_size=12).map("".join)


@profile(300)
@given(source=_LONG_LINES, data=st.data())
def test_a_line_starts_after_the_last_break_before_it_however_far(source: str,
                                                                 data: st.DataObject) -> None:
    """``line_start`` widens its window until a break or the source's start is inside it: the
    same answer as one search back to the start, on lines longer than each window it tries."""
    for at in data.draw(st.lists(st.integers(0, len(source)), min_size=1, max_size=8)):
        assert line_start(source, at) == max(source.rfind("\n", 0, at),
                                             source.rfind("\r", 0, at)) + 1, at


def test_seams_of_a_deep_quote_with_lone_cr_lines_find_their_lines() -> None:
    """A quote nested a thousand deep, lone-CR lines: each seam's run of markers is its line's
    (the search for a ``\\n`` that such a page lacks once ran back to its start for every
    seam: quadratic, 2.8 for twice the size)."""
    line = "> " * 1000 + "x\r"
    source = line * 5
    markers = _LineMarkers(source)
    for row in range(5):
        at = row * len(line) + 1500
        assert markers.back_over(at) == (row * len(line), True)
