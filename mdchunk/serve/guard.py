"""The bounds every request passes before the app sees it, as one ASGI middleware: the bearer
token (constant-time), the body size limit (413), admission (:mod:`.admission`) and the
request's :class:`~.deadline.Deadline` (503 past its time); each request counted in
:mod:`.metrics`. Probes never wait.

The app runs as a task of its own while the guard watches the connection, so that a request
past its time, or whose client went away, is answered at once and its work stops at its next
step. A body over the limit gets 413 with a lingering close, as nginx does (the rest of the
body is drained, up to :data:`DRAIN_BYTES` for :data:`DRAIN_SECONDS`), so that a client that
sends its whole body before reading reads the 413, not a reset."""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .admission import Admission, Busy
from .deadline import Deadline, request_deadline
from .metrics import Metrics

__all__ = ["DRAIN_BYTES", "DRAIN_SECONDS", "ERROR_STATUS", "Guard", "error_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Paths anyone may call, token or not, busy or not: a supervisor's probes.
_OPEN = frozenset({"/healthz", "/readyz"})
#: Paths whose requests do the work and wait for a slot (the rest answer at once).
_ADMITTED = ("/v1/", "/mcp")
#: The status of each error code the server answers with.
ERROR_STATUS = {"bad_request": 400, "unauthorized": 401, "not_found": 404, "locked": 409,
                "too_large": 413, "busy": 503, "timeout": 503, "not_ready": 503,
                "store": 503, "internal": 500, "method_not_allowed": 405, "forbidden": 403}
#: The most of a body over the limit read and thrown away after the 413, and for how long.
DRAIN_BYTES = 256 * 1024 * 1024
DRAIN_SECONDS = 30.0
_RETRY = [(b"retry-after", b"1")]


def error_body(code: str, message: str) -> bytes:
    """An error as every endpoint answers one: ``{"error": {"code", "message"}}``."""
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class Guard:
    """Wraps the app: see the module's docstring. ``token`` ``None`` lets every request in."""

    def __init__(self, app: App, *, token: str | None, admission: Admission,
                 max_body_bytes: int, timeout: float, metrics: Metrics) -> None:
        self.app = app
        self.token = token
        self.admission = admission
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout
        self.metrics = metrics
        #: Apps still running after their request ended (kept until their thread returns).
        self._left: set[asyncio.Future[None]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = {"code": 500, "sent": False, "complete": False}

        async def send_noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"], status["sent"] = message["status"], True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                status["complete"] = True
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
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._too_large(scope, receive, send, 0)
            return
        admitted = path.startswith(_ADMITTED)
        if admitted:
            try:
                await self.admission.enter()
            except Busy as exc:
                await self._refuse(send, "busy", str(exc), _RETRY)
                return
        try:
            await self._answer(scope, receive, send, status)
        finally:
            if admitted:
                self.admission.leave()

    async def _answer(self, scope: Scope, receive: Receive, send: Send,
                      status: dict[str, Any]) -> None:
        """Read the body, then run the app until it answers, its time runs out (503) or the
        client goes away."""
        deadline = Deadline(self.timeout)
        try:
            async with asyncio.timeout(deadline.remaining()):
                body, seen = await self._body(receive)
        except TimeoutError:
            await self._refuse(send, "timeout", "the body did not arrive within "
                               f"{self.timeout:g}s", _RETRY)
            return
        if body is None:  # over the limit, or the client left while sending it
            if seen >= 0:
                await self._too_large(scope, receive, send, seen)
            return
        ended = asyncio.Event()  # no one waits for the app's answer any more
        pending = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay() -> Message:
            if pending:
                return pending.pop()
            await ended.wait()
            return {"type": "http.disconnect"}

        async def sending(message: Message) -> None:
            if not ended.is_set():  # else the guard answered, or no one reads: dropped
                await send(message)

        undo = request_deadline(deadline)  # the app's task and threads copy this context
        try:
            app = asyncio.ensure_future(self.app(scope, replay, sending))
        finally:
            undo()
        gone = asyncio.ensure_future(_client_gone(receive))
        try:
            await asyncio.wait({app, gone}, timeout=deadline.remaining(),
                               return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the server stops
            deadline.cancel("the server is stopping")
            app.cancel()
            gone.cancel()
            raise
        if app.done() or (gone.done() and status["complete"]) \
                or (status["sent"] and not gone.done()):  # an answer under way is finished
            gone.cancel()
            await app  # the app's own error, if it raised, goes on as before
            return
        reason = "client_gone" if gone.done() else "timeout"
        deadline.cancel("the client went away" if gone.done()
                        else f"no answer within {self.timeout:g}s")
        self.metrics.abandoned.labels(reason).inc()
        ended.set()
        app.cancel()
        self._leave_running(app)
        gone.cancel()
        if reason == "timeout":
            await self._refuse(send, "timeout", f"no answer within {self.timeout:g}s", _RETRY)

    def _leave_running(self, app: asyncio.Future[None]) -> None:
        """Keep ``app`` until it ends (a worker thread is not cancelled: it returns at its next
        check of the deadline), its outcome read so that nothing is logged for it."""
        self._left.add(app)

        def ended(task: asyncio.Future[None]) -> None:
            self._left.discard(task)
            if not task.cancelled():
                task.exception()

        app.add_done_callback(ended)

    async def _body(self, receive: Receive) -> tuple[bytes | None, int]:
        """The whole body, and its size; ``None`` when it passes the limit (with the bytes
        read so far) or the client left (-1)."""
        parts: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None, -1
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_body_bytes:
                return None, seen
            parts.append(chunk)
            if not message.get("more_body", False):
                return b"".join(parts), seen

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, seen: int) -> None:
        """413 at once, then the rest of the body read and dropped (see the module's
        docstring); the connection closes after. A client that asked to be told before
        sending (``Expect: 100-continue``) sends nothing: nothing is read."""
        await self._refuse(send, "too_large", f"the body is over {self.max_body_bytes} bytes",
                           [(b"connection", b"close")], more_body=True)
        if _header(scope, b"expect") != "100-continue":
            try:
                async with asyncio.timeout(DRAIN_SECONDS):
                    while seen <= DRAIN_BYTES:
                        message = await receive()
                        seen += len(message.get("body", b""))
                        if message["type"] != "http.request" or not message.get("more_body"):
                            break
            except TimeoutError:
                pass
        await send({"type": "http.response.body", "body": b""})

    def _authorized(self, scope: Scope) -> bool:
        if self.token is None:
            return True
        given = dict(scope["headers"]).get(b"authorization", b"")
        expected = b"Bearer " + self.token.encode()
        return hmac.compare_digest(given, expected)

    async def _refuse(self, send: Send, code: str, message: str,
                      headers: list[tuple[bytes, bytes]] | None = None,
                      more_body: bool = False) -> None:
        """Answer the error ``code``; with ``more_body``, the answer is left open (the caller
        ends it)."""
        self.metrics.errors.labels(code).inc()
        body = error_body(code, message)
        await send({"type": "http.response.start", "status": ERROR_STATUS[code],
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                *(headers or [])]})
        await send({"type": "http.response.body", "body": body, "more_body": more_body})


async def _client_gone(receive: Receive) -> None:
    """Returns once the client has gone (or the answer is complete: the server then says
    the same)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _header(scope: Scope, name: bytes) -> str | None:
    value = dict(scope["headers"]).get(name)
    return value.decode("latin-1").strip().lower() if value is not None else None
