"""The warm half of a server: the embedder and the open store, made once and shared by every
request. Each method is one endpoint's work, done by the library; query texts go to the model
through one :class:`~.batching.EmbedBatcher`, and each step that waits first checks the request's
:class:`~.deadline.Deadline`."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import PurePosixPath
from typing import Any

from ..chunks import Chunker
from ..chunks.read import read
from ..config import ChunkerConfig
from ..embedding import Embedder, backend_of, load_embedder, recorded_backend
from ..embedding.rerankers import Reranker, load_reranker, rerank_scores
from ..errors import InputError
from ..formats import format_for
from ..formats.registry import ReaderChoice
from ..index.config import SearchConfig
from ..index.expand import expand_hits
from ..index.language import AUTO
from ..index.rows import leaf_hit
from ..index.search import search_store
from ..index.store import ChunkStore, IndexMeta, SearchHit
from ..index.stores import open_store, stored_counts
from ..text import ENCODING_KEY
from ..text.decode import decode_bytes
from .batching import EmbedBatcher
from .config import ServeConfig
from .deadline import current_deadline

__all__ = ["NotFound", "Service", "chunk_document", "open_reranker"]


#: How often a request waiting for the store looks whether it has ended.
_STORE_POLL = 0.05


class NotFound(LookupError):
    """What a request names is not there (a chunk id, a job): answered 404."""


def chunk_document(text: str | None, file_base64: str | None, name: str,
                   reader: ReaderChoice, config: ChunkerConfig) -> list[dict[str, Any]]:
    """The chunks of a text, or of a file's bytes (base64) read as a file named ``name`` is
    (decoded, its reader from its extension and content), each as :meth:`Chunk.to_dict`."""
    if (text is None) == (file_base64 is None):
        raise InputError("give either text or file_base64, not both or neither")
    metadata: dict[str, Any] = {}
    if file_base64 is not None:
        try:
            raw = base64.b64decode(file_base64, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InputError(f"{name}: file_base64 is not base64") from exc
        decoded = decode_bytes(raw, name)
        text, metadata = decoded.text, {ENCODING_KEY: decoded.encoding}
        if reader == AUTO:
            reader = format_for(PurePosixPath(name).suffix, text)
    assert text is not None  # one of the two was given
    reading = read(text, name, metadata, config, reader=reader)
    return [chunk.to_dict() for chunk in Chunker(config).chunk_reading(reading, name)]


def open_reranker(spec: str | Reranker | None, warm_query: str) -> Reranker | None:
    """The reranker ``spec`` names (``None``: none), its weights loaded by scoring one pair
    now, so that a server refuses one it cannot load when it starts, not at a search."""
    if spec is None:
        return None
    reranker = load_reranker(spec)
    rerank_scores(reranker, warm_query, [warm_query])
    return reranker


class Service:
    """One index served: its store opened once, its model loaded once (the collection's own;
    for an index not built yet, ``config.embedder``'s), and its reranker if it has one
    (``config.rerank``), all shared by all requests."""

    def __init__(self, config: ServeConfig, store: ChunkStore | None = None,
                 embedder: Embedder | None = None) -> None:
        self.config = config
        # first: a reranker misspelt is said before the store is opened or the model loaded
        self.reranker = open_reranker(config.rerank, config.warm_query)
        # only a server that may index makes a new index
        self.store: ChunkStore = store if store is not None else open_store(
            config.store, create=config.allow_index)
        self.meta: IndexMeta | None = self.store.meta()
        self.embedder = embedder if embedder is not None else self._load_embedder()
        self.ready = False
        #: Milvus Lite answers one call at a time per client; a server's client is thread-safe
        #: but the lock costs nothing beside a search's round trip.
        self._store_lock = threading.Lock()
        self.batcher = EmbedBatcher(self._model_embed, max_texts=config.batch_texts,
                                    max_wait=config.batch_wait)

    def _model_embed(self, texts: list[str]) -> Any:
        """The served model's vectors (read at each call: an indexing job may change it)."""
        return self.embedder.embed(texts)

    def _load_embedder(self) -> Embedder:
        if self.meta is None:
            chosen = self.config.embedder.model
            return load_embedder(None if chosen == AUTO else chosen,
                                 self.config.embedder.backend)
        embedder = load_embedder(self.meta.model, recorded_backend(self.meta.backend))
        self.store.check(model=embedder.name, dim=embedder.dim)
        return embedder

    def warm_up(self) -> None:
        """Embed and search once, so that the first request pays no loading; then ready."""
        self.embed([self.config.warm_query])
        if self.meta is not None:
            self.search(SearchConfig(k=1), self.config.warm_query)
        self.ready = True

    def refresh(self) -> None:
        """Read the index's meta again (after an indexing job made or rebuilt it)."""
        with self._store_held():
            self.meta = self.store.meta()
        if self.meta is not None and self.meta.model != self.embedder.name:
            self.embedder = self._load_embedder()

    def close(self) -> None:
        self.batcher.close()
        self.store.close()

    @contextmanager
    def _store_held(self) -> Iterator[None]:
        """The store, held for this request alone; waiting for it ends with the request."""
        deadline = current_deadline(self.config.timeout)
        while not self._store_lock.acquire(timeout=_STORE_POLL):
            deadline.check()
        try:
            deadline.check()
            yield
        finally:
            self._store_lock.release()

    # -- endpoints --------------------------------------------------------------------------

    def model_info(self) -> dict[str, Any]:
        return {"model": self.embedder.name, "dim": self.embedder.dim,
                "backend": backend_of(self.embedder)}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self.batcher.embed(texts, current_deadline(self.config.timeout))
        return [[float(x) for x in vector] for vector in vectors]

    def _check_index(self) -> IndexMeta:
        if self.meta is None:
            raise NotFound(f"no collection {self.config.store.collection!r} in "
                           f"{self.config.store.db}: index it first")
        return self.meta

    def search(self, search: SearchConfig, query: str, *,
               rerank: bool | None = None) -> list[SearchHit]:
        """The hits of ``query`` as ``search`` says (its store, embedder and reranker are the
        served ones, whatever it names): reranked by the served reranker unless ``rerank`` is
        false; ``rerank`` true where the server has none is refused."""
        if not query.strip():
            raise InputError("the query is empty")
        search = dataclasses.replace(search, rerank=self._reranker(rerank))
        meta = self._check_index()
        vector = None if search.mode == "bm25" else self.batcher.embed(  # after the query
            [meta.query_prompt + query], current_deadline(self.config.timeout))[0]  # prompt
        # the reranker, like the store, is used by one request at a time: a fast tokenizer
        # called from two threads at once may refuse ("Already borrowed")
        with self._store_held():
            return search_store(self.store, query, vector, search, index=meta)

    def _reranker(self, asked: bool | None) -> Reranker | None:
        if asked is False:
            return None
        if asked and self.reranker is None:
            raise InputError("rerank=true: this server has no reranker (start it with "
                             "--rerank MODEL); leave rerank out, or set it false")
        return self.reranker

    def chunk(self, chunk_id: str, *, expand_parent: bool = False) -> SearchHit:
        """The stored chunk ``chunk_id`` (a leaf or a parent), or with ``expand_parent`` a
        leaf's parent marking where the leaf lies in it."""
        self._check_index()
        with self._store_held():
            leaves = self.store.leaf_rows([chunk_id])
            if leaves:
                hit = leaf_hit(0.0, leaves[0])
                if not expand_parent:
                    return hit
                expanded = expand_hits([hit], "parent", self._parent_rows, 1)
                return expanded[0] if expanded else hit
        parent = self.parents_of([chunk_id]).get(chunk_id)
        if parent is None:
            raise NotFound(f"no chunk {chunk_id!r} in collection {self.config.store.collection!r}")
        return parent

    def _parent_rows(self, ids: Sequence[str]) -> Mapping[str, Mapping[str, Any]]:
        return {row["id"]: row for row in self.store.parents(list(dict.fromkeys(ids)))}

    def parents_of(self, ids: Sequence[str]) -> dict[str, SearchHit]:
        """The stored parents among ``ids``, by id (one store call for a page of hits)."""
        with self._store_held():
            rows = self._parent_rows(ids)
        return {str(key): dataclasses.replace(leaf_hit(0.0, row), marks=(), leaf_ids=())
                for key, row in rows.items()}

    def collections(self) -> list[dict[str, Any]]:
        """The served collection: what it was built with, how many leaves it holds and how
        many documents (those whose write is done)."""
        meta = self.meta
        if meta is None:
            return []
        with self._store_held():
            count, documents = stored_counts(self.store)
        return [{"name": self.config.store.collection, "db": self.config.store.db,
                 "model": meta.model, "dim": meta.dim, "backend": meta.backend,
                 "analyzer": meta.analyzer, "schema": meta.schema, "chunks": count,
                 "documents": documents}]

