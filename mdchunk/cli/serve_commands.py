"""The commands that serve an index: ``serve`` (HTTP, with MCP mounted) and ``mcp`` (the Model
Context Protocol over stdio). Their shared flags come from :mod:`.options`; the server itself
is :mod:`mdchunk.serve`, imported when a command runs, so that ``mdchunk chunk`` never loads
FastAPI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..config import ChunkerConfig
from .options import CHUNKER_SHAPE, STORE, Flag, settings_of, store_of, with_flags
from .output import one_line_errors
from .settings import DEFAULT

if TYPE_CHECKING:
    from ..index.config import EmbedderConfig, StoreConfig

__all__ = ["mcp", "serve"]

_SERVE_HINT = "mdchunk serve needs its extra: pip install 'mdchunk[serve]'"


def _server_flag(flag: str, kind: Any, default: object, text: str,
                 parse: Callable[[Any], object] = lambda value: value, key: str = "") -> Flag:
    """A server flag: ``--max-queue`` sets key ``max_queue`` unless ``key`` says otherwise."""
    return Flag(key or flag[2:].replace("-", "_"),
                Annotated[kind, typer.Option(flag, help=text)], parse, default)


#: The server's own flags, by parameter name: the fields of :class:`~mdchunk.serve.ServeConfig`
#: they set, and ``token_file``, ``parent_pid`` and ``exit_on_stdin_eof`` (the runner's).
SERVER_FLAGS: dict[str, Flag] = {
    "host": _server_flag("--host", str, "127.0.0.1",
                         "Address to listen on; anything but loopback needs a token."),
    "port": _server_flag("--port", int, 8765, "0: any free port."),
    "token_file": _server_flag("--token-file", Optional[Path], None,
                               "A file holding the bearer token every request must send "
                               "(else MDCHUNK_SERVE_TOKEN)."),
    "max_concurrent": _server_flag("--max-concurrent", int, 16,
                                   "Requests answered at once; more wait for a slot."),
    "max_queue": _server_flag("--max-queue", int, 512,
                              "Requests that may wait for a slot; more get 503 + Retry-After."),
    "queue_timeout": _server_flag("--queue-timeout", float, 30.0, "Seconds a request may wait "
                                  "for a slot; longer gets 503 + Retry-After."),
    "batch_texts": _server_flag("--batch-texts", int, 64, "Most query texts of concurrent "
                                "requests embedded by one model call (1: no batching)."),
    "batch_wait_ms": _server_flag("--batch-wait-ms", float, 2.0, "Milliseconds a model call "
                                  "may wait for more requests' texts.",
                                  lambda ms: ms / 1000, "batch_wait"),
    "max_body_bytes": _server_flag("--max-body-bytes", int, 8 * 1024 * 1024,
                                   "Largest request body; larger gets 413."),
    "timeout": _server_flag("--timeout", float, 30.0, "Seconds a request's work may take; "
                            "longer gets 503 and its work stops."),
    "cors_origins": _server_flag("--cors-origin", Optional[list[str]], None,
                                 "A browser origin allowed to call (repeatable; none: CORS off).",
                                 lambda values: tuple(values or ()), "cors_origins"),
    "allow_index": _server_flag("--allow-index", bool, False,
                                "Offer POST /v1/index, reading only under --index-root."),
    "index_roots": _server_flag("--index-root", Optional[list[Path]], None,
                                "A folder POST /v1/index may read (repeatable).",
                                lambda values: tuple(values or ()), "index_roots"),
    "parent_pid": _server_flag("--parent-pid", Optional[int], None,
                               "Exit within a second or two of this process's end."),
    "exit_on_stdin_eof": _server_flag("--exit-on-stdin-eof", bool, False,
                                      "Exit when stdin closes."),
}


@with_flags(*STORE, "model", "backend", "rerank", "token", "old_token", *list(SERVER_FLAGS)[:-2],
            *CHUNKER_SHAPE, "levels", "base_url", "site", "parent_pid", "exit_on_stdin_eof",
            table=SERVER_FLAGS)
def serve(flags: dict[str, object]) -> None:
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
        bounds: dict[str, Any] = {flag.key: flags[flag.key] for flag in SERVER_FLAGS.values()}
        token = read_token(bounds.pop("token_file"))
        parent_pid, exit_on_stdin_eof = bounds.pop("parent_pid"), bounds.pop("exit_on_stdin_eof")
        config = ServeConfig(store, chunker, embedder, token=token, rerank=_reranker(flags),
                             **bounds)
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
    from ..index.config import EmbedderConfig

    settings = settings_of(flags)
    chunker = settings.chunker()
    return (store_of(settings, flags),
            EmbedderConfig(settings.value("model"),
                           None if settings.origin("backend") == DEFAULT
                           else settings.value("backend")),
            chunker)
