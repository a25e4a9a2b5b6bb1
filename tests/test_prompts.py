"""The prompts a model reads before a query and before a passage (issue 46): declared by the
model, else its family's, else overridden; recorded by the index and used by search, which
refuses another. The models are tiny BERTs made here (nothing is downloaded)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mdchunk.embedding import Prompts, SentenceTransformerEmbedder, model_prompts, with_prompt
from mdchunk.embedding.prompts import declared_prompts, known_prompts
from mdchunk.errors import StoreError
from mdchunk.index import index_paths, search
from mdchunk.index.config import EmbedderConfig, IndexConfig, SearchConfig, StoreConfig
from mdchunk.index.milvus import MilvusStore
from mdchunk.tokens import get_counter

from .conftest_milvus import HashEmbedder
from .test_cli_flags import app, runner
from .tiny_models import tiny_bert


@pytest.mark.parametrize(("name", "query", "document"), [
    ("intfloat/e5-small-v2", "query: ", "passage: "),
    ("intfloat/multilingual-e5-large", "query: ", "passage: "),
    ("BAAI/bge-small-en-v1.5", "Represent this sentence for searching relevant passages: ", ""),
    ("nomic-ai/nomic-embed-text-v1.5", "search_query: ", "search_document: "),
    ("thenlper/gte-base", "", ""),
])
def test_known_families_get_their_prompts(name: str, query: str, document: str) -> None:
    assert known_prompts(name) == Prompts(query, document)
    assert model_prompts(HashEmbedder(name=name)) == Prompts(query, document)


def test_an_override_wins_and_an_unknown_model_reads_bare() -> None:
    e5 = HashEmbedder(name="intfloat/e5-base-v2")
    assert model_prompts(e5, query="") == Prompts("", "passage: ")
    assert model_prompts(e5, document="doc: ") == Prompts("query: ", "doc: ")
    assert model_prompts(HashEmbedder(name="sentence-transformers/all-MiniLM-L6-v2")) == Prompts()


def test_a_prompted_embedder_puts_the_prompt_before_each_text_and_shrinks_its_window() -> None:
    inner = HashEmbedder()
    prompted = with_prompt(inner, "passage: ")
    assert np.array_equal(prompted.embed(["a", "b"]), inner.embed(["passage: a", "passage: b"]))
    spent = get_counter("cl100k_base").count("passage: ")
    assert spent > 0 and prompted.max_tokens == inner.max_tokens - spent
    assert (prompted.name, prompted.dim) == (inner.name, inner.dim)
    assert with_prompt(inner, "") is inner


def _tiny_model(folder: Path, prompts: dict[str, str] | None) -> Path:
    """A tiny randomly initialised BERT saved as a sentence-transformers model, declaring
    ``prompts`` in its config as sentence-transformers does."""
    from sentence_transformers import SentenceTransformer, models

    base = tiny_bert(folder)
    body = models.Transformer(str(base), max_seq_length=120)
    model = SentenceTransformer(modules=[body, models.Pooling(32, "mean")], device="cpu")
    target = folder / "tiny"
    model.save(str(target))
    config_file = target / "config_sentence_transformers.json"
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config["prompts"] = prompts or {}
    config_file.write_text(json.dumps(config), encoding="utf-8")
    return target


@pytest.mark.slow  # sentence-transformers builds the tiny model
def test_a_model_declares_its_prompts(tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path, {"query": "Q> ", "passage": "P> "})
    assert declared_prompts(str(folder)) == Prompts("Q> ", "P> ")
    assert declared_prompts(str(_tiny_model(tmp_path / "bare", None))) is None


class Recording(SentenceTransformerEmbedder):
    """The tiny model, remembering every text it embeds."""

    def __init__(self, folder: Path) -> None:
        super().__init__(str(folder), backend="torch")
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += texts
        return super().embed(texts)


@pytest.mark.slow
def test_the_index_records_its_prompts_and_search_embeds_the_query_after_them(
        tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path, {"query": "Q> ", "document": "P> "})
    docs = tmp_path / "kb"
    docs.mkdir()
    (docs / "a.md").write_text("# Redis\n\nEvict keys when maxmemory is reached.\n", "utf-8")
    store = StoreConfig(str(tmp_path / "index.db"), "kb")
    model = Recording(folder)
    index_paths([docs], config=IndexConfig(embedder=EmbedderConfig(model), store=store))
    with MilvusStore(store.db, store.collection) as opened:
        meta = opened.check()
        [row] = opened.doc_chunks("a.md")
    assert (meta.query_prompt, meta.document_prompt) == ("Q> ", "P> ")
    # the passage side: the leaf was embedded after the document prompt, not bare
    [passage] = model.texts
    assert passage.startswith(("P> # Redis", "P> Redis")), passage
    prompted, bare = model.embed([passage, passage.removeprefix("P> ")])
    assert np.allclose(row["dense"], prompted, atol=1e-5)
    assert not np.allclose(row["dense"], bare, atol=1e-3)
    # the query side: embedded after the query prompt the collection records
    own = EmbedderConfig(str(folder))
    [hit] = search("evict keys", config=SearchConfig(store, own, k=1, mode="dense"))
    query, bare_query = model.embed(["Q> evict keys", "evict keys"])
    assert hit.score == pytest.approx(float(np.dot(query, prompted)), abs=1e-4)
    assert hit.score != pytest.approx(float(np.dot(bare_query, prompted)), abs=1e-4)
    # the same prompt given is fine; another is refused, by the library and the command line
    assert search("evict keys", config=SearchConfig(
        store, EmbedderConfig(str(folder), query_prompt="Q> "), k=1, mode="dense")) == [hit]
    with pytest.raises(StoreError, match="built with query prompt 'Q> ', not 'query: '"):
        search("evict keys", config=SearchConfig(
            store, EmbedderConfig(str(folder), query_prompt="query: "), k=1))
    refused = runner.invoke(app, ["search", "evict keys", "--db", store.db, "--collection",
                                  "kb", "--model", str(folder), "--document-prompt", ""])
    assert refused.exit_code == 1
    assert "built with document prompt 'P> ', not ''" in refused.output
    # an override at indexing is recorded, and rebuilds the collection with bare passages
    index_paths([docs], config=IndexConfig(embedder=EmbedderConfig(
        model, query_prompt="", document_prompt=""), store=store))
    with MilvusStore(store.db, store.collection) as opened:
        meta = opened.check()
        [row] = opened.doc_chunks("a.md")
    assert (meta.query_prompt, meta.document_prompt) == ("", "")
    assert model.texts[-1] == passage.removeprefix("P> ")


def test_the_server_embeds_a_query_after_the_recorded_prompt() -> None:
    from mdchunk.index.store import IndexMeta
    from mdchunk.serve.config import ServeConfig
    from mdchunk.serve.service import Service

    from .test_store_interface import MemoryStore, leaf

    class Recorder(HashEmbedder):
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            self.texts = [*getattr(self, "texts", []), *texts]
            return super().embed(texts)

    embedder = Recorder(dim=2)
    store = MemoryStore()
    store.open(IndexMeta(embedder.name, 2, "c", "standard", query_prompt="Q> ",
                         document_prompt="P> "))
    store.upsert_chunks([leaf("a", "evict keys", (1.0, 0.0))])
    service = Service(ServeConfig(), store=store, embedder=embedder)
    [hit] = service.search(SearchConfig(k=1, mode="dense"), "evict keys")
    assert hit.id == "a" and embedder.texts == ["Q> evict keys"]
