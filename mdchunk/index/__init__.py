"""Index: embeddings, storage (:mod:`.stores` opens a store by its ``db``), incremental indexing,
and search. Importing this package loads neither torch nor pymilvus."""

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
