"""The chunker's configuration: everything that shapes chunks, checked once, hashed for ids."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Literal

from .errors import ConfigError
from .tokens import TokenizerSpec, tokenizer_identity

__all__ = ["MIN_MAX_TOKENS", "ChunkerConfig", "TokenizerSpec"]

#: Below this budget a breadcrumb plus one word no longer fits; smaller values are refused.
MIN_MAX_TOKENS = 16


@dataclass(frozen=True, slots=True)
class ChunkerConfig:
    """Everything that shapes chunks. Two equal configs chunk any input identically.

    >>> ChunkerConfig(max_tokens=256, overlap_tokens=32).min_tokens
    64
    """

    max_tokens: int = 512
    overlap_tokens: int = 64
    #: Sections smaller than this share a chunk with their siblings; ``None`` means max_tokens // 4.
    min_tokens: int | None = None
    tokenizer: TokenizerSpec = "cl100k_base"
    oversized: Literal["split", "keep"] = "split"

    def __post_init__(self) -> None:
        _check_int("max_tokens", self.max_tokens)
        _check_int("overlap_tokens", self.overlap_tokens)
        if self.max_tokens < MIN_MAX_TOKENS:
            raise ConfigError(
                f"max_tokens={self.max_tokens} is too small: it must be at least {MIN_MAX_TOKENS} "
                "so that a breadcrumb and some text fit"
            )
        if self.overlap_tokens < 0:
            raise ConfigError(f"overlap_tokens={self.overlap_tokens} must not be negative")
        if self.overlap_tokens >= self.max_tokens:
            raise ConfigError(
                f"overlap_tokens={self.overlap_tokens} must be smaller than "
                f"max_tokens={self.max_tokens}: a chunk cannot be all overlap"
            )
        if self.min_tokens is None:
            object.__setattr__(self, "min_tokens", self.max_tokens // 4)
        else:
            _check_int("min_tokens", self.min_tokens)
            if not 0 <= self.min_tokens <= self.max_tokens:
                raise ConfigError(
                    f"min_tokens={self.min_tokens} must lie between 0 and "
                    f"max_tokens={self.max_tokens}"
                )
        if self.oversized not in ("split", "keep"):
            raise ConfigError(f"oversized={self.oversized!r} must be 'split' or 'keep'")
        if not (isinstance(self.tokenizer, str) or callable(self.tokenizer)):
            raise ConfigError(
                f"tokenizer={self.tokenizer!r} must be an encoding name, a tokenizer name or path, "
                "or a callable str -> int"
            )

    @property
    def fingerprint(self) -> str:
        """A short hash of every field that shapes chunks, used in chunk ids and index manifests."""
        tokenizer = tokenizer_identity(self.tokenizer)
        shape = {
            "max_tokens": self.max_tokens,
            "overlap_tokens": self.overlap_tokens,
            "min_tokens": self.min_tokens,
            "tokenizer": tokenizer,
            "oversized": self.oversized,
        }
        data = json.dumps(shape, sort_keys=True).encode()
        return hashlib.blake2b(data, digest_size=8).hexdigest()


def _check_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name}={value!r} must be an integer")
