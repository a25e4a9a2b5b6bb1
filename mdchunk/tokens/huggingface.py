"""Hugging Face tokenizers, local files only: through the light ``tokenizers`` package when a
``tokenizer.json`` is there (no torch to import), else transformers' AutoTokenizer."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ConfigError, DependencyError
from .counter import TokenCounter

__all__ = ["huggingface_counter", "looks_like_huggingface"]


def _tokenizer_json(spec: str) -> Path | None:
    """``tokenizer.json`` of a local folder or of a hub name already in the local cache."""
    folder = Path(spec)
    if not folder.is_dir():
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:
            return None
        try:
            cached = try_to_load_from_cache(spec, "tokenizer.json")
        except Exception:  # not a valid hub name (a path that does not exist): not cached
            return None
        return Path(cached) if isinstance(cached, str) else None
    file = folder / "tokenizer.json"
    return file if file.is_file() else None


def huggingface_counter(spec: str) -> TokenCounter:
    """A Hugging Face tokenizer: its ``tokenizer.json`` through the light ``tokenizers``
    package when there is one (no torch to import), else transformers' AutoTokenizer."""
    file = _tokenizer_json(spec)
    if file is not None:
        try:
            from tokenizers import Tokenizer
        except ImportError:
            pass
        else:
            tokenizer = Tokenizer.from_file(str(file))
            tokenizer.no_truncation()  # we count, we never cut
            tokenizer.no_padding()
            encode = tokenizer.encode
            return TokenCounter(spec, lambda text: len(encode(text, add_special_tokens=False).ids))
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise DependencyError(
            f"tokenizer {spec!r} needs the transformers package: pip install 'mdchunk[embed]'"
        ) from exc
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        pretrained = AutoTokenizer.from_pretrained(spec, local_files_only=True)
    except Exception as exc:  # transformers raises many types for a missing model
        raise ConfigError(f"tokenizer {spec!r} could not be loaded locally: {exc}") from exc
    pretrained.model_max_length = 1 << 30  # we count, we do not truncate: silence length warnings
    encode_ids = pretrained.encode
    return TokenCounter(spec, lambda text: len(encode_ids(text, add_special_tokens=False)))


def looks_like_huggingface(spec: str) -> bool:
    return "/" in spec or os.sep in spec or Path(spec).exists()


