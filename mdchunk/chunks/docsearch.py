"""DocSearch records: one search record per chunk, in the shape documentation-site search
indexes take (Algolia DocSearch, and the Typesense and Meilisearch scrapers derived from it).
The fields, how each is filled from a chunk and the separators: docs/sites.md, "DocSearch
records"."""

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
