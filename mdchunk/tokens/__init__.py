"""Tokens: counters for any tokenizer, offline, and exact counts of any span of a document."""

from .counter import TokenCounter
from .encodings import available_encodings
from .resolve import TokenizerSpec, get_counter, tokenizer_identity
from .spans import SpanCounts

__all__ = ["SpanCounts", "TokenCounter", "TokenizerSpec", "available_encodings", "get_counter",
           "tokenizer_identity"]
