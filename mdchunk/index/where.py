"""The filter language of ``search(where=...)`` and ``mdchunk search --where`` (grammar and
meaning: README.md, "Filters"): text parsed into the store-neutral filter nodes of
:mod:`.store`, checked against the fields an index has (:func:`check_fields`: a key no
document has is an error, not an empty result), and what each node means (:func:`matches`,
the reference every store's translation is tested against).

Ordering a key's value against a value of another kind (a string against a number) is
*unknown*, which neither the comparison nor its ``not`` keeps (three-valued logic, as Milvus
evaluates it)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .store import All, AnyOf, Compare, Contains, Field, Glob, Negated, OneOf, PathPrefix

if TYPE_CHECKING:
    from .store import Filter, Scalar

__all__ = ["INT_FIELDS", "TEXT_FIELDS", "FilterError", "GlobPart", "check_fields", "fields_of",
           "glob_escaped", "glob_parts", "glob_regex", "join_filters", "matches", "parse_where",
           "quoted", "search_filter"]

#: Stored text fields a filter may name (``path``: the ``doc_id`` or the ``path``).
TEXT_FIELDS = ("path", "doc_id", "title", "section_path", "file_type", "lang", "version",
               "url", "anchor")
#: Stored integer fields a filter may name.
INT_FIELDS = ("level", "line_start", "line_end", "token_count")
_ALIASES = {"filetype": "file_type"}
_META = "meta."


class FilterError(ConfigError):
    """A filter that cannot be parsed or names an unknown field; ``column`` (1-based) is where
    in its text (0: not known)."""

    def __init__(self, message: str, column: int = 0) -> None:
        super().__init__(message)
        self.column = column


_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<op>==|!=|<=|>=|<|>|~|\(|\)|\[|\]|,)
  | (?P<name>[A-Za-z_][\w.\-]*)
""", re.VERBOSE | re.DOTALL)
_KEYWORDS = {"and", "or", "not", "in", "contains", "true", "false"}


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # string, number, op, name, keyword, end
    text: str
    column: int

    @property
    def value(self) -> Scalar:
        if self.kind == "string":
            return re.sub(r"\\(.)", r"\1", self.text[1:-1], flags=re.DOTALL)
        if self.kind == "number":
            number = float(self.text)
            return int(self.text) if re.fullmatch(r"-?\d+", self.text) else number
        return self.text == "true"


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    at = 0
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None:
            problem = ("a string is not closed" if text[at] in "\"'"
                       else f"unexpected {text[at]!r}" + (" (use ==)" if text[at] == "=" else ""))
            raise _error(text, at + 1, problem)
        kind = found.lastgroup or ""
        if kind != "space":
            word = found.group()
            if kind == "name" and word.lower() in _KEYWORDS:
                kind, word = "keyword", word.lower()
            tokens.append(_Token(kind, word, at + 1))
        at = found.end()
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


def _error(text: str, column: int, problem: str) -> FilterError:
    return FilterError(f"malformed filter {text!r} at column {column}: {problem}", column)


class _Parser:
    """Recursive descent over the tokens of one filter (the grammar of the module docstring)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0

    @property
    def next(self) -> _Token:
        return self.tokens[self.at]

    def take(self, *texts: str) -> _Token | None:
        token = self.next
        if token.kind in ("op", "keyword") and token.text in texts:
            self.at += 1
            return token
        return None

    def fail(self, expected: str) -> FilterError:
        token = self.next
        found = "the end of the filter" if token.kind == "end" else repr(token.text)
        return _error(self.text, token.column, f"expected {expected}, found {found}")

    def whole(self) -> Filter:
        node = self.disjunction()
        if self.next.kind != "end":
            raise self.fail("'and', 'or' or the end of the filter")
        return node

    def disjunction(self) -> Filter:
        parts = [self.conjunction()]
        while self.take("or"):
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else AnyOf(tuple(parts))

    def conjunction(self) -> Filter:
        parts = [self.negation()]
        while self.take("and"):
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else All(tuple(parts))

    def negation(self) -> Filter:
        if self.take("not"):
            return Negated(self.negation())
        if self.take("("):
            node = self.disjunction()
            if not self.take(")"):
                raise self.fail("')'")
            return node
        return self.comparison()

    def comparison(self) -> Filter:
        name = self.next
        if name.kind != "name":
            raise self.fail("a field name, 'not' or '('")
        self.at += 1
        field = _field(name.text, name.column)
        op = self.take("==", "!=", "<", "<=", ">", ">=", "in", "contains", "~", "not")
        if op is None:
            raise self.fail("an operator (==, !=, <, <=, >, >=, in, not in, contains, ~)")
        if op.text == "not":
            if not self.take("in"):
                raise self.fail("'in' after 'not'")
            return Negated(self.one_of(field, op))
        if op.text == "in":
            return self.one_of(field, op)
        if op.text == "~":
            pattern = self.next
            if pattern.kind != "string":
                raise self.fail("a quoted glob")
            self.at += 1
            self.check(field, op, pattern)
            return Glob(field, str(pattern.value))
        value = self.value()
        self.check(field, op, value)
        if op.text == "contains":
            return Contains(field, value.value)
        if op.text == "!=":
            return Negated(Compare(field, "==", value.value))
        return Compare(field, op.text, value.value)  # type: ignore[arg-type]  # the op set

    def one_of(self, field: Field, op: _Token) -> OneOf:
        if not self.take("["):
            raise self.fail("'[' opening a list")
        values = [self.value()]
        while self.take(","):
            values.append(self.value())
        if not self.take("]"):
            raise self.fail("',' or ']'")
        for value in values:
            self.check(field, op, value)
        return OneOf(field, tuple(v.value for v in values))

    def value(self) -> _Token:
        token = self.next
        if token.kind == "number" and not math.isfinite(float(token.text)):
            raise _error(self.text, token.column, f"{token.text} is too large a number")
        if token.kind in ("string", "number") or token.text in ("true", "false"):
            self.at += 1
            return token
        raise self.fail("a value (a quoted string, a number, true or false)")

    def check(self, field: Field, op: _Token, value: _Token) -> None:
        """Refuse what a stored field cannot mean: ``contains`` or a glob on a field that is
        not of its kind, a value of another kind than the field's."""
        problem = _kind_problem(field, op.text, value)
        if problem:
            column = op.column if op.text in ("contains", "~") else value.column
            raise _error(self.text, column, problem)


def _kind_problem(field: Field, op: str, value: _Token) -> str:
    if field.meta:
        if op == "~":
            return (f"a glob reads a stored text field ({', '.join(TEXT_FIELDS)}), not the "
                    f"metadata key {field.name!r}")
        return ""
    if op == "contains":
        return f"contains reads a metadata list, and {field.name!r} is a stored field"
    if field.name in INT_FIELDS:
        if value.kind != "number":
            return f"{field.name!r} is a number, compared with {value.text}"
    elif value.kind != "string":
        return f"{field.name!r} is text, compared with {value.text}: quote it"
    return ""


def _field(name: str, column: int) -> Field:
    if name.startswith(_META) and len(name) > len(_META):
        return Field(name[len(_META):], meta=True, at=column)
    name = _ALIASES.get(name, name)
    return Field(name, meta=name not in TEXT_FIELDS and name not in INT_FIELDS, at=column)


def parse_where(text: str) -> Filter:
    """The filter ``text`` says (the grammar: the module docstring); a :class:`FilterError`
    naming the column where it goes wrong otherwise.

    >>> parse_where('tags contains "db" and lang == "zh"')  # doctest: +NORMALIZE_WHITESPACE
    All(parts=(Contains(field=Field(name='tags', meta=True, at=1), value='db'),
               Compare(field=Field(name='lang', meta=False, at=24), op='==', value='zh')))
    """
    if not text.strip():
        raise _error(text, 1, "the filter is empty")
    return _Parser(text).whole()


def quoted(value: str) -> str:
    """``value`` as a string of the filter language, whatever it holds (to build a filter
    from data without it becoming syntax).

    >>> print(quoted('say "hi"'))
    "say \\"hi\\""
    """
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def glob_escaped(text: str) -> str:
    """``text`` as a glob that matches it literally (``*``, ``?`` and ``\\`` escaped)."""
    return re.sub(r"([*?\\])", r"\\\1", text)


def join_filters(texts: Iterable[str]) -> str | None:
    """Several filters as one that keeps what all of them keep (``--where`` repeated)."""
    parts = [t for t in texts if t.strip()]
    if len(parts) <= 1:
        return parts[0] if parts else None
    return " and ".join(f"({t})" for t in parts)


def search_filter(path_prefix: str | None, where: str | None,
                  keys: Callable[[], Iterable[str]]) -> Filter | None:
    """A search's filter: what both its ``path_prefix`` and its ``where`` keep, the fields
    ``where`` names checked against the metadata ``keys`` of the index (asked only when
    there is a filter to check)."""
    parts: list[Filter] = [PathPrefix(path_prefix)] if path_prefix else []
    if where is not None:
        parsed = parse_where(where)
        check_fields(parsed, keys())
        parts.append(parsed)
    return None if not parts else parts[0] if len(parts) == 1 else All(tuple(parts))


def fields_of(where: Filter) -> list[Field]:
    """Every field ``where`` reads, in order (a path prefix reads ``path``)."""
    if isinstance(where, PathPrefix):
        return [Field("path")]
    if isinstance(where, All | AnyOf):
        return [f for part in where.parts for f in fields_of(part)]
    if isinstance(where, Negated):
        return fields_of(where.part)
    return [where.field]


def check_fields(where: Filter, keys: Iterable[str]) -> None:
    """Raise a :class:`FilterError` when ``where`` names a metadata key outside ``keys`` (those
    the index's documents have had: :meth:`~mdchunk.index.store.ChunkStore.metadata_keys`):
    a misspelt field would otherwise keep nothing, silently."""
    known = set(keys)
    for field in fields_of(where):
        if field.meta and field.name not in known:
            hint = (f"metadata keys: {', '.join(sorted(known)[:20])}" if known
                    else "no document of the index has metadata")
            raise FilterError(
                f"unknown field {field.name!r} at column {field.at}: neither a stored field "
                f"({', '.join((*TEXT_FIELDS, *INT_FIELDS))}) nor a metadata key of a document "
                f"of the index ({hint})", field.at)


# -- meaning -------------------------------------------------------------------------------------

#: A piece of a glob: literal text, or a wildcard (``*``, ``**``, ``**/``, ``?``).
GlobPart = tuple[str, str]  # (kind, text): ("text", "docs/") or ("wild", "**")


def glob_parts(pattern: str) -> list[GlobPart]:
    """``pattern`` cut into literal runs and wildcards, escapes resolved.

    >>> glob_parts(r"a/**/b_*.md\\*")
    [('text', 'a/'), ('wild', '**/'), ('text', 'b_'), ('wild', '*'), ('text', '.md*')]
    """
    parts: list[GlobPart] = []
    for match in re.finditer(r"\\(.)|(\*\*/|\*\*|\*|\?)|([^\\*?]+)|\\$", pattern, re.DOTALL):
        escaped, wild, text = match.groups()
        if wild:
            parts.append(("wild", wild))
            continue
        literal = escaped if escaped is not None else (text if text is not None else "\\")
        if parts and parts[-1][0] == "text":
            parts[-1] = ("text", parts[-1][1] + literal)
        else:
            parts.append(("text", literal))
    return parts


_WILD = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}


def glob_regex(pattern: str) -> re.Pattern[str]:
    """The regular expression a glob is (matched whole)."""
    return re.compile("".join(_WILD[text] if kind == "wild" else re.escape(text)
                              for kind, text in glob_parts(pattern)), re.DOTALL)


def matches(where: Filter | None, row: Mapping[str, Any]) -> bool:
    """Whether the stored ``row`` is kept by ``where`` (what every store's translation must
    agree with; an unknown answer keeps nothing)."""
    return where is None or _truth(where, row) is True


def _truth(where: Filter, row: Mapping[str, Any]) -> bool | None:
    if isinstance(where, All):
        values = [_truth(p, row) for p in where.parts]
        return False if False in values else (None if None in values else True)
    if isinstance(where, AnyOf):
        values = [_truth(p, row) for p in where.parts]
        return True if True in values else (None if None in values else False)
    if isinstance(where, Negated):
        value = _truth(where.part, row)
        return None if value is None else not value
    if isinstance(where, PathPrefix):
        return any(str(row[f]).startswith(where.prefix) for f in ("doc_id", "path"))
    field = where.field
    if not field.meta:
        names = ("doc_id", "path") if field.name == "path" else (field.name,)
        return any(_test(where, row[name]) for name in names)
    metadata = row.get("metadata") or {}
    if field.name not in metadata:
        return False
    return _test(where, metadata[field.name])


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "text" if isinstance(value, str) else "other"


def _equal(stored: object, value: Scalar) -> bool:
    return _kind(stored) == _kind(value) and stored == value


def _test(where: Compare | OneOf | Contains | Glob, stored: Any) -> bool | None:
    if isinstance(where, OneOf):
        return any(_equal(stored, v) for v in where.values)
    if isinstance(where, Contains):
        return isinstance(stored, list) and any(_equal(item, where.value) for item in stored)
    if isinstance(where, Glob):
        return isinstance(stored, str) and glob_regex(where.pattern).fullmatch(stored) is not None
    if where.op == "==":
        return _equal(stored, where.value)
    if _kind(stored) != _kind(where.value) or _kind(stored) not in ("number", "text"):
        return None
    a, b = stored, where.value
    result: bool = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[where.op]
    return result
