"""What one server holds while it runs: its config, its :class:`~.service.Service` once that is
open and warm (opened in the background, so that the server answers ``/healthz`` at once and
``/readyz`` only after the warm-up query), its admission queue and its metrics."""

from __future__ import annotations

import logging
import threading

from .admission import Admission
from .config import ServeConfig
from .metrics import Metrics
from .service import Service

__all__ = ["NotReady", "ServerState"]

log = logging.getLogger(__name__)


class NotReady(RuntimeError):
    """The service is still opening (or failed to open): answered 503."""


class ServerState:
    """One server's state, shared by its requests (``app.state.server``)."""

    def __init__(self, config: ServeConfig, service: Service | None = None) -> None:
        self.config = config
        self.metrics = Metrics()
        self.admission = Admission(running=config.max_concurrent, waiting=config.max_queue,
                                   wait_timeout=config.queue_timeout, metrics=self.metrics)
        self._service = service
        self.failure: str | None = None
        self.mcp_started = False
        self._opened = threading.Event()
        if service is not None:
            self._attach(service)
            self._opened.set()

    def _attach(self, service: Service) -> None:
        """Let the service's batcher see how many requests are being answered (worth waiting
        for), and count its model calls."""
        service.batcher.expected = lambda: self.admission.running
        service.batcher.observe = self.metrics.batch_texts.observe

    def open_in_background(self) -> threading.Thread:
        """Open and warm the service on a thread of its own; ``/readyz`` turns 200 after."""
        thread = threading.Thread(target=self._open, name="mdchunk-serve-open", daemon=True)
        thread.start()
        return thread

    def _open(self) -> None:
        try:
            service = Service(self.config)
            self._attach(service)
            service.warm_up()
            self._service = service
        except Exception as exc:  # any failure is reported by /readyz, never a traceback
            self.failure = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            log.error("cannot serve the index: %s", self.failure)
        finally:
            self._opened.set()

    def wait_open(self, timeout: float | None = None) -> bool:
        return self._opened.wait(timeout)

    @property
    def service(self) -> Service:
        """The open service; :class:`NotReady` while it opens or when it failed to."""
        service = self._service
        if service is None or not service.ready:
            raise NotReady(f"the index could not be opened: {self.failure}" if self.failure
                           else "the server is still loading the model and the index")
        return service

    @property
    def ready(self) -> bool:
        return self._service is not None and self._service.ready

    def close(self) -> None:
        if self._service is not None:
            self._service.close()
