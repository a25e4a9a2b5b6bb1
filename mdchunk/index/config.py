"""What indexing and search are configured with, each a small frozen value checked once when it
is made: :class:`EmbedderConfig`, :class:`StoreConfig`, :class:`IndexConfig` (which holds the
chunker's :class:`~mdchunk.ChunkerConfig` whole) and :class:`SearchConfig`. The choice lists
here are the ones the command line offers."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..config import ChunkerConfig
from ..embedding import Backend, Embedder
from ..embedding.rerankers import Reranker
from ..errors import ConfigError
from .fusion import DEFAULT_FUSION, Fusion, FusionName
from .language import AUTO
from .store import ANALYZER_NAMES, EXPAND_NAMES, Expand, SearchMode
from .where import parse_where

if TYPE_CHECKING:
    from ..sources import Selection
    from .engine import Engine

__all__ = ["ANALYZER_CHOICES", "BACKEND_CHOICES", "DEFAULT_DEPTH", "AnalyzerChoice",
           "BackendChoice", "EmbedderConfig", "IndexConfig", "SearchConfig", "StoreConfig",
           "checked_metadata"]

#: How a model runs, or ``auto`` (int8 ONNX where onnxruntime is installed, torch on a GPU).
BackendChoice = Literal["auto", Backend]
BACKEND_CHOICES: tuple[str, ...] = get_args(BackendChoice)
#: The BM25 analyzer, or ``auto`` (chosen by the corpus's language when a collection is made).
AnalyzerChoice = Literal["auto", "standard", "jieba"]
ANALYZER_CHOICES: tuple[str, ...] = get_args(AnalyzerChoice)
#: Candidates each side of a search draws, whatever ``k`` is (:attr:`SearchConfig.depth`).
#: Chosen on the styles bench (BENCHMARKS.md); it also holds the largest ``k`` the service
#: answers.
DEFAULT_DEPTH = 100


@dataclass(frozen=True, slots=True)
class EmbedderConfig:
    """Which model embeds, and on which runtime.

    ``model`` is ``"auto"`` (indexing a new collection: the one the corpus's language chooses;
    else the collection's own), a model name or path, ``None`` (indexing: all-MiniLM-L6-v2;
    search: the collection's own) or an :class:`~mdchunk.embedding.Embedder`. ``backend`` ``None``
    or ``"auto"`` is chosen (indexing) or read from the collection (search). ``query_prompt`` and
    ``document_prompt`` go before a query and every passage (``""``: nothing; ``None``: what the
    model or its family declares); an index records both and search uses the recorded ones."""

    model: str | Embedder | None = AUTO
    backend: BackendChoice | None = None
    query_prompt: str | None = None
    document_prompt: str | None = None

    def __post_init__(self) -> None:
        if self.backend is not None and self.backend not in BACKEND_CHOICES:
            raise ConfigError(f"backend={self.backend!r} must be None or one of "
                              f"{', '.join(BACKEND_CHOICES)}")
        if self.model is not None and isinstance(self.model, (str, os.PathLike)):
            object.__setattr__(self, "model", os.fspath(self.model))
        for side in ("query_prompt", "document_prompt"):
            if not isinstance(getattr(self, side), (str, type(None))):
                raise ConfigError(f"{side}={getattr(self, side)!r} must be None or a string")


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """Where the index is: ``db`` the store's URI, whose scheme picks the store
    (:mod:`mdchunk.index.stores`: a path or a pymilvus URI is Milvus, Lite or a server),
    ``collection`` the index's name in it, ``credential`` the server's credential (a Milvus
    token; never shown in a repr)."""

    db: str = "./mdchunk.db"
    collection: str = "mdchunk"
    credential: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.db, (str, os.PathLike)) or not str(self.db):
            raise ConfigError(f"db={self.db!r} must be a file path or a Milvus URI")
        object.__setattr__(self, "db", os.fspath(self.db))
        if not isinstance(self.collection, str) or not self.collection:
            raise ConfigError(f"collection={self.collection!r} must be a name")


@dataclass(frozen=True, slots=True)
class IndexConfig:
    """An indexing run: the chunker's config (which shapes every level), the embedder and store,
    and how the run goes; each field is the :func:`~mdchunk.index.index_paths` keyword of its
    name (docs/contract.md, "Indexing and search")."""

    chunker: ChunkerConfig = field(default_factory=ChunkerConfig)
    model_tokens: bool = True
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    analyzer: AnalyzerChoice = "auto"
    prune: bool = True
    rebuild: bool = True
    batch_chunks: int = 256
    wait: float = 0.0
    selection: Selection | None = None
    engine: Engine | None = None
    #: Embed each leaf's units too (sentences, list items, table rows, code lines:
    #: :mod:`mdchunk.index.units`) and score a leaf by its own vector and its best unit's.
    units: bool = False
    #: Add CJK character bigrams to what BM25 reads, of leaves and queries: on by default, since
    #: they raised paraphrased Chinese questions and lowered no lexical one (BENCHMARKS.md).
    bigrams: bool = True
    #: Every chunk's metadata defaults: a page's front matter overrides a key (as a site's
    #: params do); stored and filterable, never in a chunk's text. A changed one rewrites
    #: every document (the manifest records it: :func:`.build_config.run_fingerprint`).
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", MappingProxyType(checked_metadata(self.metadata)))
        if self.analyzer != AUTO and self.analyzer not in ANALYZER_NAMES:
            raise ConfigError(f"analyzer={self.analyzer!r} must be 'auto' or one of "
                              f"{', '.join(ANALYZER_NAMES)}")
        if isinstance(self.batch_chunks, bool) or not isinstance(self.batch_chunks, int) \
                or self.batch_chunks < 1:
            raise ConfigError(f"batch_chunks={self.batch_chunks} must be at least 1")
        if isinstance(self.wait, bool) or not isinstance(self.wait, (int, float)) \
                or self.wait < 0:
            raise ConfigError(f"wait={self.wait!r} must be a number of seconds, 0 or more")


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """A search: each field is the :func:`~mdchunk.index.search` keyword of its name
    (docs/contract.md, "Indexing and search"). ``depth`` is the candidate pool each side draws;
    ``k`` only cuts the result, so the first hits never depend on how many are asked (fused
    ranks and min-max scores depend on the lists' length)."""

    store: StoreConfig = field(default_factory=StoreConfig)
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    k: int = 5
    mode: SearchMode = "hybrid"
    path_prefix: str | None = None
    weights: tuple[float, float] | None = None
    fusion: FusionName | None = None
    expand: Expand = "none"
    rerank: str | Reranker | None = None
    collapse: bool = True
    per_page: int | None = None
    where: str | None = None
    depth: int = DEFAULT_DEPTH

    def __post_init__(self) -> None:
        if self.where is not None:
            parse_where(self.where)  # a malformed filter is said before any store is opened
        if self.mode not in get_args(SearchMode):
            raise ConfigError(f"mode={self.mode!r} must be 'hybrid', 'dense' or 'bm25'")
        if self.expand not in EXPAND_NAMES:
            raise ConfigError(f"expand={self.expand!r} must be 'none', 'parent' or 'auto'")
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ConfigError(f"k={self.k!r} must be a positive integer")
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise ConfigError(f"depth={self.depth!r} must be a positive integer")
        if self.k > self.depth:
            raise ConfigError(f"k={self.k} is more than the candidate pool (depth="
                              f"{self.depth}): ask for fewer hits, or a deeper pool")
        if not isinstance(self.collapse, bool):
            raise ConfigError(f"collapse={self.collapse!r} must be True or False")
        if self.per_page is not None and (isinstance(self.per_page, bool)
                                          or not isinstance(self.per_page, int)
                                          or self.per_page < 1):
            raise ConfigError(f"per_page={self.per_page!r} must be None or a positive integer")
        self.fused()  # checked now, not when the store answers
        rerank: object = self.rerank
        if rerank is not None:
            if isinstance(rerank, os.PathLike):  # a folder, kept as a string like db's
                rerank = os.fspath(rerank)
                object.__setattr__(self, "rerank", rerank)
            if not callable(rerank) and not (isinstance(rerank, str) and rerank):
                raise ConfigError(f"rerank={self.rerank!r} must be None, a cross-encoder's "
                                  "name or folder, or a callable (query, texts) -> scores")
        if self.weights is not None:
            object.__setattr__(self, "weights", tuple(self.weights))

    def fused(self) -> Fusion:
        """The fusion asked for: the default's method and weights where none is named."""
        try:
            return Fusion(self.fusion or DEFAULT_FUSION.method,
                          tuple(self.weights) if self.weights is not None  # type: ignore[arg-type]
                          else DEFAULT_FUSION.weights)
        except (TypeError, ValueError) as exc:
            raise ConfigError(str(exc)) from exc


def checked_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """``metadata`` as a run stores it: a JSON object's copy (tuples become lists), checked
    once. Keys are non-empty strings, values JSON has a type for (no NaN); a
    :class:`ConfigError` names the first that is not."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise ConfigError(f"metadata={metadata!r} must be a mapping of names to JSON values")
    checked: dict[str, Any] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not key:
            raise ConfigError(f"metadata key {key!r} must be a non-empty string")
        try:
            checked[key] = json.loads(json.dumps(value, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"metadata[{key!r}] = {value!r} is not a JSON value ({exc})"
                              ) from None
    return checked
