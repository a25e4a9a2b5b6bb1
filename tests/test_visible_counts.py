"""Counting what ``embed_text`` shows of a span with hidden markup from the span counts
(``mdchunk.plan.visible.count_visible``): the same count as encoding the text whole, for any span
of pages full of comments, heading ids and site-generator markup."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mdchunk.formats import parse_markdown
from mdchunk.plan.visible import clipped, count_visible, visible_text
from mdchunk.tokens import SpanCounts, get_counter

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

_PAGE = """---
title: Pods
---

# Pods {#pods}

Intro line <!-- an aside --> goes on.
Second line of the intro.

<!--
A comment block.
-->


- item one <!-- hidden in an item -->
- item two
  > quote <!-- in a quote -->
  > more


## Run it {#run}

{{< new-in 0.149.0 />}}
: Definition text that goes on.

```sh
echo {{< param version >}}
```

<!-- last --> Trailing text.
"""


def _pages() -> list[tuple[str, str]]:
    pages = [(_PAGE, "hugo"), (_PAGE.replace("\n", "\r\n"), "hugo")]
    for name, site in (("hugo-shortcodes-pods.md", "hugo"), ("hugo-callouts-drain.md", "hugo"),
                       ("docusaurus-tabs-install.mdx", "docusaurus")):
        pages.append(((FIXTURES / name).read_text(encoding="utf-8"), site))
    return pages


@pytest.mark.parametrize("page, site", _pages())
def test_count_visible_is_the_count_of_the_text_it_shows(page: str, site: str) -> None:
    counter = get_counter("cl100k_base")
    doc = parse_markdown(page, site=site)
    hidden = doc.hidden(True)
    assert hidden, "the page has markup to hide"
    counts = SpanCounts(doc.source, counter, long_block=8)
    counts.use_blocks(doc.blocks)
    starts = sorted({0, len(doc.source), *(b.start for b in doc.blocks),
                     *(b.end for b in doc.blocks), *(a for a, _, _ in hidden),
                     *(b for _, b, _ in hidden)})
    rng = random.Random(32)
    spans = [(a, b) for a in starts for b in starts if a < b]
    spans += [tuple(sorted(rng.sample(range(len(doc.source) + 1), 2))) for _ in range(200)]
    checked = 0
    for start, end in spans:
        rewrites = clipped(hidden, start, end)
        if not rewrites:
            continue
        text, tokens = count_visible(counts, start, end, rewrites)
        assert text == visible_text(doc.source, start, end, rewrites)
        assert tokens == counter.count(text), (start, end, text)
        checked += 1
    assert checked > 20
