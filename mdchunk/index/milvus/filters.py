"""Milvus filter expressions: a search's store-neutral filter (:data:`~mdchunk.index.store.Filter`)
translated, and the lookups the store makes by field.

Every value reaches an expression as a quoted string literal (:func:`quote`), never pasted
into it, so a quote or a backslash in a path or an id is a character, not syntax. Field names
are the store's own constants.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from ..store import Filter, PathPrefix

__all__ = ["equals", "expression", "one_of", "path_prefix", "quote"]


def quote(value: str) -> str:
    """A Milvus filter string literal for ``value``.

    >>> print(quote('a"b\\\\c'))
    "a\\"b\\\\c"
    """
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def equals(field: str, value: str) -> str:
    """Rows whose ``field`` is ``value``."""
    return f"{field} == {quote(value)}"


def one_of(field: str, values: Iterable[str]) -> str:
    """Rows whose ``field`` is one of ``values``."""
    return f"{field} in [{', '.join(quote(v) for v in values)}]"


def expression(where: Filter | None) -> str:
    """The Milvus expression for a search's filter (``""``: every row)."""
    if where is None:
        return ""
    if isinstance(where, PathPrefix):
        return path_prefix(where.prefix)
    assert_never(where)


def path_prefix(prefix: str) -> str:
    """Rows whose ``doc_id`` or ``path`` starts with ``prefix``, metacharacters and all.

    Both fields, because ``doc_id`` is relative to the indexed root (``runbooks/db.md``) and
    ``path`` is the file as it was named when indexed (``kb/runbooks/db.md``). A lexicographic
    range rather than ``like "prefix%"``: Milvus Lite ignores escapes in LIKE patterns, so ``_``
    (common in file names) would match any character there. UTF-8 byte order is code point
    order, so the range means the same on a server.

    >>> path_prefix("docs/")
    '(doc_id >= "docs/" and doc_id < "docs0") or (path >= "docs/" and path < "docs0")'
    """
    if not prefix:
        return ""
    successor = ord(prefix[-1]) + 1
    if 0xD800 <= successor <= 0xDFFF:  # no surrogates in UTF-8: skip to the next scalar value
        successor = 0xE000
    low, high = quote(prefix), quote(prefix[:-1] + chr(successor))
    return " or ".join(f"({f} >= {low} and {f} < {high})" for f in ("doc_id", "path"))
