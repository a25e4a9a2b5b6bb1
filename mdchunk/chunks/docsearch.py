"""DocSearch records: one search record per chunk, in the shape documentation-site search
indexes take (Algolia DocSearch, and the Typesense and Meilisearch scrapers derived from its
scraper).

A DocSearch scraper reads rendered pages: ``lvl0`` is the page's category (Docusaurus' config
takes the active sidebar category, else ``"Documentation"``), ``lvl1`` the page's ``h1``,
``lvl2`` to ``lvl6`` the headings below it, ``content`` a paragraph; a heading is a record of
its own (``type`` ``lvlN``, no content) and text is a ``content`` record. mdchunk's records
come from chunks instead, so:

- ``hierarchy.lvl0`` is the ``lvl0`` argument (default ``"Documentation"``); ``lvl1`` …
  ``lvl6`` are the chunk's ``headings`` outermost first — the page title (front matter, or the
  ``#`` heading) is ``lvl1``, as the ``h1`` is on the page; a page without either starts at its
  outermost heading. Levels are by depth, not by ``#`` count, and unused levels are ``None``;
  headings past ``lvl6`` (only possible in unusual nesting) are joined into ``lvl6``.
- ``type`` is ``content`` for a chunk with any text besides headings, else ``lvlN`` for its
  deepest level (a chunk of headings alone, which guarantee 3 allows only when the budget
  forces it); ``content`` is the chunk's verbatim ``text`` for ``content`` records, ``None``
  for ``lvlN`` records.
- ``url`` is the chunk's ``url`` (``None`` without a ``base_url``), ``url_without_anchor`` the
  page URL, ``anchor`` the chunk's anchor, ``objectID`` its stable ``id``.
- ``hierarchy_radio`` holds, as DocSearch's scraper fills it, only the deepest level of a
  ``lvlN`` record (all ``None`` for ``content``); ``weight`` is the scraper's ``level``
  (``content`` 0, ``lvl0`` 100, ``lvl1`` 90 …), ``page_rank`` 0 and ``position`` the chunk's
  index on its page.

Algolia takes the nested shape (``separator=None``). Typesense's scraper writes the nested
keys flattened with dots (``separator="."``: ``"hierarchy.lvl0"``), Meilisearch's with
underscores (``separator="_"``: ``"hierarchy_lvl0"``).
"""

from __future__ import annotations

from typing import Any

from .chunk import Chunk

__all__ = ["LEVELS", "docsearch_record"]

#: DocSearch's hierarchy levels: lvl0 (category) to lvl6.
LEVELS = tuple(f"lvl{n}" for n in range(7))
_HEADING_KINDS = frozenset({"heading", "question"})


def docsearch_record(chunk: Chunk, *, lvl0: str | None = "Documentation",
                     separator: str | None = None) -> dict[str, Any]:
    """One DocSearch record for ``chunk`` (see the module docstring for the mapping).

    >>> from mdchunk import chunk_markdown
    >>> (chunk,) = chunk_markdown("---\\ntitle: Upgrades\\n---\\n\\n## Drain\\n\\nDrain it.\\n",
    ...                           doc_id="ops/upgrades.md", base_url="https://example.com",
    ...                           site="mkdocs")
    >>> record = docsearch_record(chunk)
    >>> record["hierarchy"]["lvl1"], record["hierarchy"]["lvl2"], record["type"], record["url"]
    ('Upgrades', 'Drain', 'content', 'https://example.com/ops/upgrades/#drain')
    """
    headings = list(chunk.headings)
    if len(headings) > len(LEVELS) - 1:
        headings[len(LEVELS) - 2:] = [" > ".join(headings[len(LEVELS) - 2:])]
    hierarchy: dict[str, str | None] = dict.fromkeys(LEVELS)
    hierarchy["lvl0"] = lvl0
    for depth, title in enumerate(headings, start=1):
        hierarchy[f"lvl{depth}"] = title
    is_content = not set(chunk.kinds) <= _HEADING_KINDS or not headings
    record_type = "content" if is_content else f"lvl{len(headings)}"
    radio: dict[str, str | None] = dict.fromkeys(LEVELS)
    if not is_content:
        radio[record_type] = hierarchy[record_type]
    url = chunk.url
    record: dict[str, Any] = {
        "objectID": chunk.id,
        "url": url,
        "url_without_anchor": url.split("#", 1)[0] if url is not None else None,
        "anchor": chunk.anchor,
        "content": chunk.text if is_content else None,
        "type": record_type,
        "hierarchy": hierarchy,
        "hierarchy_radio": radio,
        "weight": {"page_rank": 0, "level": 0 if is_content else 100 - 10 * len(headings),
                   "position": chunk.index},
    }
    return record if separator is None else _flattened(record, separator)


def _flattened(record: dict[str, Any], separator: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update({f"{key}{separator}{inner}": v for inner, v in value.items()})
        else:
            out[key] = value
    return out
