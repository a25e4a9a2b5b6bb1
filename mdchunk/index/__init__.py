"""Index: embeddings, storage (Milvus Lite or a server), incremental indexing, and search.

``config`` (what a run and a search are configured with, each a frozen value checked once),
``embed`` (models, offline), ``store`` (the storage protocols and the values that cross them),
``milvus`` (their implementation, with ``milvus_collections`` and ``milvus_manifest``),
``indexer`` (``build_config``, ``planning`` a run, then ``applying`` it crash-safely),
``search``, and ``expand`` (widening leaf hits to their parents). Importing this package
loads neither torch nor pymilvus: they load on first use.
"""

from .config import EmbedderConfig, IndexConfig, SearchConfig, StoreConfig
from .embed import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder
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
from .search import search
from .store import ChunkStore, Expand, IndexMeta, Manifest, ManifestEntry, SearchHit, SearchMode

__all__ = ["DEFAULT_MODEL", "ChunkStore", "Embedder", "EmbedderConfig", "Expand", "IndexConfig",
           "IndexMeta", "IndexPlan", "IndexReport", "Manifest", "ManifestEntry", "SearchConfig",
           "SearchHit", "SearchMode", "SentenceTransformerEmbedder", "StoreConfig",
           "chunker_config", "config_fingerprint", "detect_analyzer", "index_config",
           "index_paths", "plan_index", "run_index", "search"]
