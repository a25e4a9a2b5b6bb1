"""Front matter read by libyaml's parser (issue 32: the pure-Python one took a quarter of a Hugo
page's chunking) reads as ``yaml.safe_load`` reads it: the same values of the same types, and
the same error where it has one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.chunks.reading import load_yaml
from mdchunk.formats.markdown_it_parser import block_parser

from .conftest import CORPORA, FIXTURES, with_corpus

CASES = [
    "title: Install\nweight: 10\ndraft: false\n",
    "date: 2024-05-01\nlastmod: 2024-05-01T10:00:00Z\nversion: 1.10\nport: 0o17\n",
    "aliases: [/a/, /b/]\ntags:\n  - one\n  - two\n",
    "anchor: &x {a: 1}\nuse: *x\nmerge:\n  <<: *x\n  b: 2\n",
    "title: 'It''s'\ndescription: >\n  folded\n  text\nbody: |\n  kept\n",
    "on: yes\noff: no\nnull_value: ~\nempty:\nnan: .nan\ninf: -.inf\n",
    "title: \"Ünïcödé 中文 😀\"\n",
    "- a list\n- at the top\n",
    "just a scalar",
    "",
    "key: value\nkey: again\n",
    "a: b: c\n",  # an error
    "title: [unclosed\n",  # an error
    "\tindented: with a tab\n",  # an error
    "k: \"\\x07 escaped bell\"\n",
    "bad: \x07 raw bell\n",  # an error: a non-printable character
    "? complex\n: key\n",
    # strings the loader returns at once (issue 32): tagged, anchored, aliased, keys too
    "a: !!str 12\nb: !!str\nc: &s shared\nd: *s\n*s : key alias\n",
    "e: &m {k: v}\nf: [*m, !!str yes, 'no', \"1.5\"]\n",
]


def _same(text: str) -> None:
    try:
        expected: object = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        with pytest.raises(yaml.YAMLError) as raised:
            load_yaml(text)
        assert str(raised.value) == str(exc)
        return
    # the same values of the same types (a date stays a date, 1.10 a float; NaN, no NaN's
    # equal, as ``nan``)
    assert repr(load_yaml(text)) == repr(expected)


@pytest.mark.parametrize("text", CASES)
def test_cases_read_alike(text: str) -> None:
    _same(text)


def _front_matter(path: Path) -> str | None:
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    tokens = block_parser().parse(text) if text.startswith("---") else []
    return tokens[0].content if tokens and tokens[0].type == "front_matter" else None


def _with_front_matter(root: Path) -> list[Path]:
    """The pages under ``root`` that have front matter."""
    pages = sorted(p for p in root.rglob("*") if p.suffix in (".md", ".mdx")) \
        if root.is_dir() else []
    return [p for p in pages if _front_matter(p) is not None]


def test_fixtures_read_alike() -> None:
    found = _with_front_matter(FIXTURES)
    assert found, "no fixture has front matter"
    for path in found:
        _same(_front_matter(path) or "")


@pytest.mark.parametrize("path", with_corpus(_with_front_matter(CORPORA), CORPORA))
def test_corpus_front_matter_reads_alike(path: Path) -> None:
    _same(_front_matter(path) or "")


_SCALARS = st.sampled_from(["x", "'q'", '"d"', "12", "1.5", "yes", "~", "!!str 3", "&a v", "*a",
                            "2024-05-01", "[a, 1]", "{b: c}", "|\n  kept", ".nan", "0o7", ""])


@given(st.lists(st.tuples(st.sampled_from(["title", "weight", "k", "'q'", "1", "&a key"]),
                          _SCALARS), max_size=6))
def test_generated_front_matter_reads_alike(pairs: list[tuple[str, str]]) -> None:
    """Strings returned at once and everything else read alike, errors too (an alias before
    its anchor, a duplicate anchor)."""
    _same("".join(f"{key}: {value}\n" for key, value in pairs))


_JSON_LIKE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=5), st.dates(), st.datetimes()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                            st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 3)),
                                            inner, max_size=3)),
    max_leaves=12)


@given(metadata=st.dictionaries(st.text(max_size=4), _JSON_LIKE, max_size=4))
def test_front_matter_is_made_json_ready_as_a_round_trip_through_json_makes_it(
        metadata: dict[str, object]) -> None:
    """The values front matter gives a chunk's metadata: json_ready copies those of JSON's own
    types without a round trip through JSON and sends the rest (dates, keys that are not
    strings) through it; the same result either way, never the caller's own objects."""
    import json

    from mdchunk.chunks.chunk import json_ready

    ready = json_ready(metadata)
    assert ready == json.loads(json.dumps(metadata, default=str))
    assert ready is not metadata
    for key, value in metadata.items():
        if isinstance(value, (dict, list)):
            assert ready[key] is not value
