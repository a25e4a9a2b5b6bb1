"""A hunt for pages with ``:::`` containers in list items, or lines led by colons in a fence,
that the fast reader reads otherwise than markdown-it-py: many thousands of generated pages
(the property tests' generators), each read by both on every site, with LF and CRLF line
breaks (:func:`.hunt_footnotes.hunt`); prints how many were read fast and stops at the first
that differs.

    PYTHONPATH=$PWD python -m tests.hunt_listed_containers 100000 [listed|fenced]
"""

from __future__ import annotations

import sys

from mdchunk.formats.colon_containers import container_lines, listed_containers
from mdchunk.formats.sites.generators import SITES

from .hunt_footnotes import hunt
from .test_markdown_rs import _fenced_marker_pages, _listed_container_pages

#: The pages each hunt draws.
_PAGES = {"listed": _listed_container_pages, "fenced": _fenced_marker_pages}


def _held(page: str) -> str:
    """What a page read fast holds: a container in a list item, colons in a fence, both, or
    neither."""
    lines = page.replace("\r\n", "\n").split("\n")
    found = container_lines(lines)
    listed = bool(found and listed_containers(lines, found.pairs)[1])
    fenced = bool(found and found.fenced)
    return {(True, True): "both", (True, False): "in an item",
            (False, True): "in a fence"}.get((listed, fenced), "neither")


if __name__ == "__main__":
    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    kind = sys.argv[2] if len(sys.argv) > 2 else "listed"
    found = hunt(pages, _PAGES[kind](), ("\n", "\r\n"), _held)
    print(f"{found['pages']} {kind} pages x {len(SITES)} sites x LF/CRLF: {found['read fast']} "
          f"read fast and alike (a container in a list item: {found['in an item']}, colons in a "
          f"fence: {found['in a fence']}, both: {found['both']}), {found['refused']} left to "
          f"markdown-it-py, none read otherwise")
