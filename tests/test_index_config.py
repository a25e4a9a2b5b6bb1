"""Issue 30: indexing and search take their configuration whole (frozen values checked when
made); the keyword forms of the contract build the same values; ``token=`` is
``milvus_token=`` now. Issue 44: a keyword sets any field of the config or of a config it
holds, overriding ``config=``'s, as the ``chunk_*`` functions' do. No Milvus and no model here:
the run itself is replaced."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

import mdchunk
from mdchunk.index import indexer
from mdchunk.index.build_config import index_config, leveled_config
from mdchunk.index.config import (
    EmbedderConfig,
    IndexConfig,
    SearchConfig,
    StoreConfig,
)
from mdchunk.index.options import (
    ALIASES,
    IndexOptions,
    SearchOptions,
    search_options,
    with_options,
)
from mdchunk.index.search import search
from mdchunk.sources import Selection

#: What the index's config needs of a model: its name, window and tokenizer.
MODEL = SimpleNamespace(name="stub", max_tokens=254, tokenizer="cl100k_base")


def _run(monkeypatch: pytest.MonkeyPatch) -> list[IndexConfig]:
    calls: list[IndexConfig] = []
    monkeypatch.setattr(indexer, "run_index",
                        lambda paths, config, progress, on_error: calls.append(config))
    return calls


def test_keywords_build_the_config_index_paths_takes_whole(monkeypatch) -> None:
    calls = _run(monkeypatch)
    selection = Selection(glob=("*.md",))
    indexer.index_paths(["docs"], db="x.db", collection="kb", model="m", backend="onnx",
                        max_tokens=300, overlap_tokens=30, analyzer="jieba", prune=False,
                        rebuild=False, batch_chunks=8, levels=(1200, 300), base_url="https://e",
                        site="mkdocs", wait=1.5, selection=selection, semantic="lexical",
                        oversized="keep", clean=False, includes="inc", milvus_token="root:x")
    [config] = calls
    chunker = mdchunk.ChunkerConfig(max_tokens=300, overlap_tokens=30, levels=(1200, 300),
                                    base_url="https://e", site="mkdocs", semantic="lexical",
                                    oversized="keep", clean=False, includes="inc")
    assert config == IndexConfig(chunker, model_tokens=True,
                                 embedder=EmbedderConfig("m", "onnx"),
                                 store=StoreConfig("x.db", "kb", "root:x"), analyzer="jieba",
                                 prune=False, rebuild=False, batch_chunks=8, wait=1.5,
                                 selection=selection)
    indexer.index_paths(["docs"], tokenizer="o200k_base")
    assert not calls[-1].model_tokens and calls[-1].chunker.tokenizer == "o200k_base"


def test_in_model_tokens_the_keyword_overlap_is_at_most_half_the_budget(monkeypatch) -> None:
    calls = _run(monkeypatch)
    indexer.index_paths(["docs"], max_tokens=48, overlap_tokens=64)
    assert (calls[-1].chunker.max_tokens, calls[-1].chunker.overlap_tokens) == (48, 24)
    indexer.index_paths(["docs"], max_tokens=48)  # the default overlap is the budget's eighth
    assert (calls[-1].chunker.max_tokens, calls[-1].chunker.overlap_tokens) == (48, 6)
    indexer.index_paths(["docs"], levels=(1024, 256), overlap_tokens=300)
    assert calls[-1].chunker.overlap_tokens == 128
    with pytest.raises(mdchunk.ConfigError, match="overlap_tokens=64 must be smaller"):
        indexer.index_paths(["docs"], max_tokens=48, overlap_tokens=64,
                            tokenizer="cl100k_base")  # sized as named
    assert index_config(MODEL, max_tokens=48, overlap_tokens=64, tokenizer=None) == \
        leveled_config(MODEL, mdchunk.ChunkerConfig(max_tokens=48, overlap_tokens=24))


def test_config_whole_is_passed_through_and_keywords_override_its_fields(monkeypatch) -> None:
    calls = _run(monkeypatch)
    config = IndexConfig(mdchunk.ChunkerConfig(max_tokens=256, site="hugo"),
                         store=StoreConfig("kb.db", collection="kb"), units=True)
    indexer.index_paths(["docs"], config=config)
    assert calls == [config]
    indexer.index_paths(["docs"], config=config, collection="other", prune=False,
                        doc_context=True, min_tokens=10)
    assert calls[-1] == dataclasses.replace(
        config, store=StoreConfig("kb.db", "other"), prune=False,
        chunker=mdchunk.ChunkerConfig(max_tokens=256, site="hugo", doc_context=True,
                                      min_tokens=10))
    # a config held whole is replaced, then its fields set
    indexer.index_paths(["docs"], config=config, store=StoreConfig("b.db"), collection="c")
    assert calls[-1].store == StoreConfig("b.db", "c")
    searched = search_options(SearchConfig(StoreConfig("kb.db"), k=7, mode="bm25"),
                              {"k": 3, "model": "m", "collection": "kb2"})
    assert searched == SearchConfig(StoreConfig("kb.db", "kb2"), EmbedderConfig("m"), k=3,
                                    mode="bm25")


def test_every_field_is_a_keyword_typed_once() -> None:
    """The keywords are read off the configs' fields: each field of IndexConfig, SearchConfig
    and the configs they hold is one keyword, named once, and typed in the Options dict (a
    field added without its line there fails here)."""
    for whole, typed in ((IndexConfig(), IndexOptions), (SearchConfig(), SearchOptions)):
        names = [f.name for f in dataclasses.fields(whole)]
        held = [getattr(whole, name) for name in names
                if dataclasses.is_dataclass(getattr(whole, name))]
        names += [f.name for config in held for f in dataclasses.fields(config)]
        assert len(names) == len(set(names)), "a field name held twice would be ambiguous"
        assert set(typed.__annotations__) == set(names) | set(ALIASES), type(whole)
        for name in names:  # and each sets its field
            assert with_options(whole, {name: getattr_deep(whole, name)}) == whole


def getattr_deep(config: Any, name: str) -> Any:
    """The value of field ``name`` of ``config`` or of a config it holds."""
    if name in {f.name for f in dataclasses.fields(config)}:
        return getattr(config, name)
    return next(getattr(value, name) for value in (getattr(config, f.name)
                for f in dataclasses.fields(config)) if dataclasses.is_dataclass(value)
                and name in {f.name for f in dataclasses.fields(value)})


def test_an_unknown_or_gone_keyword_is_an_error_naming_it(monkeypatch) -> None:
    calls = _run(monkeypatch)
    with pytest.raises(mdchunk.ConfigError, match=r"'max_token'.*did you mean 'max_tokens'"):
        indexer.index_paths(["docs"], max_token=64)  # type: ignore[call-arg]
    with pytest.raises(mdchunk.ConfigError, match=r"'kk'.*did you mean 'k'"):
        search("q", kk=3)  # type: ignore[call-arg]
    with pytest.raises(mdchunk.ConfigError, match="shaping= is gone.*oversized=..."):
        indexer.index_paths(["docs"], shaping={"oversized": "keep"})  # type: ignore[call-arg]
    assert calls == []


@pytest.mark.parametrize(("make", "words"), [
    (lambda: IndexConfig(analyzer="icu"), "analyzer='icu'"),  # type: ignore[arg-type]
    (lambda: IndexConfig(batch_chunks=0), "batch_chunks=0"),
    (lambda: IndexConfig(wait=-1), "wait=-1"),
    (lambda: EmbedderConfig(backend="tpu"), "backend='tpu'"),  # type: ignore[arg-type]
    (lambda: StoreConfig(collection=""), "collection=''"),
    (lambda: SearchConfig(mode="fuzzy"), "mode='fuzzy'"),  # type: ignore[arg-type]
    (lambda: SearchConfig(expand="wide"), "expand='wide'"),  # type: ignore[arg-type]
    (lambda: SearchConfig(k=0), "k=0"),
    (lambda: SearchConfig(fusion="max"), "fusion 'max'"),  # type: ignore[arg-type]
    (lambda: SearchConfig(weights=(0, 0)), "weights"),
    (lambda: SearchConfig(weights=(1, 2, 3)), "weights"),  # type: ignore[arg-type]
])
def test_each_config_is_checked_when_made(make: Any, words: str) -> None:
    with pytest.raises(mdchunk.ConfigError, match=words.replace("(", r"\(")):
        make()


def test_search_checks_its_config_before_connecting(tmp_path) -> None:
    where = str(tmp_path / "never.db")
    with pytest.raises(mdchunk.ConfigError, match="mode="):
        search("x", db=where, mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(mdchunk.ConfigError, match="the query is empty"):
        search("  ", config=SearchConfig(StoreConfig(where)))
    assert not (tmp_path / "never.db").exists()


def test_token_is_deprecated_for_milvus_token(monkeypatch) -> None:
    calls = _run(monkeypatch)
    with pytest.warns(DeprecationWarning, match="milvus_token="):
        indexer.index_paths(["docs"], token="root:old")
    assert calls[-1].store.credential == "root:old"
    indexer.index_paths(["docs"], milvus_token="root:new", credential=None)
    assert calls[-1].store.credential == "root:new"
    assert "root:old" not in repr(calls[-1])  # a credential is never shown


def test_the_whole_form_levels_the_config_as_the_keyword_form() -> None:
    for settings in ({"max_tokens": 512, "overlap_tokens": 64, "tokenizer": None},
                     {"max_tokens": 200, "overlap_tokens": 16, "tokenizer": "cl100k_base"},
                     {"max_tokens": 512, "overlap_tokens": 8, "tokenizer": None,
                      "levels": (1024, 128)}):
        by_keywords = index_config(MODEL, **settings)  # type: ignore[arg-type]
        chunker = mdchunk.ChunkerConfig(
            max_tokens=settings["levels"][-1] if "levels" in settings else settings["max_tokens"],
            overlap_tokens=settings["overlap_tokens"], levels=settings.get("levels"))
        assert leveled_config(MODEL, chunker, settings["tokenizer"] is None) == by_keywords
    grown = index_config(MODEL, max_tokens=512, overlap_tokens=64, tokenizer=None)
    assert grown.levels == (4064, 1016, 254) and grown.overlap_tokens == 64
    shaped = leveled_config(MODEL, mdchunk.ChunkerConfig(site="hugo", oversized="keep",
                                                        min_tokens=3))
    assert dataclasses.replace(shaped, site="plain", oversized="split") == grown
    with pytest.raises(mdchunk.ConfigError, match="exceeds the 254-token window"):
        leveled_config(MODEL, mdchunk.ChunkerConfig(levels=(1024, 256)))
