"""How long a request's work may go on, and whether anyone still waits for it. The guard gives
each request a :class:`Deadline` and cancels it when time runs out or the client goes away;
the work runs on threads no asyncio cancellation reaches, so it reads the deadline (a context
variable) and calls :meth:`Deadline.check` between its steps. Work started without a request
gets a deadline of its own."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["Abandoned", "Deadline", "current_deadline", "request_deadline"]


class Abandoned(RuntimeError):
    """The request's time ran out, or its client went away: its work stops here (answered
    503 when the answer can still be sent)."""


class Deadline:
    """A request's end: ``seconds`` from now at the latest, or sooner when cancelled."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._on_cancel: list[Callable[[], object]] = []

    @property
    def reason(self) -> str | None:
        """Why the request ended early (``None`` while it goes on)."""
        return self._reason

    def remaining(self) -> float:
        """Seconds left (0 once cancelled or past)."""
        return 0.0 if self._reason is not None else max(self.at - time.monotonic(), 0.0)

    def check(self) -> None:
        """Raise :class:`Abandoned` once the request has ended."""
        if self._reason is not None:
            raise Abandoned(self._reason)
        if time.monotonic() >= self.at:
            raise Abandoned(f"no answer within {self.seconds:g}s")

    def cancel(self, reason: str) -> None:
        """End the request now; what waits on it (:meth:`on_cancel`) is told at once."""
        with self._lock:
            if self._reason is not None:
                return
            self._reason = reason
            callbacks, self._on_cancel = self._on_cancel, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` when the request is cancelled (at once if it already is)."""
        with self._lock:
            if self._reason is None:
                self._on_cancel.append(callback)
                return
        callback()


_CURRENT: ContextVar[Deadline | None] = ContextVar("mdchunk_serve_deadline", default=None)


def request_deadline(deadline: Deadline) -> Callable[[], None]:
    """Make ``deadline`` the current request's (in this context and the tasks and threads it
    starts); returns what undoes it."""
    token = _CURRENT.set(deadline)
    return lambda: _CURRENT.reset(token)


def current_deadline(seconds: float) -> Deadline:
    """The current request's deadline, or a new one of ``seconds`` where no request set one."""
    return _CURRENT.get() or Deadline(seconds)
