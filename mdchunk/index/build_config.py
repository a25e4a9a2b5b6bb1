"""What an index is built with: the chunker config of its levels, the config's portable
fingerprint, the BM25 analyzer and the model ``auto`` stands for; decided before a run plans or
writes anything."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..config import ChunkerConfig, TokenizerSpec
from ..embedding import Embedder
from ..errors import ConfigError
from ..sources import Source
from .language import AUTO, Language, survey
from .options import index_options
from .store import IndexMeta

__all__ = ["LEVEL_FACTOR", "chosen_model", "chunker_config",
           "config_fingerprint", "detect_analyzer", "index_config",
           "leveled_config", "run_fingerprint"]

log = logging.getLogger("mdchunk.index.indexer")  # the indexer's records, under its name

#: Budget of each default level over the next finer one (see :func:`index_config`).
LEVEL_FACTOR = 4


def detect_analyzer(sources: Sequence[Source]) -> str:
    """``jieba`` when the corpus has Chinese in it, else ``standard`` (the rule:
    :mod:`mdchunk.index.language`)."""
    return survey(sources).analyzer


def chunker_config(embedder: Embedder, *, max_tokens: int, overlap_tokens: int,
                   tokenizer: TokenizerSpec | None) -> ChunkerConfig:
    """The chunker config that never makes a chunk longer than the model reads: with no tokenizer
    named, chunks are sized in the model's own tokens, the budget capped at its window; a named
    tokenizer's chunks are checked instead (:meth:`~mdchunk.index.engine.Preparer.check`)."""
    if tokenizer is None or tokenizer == embedder.tokenizer:
        budget = min(max_tokens, embedder.max_tokens)
        if budget < max_tokens:
            log.info("%s reads %d tokens: chunking to %d of its own tokens instead of %d",
                     embedder.name, embedder.max_tokens, budget, max_tokens)
        return ChunkerConfig(max_tokens=budget, overlap_tokens=min(overlap_tokens, budget // 2),
                             tokenizer=embedder.tokenizer)
    return ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap_tokens, tokenizer=tokenizer)


def index_config(embedder: Embedder, *, max_tokens: int, overlap_tokens: int,
                 tokenizer: TokenizerSpec | None, levels: Sequence[int] | None = None
                 ) -> ChunkerConfig:
    """:func:`leveled_config` of a chunker config of these settings, as ``index_paths`` takes
    them (:func:`~mdchunk.index.options.index_options`); ``tokenizer=None`` sizes chunks in the
    model's own tokens."""
    config = index_options(None, {"max_tokens": max_tokens, "overlap_tokens": overlap_tokens,
                                  "tokenizer": tokenizer, "levels": levels})
    return leveled_config(embedder, config.chunker, config.model_tokens)


def leveled_config(embedder: Embedder, chunker: ChunkerConfig, model_tokens: bool = True
                   ) -> ChunkerConfig:
    """The hierarchical chunker config an index is built with: ``chunker`` 's every setting, its
    budgets made the index's.

    Without ``levels``, the leaves get :func:`chunker_config`'s budget (capped at the model's
    window when sized in its tokens) under two coarser levels of :data:`LEVEL_FACTOR` and
    ``LEVEL_FACTOR**2`` times it: about a section and about a page. Parents cost no embedding,
    and a flat index could not be widened without re-indexing. With ``levels`` (coarsest first),
    the last is the leaves' budget, refused when over the model's window in its tokens; one level
    makes leaves without parents. Each level's ``min_tokens`` is a quarter of its budget."""
    tokenizer = None if model_tokens else chunker.tokenizer
    overlap = chunker.overlap_tokens or 0  # resolved when the config was made
    if chunker.levels is None:
        leaf = chunker_config(embedder, max_tokens=chunker.max_tokens, overlap_tokens=overlap,
                              tokenizer=tokenizer).max_tokens
        budgets = tuple(leaf * LEVEL_FACTOR ** n for n in (2, 1, 0))
    else:
        budgets = chunker.levels  # checked when the config was made
        own_tokens = tokenizer is None or tokenizer == embedder.tokenizer
        if own_tokens and budgets[-1] > embedder.max_tokens:
            raise ConfigError(f"levels={','.join(map(str, budgets))}: the leaf budget "
                              f"{budgets[-1]} exceeds the {embedder.max_tokens}-token window of "
                              f"{embedder.name}; make the last level at most "
                              f"{embedder.max_tokens}")
    sized = chunker_config(embedder, max_tokens=budgets[-1], overlap_tokens=overlap,
                           tokenizer=tokenizer)
    return dataclasses.replace(chunker, max_tokens=sized.max_tokens, min_tokens=None,
                               overlap_tokens=sized.overlap_tokens, tokenizer=sized.tokenizer,
                               levels=budgets)


def config_fingerprint(config: ChunkerConfig, embedder: Embedder) -> str:
    """The config's fingerprint with the model's tokenizer named by the model, not by its local
    path, so that two machines indexing into one server do not rebuild each other's index."""
    if config.tokenizer == embedder.tokenizer:
        config = dataclasses.replace(config, tokenizer=f"model:{embedder.name}")
    return config.fingerprint


def run_fingerprint(fingerprint: str, metadata: Mapping[str, Any]) -> str:
    """What the manifest records a document was written with: the chunker config's
    ``fingerprint``, and the run's ``metadata`` when it has any (a document written with
    other metadata is stale; one written without any, as before metadata, is not)."""
    if not metadata:
        return fingerprint
    canonical = json.dumps(dict(metadata), sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    return f"{fingerprint}+meta:{hashlib.blake2b(canonical.encode(), digest_size=8).hexdigest()}"


def chosen_model(model: str | Embedder | None, recorded: IndexMeta | None,
                 language: Language | None) -> str | Embedder | None:
    """The model an index run embeds with. ``"auto"`` is the collection's own model when it exists
    (a collection never changes model because its documents did), else the one the corpus's
    ``language`` chooses. Anything else is the user's choice and wins (a collection built with
    another model is rebuilt)."""
    if model != AUTO:
        return model
    if recorded is not None:
        return recorded.model
    if language is None:
        raise ValueError("model='auto' for a new collection needs the corpus's language")
    return language.model
