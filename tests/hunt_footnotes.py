"""A hunt for pages with footnotes that the fast reader reads otherwise than markdown-it-py:
many thousands of generated pages (the property test's generator), each read by both on every
site; prints how many were read fast and stops at the first that differs.

    PYTHONPATH=$PWD python -m tests.hunt_footnotes 20000
"""

from __future__ import annotations

import sys
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdchunk.formats.sites.generators import SITES

from .test_fast_footnotes import _footnoted_pages, assert_fast_or_refused


def hunt(pages: int) -> Counter[str]:
    """Read ``pages`` generated pages on every site; a count of those read fast and refused."""
    counts: Counter[str] = Counter()

    @settings(max_examples=pages, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(source=st.one_of(_footnoted_pages(), _footnoted_pages(odd=True)))
    def read(source: str) -> None:
        for site in SITES:
            counts["read fast" if assert_fast_or_refused(source, site) else "refused"] += 1
        counts["pages"] += 1

    read()
    return counts


if __name__ == "__main__":
    found = hunt(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
    print(f"{found['pages']} pages x {len(SITES)} sites: {found['read fast']} read fast "
          f"and alike, {found['refused']} left to markdown-it-py, none read otherwise")
