"""Index: embeddings, storage (:mod:`.stores` opens a store by its ``db``), incremental indexing,
and search. Importing this package loads neither torch nor pymilvus."""

from ..embedding import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder
from .config import EmbedderConfig, IndexConfig, SearchConfig, StoreConfig
from .evaluate import EvalReport, Question, evaluate, read_questions
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
from .search import search
from .store import ChunkStore, Expand, IndexMeta, Manifest, ManifestEntry, SearchHit, SearchMode
from .stores import open_store

__all__ = ["DEFAULT_MODEL", "ChunkStore", "Embedder", "EmbedderConfig", "EvalReport", "Expand",
           "IndexConfig", "IndexMeta", "IndexOptions", "IndexPlan", "IndexReport", "Manifest",
           "ManifestEntry", "Question", "SearchConfig", "SearchHit", "SearchMode",
           "SearchOptions", "SentenceTransformerEmbedder", "StoreConfig", "chunker_config",
           "config_fingerprint", "detect_analyzer", "evaluate", "index_config", "index_paths",
           "open_store", "plan_index", "read_questions", "run_index", "search"]
