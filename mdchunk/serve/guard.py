"""The bounds every request passes before the app sees it, as one ASGI middleware: the bearer
token (compared in constant time), the body size limit (413), the concurrency limit (503 with
``Retry-After``: a request beyond it is refused at once, never queued) and the per-request
timeout (503); each request counted in :mod:`.metrics`."""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .metrics import Metrics

__all__ = ["ERROR_STATUS", "Guard", "error_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Paths anyone may call, token or not, busy or not: a supervisor's probes.
_OPEN = frozenset({"/healthz", "/readyz"})
#: The status of each error code the server answers with.
ERROR_STATUS = {"bad_request": 400, "unauthorized": 401, "not_found": 404, "locked": 409,
                "too_large": 413, "busy": 503, "timeout": 503, "not_ready": 503,
                "store": 503, "internal": 500, "method_not_allowed": 405, "forbidden": 403}


def error_body(code: str, message: str) -> bytes:
    """An error as every endpoint answers one: ``{"error": {"code", "message"}}``."""
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class _TooLarge(Exception):
    """The body grew past the limit while it was being read."""


class Guard:
    """Wraps the app: see the module's docstring. ``token`` ``None`` lets every request in."""

    def __init__(self, app: App, *, token: str | None, max_concurrent: int,
                 max_body_bytes: int, timeout: float, metrics: Metrics) -> None:
        self.app = app
        self.token = token
        self.max_concurrent = max_concurrent
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout
        self.metrics = metrics
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = {"code": 500, "sent": False}

        async def send_noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"], status["sent"] = message["status"], True
            await send(message)

        self.metrics.in_flight.inc()
        try:
            await self._guarded(scope, receive, send_noting, status)
        finally:
            self.metrics.in_flight.dec()
            self.metrics.observe(scope["method"], scope["path"], int(status["code"]),
                                 time.perf_counter() - started)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send,
                       status: dict[str, Any]) -> None:
        path = scope["path"]
        if path in _OPEN:
            await self.app(scope, receive, send)
            return
        # a browser's CORS preflight never carries the token; it reads nothing (the CORS
        # middleware answers it, or 405 where CORS is off)
        if scope["method"] != "OPTIONS" and not self._authorized(scope):
            await self._refuse(send, "unauthorized", "a valid bearer token is required",
                               [(b"www-authenticate", b"Bearer")])
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await self._too_large(send)
            return
        if self.in_flight >= self.max_concurrent:
            await self._refuse(send, "busy", f"{self.max_concurrent} requests are being "
                               "answered; try again shortly", [(b"retry-after", b"1")])
            return
        self.in_flight += 1
        over = {"limit": False, "answered": False}
        try:
            await asyncio.wait_for(self.app(scope, self._bounded(receive, over),
                                            self._replacing(send, over)), self.timeout)
        except _TooLarge:
            if not status["sent"]:
                await self._too_large(send)
        except TimeoutError:
            if not status["sent"]:
                await self._refuse(send, "timeout", f"no answer within {self.timeout:g}s",
                                   [(b"retry-after", b"1")])
        finally:
            self.in_flight -= 1

    def _replacing(self, send: Send, over: dict[str, bool]) -> Send:
        """``send``, except that once the body went past the limit the app's answer (a 400
        for a body it could not read) is replaced by the 413."""

        async def replacing(message: Message) -> None:
            if not over["limit"]:
                await send(message)
            elif not over["answered"]:
                over["answered"] = True
                await self._too_large(send)

        return replacing

    async def _too_large(self, send: Send) -> None:
        await self._refuse(send, "too_large", f"the body is over {self.max_body_bytes} bytes")

    def _authorized(self, scope: Scope) -> bool:
        if self.token is None:
            return True
        given = dict(scope["headers"]).get(b"authorization", b"")
        expected = b"Bearer " + self.token.encode()
        return hmac.compare_digest(given, expected)

    def _bounded(self, receive: Receive, over: dict[str, bool]) -> Receive:
        """``receive``, raising :class:`_TooLarge` once the body passes the limit (a body
        sent in chunks declares no length)."""
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body_bytes:
                    over["limit"] = True
                    raise _TooLarge
            return message

        return bounded

    async def _refuse(self, send: Send, code: str, message: str,
                      headers: list[tuple[bytes, bytes]] | None = None) -> None:
        self.metrics.errors.labels(code).inc()
        body = error_body(code, message)
        await send({"type": "http.response.start", "status": ERROR_STATUS[code],
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                *(headers or [])]})
        await send({"type": "http.response.body", "body": body})


def _content_length(scope: Scope) -> int | None:
    value = dict(scope["headers"]).get(b"content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
