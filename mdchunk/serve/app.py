"""The server's app: :func:`create_app` builds a FastAPI app from a frozen
:class:`~.config.ServeConfig`, its ``/v1`` API (:mod:`.api`), probes and metrics, every error
answered as ``{"error": {"code", "message"}}`` with the status that fits and never a
traceback, all behind the :class:`~.guard.Guard`."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from .. import __version__
from ..errors import ConfigError, DependencyError, InputError, LockedError, StoreError
from .api import router, state_of
from .config import ServeConfig
from .deadline import Abandoned
from .docs_page import add_docs
from .guard import ERROR_STATUS, Guard
from .jobs import Forbidden, add_index_routes
from .metrics import CONTENT_TYPE
from .page import add_page
from .service import NotFound, Service
from .state import NotReady, ServerState

__all__ = ["create_app", "error_response"]

log = logging.getLogger(__name__)

#: Library errors and the code each is answered with (the first that matches wins).
_CODES: tuple[tuple[type[Exception], str], ...] = (
    (NotFound, "not_found"), (LockedError, "locked"), (NotReady, "not_ready"),
    (InputError, "bad_request"), (ConfigError, "bad_request"), (DependencyError, "bad_request"),
    (StoreError, "store"), (RecursionError, "bad_request"), (Forbidden, "forbidden"),
    (Abandoned, "timeout"))
_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 409: "locked", 413: "too_large", 503: "busy"}


def error_response(request: Request, code: str, message: str,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    """The error answer, counted in the server's metrics."""
    state_of(request).metrics.errors.labels(code).inc()
    return JSONResponse({"error": {"code": code, "message": message}},
                        status_code=ERROR_STATUS[code], headers=headers)


def create_app(config: ServeConfig, service: Service | None = None) -> FastAPI:
    """The app serving ``config``'s index. ``service`` (already open and warm) is used as it
    is; without one, the app opens its own in the background when it starts."""
    state = ServerState(config, service)
    mcp = _mcp(state)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if service is None:
            state.open_in_background()
        _enough_threads(config.max_concurrent)
        try:
            async with AsyncExitStack() as stack:
                if mcp is not None and not state.mcp_started:
                    # once per app: the SDK's session manager runs once (a test client may
                    # start an app's lifespan again)
                    state.mcp_started = True
                    await stack.enter_async_context(mcp[0].session_manager.run())
                yield
        finally:
            jobs.shutdown()
            if service is None:
                state.wait_open(timeout=1)  # a model still loading is not waited for
                state.close()

    app = FastAPI(title="mdchunk serve", version=__version__, lifespan=lifespan,
                  description="Chunk, embed and search a Markdown knowledge base over HTTP.",
                  docs_url=None, redoc_url=None)  # ours work offline: .docs_page
    app.state.server = state
    app.include_router(router)
    _add_probes(app)
    _add_error_handlers(app)
    jobs = add_index_routes(app, state)
    add_page(app)
    add_docs(app)
    if mcp is not None:
        app.router.routes.extend(mcp[1].routes)  # /mcp, outside the OpenAPI schema
    if config.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(config.cors_origins),
                           allow_methods=["GET", "POST"],
                           allow_headers=["authorization", "content-type"])
    app.add_middleware(Guard, token=config.token, admission=state.admission,
                       max_body_bytes=config.max_body_bytes, timeout=config.timeout,
                       metrics=state.metrics)
    return app


def _enough_threads(running: int) -> None:
    """Worker threads for every request holding a slot, and as many again for work that
    ended with its request but has not reached its next check yet (the endpoints and MCP
    tools run on the event loop's default thread pool, 40 threads unless told)."""
    import anyio.to_thread

    limiter = anyio.to_thread.current_default_thread_limiter()
    limiter.total_tokens = max(limiter.total_tokens, 2 * running)


def _mcp(state: ServerState) -> tuple[Any, Any] | None:
    """The MCP server over ``state`` 's service and its streamable-HTTP app; ``None`` where
    the ``mcp`` SDK is not installed (the HTTP API works without it)."""
    try:
        from .mcp_tools import mcp_server, streamable_app
    except ImportError:
        return None
    server = mcp_server(lambda: state.service)
    return server, streamable_app(server, state.config.host)


def _add_probes(app: FastAPI) -> None:
    @app.get("/healthz", tags=["probes"])
    def healthz() -> dict[str, str]:
        """Alive: the process answers."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["probes"], responses={503: {"description": "Not ready yet"}})
    def readyz(request: Request) -> Any:
        """Ready: the model is loaded and the index open, and a warm-up query has run."""
        state = state_of(request)
        if not state.ready:
            message = (f"the index could not be opened: {state.failure}" if state.failure
                       else "loading the model and the index")
            return error_response(request, "not_ready", message, {"Retry-After": "1"})
        return {"status": "ready"}

    @app.get("/metrics", tags=["probes"], response_class=Response)
    def metrics(request: Request) -> Response:
        """Requests, latency, errors and requests in flight, in Prometheus text format."""
        return Response(state_of(request).metrics.text(), media_type=CONTENT_TYPE)


def _add_error_handlers(app: FastAPI) -> None:
    async def known(request: Request, exc: Exception) -> JSONResponse:
        for kind, code in _CODES:
            if isinstance(exc, kind):
                message = str(exc).splitlines()[0] if str(exc) else code
                headers = {"Retry-After": "1"} if ERROR_STATUS[code] == 503 else None
                return error_response(request, code, message, headers)
        log.exception("unexpected error answering %s", request.url.path)
        return error_response(request, "internal", "internal error (see the server's log)")

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'] if p != 'body') or 'body'}: {error['msg']}"
            for error in exc.errors()[:5])
        return error_response(request, "bad_request", problems or "invalid request")

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = _HTTP_CODES.get(exc.status_code, "bad_request")
        return error_response(request, code, str(exc.detail))

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)
    for kind, _code in _CODES:  # answered by the inner handler: no traceback logged
        app.add_exception_handler(kind, known)
    app.add_exception_handler(Exception, known)
