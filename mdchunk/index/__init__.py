"""Index: embeddings, storage (Milvus Lite or a server), incremental indexing, and search.

The embedders come from :mod:`mdchunk.embedding` (three names are re-exported here);
``config`` (what a run and a search are configured with, each a frozen value checked once;
``options``, their fields as keywords), ``store`` (the storage protocols and the values that
cross them; ``rows``, the layout of a stored chunk), ``stores`` (the registry that opens a
store by its URI's scheme), ``milvus`` (Milvus's implementation, a package holding everything
Milvus-specific) and ``memory`` (an in-memory one), ``indexer`` (``build_config``,
``planning`` a run, then ``applying`` it crash-safely, under a ``lock``), ``search`` (a
store's dense and BM25 sides, fused by ``fusion``), ``evaluate`` (one's own questions
asked and judged), and ``expand`` (widening leaf hits to
their parents). Importing this package loads neither torch nor pymilvus: they load on first
use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

# names that are also submodules' are imported now (mdchunk.lazy says why)
from .evaluate import evaluate
from .search import search

if TYPE_CHECKING:
    from ..embedding import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder
    from .config import EmbedderConfig, IndexConfig, SearchConfig, StoreConfig
    from .evaluate import EvalReport, Question, read_questions
    from .indexer import (
        IndexPlan,
        IndexReport,
        chunker_config,
        config_fingerprint,
        detect_analyzer,
        index_config,
        index_paths,
        plan_index,
        run_index,
    )
    from .options import IndexOptions, SearchOptions
    from .store import (
        ChunkStore,
        Expand,
        IndexMeta,
        Manifest,
        ManifestEntry,
        SearchHit,
        SearchMode,
    )
    from .stores import open_store

__all__ = ["DEFAULT_MODEL", "ChunkStore", "Embedder", "EmbedderConfig", "EvalReport", "Expand",
           "IndexConfig", "IndexMeta", "IndexOptions", "IndexPlan", "IndexReport", "Manifest",
           "ManifestEntry", "Question", "SearchConfig", "SearchHit", "SearchMode",
           "SearchOptions", "SentenceTransformerEmbedder", "StoreConfig", "chunker_config",
           "config_fingerprint", "detect_analyzer", "evaluate", "index_config", "index_paths",
           "open_store", "plan_index", "read_questions", "run_index", "search"]

__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(["DEFAULT_MODEL", "Embedder", "SentenceTransformerEmbedder"], "..embedding"),
    **dict.fromkeys(["EmbedderConfig", "IndexConfig", "SearchConfig", "StoreConfig"], ".config"),
    **dict.fromkeys(["EvalReport", "Question", "read_questions"], ".evaluate"),
    **dict.fromkeys(["IndexPlan", "IndexReport", "chunker_config", "config_fingerprint",
                     "detect_analyzer", "index_config", "index_paths", "plan_index",
                     "run_index"], ".indexer"),
    **dict.fromkeys(["IndexOptions", "SearchOptions"], ".options"),
    **dict.fromkeys(["ChunkStore", "Expand", "IndexMeta", "Manifest", "ManifestEntry",
                     "SearchHit", "SearchMode"], ".store"),
    "open_store": ".stores",
})
