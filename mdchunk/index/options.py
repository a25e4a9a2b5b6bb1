"""The keyword forms of :func:`~mdchunk.index.index_paths` and :func:`~mdchunk.index.search`, as
the ``chunk_*`` functions take theirs: a keyword for any field of the config or of a config it
holds, overriding the config's field."""

from __future__ import annotations

import dataclasses
import difflib
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from ..config import ChunkerConfig, ChunkerOptions, config_with
from ..embedding import Embedder
from ..embedding.rerankers import Reranker
from ..errors import ConfigError
from .config import AnalyzerChoice, BackendChoice, IndexConfig, SearchConfig
from .fusion import FusionName
from .store import Expand, SearchMode

if TYPE_CHECKING:
    from ..sources import Selection
    from .config import EmbedderConfig, StoreConfig
    from .engine import Engine

__all__ = ["ALIASES", "EmbedderOptions", "IndexOptions", "SearchOptions", "StoreOptions",
           "index_options", "search_options", "with_options"]

#: Keywords that are a field's other spelling, by that spelling: the field each sets.
ALIASES = {"milvus_token": "credential", "token": "credential"}
#: Keywords that set nothing any more, and what to say instead.
_GONE = {"shaping": "shaping= is gone: give its keys as keywords of their own "
                    "(oversized=..., html_comments=..., title_keys=..., clean=..., ...)"}


class StoreOptions(TypedDict, total=False):
    """:class:`~mdchunk.index.config.StoreConfig`'s fields as keywords."""

    db: str | os.PathLike[str]
    collection: str
    credential: str | None
    #: ``credential``'s name on Milvus, where it is a token.
    milvus_token: str | None
    #: ``credential``'s oldest name: deprecated (read as a token count by mistake).
    token: str | None


class EmbedderOptions(TypedDict, total=False):
    """:class:`~mdchunk.index.config.EmbedderConfig`'s fields as keywords."""

    model: str | Embedder | None
    backend: BackendChoice | None
    query_prompt: str | None
    document_prompt: str | None


class IndexOptions(ChunkerOptions, StoreOptions, EmbedderOptions, total=False):
    """What :func:`~mdchunk.index.index_paths` takes as keywords: every field of
    :class:`~mdchunk.index.config.IndexConfig`, of the chunker, embedder and store configs it
    holds, and those three whole."""

    chunker: ChunkerConfig
    embedder: EmbedderConfig
    store: StoreConfig
    model_tokens: bool
    analyzer: AnalyzerChoice
    prune: bool
    rebuild: bool
    batch_chunks: int
    wait: float
    selection: Selection | None
    engine: Engine | None
    units: bool
    bigrams: bool
    metadata: Mapping[str, Any] | None


class SearchOptions(StoreOptions, EmbedderOptions, total=False):
    """What :func:`~mdchunk.index.search` takes as keywords: every field of
    :class:`~mdchunk.index.config.SearchConfig`, of the embedder and store configs it holds,
    and those two whole."""

    embedder: EmbedderConfig
    store: StoreConfig
    k: int
    mode: SearchMode
    path_prefix: str | None
    weights: tuple[float, float] | None
    fusion: FusionName | None
    expand: Expand
    rerank: str | Reranker | None
    collapse: bool
    per_page: int | None
    where: str | None
    depth: int


Config = TypeVar("Config", IndexConfig, SearchConfig)


def with_options(config: Config, options: Mapping[str, object]) -> Config:
    """``config`` with ``options`` set: a keyword naming one of its fields sets it, one naming a
    field of a config it holds (``db`` of ``store``) sets that, a config held whole (``store=``)
    replaces it first. The chunker's config takes its keywords as ``chunk_*`` do.

    >>> with_options(SearchConfig(), {"k": 3, "db": "kb.db"}).store.db
    'kb.db'"""
    options = _spelled(options)
    own = {field.name for field in dataclasses.fields(config)}
    held = {name: getattr(config, name) for name in own
            if dataclasses.is_dataclass(getattr(config, name))}
    owner = {name: group for group, value in held.items()
             for name in (field.name for field in dataclasses.fields(value))}
    unknown = sorted(set(options) - own - set(owner))
    if unknown:
        known = sorted(own | set(owner) | set(ALIASES))
        hints = [match for name in unknown for match in difflib.get_close_matches(name, known, 2)]
        raise ConfigError(f"unknown option {', '.join(map(repr, unknown))}"
                          + (f" (did you mean {', '.join(map(repr, hints))}?)" if hints else "")
                          + f"; the options are {', '.join(known)}")
    changes: dict[str, Any] = {name: value for name, value in options.items() if name in own}
    for group, value in held.items():
        fields = {name: options[name] for name in options if owner.get(name) == group}
        whole = changes.get(group, value)
        if fields:
            if isinstance(whole, ChunkerConfig):
                changes[group] = config_with(whole, fields)
            else:
                changes[group] = dataclasses.replace(whole, **fields)
    return dataclasses.replace(config, **changes)


def index_options(config: IndexConfig | None, options: Mapping[str, object]) -> IndexConfig:
    """:func:`with_options` for an indexing run, with two rules: a ``tokenizer`` named sizes chunks
    in it (``model_tokens=False``) unless ``model_tokens`` is given too; and in the model's own
    tokens, an ``overlap_tokens`` given is capped at half the leaf budget rather than refused."""
    if "tokenizer" in options and "model_tokens" not in options:
        options = {**options, "model_tokens": options["tokenizer"] is None}
    if options.get("tokenizer", "") is None:  # the old spelling of "the model's own"
        options = {name: value for name, value in options.items() if name != "tokenizer"}
    base = config or IndexConfig()
    in_model_tokens = options.get("model_tokens", base.model_tokens)
    overlap = options.get("overlap_tokens")
    if in_model_tokens and isinstance(overlap, int):
        levels = options.get("levels", base.chunker.levels)
        leaf = options.get("max_tokens", base.chunker.max_tokens)
        if isinstance(levels, Sequence) and levels and isinstance(levels[-1], int):
            leaf = levels[-1]
        if isinstance(leaf, int):
            options = {**options, "overlap_tokens": min(overlap, leaf // 2)}
    return with_options(base, options)


def search_options(config: SearchConfig | None, options: Mapping[str, object]) -> SearchConfig:
    """:func:`with_options` for a search."""
    return with_options(config or SearchConfig(), options)


def _spelled(options: Mapping[str, object]) -> dict[str, object]:
    """``options`` under their fields' names: an alias renamed (``token`` said deprecated),
    a keyword that is gone refused with what to give instead."""
    for name in options:
        if name in _GONE:
            raise ConfigError(_GONE[name])
    if "token" in options:
        warnings.warn("token= is deprecated: it is milvus_token= now (a Milvus credential, not "
                      "a token count)", DeprecationWarning, stacklevel=5)  # index_paths' caller
    spelled: dict[str, object] = {}
    rank = {name: n for n, name in enumerate(ALIASES, 1)}
    for name in sorted(options, key=lambda n: rank.get(n, 0)):  # the newest spelling wins
        field = ALIASES.get(name, name)
        if field not in spelled or spelled[field] is None:
            spelled[field] = options[name]
    return spelled
