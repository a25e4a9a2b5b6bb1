"""The ``/v1`` endpoints: each reads its request model, asks the :class:`~.service.Service`,
and answers its response model. Plain ``def`` functions, so that FastAPI runs them on its
thread pool and a search never blocks the event loop."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request

from ..index.store import SearchHit
from .models import (
    ChunkRequest,
    ChunkResponse,
    CollectionsResponse,
    EmbedRequest,
    EmbedResponse,
    ErrorResponse,
    SearchRequest,
    SearchResponse,
)
from .service import Service, chunk_document
from .state import ServerState

__all__ = ["ERRORS", "router", "served", "state_of"]

#: The error answers every endpoint may give, for the OpenAPI schema.
ERRORS: dict[int | str, dict[str, object]] = {
    status: {"model": ErrorResponse, "description": description}
    for status, description in ((400, "Bad input"), (401, "No valid bearer token"),
                                (404, "Not found"), (413, "Body too large"),
                                (503, "Busy, timed out, or not ready"))}

router = APIRouter(prefix="/v1", responses=ERRORS)


def state_of(request: Request) -> ServerState:
    state: ServerState = request.app.state.server
    return state


def served(request: Request) -> Service:
    """The open service (503 while it opens)."""
    return state_of(request).service


ServiceDep = Annotated[Service, Depends(served)]


@router.post("/chunk")
def chunk(body: ChunkRequest) -> ChunkResponse:
    """Chunk a text, or a file's bytes (base64) named by ``name``: chunks exactly as
    ``Chunk.to_dict()`` gives them; with ``levels``, every level of a hierarchy."""
    return ChunkResponse(chunks=chunk_document(body.text, body.file_base64, body.name,
                                               body.reader, body.chunker_config()))


@router.post("/embed")
def embed(body: EmbedRequest, service: ServiceDep) -> EmbedResponse:
    """Vectors of ``texts`` by the served collection's model."""
    return EmbedResponse(**service.model_info(), vectors=service.embed(body.texts))


@router.post("/search")
def search(body: SearchRequest, service: ServiceDep) -> SearchResponse:
    """Search the served index, as ``mdchunk search`` does: hits with their provenance,
    reranked by the server's reranker when it has one (unless ``rerank`` is false)."""
    hits = service.search(body.search_config(), body.query, rerank=body.rerank)
    return SearchResponse(hits=hits)


@router.get("/chunks/{chunk_id}")
def get_chunk(chunk_id: str, service: ServiceDep,
              expand: Annotated[Literal["none", "parent"], Query()] = "none") -> SearchHit:
    """A stored chunk by its id; with ``expand=parent``, a leaf's parent (its ``marks``
    showing where the leaf lies)."""
    return service.chunk(chunk_id, expand_parent=expand == "parent")


@router.get("/collections")
def collections(service: ServiceDep) -> CollectionsResponse:
    """The served collection: model, dimension, backend, analyzer, counts."""
    return CollectionsResponse(collections=service.collections())
