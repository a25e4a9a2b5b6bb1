"""A hunt for pages with footnotes that the fast reader reads otherwise than markdown-it-py:
many thousands of generated pages (the property test's generator), each read by both on every
site; prints how many were read fast and stops at the first that differs.

    PYTHONPATH=$PWD python -m tests.hunt_footnotes 20000
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdchunk.formats.sites.generators import SITES

from .test_fast_footnotes import _footnoted_pages, assert_fast_or_refused


def hunt(pages: int, sources: st.SearchStrategy[str] | None = None,
         line_breaks: tuple[str, ...] = ("\n",), tally: Callable[[str], str] | None = None
         ) -> Counter[str]:
    """Read ``pages`` generated pages (``sources``, the footnoted pages unless told) on every
    site, with each of ``line_breaks``; a count of those read fast and refused, and of the
    pages read fast by what ``tally`` says of them."""
    counts: Counter[str] = Counter()
    drawn = st.one_of(_footnoted_pages(), _footnoted_pages(odd=True)) if sources is None \
        else sources

    @settings(max_examples=pages, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(source=drawn)
    def read(source: str) -> None:
        for line_break in line_breaks:
            page = source.replace("\n", line_break)
            for site in SITES:
                fast = assert_fast_or_refused(page, site)
                counts["read fast" if fast else "refused"] += 1
                if fast and tally:
                    counts[tally(page)] += 1
        counts["pages"] += 1

    read()
    return counts


if __name__ == "__main__":
    found = hunt(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
    print(f"{found['pages']} pages x {len(SITES)} sites: {found['read fast']} read fast "
          f"and alike, {found['refused']} left to markdown-it-py, none read otherwise")
