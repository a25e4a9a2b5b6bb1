"""Batched model calls: the query texts of concurrent requests embedded by one call of the model,
as text-embeddings-inference and Triton's dynamic batcher do.

One thread calls the model, taking every request queued up to ``max_texts`` texts, and waits
up to ``max_wait`` for more only when fewer requests than are being answered have come. Each
request gets exactly the vector it would have got alone (a vector does not depend on its
batch: ``tests/test_serve_batching.py``). A request of more than ``max_texts`` texts runs in
its own thread, a slice at a time; a request whose deadline ends while it waits is dropped."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .deadline import Abandoned, Deadline

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SLICE_TEXTS", "EmbedBatcher"]

#: Texts a request embedded alone (batching off) gives the model at a time, its deadline
#: checked between: how far past its time such a request can run.
SLICE_TEXTS = 64

Embed = Callable[[list[str]], "np.ndarray"]


@dataclass(slots=True)
class _Request:
    texts: list[str]
    answer: Future[np.ndarray] = field(default_factory=Future)


class EmbedBatcher:
    """Embeds with ``embed`` (read at each call: an indexing job may change it), coalescing
    concurrent requests; ``max_texts`` 1 turns batching off. ``expected()`` says how many
    requests are being answered; ``observe(n)`` is told each model call's texts."""

    def __init__(self, embed: Embed, *, max_texts: int, max_wait: float,
                 expected: Callable[[], int] = lambda: 1,
                 observe: Callable[[int], None] = lambda n: None) -> None:
        self.embed_texts = embed
        self.max_texts = max_texts
        self.max_wait = max_wait
        self.expected = expected
        self.observe = observe
        self._queue: deque[_Request] = deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def embed(self, texts: Sequence[str], deadline: Deadline) -> np.ndarray:
        """The vectors of ``texts``, in order; :class:`Abandoned` once ``deadline`` ends."""
        deadline.check()
        if self.max_texts <= 1 or len(texts) > self.max_texts:
            return self._alone(list(texts), deadline)
        request = _Request(list(texts))
        deadline.on_cancel(request.answer.cancel)  # not embedded if still queued
        with self._ready:
            self._start()
            self._queue.append(request)
            self._ready.notify()
        try:
            return request.answer.result(timeout=deadline.remaining())
        except (CancelledError, TimeoutError):
            request.answer.cancel()
            deadline.check()
            raise Abandoned("the embedding was cancelled") from None

    def _alone(self, texts: list[str], deadline: Deadline) -> np.ndarray:
        import numpy as np

        step = self.max_texts if self.max_texts > 1 else SLICE_TEXTS
        parts = []
        for start in range(0, len(texts), step):
            deadline.check()
            parts.append(self.embed_texts(texts[start:start + step]))
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def close(self) -> None:
        """Stop the model's thread once the requests queued are answered."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mdchunk-serve-embed",
                                            daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._ready.wait()
                if not self._queue:
                    return
                batch = self._gather()
            live = [r for r in batch if r.answer.set_running_or_notify_cancel()]
            if live:
                self._answer(live)

    def _gather(self) -> list[_Request]:
        """The requests of the next model call (the lock held): those queued, then those that
        come within ``max_wait`` while fewer have come than are being answered."""
        batch: list[_Request] = []
        count = 0
        deadline = time.monotonic() + self.max_wait
        while True:
            while self._queue and count + len(self._queue[0].texts) <= self.max_texts:
                request = self._queue.popleft()
                batch.append(request)
                count += len(request.texts)
            left = deadline - time.monotonic()
            if self._queue or count >= self.max_texts or left <= 0 \
                    or len(batch) >= self.expected():
                return batch
            self._ready.wait(left)

    def _answer(self, requests: list[_Request]) -> None:
        texts = [text for request in requests for text in request.texts]
        try:
            vectors = self.embed_texts(texts)
        except BaseException as exc:  # each request answers with the model's error
            for request in requests:
                request.answer.set_exception(exc)
            return
        self.observe(len(texts))
        offset = 0
        for request in requests:
            request.answer.set_result(vectors[offset:offset + len(request.texts)])
            offset += len(request.texts)
