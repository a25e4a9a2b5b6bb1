"""The prompts a model was trained to read before a query and before a passage (e5's ``query: ``
and ``passage: ``, bge's instruction, nomic's ``search_query: ``): embedding both sides bare
costs such models many points. A model's declared prompts
(``config_sentence_transformers.json``) are used, else :data:`KNOWN_PROMPTS` for its family; a
user's own overrides either. The index records both, and search embeds with the recorded one.
A prompt is prepended to the text, as ``encode(prompt=...)`` does, so it works on every backend."""

from __future__ import annotations

import fnmatch
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import MdchunkError
from .protocol import Embedder
from .resolve import model_folder

if TYPE_CHECKING:
    import numpy as np

__all__ = ["KNOWN_PROMPTS", "Prompted", "Prompts", "declared_prompts", "known_prompts",
           "model_prompts", "with_prompt"]


@dataclass(frozen=True, slots=True)
class Prompts:
    """What is put before a query, and before a passage (``""``: nothing)."""

    query: str = ""
    document: str = ""


_BGE_EN = "Represent this sentence for searching relevant passages: "
#: Model families that declare no prompts but were trained with them, by a glob of the
#: lowercased model name (first match wins); from each family's model card.
KNOWN_PROMPTS: tuple[tuple[str, Prompts], ...] = (
    ("*multilingual-e5-*instruct*", Prompts(
        "Instruct: Given a web search query, retrieve relevant passages that answer the "
        "query\nQuery: ", "")),
    ("*e5-*", Prompts("query: ", "passage: ")),
    ("*bge-*-en-v1.5*", Prompts(_BGE_EN, "")),
    ("*bge-*-zh-v1.5*", Prompts("为这个句子生成表示以用于检索相关文章：", "")),
    ("*nomic-embed-text*", Prompts("search_query: ", "search_document: ")),
    ("*mxbai-embed-large-v1*", Prompts(_BGE_EN, "")),
    ("*snowflake-arctic-embed*", Prompts(_BGE_EN, "")),
    # gte (thenlper/gte-*, Alibaba-NLP/gte-*-en-v1.5) and bge-m3 read both sides bare
    ("*gte-*", Prompts()),
    ("*bge-m3*", Prompts()),
)


def known_prompts(name: str) -> Prompts | None:
    """The prompts :data:`KNOWN_PROMPTS` gives a model of this name, or ``None``.

    >>> known_prompts("intfloat/e5-small-v2")
    Prompts(query='query: ', document='passage: ')
    >>> known_prompts("sentence-transformers/all-MiniLM-L6-v2") is None
    True
    """
    lowered = name.lower()
    return next((p for pattern, p in KNOWN_PROMPTS if fnmatch.fnmatchcase(lowered, pattern)),
                None)


def declared_prompts(source: str) -> Prompts | None:
    """The query and document prompts a sentence-transformers model declares in its
    ``config_sentence_transformers.json`` (``document`` or else ``passage`` for the document
    side), or ``None`` when it declares neither (or its files cannot be found)."""
    folder = model_folder(source)
    if folder is None:
        return None
    try:
        config = json.loads((folder / "config_sentence_transformers.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    prompts = config.get("prompts") if isinstance(config, dict) else None
    if not isinstance(prompts, dict):
        return None
    query = prompts.get("query")
    document = prompts.get("document", prompts.get("passage"))
    if not isinstance(query, str) and not isinstance(document, str):
        return None
    return Prompts(query if isinstance(query, str) else "",
                   document if isinstance(document, str) else "")


def model_prompts(embedder: Embedder, query: str | None = None,
                  document: str | None = None) -> Prompts:
    """The prompts ``embedder`` is used with: ``query`` and ``document`` where given (``""``
    for none), else what the model declares, else what :data:`KNOWN_PROMPTS` says of its
    name, else none."""
    source = getattr(embedder, "source", None)
    found = ((declared_prompts(source) if isinstance(source, str) else None)
             or known_prompts(embedder.name) or Prompts())
    return Prompts(found.query if query is None else query,
                   found.document if document is None else document)


class Prompted:
    """``inner`` with ``prompt`` put before every text it embeds; its window is the model's
    less the prompt's tokens (counted when first asked: a query side never asks), so that a
    chunk sized to it is never cut by the model."""

    def __init__(self, inner: Embedder, prompt: str) -> None:
        self.inner, self.prompt = inner, prompt
        self.name, self.dim, self.tokenizer = inner.name, inner.dim, inner.tokenizer

    @functools.cached_property
    def max_tokens(self) -> int:
        from ..tokens import get_counter

        try:
            spent = get_counter(self.tokenizer).count(self.prompt)
        except MdchunkError:  # a tokenizer that cannot be had here: a word a token, roughly
            spent = len(self.prompt.split()) + 2
        return max(1, self.inner.max_tokens - spent)

    def __getattr__(self, name: str) -> object:  # backend, export, ...: the inner model's
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed([self.prompt + text for text in texts])

    def __repr__(self) -> str:
        return f"Prompted({self.inner!r}, {self.prompt!r})"


def with_prompt(embedder: Embedder, prompt: str) -> Embedder:
    """``embedder`` embedding every text after ``prompt`` (itself when the prompt is empty)."""
    return Prompted(embedder, prompt) if prompt else embedder
