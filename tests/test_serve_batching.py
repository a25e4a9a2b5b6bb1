"""Issue 45: the query texts of concurrent requests embedded by one model call
(:class:`~mdchunk.serve.batching.EmbedBatcher`), each request getting exactly the vectors it
would have got alone (the stand-in model bit for bit; the bundled model on onnx-int8 within the
1e-6 its own "alone or in any batch" test holds it to), a request whose deadline ends taken out
before the model sees it, a request larger than a batch embedded alone, and batching off."""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest

from mdchunk.serve.batching import EmbedBatcher
from mdchunk.serve.deadline import Abandoned, Deadline
from tests.conftest_milvus import HashEmbedder

TEXTS = [f"question number {i} about {topic}" for i, topic in
         enumerate(["disk", "replica lag", "redis", "kafka", "dns", "tls", "pods", "cron"])]


class Recording(HashEmbedder):
    """The hash model, recording the texts of each call (and slow, so that requests pile up)."""

    def __init__(self, seconds: float = 0.0) -> None:
        super().__init__(16)
        self.calls: list[list[str]] = []
        self.seconds = seconds
        self.release = threading.Event()
        self.release.set()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.release.wait()
        self.calls.append(list(texts))
        time.sleep(self.seconds)
        return super().embed(texts)


def at_once(batcher: EmbedBatcher, texts: list[list[str]]) -> list[np.ndarray]:
    """Each of ``texts`` embedded by a thread of its own, all started together."""
    start = threading.Barrier(len(texts))
    answers: list[np.ndarray | None] = [None] * len(texts)

    def ask(i: int) -> None:
        start.wait()
        answers[i] = batcher.embed(texts[i], Deadline(30))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(answer is not None for answer in answers)
    return [answer for answer in answers if answer is not None]


def test_concurrent_requests_share_a_model_call_and_get_their_own_vectors() -> None:
    model = Recording(seconds=0.05)
    batcher = EmbedBatcher(model.embed, max_texts=64, max_wait=0.05,
                           expected=lambda: len(TEXTS))
    requests = [[text] for text in TEXTS] + [TEXTS[:3]]
    answers = at_once(batcher, requests)
    assert len(model.calls) < len(requests)  # coalesced
    assert max(len(call) for call in model.calls) > 1
    assert sorted(t for call in model.calls for t in call) == sorted(t for request in requests for t in request)
    for request, answer in zip(requests, answers, strict=True):
        assert np.array_equal(answer, HashEmbedder(16).embed(request))  # bit for bit


def test_a_model_call_holds_at_most_max_texts_and_a_larger_request_goes_alone() -> None:
    model = Recording(seconds=0.02)
    batcher = EmbedBatcher(model.embed, max_texts=3, max_wait=0.05, expected=lambda: 8)
    answers = at_once(batcher, [[text] for text in TEXTS])
    assert all(len(call) <= 3 for call in model.calls)
    assert [a[0].tolist() for a in answers] == HashEmbedder(16).embed(TEXTS).tolist()
    model.calls.clear()
    big = batcher.embed(TEXTS, Deadline(30))  # 8 texts > 3: in its own thread, 3 at a time
    assert [len(call) for call in model.calls] == [3, 3, 2]
    assert np.array_equal(big, HashEmbedder(16).embed(TEXTS))


def test_batching_off_calls_the_model_once_a_request() -> None:
    model = Recording(seconds=0.02)
    batcher = EmbedBatcher(model.embed, max_texts=1, max_wait=0.05, expected=lambda: 8)
    at_once(batcher, [[text] for text in TEXTS])
    assert sorted(model.calls) == sorted([text] for text in TEXTS)


def test_one_request_at_a_time_never_waits_for_others() -> None:
    model = Recording()
    batcher = EmbedBatcher(model.embed, max_texts=64, max_wait=10.0, expected=lambda: 1)
    started = time.perf_counter()
    batcher.embed(["alone"], Deadline(30))
    assert time.perf_counter() - started < 5.0  # far below the 10 s it may wait for others


def test_a_request_that_ends_while_it_waits_never_reaches_the_model() -> None:
    model = Recording()
    model.release.clear()  # the model is busy with the first request
    batcher = EmbedBatcher(model.embed, max_texts=64, max_wait=0.0)
    first = threading.Thread(target=batcher.embed, args=(["first"], Deadline(30)))
    first.start()
    time.sleep(0.2)
    timed_out = Deadline(0.2)
    with pytest.raises(Abandoned):
        batcher.embed(["timed out"], timed_out)
    client_gone = Deadline(30)
    threading.Timer(0.2, client_gone.cancel, args=("the client went away",)).start()
    with pytest.raises(Abandoned, match="went away"):
        batcher.embed(["gone"], client_gone)
    model.release.set()
    first.join()
    assert batcher.embed(["after"], Deadline(30)).shape == (1, 16)
    assert model.calls == [["first"], ["after"]]


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                    reason="onnxruntime is not installed (mdchunk[onnx])")
def test_int8_vectors_do_not_depend_on_their_batch_neighbours() -> None:
    """The bundled model on onnx-int8, as a server runs it: texts of many lengths asked at
    once are batched together, and each gets its vector alone (to 1e-6, as test_onnx's
    ``_assert_batch_free`` holds the embedder itself)."""
    from mdchunk.embedding import SentenceTransformerEmbedder

    model = SentenceTransformerEmbedder(backend="onnx-int8")
    assert model.backend == "onnx-int8"
    texts = [*TEXTS, "ok", "Restart the worker when the queue backs up, then watch the lag. " * 9,
             "The pooler keeps a few connections open to each database. " * 3]
    alone = np.vstack([model.embed([text]) for text in texts])
    calls: list[int] = []

    def embed(batch: list[str]) -> np.ndarray:
        calls.append(len(batch))
        return model.embed(batch)

    batcher = EmbedBatcher(embed, max_texts=64, max_wait=0.1, expected=lambda: len(texts))
    together = np.vstack(at_once(batcher, [[text] for text in texts]))
    assert max(calls) > 1, calls  # some were batched
    assert np.max(np.abs(together - alone)) <= 1e-6
