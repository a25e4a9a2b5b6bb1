"""The filter language of ``search(where=...)`` (issue 34): parsing and its errors, what each
node means (:func:`~mdchunk.index.where.matches`), and its Milvus translation (no Milvus here:
the store-level tests are tests/test_where_milvus.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mdchunk.index.milvus.filters import quote, translate
from mdchunk.index.rows import metadata_json, metadata_term, metadata_terms
from mdchunk.index.store import (
    All,
    AnyOf,
    Compare,
    Contains,
    Field,
    Glob,
    Negated,
    OneOf,
    PathPrefix,
)
from mdchunk.index.where import (
    FilterError,
    check_fields,
    glob_escaped,
    glob_parts,
    glob_regex,
    join_filters,
    matches,
    parse_where,
    quoted,
    search_filter,
)


def meta(name: str) -> Field:
    return Field(name, meta=True)


@pytest.mark.parametrize(("text", "node"), [
    ('severity == "critical"', Compare(meta("severity"), "==", "critical")),
    ("severity != 'low'", Negated(Compare(meta("severity"), "==", "low"))),
    ("priority < 2", Compare(meta("priority"), "<", 2)),
    ("priority <= 2.5", Compare(meta("priority"), "<=", 2.5)),
    ("priority > -1", Compare(meta("priority"), ">", -1)),
    ("priority >= 1e3", Compare(meta("priority"), ">=", 1000.0)),
    ("draft == true", Compare(meta("draft"), "==", True)),
    ('lang in ["zh", "en"]', OneOf(Field("lang"), ("zh", "en"))),
    ("level NOT IN [1, 2]", Negated(OneOf(Field("level"), (1, 2)))),
    ('tags contains "db"', Contains(meta("tags"), "db")),
    ('path ~ "runbooks/db/**"', Glob(Field("path"), "runbooks/db/**")),
    ('filetype == "md"', Compare(Field("file_type"), "==", "md")),
    ('meta.title == "x"', Compare(meta("title"), "==", "x")),
    ('a == 1 and b == 2 or not c == 3',
     AnyOf((All((Compare(meta("a"), "==", 1), Compare(meta("b"), "==", 2))),
            Negated(Compare(meta("c"), "==", 3))))),
    ('a == 1 and (b == 2 or c == 3)',
     All((Compare(meta("a"), "==", 1),
          AnyOf((Compare(meta("b"), "==", 2), Compare(meta("c"), "==", 3)))))),
    (r'title == "say \"or\" \\ and"', Compare(Field("title"), "==", 'say "or" \\ and')),
])
def test_every_operator_parses(text: str, node: object) -> None:
    assert parse_where(text) == node


@pytest.mark.parametrize(("text", "column", "words"), [
    ("", 1, "empty"),
    ("tags contains", 14, "expected a value"),
    ('severity == "critical', 13, "not closed"),
    ("a = 1", 3, "use =="),
    ("(a == 1", 8, "expected ')'"),
    ("a == 1 b == 2", 8, "expected 'and', 'or'"),
    ("a == 1 and", 11, "expected a field name"),
    ("a in 1", 6, "expected '['"),
    ("a in [1, ]", 10, "expected a value"),
    ("a not == 1", 7, "'in' after 'not'"),
    ("== 1", 1, "expected a field name"),
    ("a ~ 1", 5, "a quoted glob"),
    ("a @ 1", 3, "unexpected '@'"),
    ('level == "2"', 10, "'level' is a number"),
    ("lang == zh", 9, "expected a value"),
    ("lang == 1", 9, "'lang' is text"),
    ('title contains "x"', 7, "metadata list"),
    ('tags ~ "db*"', 6, "glob reads a stored text field"),
    ("a == 1e999", 6, "too large"),
])
def test_a_malformed_filter_names_the_column(text: str, column: int, words: str) -> None:
    with pytest.raises(FilterError, match=re.escape(words)) as caught:
        parse_where(text)
    assert caught.value.column == column
    assert f"column {column}" in str(caught.value)


def test_an_unknown_field_is_an_error_not_an_empty_result() -> None:
    where = parse_where('lang == "zh" and (severity == "x" or sevrity == "y")')
    check_fields(where, {"severity", "sevrity"})  # stored fields need no key
    with pytest.raises(FilterError, match="unknown field 'sevrity' at column 38") as caught:
        check_fields(where, {"severity", "tags"})
    assert caught.value.column == 38 and "severity, tags" in str(caught.value)
    with pytest.raises(FilterError, match="no document of the index has metadata"):
        check_fields(parse_where("x == 1"), ())
    # the keys are asked only when there is a filter to check
    assert search_filter("docs/", None, lambda: pytest.fail("keys asked")) == PathPrefix("docs/")
    assert search_filter(None, "x == 1", lambda: ["x"]) == Compare(meta("x"), "==", 1)
    assert search_filter("d/", "x == 1", lambda: ["x"]) == All(
        (PathPrefix("d/"), Compare(meta("x"), "==", 1)))


def test_repeated_filters_are_joined_by_and() -> None:
    assert join_filters([]) is None and join_filters(["a == 1"]) == "a == 1"
    joined = join_filters(["a == 1 or b == 2", "c == 3"])
    assert joined == "(a == 1 or b == 2) and (c == 3)"
    assert isinstance(parse_where(joined), All)


ROW: dict[str, Any] = {
    "doc_id": "runbooks/db/lag.md", "path": "kb/runbooks/db/lag.md", "title": "Lag",
    "section_path": "Lag > Check", "file_type": "md", "lang": "en", "version": "", "url": "",
    "anchor": "", "level": 2, "line_start": 1, "line_end": 9, "token_count": 40,
    "metadata": {"tags": ["db", "pg"], "severity": "critical", "priority": 2, "draft": True,
                 "n": "7"},
}


@pytest.mark.parametrize(("text", "kept"), [
    ('severity == "critical"', True), ('severity != "critical"', False),
    ('missing == "x"', False), ('missing != "x"', True), ("not missing == 1", True),
    ("priority == 2.0", True), ("priority > 1 and priority <= 2", True),
    ('priority == "2"', False), ("draft == 1", False), ("draft == true", True),
    ('tags contains "db"', True), ('severity contains "critical"', False),
    ('severity in ["low", "critical"]', True), ('severity not in ["low"]', True),
    ('path ~ "runbooks/**"', True), ('path ~ "kb/runbooks/db/*.md"', True),
    ('path ~ "runbooks/*.md"', False), ('path ~ "**/lag.md"', True),
    ('path ~ "runbooks/**/lag.md"', True), ('path ~ "runbooks/d?/lag.md"', True),
    ('doc_id ~ "kb/**"', False), ('path == "kb/runbooks/db/lag.md"', True),
    ("level in [1, 2]", True), ('lang == "zh" or version == ""', True),
    # ordering across kinds is unknown: neither it nor its negation keeps the row
    ("n > 3", False), ("not n > 3", False), ('n > "3"', True),
    ("not (n > 3) or level == 2", True),
])
def test_what_a_filter_means(text: str, kept: bool) -> None:
    assert matches(parse_where(text), ROW) is kept


def test_a_glob_is_a_path_pattern() -> None:
    assert glob_parts(r"a/**/b_*.md\*") == [("text", "a/"), ("wild", "**/"), ("text", "b_"),
                                            ("wild", "*"), ("text", ".md*")]
    assert glob_regex("a/**/b.md").fullmatch("a/b.md")
    assert glob_regex("a/**/b.md").fullmatch("a/x/y/b.md")
    assert not glob_regex("a/**/b.md").fullmatch("a/xb.md")
    assert not glob_regex("a/*").fullmatch("a/b/c")
    odd = 'a*b?c\\d"e%f_g'
    assert glob_regex(glob_escaped(odd)).fullmatch(odd)
    assert not glob_regex(glob_escaped(odd)).fullmatch('aXb?c\\d"e%f_g')


@pytest.mark.parametrize(("text", "expression", "exact"), [
    # equality, in and contains on metadata read the terms (hashes: like reads them literally)
    ('tags contains "db"', f'terms like "% {metadata_term("tags", "in", "db")} %"', True),
    ('severity in ["a", "b", "a"]', f'(terms like "% {metadata_term("severity", "=", "a")} %") '
                                    f'or (terms like "% {metadata_term("severity", "=", "b")} %")',
     True),
    # ordering reads the JSON, where the key exists
    ("priority > 2", '(exists metadata["priority"] and (metadata["priority"] > 2))', True),
    ('lang != "zh"', 'not (lang == "zh")', True),
    ("level >= 2", "level >= 2", True),
    ('path ~ "runbooks/db/**"', '(doc_id like "runbooks/db/%") or (path like "runbooks/db/%")',
     True),
    ('doc_id ~ "a.md"', 'doc_id == "a.md"', True),
    # `*` stops at "/", which like cannot say: loosened, and the rows checked
    ('doc_id ~ "runbooks/*.md"', 'doc_id like "runbooks/%.md"', False),
    # `_` and `%` are wildcards of like: loosened too
    ('doc_id ~ "a_b/**"', 'doc_id like "a_b/%"', False),
    # a backslash: the literal prefix's range only
    ('doc_id ~ "a\\\\\\\\b/*"', '(doc_id >= "a\\\\b/" and doc_id < "a\\\\b0")', False),
    # negated, a loose glob keeps nothing Milvus can say: every row is checked
    ('not doc_id ~ "runbooks/*.md"', "", False),
    ('lang == "zh" and not doc_id ~ "a/*"', 'lang == "zh"', False),
])
def test_the_milvus_translation(text: str, expression: str, exact: bool) -> None:
    translation = translate(parse_where(text))
    assert (translation.expression, translation.exact) == (expression, exact)


def test_a_unit_collection_gets_only_what_it_can_read() -> None:
    where = parse_where('lang == "zh" and path ~ "docs/**"')
    loose = translate(where, columns=("doc_id", "path"))
    assert loose == translate(parse_where('path ~ "docs/**"'), columns=None).__class__(
        '(doc_id like "docs/%") or (path like "docs/%")', False)
    assert translate(parse_where('not lang == "zh"'), columns=("doc_id",)).expression == ""


def test_values_are_quoted_never_pasted() -> None:
    for value in ['" or id != "', "a\\", 'x") or (1 == 1', "line\nbreak", "tab\there"]:
        where = parse_where(f"title == {quoted(value)}")
        assert where == Compare(Field("title"), "==", value)
        assert translate(where).expression == f"title == {quote(value)}"
        assert "\n" not in translate(where).expression


def test_the_terms_of_a_row_are_those_its_filters_ask_for() -> None:
    terms = metadata_terms({"tags": ["db", 2, True, {"x": 1}], "n": 2.0, "s": "2", "d": {"a": 1}})
    assert terms.startswith(" ") and terms.endswith(" ")
    asked = {metadata_term("tags", "in", "db"), metadata_term("tags", "in", 2.0),
             metadata_term("tags", "in", True), metadata_term("n", "=", 2),
             metadata_term("s", "=", "2")}
    assert set(terms.split()) == asked  # a nested value has none
    # a number is its value, a boolean and a string are their own
    assert metadata_term("n", "=", 1) != metadata_term("n", "=", True) != \
        metadata_term("n", "=", "1")
    assert metadata_terms({}) == ""


def test_metadata_too_large_for_its_terms_loses_whole_keys() -> None:
    many = {"small": "x", "huge": [f"v{i}" for i in range(5000)]}
    stored = metadata_json(many)
    assert stored == {"small": "x"}  # the key holding most is left out, all of it
