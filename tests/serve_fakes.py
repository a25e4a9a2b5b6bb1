"""A served index without Milvus or a model, for the server's fast tests: real chunks of a small
knowledge base (a two-level hierarchy) in the in-memory store of test_store_interface.py,
embedded by the hash embedder of conftest_milvus.py. Everything above the store (the service,
the app, the guard) is the real thing."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from mdchunk import Chunker, ChunkerConfig
from mdchunk.index.rows import chunk_row, document_version, parent_row
from mdchunk.index.store import IndexMeta, ManifestEntry
from mdchunk.serve import ServeConfig
from mdchunk.serve.service import Service
from tests.conftest_milvus import HashEmbedder
from tests.test_store_interface import MemoryStore

DOCS = {
    "ops/redis.md": "---\ntags: [cache, memory]\nversion: \"7.2\"\n---\n"
                    "# Redis memory\n\n## Eviction\n\nWhen used_memory reaches maxmemory, Redis "
                    "evicts keys by the maxmemory-policy such as allkeys-lru.\n\n"
                    "## Fragmentation\n\nA high mem_fragmentation_ratio means freed pages; "
                    "activedefrag reclaims them.\n",
    "ops/postgres.md": "# PostgreSQL\n\n## Replica lag\n\nA streaming replica behind the "
                       "primary shows a growing replay_lag.\n\n## Failover\n\nPromote the "
                       "standby with pg_ctl promote.\n",
}


class ServedStore(MemoryStore):
    """The in-memory store a fake server serves (the server reads it through the store protocol
    alone); a test's own store subclasses it."""


#: The index run's own metadata (``index --meta team=sre``): every chunk has it.
RUN_METADATA = {"team": "sre"}


def served_store(embedder: HashEmbedder, store: ServedStore | None = None) -> ServedStore:
    """Every document of :data:`DOCS` chunked at two levels, leaves embedded, parents kept,
    each chunk's metadata its front matter over :data:`RUN_METADATA` (as an index run writes
    them), in English, and one manifest entry a document; into ``store`` when given."""
    store = store if store is not None else ServedStore()
    store.open(IndexMeta(embedder.name, embedder.dim, "test", "standard"))
    chunker = Chunker(ChunkerConfig(levels=(256, 24), overlap_tokens=0))
    for doc_id, text in DOCS.items():
        chunks = [dataclasses.replace(c, metadata={**RUN_METADATA, **c.metadata})
                  for c in chunker.chunk(text, doc_id)]
        leaves = [c for c in chunks if c.level == max(x.level for x in chunks)]
        vectors = embedder.embed([c.embed_text for c in leaves])
        page = {"path": doc_id, "file_type": "md", "title": "T", "lang": "en",
                "version": document_version(chunks[0].metadata, doc_id)}
        store.add_metadata_keys(key for c in chunks for key in c.metadata)
        store.upsert_chunks([chunk_row(c, **page, vector=v) for c, v in zip(leaves, vectors)])
        store.upsert_parents([parent_row(c, **page, child_count=2)
                              for c in chunks if c not in leaves])
        store.manifest.put([ManifestEntry(doc_id, "hash", "test", len(leaves), doc_id)])
    return store


def fake_service(config: ServeConfig | None = None) -> Service:
    embedder = HashEmbedder(8)
    service = Service(config or ServeConfig(), store=served_store(embedder), embedder=embedder)
    service.warm_up()
    return service


@contextmanager
def live_server(token: str | None = None, config: ServeConfig | None = None,
                service: Service | None = None) -> Iterator[str]:
    """The app over ``service`` (default :func:`fake_service`), served by uvicorn on a thread
    on 127.0.0.1 (a free port): real HTTP for a client in another language or a browser.
    Yields its base URL."""
    import uvicorn

    from mdchunk.serve.app import create_app
    from mdchunk.serve.runner import bound_socket

    config = config or ServeConfig(port=0, token=token)
    sock = bound_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(create_app(config, service or fake_service(config)),
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
