"""The commands that serve an index: ``serve`` (HTTP, with MCP mounted) and ``mcp`` (the Model
Context Protocol over stdio). Their shared flags come from :mod:`.options`; the server itself
is :mod:`mdchunk.serve`, imported when a command runs, so that ``mdchunk chunk`` never loads
FastAPI."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..config import ChunkerConfig
from .options import CHUNKER_SHAPE, STORE, milvus_token, settings_of, with_flags
from .output import one_line_errors
from .settings import DEFAULT

if TYPE_CHECKING:
    from ..index.config import EmbedderConfig, StoreConfig

__all__ = ["mcp", "serve"]

_SERVE_HINT = "mdchunk serve needs its extra: pip install 'mdchunk[serve]'"


@with_flags(*STORE, "model", "backend", "rerank", "token", "old_token", "host", "port",
            "token_file", "max_concurrent", "max_queue", "queue_timeout", "batch_texts",
            "batch_wait_ms", "max_body_bytes", "timeout", "cors_origins", "allow_index",
            "index_roots", *CHUNKER_SHAPE, "levels", "base_url", "site", "parent_pid",
            "exit_on_stdin_eof")
def serve(
    flags: dict[str, object],
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on; anything but loopback needs a token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="0: any free port.")] = 8765,
    token_file: Annotated[Optional[Path], typer.Option(
        "--token-file", help="A file holding the bearer token every request must send "
                             "(else MDCHUNK_SERVE_TOKEN).")] = None,
    max_concurrent: Annotated[int, typer.Option(
        "--max-concurrent", help="Requests answered at once; more wait for a slot.")] = 16,
    max_queue: Annotated[int, typer.Option(
        "--max-queue", help="Requests that may wait for a slot; more get 503 + "
                            "Retry-After.")] = 512,
    queue_timeout: Annotated[float, typer.Option(
        "--queue-timeout", help="Seconds a request may wait for a slot; longer gets 503 + "
                                "Retry-After.")] = 30.0,
    batch_texts: Annotated[int, typer.Option(
        "--batch-texts", help="Most query texts of concurrent requests embedded by one model "
                              "call (1: no batching).")] = 64,
    batch_wait_ms: Annotated[float, typer.Option(
        "--batch-wait-ms", help="Milliseconds a model call may wait for more requests' "
                                "texts.")] = 2.0,
    max_body_bytes: Annotated[int, typer.Option(
        "--max-body-bytes", help="Largest request body; larger gets 413.")] = 8 * 1024 * 1024,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds a request's work may take; longer gets 503 and its work "
                          "stops.")] = 30.0,
    cors_origins: Annotated[Optional[list[str]], typer.Option(
        "--cors-origin", help="A browser origin allowed to call (repeatable; none: CORS "
                              "off).")] = None,
    allow_index: Annotated[bool, typer.Option(
        "--allow-index", help="Offer POST /v1/index, reading only under --index-root.")] = False,
    index_roots: Annotated[Optional[list[Path]], typer.Option(
        "--index-root", help="A folder POST /v1/index may read (repeatable).")] = None,
    parent_pid: Annotated[Optional[int], typer.Option(
        "--parent-pid", help="Exit within a second or two of this process's end.")] = None,
    exit_on_stdin_eof: Annotated[bool, typer.Option(
        "--exit-on-stdin-eof", help="Exit when stdin closes.")] = False,
) -> None:
    """Serve an index over HTTP (/v1 API, MCP at /mcp, a search page at /).

    The model and the index are opened once, and a --rerank cross-encoder before the address
    is bound (it then reranks every search unless a request says "rerank": false); the address
    is printed as one JSON line on stdout once the server accepts connections. SIGTERM answers
    the requests under way, then exits 0."""
    with one_line_errors():
        try:
            from ..serve import ServeConfig, read_token
            from ..serve.runner import serve as run_server
        except ImportError as exc:
            raise typer.BadParameter(_SERVE_HINT) from exc
        store, embedder, chunker = _served(flags)
        config = ServeConfig(
            store, chunker, embedder, host=host, port=port, token=read_token(token_file),
            max_concurrent=max_concurrent, max_queue=max_queue, queue_timeout=queue_timeout,
            batch_texts=batch_texts, batch_wait=batch_wait_ms / 1000,
            max_body_bytes=max_body_bytes, timeout=timeout,
            cors_origins=tuple(cors_origins or ()), allow_index=allow_index,
            index_roots=tuple(index_roots or ()), rerank=_reranker(flags))
        raise typer.Exit(run_server(config, parent_pid=parent_pid,
                                    exit_on_stdin_eof=exit_on_stdin_eof))


@with_flags(*STORE, "model", "backend", "rerank", "token", "old_token")
def mcp(flags: dict[str, object]) -> None:
    """Serve an index's search over the Model Context Protocol on stdio (tools: search,
    get_chunk), for an agent that starts it."""
    with one_line_errors():
        try:
            from ..serve import ServeConfig
            from ..serve.mcp_tools import run_stdio
        except ImportError as exc:
            raise typer.BadParameter(_SERVE_HINT) from exc
        store, embedder, chunker = _served(flags)
        run_stdio(ServeConfig(store, chunker, embedder, rerank=_reranker(flags)))


def _reranker(flags: dict[str, object]) -> str | None:
    """The cross-encoder ``--rerank`` names (none: the server does not rerank)."""
    rerank = flags["rerank"]
    return None if rerank is None else str(rerank)


def _served(flags: dict[str, object]) -> tuple[StoreConfig, EmbedderConfig, ChunkerConfig]:
    """The index, model and chunker a server is configured with, from the settings."""
    from ..index.config import EmbedderConfig, StoreConfig

    settings = settings_of(flags)
    chunker = settings.chunker()
    return (StoreConfig(settings.value("db"), settings.value("collection"), milvus_token(flags)),
            EmbedderConfig(settings.value("model"),
                           None if settings.origin("backend") == DEFAULT
                           else settings.value("backend")),
            chunker)
