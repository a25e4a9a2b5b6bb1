"""Issue 45, over real HTTP (uvicorn on a thread, 127.0.0.1): a body over the limit answered 413
to a client that sends it all before reading (urllib), declared or chunked; and work that ends
with its request: a query stuck in the store holds neither its slot nor the next request's
work, and a request whose client went away never reaches the model."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi")

from mdchunk.index.store import Filter, SearchHit, SideQuery, TextQuery
from mdchunk.serve import ServeConfig
from mdchunk.serve.service import Service
from tests.conftest_milvus import HashEmbedder
from tests.serve_fakes import ServedStore, live_server, served_store

pytestmark = pytest.mark.process  # a real server, real sockets


def post(url: str, body: bytes | Iterator[bytes], timeout: float = 60
         ) -> tuple[int, dict[str, Any]]:
    """POST with urllib, which sends the whole body before it reads the answer."""
    request = urllib.request.Request(url, data=body,  # type: ignore[arg-type]
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_urllib_reads_the_413_of_a_64_mb_body() -> None:
    with live_server() as url:
        body = b'{"text": "' + b"x" * (64 * 1024 * 1024) + b'"}'
        status, answer = post(f"{url}/v1/chunk", body)
        assert status == 413 and answer["error"]["code"] == "too_large"
        # the same without a declared length: chunked, counted as it is read
        megabyte = 1 << 20
        status, answer = post(f"{url}/v1/chunk", iter([body[i:i + megabyte]
                                                       for i in range(0, 9 * megabyte, megabyte)]))
        assert status == 413 and answer["error"]["code"] == "too_large"
        status, answer = post(f"{url}/v1/chunk", b'{"text": "# A\\n\\nsmall\\n"}')
        assert status == 200 and answer["chunks"]


class StuckStore(ServedStore):
    """The served store, whose full-text search of ``stuck`` hangs until released; it records
    every text it is asked."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.release = threading.Event()

    def search(self, query: SideQuery, *, limit: int, where: Filter | None = None
               ) -> list[SearchHit]:
        if isinstance(query, TextQuery):
            self.texts.append(query.text)
            if "stuck" in query.text:
                self.release.wait(30)
        return super().search(query, limit=limit, where=where)


def stuck_service(config: ServeConfig) -> tuple[Service, StuckStore]:
    embedder = HashEmbedder(8)
    store = StuckStore()
    service = Service(config, store=served_store(embedder, store), embedder=embedder)
    service.warm_up()
    return service, store


def search(url: str, query: str, results: dict[str, Any]) -> None:
    started = time.perf_counter()
    status, answer = post(f"{url}/v1/search", json.dumps(
        {"query": query, "mode": "bm25"}).encode())
    results[query] = (status, answer, time.perf_counter() - started)


def test_a_stuck_query_holds_no_slot_and_the_next_one_stops_waiting_for_it() -> None:
    config = ServeConfig(port=0, max_concurrent=2, timeout=0.5)
    service, store = stuck_service(config)
    with live_server(config=config, service=service) as url:
        results: dict[str, Any] = {}
        stuck = threading.Thread(target=search, args=(url, "stuck maxmemory", results))
        stuck.start()
        time.sleep(0.1)
        search(url, "promote standby", results)  # waits for the store, then ends
        stuck.join()
        for query in ("stuck maxmemory", "promote standby"):
            status, answer, seconds = results[query]
            assert status == 503 and answer["error"]["code"] == "timeout", answer
            assert seconds < 5.0  # answered at its time (0.5 s), not when the store returns
        # both slots are free while the stuck search still holds the store
        for _ in range(2):
            status, answer = post(f"{url}/v1/embed", b'{"texts": ["x"]}')
            assert status == 200
        store.release.set()
        time.sleep(0.3)
        assert not any("standby" in text for text in store.texts)  # its work stopped
        results.clear()
        search(url, "promote standby", results)
        assert results["promote standby"][0] == 200


class HeldEmbedder(HashEmbedder):
    """Embeds once released; records what it embedded."""

    def __init__(self) -> None:
        super().__init__(8)
        self.release = threading.Event()
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if "held" in texts:
            self.release.wait(30)
        self.embedded.extend(texts)
        return super().embed(texts)


def test_a_request_whose_client_went_away_never_reaches_the_model() -> None:
    config = ServeConfig(port=0)
    embedder = HeldEmbedder()
    service = Service(config, store=served_store(HashEmbedder(8)), embedder=embedder)
    service.warm_up()
    with live_server(config=config, service=service) as url:
        first = threading.Thread(target=post, args=(f"{url}/v1/embed", b'{"texts": ["held"]}'))
        first.start()
        time.sleep(0.2)
        host, port = url.removeprefix("http://").split(":")
        body = b'{"texts": ["gone"]}'
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(b"POST /v1/embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                         b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            time.sleep(0.3)  # queued behind the held call; then the client leaves
        time.sleep(0.3)
        embedder.release.set()
        first.join()
        assert "held" in embedder.embedded and "gone" not in embedder.embedded
        with urllib.request.urlopen(f"{url}/metrics") as answer:
            metrics = answer.read().decode()
        assert 'mdchunk_abandoned_total{reason="client_gone"} 1.0' in metrics
