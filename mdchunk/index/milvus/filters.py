"""Milvus filter expressions: a search's store-neutral filter translated, and the lookups the store
makes by field. Every value reaches an expression as a literal (:func:`quote`, :func:`literal`),
never pasted in, so a quote or a keyword in a value is a character, not syntax.

Not every filter has an exact Milvus form (``like`` knows ``%`` and ``_`` only, with no escape on
Lite): such a glob is translated into a looser condition every matching row meets, and the store
checks each row it gets against the filter itself (:attr:`Translation.exact` says which)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..rows import metadata_term
from ..store import All, AnyOf, Compare, Contains, Filter, Glob, Negated, OneOf, PathPrefix
from ..where import glob_parts

if TYPE_CHECKING:
    from ..store import Field, Scalar

__all__ = ["Translation", "equals", "expression", "literal", "one_of", "path_prefix", "quote",
           "translate"]

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Always true and always false, for rows that have an ``id`` (every collection's key).
_TRUE, _FALSE = 'id != ""', 'id == ""'


def quote(value: str) -> str:
    """A Milvus filter string literal for ``value`` (a line break escaped: Milvus refuses one
    raw inside a literal).

    >>> print(quote('a"b\\\\c'))
    "a\\"b\\\\c"
    """
    return '"' + "".join(_ESCAPES.get(c, c) for c in value) + '"'


def literal(value: Scalar) -> str:
    """A Milvus literal for a filter's value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return quote(value)
    return json.dumps(value)


def equals(field: str, value: str) -> str:
    """Rows whose ``field`` is ``value``."""
    return f"{field} == {quote(value)}"


def one_of(field: str, values: Iterable[str]) -> str:
    """Rows whose ``field`` is one of ``values``."""
    return f"{field} in [{', '.join(quote(v) for v in values)}]"


def expression(where: Filter | None) -> str:
    """The Milvus expression for a search's filter (``""``: every row); a superset of what it
    keeps unless :func:`translate` says it is exact."""
    return translate(where).expression


@dataclass(frozen=True, slots=True)
class Translation:
    """A filter as a Milvus expression (``""``: every row), and whether the expression keeps
    exactly the rows the filter does (else it keeps more, never fewer)."""

    expression: str
    exact: bool


def translate(where: Filter | None, columns: Collection[str] | None = None) -> Translation:
    """``where`` for a collection whose filterable fields are ``columns`` (``None``: a chunk
    collection's, all of them); a condition on a field it lacks keeps every row."""
    if where is None:
        return Translation("", True)
    state = _State(columns)
    text = state.node(where, positive=True)
    return Translation("" if text == _TRUE else text, state.exact)


class _State:
    """One translation: the columns at hand and whether anything was loosened."""

    def __init__(self, columns: Collection[str] | None) -> None:
        self.columns = columns
        self.exact = True

    def loosened(self, positive: bool) -> str:
        """A condition that cannot be said exactly: keep every row where it counts for a row,
        none where its negation does, and let the store check the rows."""
        self.exact = False
        return _TRUE if positive else _FALSE

    def node(self, where: Filter, positive: bool) -> str:
        if isinstance(where, All):
            return _all([self.node(p, positive) for p in where.parts])
        if isinstance(where, AnyOf):
            return _any([self.node(p, positive) for p in where.parts])
        if isinstance(where, Negated):
            inner = self.node(where.part, not positive)
            return {_TRUE: _FALSE, _FALSE: _TRUE}.get(inner) or f"not ({inner})"
        if isinstance(where, PathPrefix):
            if not where.prefix:
                return _TRUE
            if self.columns is not None and not {"doc_id", "path"} <= set(self.columns):
                return self.loosened(positive)
            return path_prefix(where.prefix)
        if isinstance(where, Glob):
            return self.glob(where, positive)
        if isinstance(where, Contains):
            if not where.field.meta:
                return _FALSE  # a stored field is never a list
            return self.terms([metadata_term(where.field.name, "in", where.value)], positive)
        if where.field.meta and (isinstance(where, OneOf) or where.op == "=="):
            values = where.values if isinstance(where, OneOf) else (where.value,)
            return self.terms([metadata_term(where.field.name, "=", v) for v in values],
                              positive)
        return self.test(where.field, positive, lambda c: _condition(where, c))

    def terms(self, terms: list[str], positive: bool) -> str:
        """Rows holding one of ``terms`` (:func:`~mdchunk.index.rows.metadata_terms`: a hash
        is hex, so ``like`` reads it literally)."""
        if self.columns is not None and "terms" not in self.columns:
            return self.loosened(positive)
        return _any([f"terms like {quote(f'% {term} %')}" for term in dict.fromkeys(terms)])

    def test(self, field: Field, positive: bool, condition: Callable[[str], str]) -> str:
        """``condition`` on ``field`` 's column(s): a metadata key only where it exists, and
        ``path`` on either of the document's ``doc_id`` and ``path``."""
        if field.meta:
            if self.columns is not None and "metadata" not in self.columns:
                return self.loosened(positive)
            column = f"metadata[{quote(field.name)}]"
            return f"(exists {column} and ({condition(column)}))"
        names = ("doc_id", "path") if field.name == "path" else (field.name,)
        if self.columns is not None and not set(names) <= set(self.columns):
            return self.loosened(positive)
        return _any([condition(name) for name in names])

    def glob(self, where: Glob, positive: bool) -> str:
        """A glob as equality or ``like`` where either says it exactly, else loosened: a
        ``like`` with ``%`` for every wildcard, or the range of its literal prefix."""
        parts = glob_parts(where.pattern)
        texts = [text for kind, text in parts if kind == "text"]
        if len(parts) == len(texts):
            return self.test(where.field, positive, lambda c: equals(c, "".join(texts)))
        plain = not any(set(t) & set("%_\\") for t in texts)
        if plain and all(text == "**" for kind, text in parts if kind == "wild"):
            return self.test(where.field, positive, lambda c: f"{c} like {_like(parts)}")
        if not positive:
            return self.loosened(positive)
        self.exact = False
        if not any("\\" in t for t in texts):
            return self.test(where.field, positive, lambda c: f"{c} like {_like(parts)}")
        prefix = texts[0] if parts[0][0] == "text" else ""
        return (self.test(where.field, positive, lambda c: path_prefix(prefix, (c,)))
                if prefix else _TRUE)


def _like(parts: list[tuple[str, str]]) -> str:
    """The ``like`` pattern with ``%`` for each wildcard (runs of them once)."""
    pattern = "".join("%" if kind == "wild" else text for kind, text in parts)
    while "%%" in pattern:
        pattern = pattern.replace("%%", "%")
    return quote(pattern)


def _condition(where: Compare | OneOf, column: str) -> str:
    """An ordering of a metadata key (its JSON), or any test of a stored field."""
    if isinstance(where, Compare):
        return f"{column} {where.op} {literal(where.value)}"
    return f"{column} in [{', '.join(literal(v) for v in where.values)}]"


def _all(parts: list[str]) -> str:
    return _joined(parts, "and", _TRUE, _FALSE)


def _any(parts: list[str]) -> str:
    return _joined(parts, "or", _FALSE, _TRUE)


def _joined(parts: list[str], word: str, neutral: str, absorbing: str) -> str:
    """``parts`` joined by ``and`` or ``or``, its constants folded away: ``neutral`` parts
    dropped, one ``absorbing`` part the whole answer."""
    parts = [p for p in parts if p != neutral]
    if absorbing in parts:
        return absorbing
    if len(parts) <= 1:
        return parts[0] if parts else neutral
    return f" {word} ".join(f"({p})" for p in parts)


def path_prefix(prefix: str, fields: tuple[str, ...] = ("doc_id", "path")) -> str:
    """Rows whose ``doc_id`` or ``path`` (or the ``fields`` named) starts with ``prefix``,
    metacharacters and all.

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
    return " or ".join(f"({f} >= {low} and {f} < {high})" for f in fields)
