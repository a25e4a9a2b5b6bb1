"""Issue 30: the chunker's settings passed whole. The ``chunk_*`` functions take ``config=``
or any field of :class:`~mdchunk.ChunkerConfig` as a keyword (one list,
:class:`~mdchunk.config.ChunkerOptions`, kept in step with the dataclass here); a misspelled
keyword is an error naming it; ``Chunker.chunk`` honours ``config.levels``; ``format=`` is
``reader=`` now."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import mdchunk
from mdchunk.config import ChunkerOptions, config_with

from .conftest import fixture_files

SOURCE = ("---\ntitle: Guide\n---\n\n# Install\n\nRun the installer. <!-- a note -->\n\n"
          "## Configure\n\n" + "Set the options you need for your cluster. " * 30 + "\n")


def _words(text: str) -> int:
    return len(text.split())


QA = "question: What is it?\nanswer: A tool.\n\nquestion: Why?\nanswer: Because. " * 3 + "\n"
#: A config that sets every field away from its default.
EVERY_FIELD = mdchunk.ChunkerConfig(
    max_tokens=200, overlap_tokens=16, min_tokens=20, tokenizer=_words, oversized="keep",
    levels=(400, 200), html_comments="keep", base_url="https://example.org/docs", site="mkdocs",
    title_keys=("sidebar_label",), clean=False, includes="/nonexistent", semantic="lexical",
    semantic_model="some-model", semantic_threshold=0.25, doc_context=True)


def _options(config: mdchunk.ChunkerConfig) -> dict[str, object]:
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def test_options_list_every_config_field_with_its_type() -> None:
    fields = {f.name: f.type for f in dataclasses.fields(mdchunk.ChunkerConfig)}
    assert set(ChunkerOptions.__annotations__) == set(fields)
    assert set(_options(EVERY_FIELD)) == set(fields)
    derived = {"min_tokens": mdchunk.ChunkerConfig().max_tokens // 4,  # the budget's shares
               "overlap_tokens": mdchunk.ChunkerConfig().max_tokens // 8}
    for name, default in ((f.name, f.default) for f in dataclasses.fields(mdchunk.ChunkerConfig)):
        assert getattr(mdchunk.ChunkerConfig(), name) == derived.get(name, default)
    assert all(getattr(EVERY_FIELD, name) != getattr(mdchunk.ChunkerConfig(), name)
               for name in fields)


@pytest.mark.parametrize(("call", "source"), [(mdchunk.chunk_markdown, SOURCE),
                                              (mdchunk.chunk_text, SOURCE),
                                              (mdchunk.chunk_qa, QA)])
def test_every_field_as_a_keyword_equals_the_config(call, source: str) -> None:
    flat = dataclasses.replace(EVERY_FIELD, levels=None)
    by_keywords = call(source, doc_id="guide.md", **_options(flat))
    assert by_keywords == call(source, doc_id="guide.md", config=flat)
    assert by_keywords and {c.id for c in by_keywords}.isdisjoint(
        c.id for c in call(source, doc_id="guide.md"))  # the fields shaped them


def test_chunk_file_and_hierarchy_take_every_field(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(SOURCE, encoding="utf-8")
    by_keywords = mdchunk.chunk_file(path, doc_id="guide.md", **_options(EVERY_FIELD))
    assert by_keywords == mdchunk.chunk_file(path, doc_id="guide.md", config=EVERY_FIELD)
    assert {c.level for c in by_keywords} == {1, 2}  # the config's levels were honoured
    hierarchy = mdchunk.chunk_hierarchy(SOURCE, doc_id="guide.md", **_options(EVERY_FIELD))
    assert hierarchy == mdchunk.chunk_hierarchy(SOURCE, doc_id="guide.md", config=EVERY_FIELD)
    assert [c.text for c in hierarchy] == [c.text for c in by_keywords]


@pytest.mark.parametrize("call", [mdchunk.chunk_markdown, mdchunk.chunk_text, mdchunk.chunk_qa,
                                  mdchunk.chunk_hierarchy])
def test_a_misspelled_keyword_is_an_error_naming_it(call) -> None:
    with pytest.raises(mdchunk.ConfigError, match=r"'max_token'.*did you mean 'max_tokens'"):
        call("# T\n\ntext\n", max_token=64)


def test_a_misspelled_keyword_to_chunk_file_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# T\n\ntext\n", encoding="utf-8")
    with pytest.raises(mdchunk.ConfigError, match="'overlap'"):
        mdchunk.chunk_file(tmp_path / "a.md", overlap=0)


def test_keywords_override_the_config_fields() -> None:
    base = mdchunk.ChunkerConfig(max_tokens=512, overlap_tokens=0, site="hugo")
    chunks = mdchunk.chunk_markdown(SOURCE, config=base, max_tokens=64)
    assert chunks == mdchunk.chunk_markdown(SOURCE, max_tokens=64, overlap_tokens=0, site="hugo")
    assert max(c.token_count for c in chunks) <= 64
    # a derived min_tokens follows the new budget; one set explicitly stays
    assert config_with(base, {"max_tokens": 64}).min_tokens == 16
    explicit = mdchunk.ChunkerConfig(max_tokens=512, overlap_tokens=0, min_tokens=10)
    assert config_with(explicit, {"max_tokens": 64}).min_tokens == 10
    assert config_with(None, {}) == mdchunk.ChunkerConfig()
    # so does an overlap nobody chose (issue 44); one set apart from the default share stays
    assert config_with(mdchunk.ChunkerConfig(max_tokens=512), {"max_tokens": 64}
                       ).overlap_tokens == 8
    with pytest.raises(mdchunk.ConfigError, match="overlap_tokens=100 must be smaller"):
        config_with(mdchunk.ChunkerConfig(max_tokens=512, overlap_tokens=100), {"max_tokens": 64})


def test_an_overlap_nobody_gave_scales_with_the_budget() -> None:
    """``max_tokens=64`` alone used to be refused for the default overlap of 64 (issue 44):
    the default is max_tokens // 8, 64 at the default 512, so default chunks stay put; with
    levels, at most half the leaves' budget (the default hierarchy's 128 keep 64)."""
    assert mdchunk.ChunkerConfig().overlap_tokens == 64
    assert mdchunk.ChunkerConfig(max_tokens=64).overlap_tokens == 8
    assert mdchunk.ChunkerConfig(levels=(256, 32)).overlap_tokens == 16
    assert mdchunk.ChunkerConfig(levels=mdchunk.DEFAULT_LEVELS).overlap_tokens == 64
    assert mdchunk.chunk_hierarchy(SOURCE, levels=mdchunk.DEFAULT_LEVELS) == \
        mdchunk.chunk_hierarchy(SOURCE)
    chunks = mdchunk.chunk_markdown(SOURCE, max_tokens=64)
    assert chunks == mdchunk.chunk_markdown(SOURCE, max_tokens=64, overlap_tokens=8)
    assert len(chunks) > 1 and max(c.token_count for c in chunks) <= 64
    assert mdchunk.chunk_hierarchy(SOURCE, levels=(64, 32))  # overlap 16 fits the leaves
    with pytest.raises(mdchunk.ConfigError, match="overlap_tokens=64 must be smaller than "
                                                  "max_tokens=64"):
        mdchunk.chunk_markdown(SOURCE, max_tokens=64, overlap_tokens=64)


@pytest.mark.parametrize("path", fixture_files(".md"), ids=lambda p: p.name)
def test_chunker_chunk_honours_config_levels(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    config = mdchunk.ChunkerConfig(levels=(512, 128), overlap_tokens=16)
    chunker = mdchunk.Chunker(config)
    by_chunk = chunker.chunk(source, path.name)
    assert by_chunk == chunker.chunk_hierarchy(source, path.name)
    assert by_chunk == mdchunk.chunk_markdown(source, doc_id=path.name, config=config)
    if by_chunk:
        assert {c.level for c in by_chunk} == {1, 2}


def test_format_is_deprecated_for_reader() -> None:
    source = QA
    by_reader = mdchunk.chunk_hierarchy(source, levels=(256, 16), overlap_tokens=0, reader="qa")
    with pytest.warns(DeprecationWarning, match="reader="):
        by_format = mdchunk.chunk_hierarchy(source, levels=(256, 16), overlap_tokens=0,
                                            format="qa")
    assert by_format == by_reader
    assert by_reader != mdchunk.chunk_hierarchy(source, levels=(256, 16), overlap_tokens=0)
    chunker = mdchunk.Chunker(mdchunk.ChunkerConfig(overlap_tokens=0))
    with pytest.warns(DeprecationWarning, match="reader="):
        assert chunker.chunk_hierarchy(source, levels=(256, 16), format="qa") == by_reader
