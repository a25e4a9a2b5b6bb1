"""The JSON that crosses ``/v1``: each request and response a pydantic model, so that the
OpenAPI schema (``docs/openapi.json``) says exactly what is accepted and returned, and a field
out of range is a 400 before any work is done."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..config import ChunkerConfig, HtmlComments, Oversized, Semantic
from ..formats.registry import ReaderChoice
from ..formats.sites import Site
from ..index.config import SearchConfig
from ..index.fusion import FusionName
from ..index.store import Expand, SearchHit, SearchMode

__all__ = ["ChunkRequest", "ChunkResponse", "CollectionsResponse", "EmbedRequest",
           "EmbedResponse", "ErrorBody", "ErrorResponse", "IndexRequest", "JobResponse",
           "SearchRequest", "SearchResponse"]

#: A tokenizer's name: a tiktoken encoding or a Hugging Face hub name, never a path that
#: climbs out of the working folder or starts at the root.
_NAME_PART = r"[A-Za-z0-9_][A-Za-z0-9_\-]*(\.[A-Za-z0-9_\-]+)*"
_TOKENIZER_NAME = rf"^{_NAME_PART}(/{_NAME_PART})?$"
_STRICT = ConfigDict(extra="forbid")
#: A hybrid search's weight of one side.
Weight = Annotated[float, Field(ge=0.0, le=1e6, allow_inf_nan=False)]


class ChunkerFields(BaseModel):
    """The :class:`~mdchunk.ChunkerConfig` fields a request may set (absent: the default).
    ``includes`` and ``semantic_model`` are not offered: they read files and load models
    named by the caller on the server's machine."""

    model_config = _STRICT

    max_tokens: int | None = Field(None, ge=1, le=65536)
    overlap_tokens: int | None = Field(None, ge=0, le=65536)
    min_tokens: int | None = Field(None, ge=1, le=65536)
    tokenizer: str | None = Field(None, pattern=_TOKENIZER_NAME, max_length=200)
    oversized: Oversized | None = None
    levels: list[int] | None = Field(None, min_length=1, max_length=8)
    html_comments: HtmlComments | None = None
    base_url: str | None = Field(None, max_length=2000)
    site: Site | None = None
    title_keys: list[str] | None = Field(None, max_length=16)
    clean: bool | None = None
    semantic: Semantic | None = None
    semantic_threshold: float | None = Field(None, ge=0.0, le=1.0)

    def chunker_config(self) -> ChunkerConfig:
        """The config these fields give (the library checks them: a bad one is a 400)."""
        return ChunkerConfig(**self.model_dump(include=set(ChunkerFields.model_fields),
                                               exclude_none=True))


class ChunkRequest(ChunkerFields):
    """A document to chunk: ``text``, or a file's bytes in base64 (``file_base64``) read as
    ``name`` says (its extension picks the reader unless ``reader`` does); with ``levels``,
    every level of a hierarchy."""

    text: str | None = None
    file_base64: str | None = None
    name: str = Field("", max_length=1000, description="The document id (a file's name).")
    reader: ReaderChoice = "auto"


class ChunkResponse(BaseModel):
    chunks: list[dict[str, Any]] = Field(description="Each as Chunk.to_dict() gives it.")


class EmbedRequest(BaseModel):
    model_config = _STRICT

    texts: list[str] = Field(min_length=1, max_length=512)


class EmbedResponse(BaseModel):
    model: str
    dim: int
    backend: str
    vectors: list[list[float]]


class SearchRequest(BaseModel):
    """What ``mdchunk search`` takes, its flags as fields; ``rerank`` says whether the
    server's own reranker is used (a request never names a model to load)."""

    model_config = _STRICT

    query: str = Field(min_length=1, max_length=10000)
    k: int = Field(5, ge=1, le=100)
    mode: SearchMode = "hybrid"
    path_prefix: str | None = Field(None, max_length=1000)
    #: A filter (``mdchunk search --where``'s language); a malformed one, or one naming an
    #: unknown field, is a 400 naming the column.
    where: str | None = Field(None, max_length=4000)
    weights: tuple[Weight, Weight] | None = None
    fusion: FusionName | None = None
    expand: Expand = "none"
    collapse: bool = Field(True, description="One hit for a passage found on several pages "
                                             "(the same text, or nearly), listing them all in "
                                             "its locations.")
    per_page: int | None = Field(None, ge=1, le=100, description="At most this many hits of "
                                                               "one page (absent: any number).")
    rerank: bool | None = Field(None, description="Rerank the candidates with the server's "
                                "cross-encoder (mdchunk serve --rerank), the hits then scored "
                                "by it; absent: on when the server has one. true on a server "
                                "without one is a 400.")

    def search_config(self) -> SearchConfig:
        return SearchConfig(k=self.k, mode=self.mode, path_prefix=self.path_prefix,
                            weights=self.weights, fusion=self.fusion, expand=self.expand,
                            collapse=self.collapse, per_page=self.per_page, where=self.where)


class SearchResponse(BaseModel):
    """The hits, each every field of :class:`~mdchunk.index.SearchHit` (provenance: path,
    lines, section path, url, score, level; ``marks`` where the matching leaves lie;
    ``locations`` every place its passage lies, its own first; ``matches`` the passages that
    best match the query, with their lines)."""

    hits: list[SearchHit]


class CollectionsResponse(BaseModel):
    collections: list[dict[str, Any]] = Field(
        description="Each served collection: name, db, model, dim, backend, analyzer, schema, "
                    "chunks (leaves) and documents.")


class IndexRequest(BaseModel):
    """Paths to index, each under one of the roots the server was started with, and metadata
    every chunk of theirs gets beside its page's front matter (``mdchunk index --meta``)."""

    model_config = _STRICT

    paths: list[str] = Field(min_length=1, max_length=1000)
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Keys and JSON values every chunk is given (front "
        "matter wins a key), for search filters (where) and hits' metadata; indexing the same "
        "documents with other metadata rewrites them.")


class JobResponse(BaseModel):
    id: str
    state: Literal["running", "done", "failed"]
    report: dict[str, Any] | None = None
    error: str | None = None


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorBody
