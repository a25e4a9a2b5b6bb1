"""A tokenizer spec → a :class:`TokenCounter`: a tiktoken encoding (``cl100k_base`` by default)
or a model name tiktoken maps to one, a Hugging Face tokenizer name or path, or any ``str ->
int`` callable."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path

from ..errors import ConfigError
from .counter import TokenCounter
from .encodings import ENCODINGS, available_encodings, tiktoken_counter
from .huggingface import huggingface_counter, looks_like_huggingface

__all__ = ["TokenizerSpec", "get_counter", "tokenizer_identity"]

#: A tiktoken encoding name, a Hugging Face tokenizer name or path, or any ``str -> int`` counter.
TokenizerSpec = str | Callable[[str], int]


@functools.lru_cache(maxsize=16)
def _counter_for_name(spec: str) -> TokenCounter:
    if spec in ENCODINGS:
        return tiktoken_counter(spec)
    try:
        from tiktoken.model import encoding_name_for_model

        return tiktoken_counter(encoding_name_for_model(spec))  # e.g. "gpt-4" -> cl100k_base
    except KeyError:
        pass
    if looks_like_huggingface(spec):
        return huggingface_counter(spec)
    raise ConfigError(
        f"unknown tokenizer {spec!r}: available encodings are {', '.join(available_encodings())}, "
        "or give a Hugging Face tokenizer name/path or a callable str -> int"
    )


def get_counter(spec: TokenizerSpec) -> TokenCounter:
    """Resolve a tokenizer spec once; loaded tokenizers are cached per process.

    >>> get_counter(len).count("four")
    4
    """
    if isinstance(spec, str):
        return _counter_for_name(spec)
    if callable(spec):
        return TokenCounter(getattr(spec, "__name__", "callable"), spec)
    raise ConfigError(f"tokenizer={spec!r} must be a name, a path or a callable str -> int")


_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "merges.txt", "spiece.model",
                    "sentencepiece.bpe.model", "tokenizer_config.json", "special_tokens_map.json")


@functools.lru_cache(maxsize=32)
def _local_tokenizer_identity(path: str) -> str:
    digest = hashlib.sha256()
    folder = Path(path)
    for name in _TOKENIZER_FILES:
        file = folder / name
        if file.is_file():
            digest.update(name.encode() + b"\0" + file.read_bytes())
    return f"hf-files:{digest.hexdigest()[:16]}"


def tokenizer_identity(spec: TokenizerSpec) -> str:
    """A name for ``spec`` that is the same on every machine: a local tokenizer folder is
    named by a hash of its files, not by where a venv happens to keep it.

    >>> tokenizer_identity("cl100k_base")
    'cl100k_base'
    """
    if not isinstance(spec, str):
        module = getattr(spec, "__module__", "?")
        return f"callable:{module}.{getattr(spec, '__qualname__', type(spec).__name__)}"
    if Path(spec).is_dir():
        return _local_tokenizer_identity(str(Path(spec).resolve()))
    return spec
