"""A hunt for pages with ``:::`` containers in list items that the fast reader reads otherwise
than markdown-it-py: many thousands of generated pages (the property test's generator), each
read by both on every site, with LF and CRLF line breaks (:func:`.hunt_footnotes.hunt`);
prints how many were read fast and stops at the first that differs.

    PYTHONPATH=$PWD python -m tests.hunt_listed_containers 100000
"""

from __future__ import annotations

import sys

from mdchunk.formats.colon_containers import container_lines, listed_containers
from mdchunk.formats.sites.generators import SITES

from .hunt_footnotes import hunt
from .test_markdown_rs import _listed_container_pages


def _listed(page: str) -> str:
    """What a page read fast holds: a container in a list item, or none."""
    lines = page.replace("\r\n", "\n").split("\n")
    pairs = container_lines(lines) or []
    return "with one in an item" if listed_containers(lines, pairs)[1] else "with none in an item"


if __name__ == "__main__":
    found = hunt(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000, _listed_container_pages(),
                 ("\n", "\r\n"), _listed)
    print(f"{found['pages']} pages x {len(SITES)} sites x LF/CRLF: {found['read fast']} read "
          f"fast and alike ({found['with one in an item']} with a container in a list item), "
          f"{found['refused']} left to markdown-it-py, none read otherwise")
