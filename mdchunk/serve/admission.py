"""Admission by a bounded wait queue: at most ``running`` requests are answered at once; more
wait in order for up to ``wait_timeout`` seconds, refused (:class:`Busy`, 503 with
``Retry-After``) only when ``waiting`` already wait or the wait runs out: a backend's bursts are
far wider than two cores answer at once. It lives on the event loop, so its counts need no lock."""

from __future__ import annotations

import asyncio
import collections
import time

from .metrics import Metrics

__all__ = ["Admission", "Busy"]


class Busy(Exception):
    """No slot: the queue is full, or the wait ran out."""


class Admission:
    """Slots for requests being answered, and the queue of those waiting for one."""

    def __init__(self, *, running: int, waiting: int, wait_timeout: float,
                 metrics: Metrics) -> None:
        self.limit = running
        self.max_waiting = waiting
        self.wait_timeout = wait_timeout
        self.metrics = metrics
        self.running = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        metrics.running.set_function(lambda: self.running)
        metrics.queue_depth.set_function(lambda: len(self._waiters))

    async def enter(self) -> None:
        """Take a slot, waiting for one when all are taken; :class:`Busy` when none comes."""
        if self.running < self.limit and not self._waiters:
            self.running += 1
            self.metrics.queue_wait.observe(0.0)
            return
        if len(self._waiters) >= self.max_waiting:
            raise Busy(f"{self.running} requests are being answered and {len(self._waiters)} "
                       "are waiting; try again shortly")
        slot = asyncio.get_running_loop().create_future()
        self._waiters.append(slot)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.wait_timeout):
                await slot
        except TimeoutError:
            if not (slot.done() and not slot.cancelled()):  # handed a slot as the wait ended
                self._forget(slot)
                raise Busy(f"no slot within {self.wait_timeout:g}s; try again shortly") from None
        except asyncio.CancelledError:  # the server stops, or the client's task is cancelled
            if slot.done() and not slot.cancelled():
                self.leave()
            self._forget(slot)
            raise
        finally:
            self.metrics.queue_wait.observe(time.perf_counter() - started)

    def leave(self) -> None:
        """Give a slot back: to the first request still waiting, else free it."""
        while self._waiters:
            slot = self._waiters.popleft()
            if not slot.done():
                slot.set_result(None)  # the slot passes on; running stays the same
                return
        self.running -= 1

    def _forget(self, slot: asyncio.Future[None]) -> None:
        slot.cancel()
        try:
            self._waiters.remove(slot)
        except ValueError:
            pass
