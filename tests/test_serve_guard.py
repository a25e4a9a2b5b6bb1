"""The bounds of ``mdchunk serve`` in process: the bearer token, the body size limit, admission
(a request beyond the running limit waits for its slot; 503 + Retry-After only when the queue
is full or the wait runs out; probes never wait), the per-request timeout, CORS only for the
origins given, a host beyond loopback refused without a token, and ``/v1/index`` kept inside
its roots. Work that ends with its request, and the 413 over real HTTP: test_serve_load."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from mdchunk.errors import ConfigError
from mdchunk.serve import ServeConfig, read_token
from mdchunk.serve.app import create_app
from mdchunk.serve.jobs import checked_paths
from mdchunk.serve.service import Service
from tests.conftest_milvus import HashEmbedder
from tests.serve_fakes import fake_service, served_store


class SlowEmbedder(HashEmbedder):
    """Embeds after ``seconds``: a request that is still being answered when the next comes."""

    def __init__(self, seconds: float) -> None:
        super().__init__(8)
        self.seconds = seconds

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(self.seconds)
        return super().embed(texts)


def slow_client(config: ServeConfig, seconds: float) -> TestClient:
    fast = HashEmbedder(8)
    service = Service(config, store=served_store(fast), embedder=SlowEmbedder(seconds))
    service.ready = True
    return TestClient(create_app(config, service))


def test_a_token_is_required_and_compared() -> None:
    config = ServeConfig(token="s3cret")
    with TestClient(create_app(config, fake_service(config))) as client:
        assert client.get("/v1/collections").status_code == 401
        wrong = client.get("/v1/collections", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "unauthorized"
        right = client.get("/v1/collections", headers={"Authorization": "Bearer s3cret"})
        assert right.status_code == 200
        assert client.get("/healthz").status_code == 200  # probes stay open
        assert client.get("/metrics").status_code == 401


def test_beyond_loopback_needs_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="needs a bearer token"):
        ServeConfig(host="0.0.0.0")
    assert ServeConfig(host="0.0.0.0", token="t").host == "0.0.0.0"
    assert "s3cret" not in repr(ServeConfig(host="0.0.0.0", token="s3cret"))
    token_file = tmp_path / "token"
    token_file.write_text("from-file\n")
    monkeypatch.setenv("MDCHUNK_SERVE_TOKEN", "from-env")
    assert (read_token(token_file), read_token(None)) == ("from-file", "from-env")
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ConfigError, match="empty"):
        read_token(tmp_path / "empty")


def test_a_body_over_the_limit_is_413() -> None:
    config = ServeConfig(max_body_bytes=1000)
    with TestClient(create_app(config, fake_service(config))) as client:
        answer = client.post("/v1/chunk", json={"text": "x" * 2000})
        assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"
        assert client.post("/v1/chunk", json={"text": "small"}).status_code == 200

        def chunks():  # type: ignore[no-untyped-def]  # no length declared: counted as read
            yield b'{"text": "'
            for _ in range(10):
                yield b"y" * 200
            yield b'"}'

        streamed = client.post("/v1/chunk", content=chunks(),
                               headers={"content-type": "application/json"})
        assert streamed.status_code == 413


def _posting(client: TestClient, statuses: list[int], path: str, body: dict[str, object]
             ) -> threading.Thread:
    thread = threading.Thread(target=lambda: statuses.append(
        client.post(path, json=body).status_code))
    thread.start()
    return thread


def test_beyond_the_running_limit_a_request_waits_for_its_slot() -> None:
    """Issue 45: one slot, three requests at once: the two beyond it wait and are answered
    (none refused), one after another; the wait is in /metrics."""
    config = ServeConfig(max_concurrent=1)
    with slow_client(config, 0.4) as client:
        statuses: list[int] = []
        started = time.perf_counter()
        threads = [_posting(client, statuses, "/v1/embed", {"texts": [text]})
                   for text in ("a", "b", "c")]
        for thread in threads:
            thread.join()
        assert statuses == [200, 200, 200]
        assert time.perf_counter() - started >= 3 * 0.4  # one at a time: they waited
        metrics = client.get("/metrics").text
        assert "mdchunk_queue_wait_seconds_count 3.0" in metrics
        waited = float(metrics.split("mdchunk_queue_wait_seconds_sum ")[1].split()[0])
        assert waited >= 0.4 + 0.8 - 0.2  # the second waited for one, the third for two
        assert "mdchunk_queue_depth 0.0" in metrics and "mdchunk_running 0.0" in metrics


def test_a_full_queue_is_refused_at_once_and_probes_never_wait() -> None:
    config = ServeConfig(max_concurrent=1, max_queue=1)
    with slow_client(config, 1.0) as client:
        statuses: list[int] = []
        first = _posting(client, statuses, "/v1/embed", {"texts": ["a"]})
        time.sleep(0.3)
        second = _posting(client, statuses, "/v1/embed", {"texts": ["b"]})  # waits
        time.sleep(0.3)
        started = time.perf_counter()
        third = client.post("/v1/embed", json={"texts": ["c"]})
        assert time.perf_counter() - started < 0.5  # refused, not queued
        assert third.status_code == 503 and third.headers["retry-after"] == "1"
        assert third.json()["error"]["code"] == "busy" and "waiting" in third.text
        for probe in ("/healthz", "/readyz", "/metrics"):  # never wait for a slot
            started = time.perf_counter()
            assert client.get(probe).status_code == 200
            assert time.perf_counter() - started < 0.5
        assert "mdchunk_queue_depth 1.0" in client.get("/metrics").text
        first.join()
        second.join()
        assert statuses == [200, 200]


def test_a_wait_that_runs_out_is_503_with_retry_after() -> None:
    config = ServeConfig(max_concurrent=1, queue_timeout=0.3)
    with slow_client(config, 1.0) as client:
        statuses: list[int] = []
        first = _posting(client, statuses, "/v1/embed", {"texts": ["a"]})
        time.sleep(0.2)
        started = time.perf_counter()
        second = client.post("/v1/embed", json={"texts": ["b"]})
        assert 0.25 <= time.perf_counter() - started < 0.8
        assert second.status_code == 503 and second.headers["retry-after"] == "1"
        assert "no slot within 0.3s" in second.json()["error"]["message"]
        first.join()
        assert statuses == [200]
        assert client.post("/v1/embed", json={"texts": ["c"]}).status_code == 200


@pytest.mark.parametrize(("field", "value", "words"), [
    ("max_queue", -1, r"0 \(no queue\) or more"), ("queue_timeout", 0, "positive number"),
    ("batch_texts", 0, "at least 1"), ("batch_wait", 2.0, "0 to 1 second")])
def test_the_queue_and_batching_bounds_are_checked(field: str, value: float, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        ServeConfig(**{field: value})  # type: ignore[arg-type]


def test_a_request_over_its_time_is_503_at_its_time() -> None:
    """Issue 45: answered when its time runs out, not when the model returns."""
    with slow_client(ServeConfig(timeout=0.2), 1.0) as client:
        started = time.perf_counter()
        answer = client.post("/v1/embed", json={"texts": ["a"]})
        assert time.perf_counter() - started < 0.8
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "timeout"
        assert answer.headers["retry-after"] == "1"
        assert 'mdchunk_errors_total{code="timeout"} 1.0' in client.get("/metrics").text


def test_cors_only_for_the_origins_given() -> None:
    headers = {"Origin": "https://intranet.example", "Access-Control-Request-Method": "POST"}
    plain = ServeConfig()
    with TestClient(create_app(plain, fake_service(plain))) as client:
        answer = client.options("/v1/search", headers=headers)
        assert "access-control-allow-origin" not in answer.headers
    allowed = ServeConfig(cors_origins=("https://intranet.example",), token="t")
    with TestClient(create_app(allowed, fake_service(allowed))) as client:
        answer = client.options("/v1/search", headers=headers)  # a preflight: no token
        assert answer.headers["access-control-allow-origin"] == "https://intranet.example"
        assert client.post("/v1/search", json={"query": "x"},
                           headers={"Origin": "https://intranet.example"}).status_code == 401


def test_index_paths_stay_inside_the_roots(tmp_path: Path) -> None:
    root, outside = tmp_path / "docs", tmp_path / "secret"
    root.mkdir()
    outside.mkdir()
    (root / "a.md").write_text("# A\n\nok\n")
    (outside / "b.md").write_text("# B\n\nsecret\n")
    roots = (root.resolve(),)
    assert checked_paths(["a.md", str(root / "a.md")], roots) == [root / "a.md", root / "a.md"]
    for bad in ("../secret/b.md", str(outside / "b.md"), "/etc/passwd", "missing.md"):
        with pytest.raises(Exception, match="outside|not allowed|no such"):
            checked_paths([bad], roots)
    os.symlink(outside / "b.md", root / "link.md")
    with pytest.raises(Exception, match="outside"):
        checked_paths(["link.md"], roots)
    with pytest.raises(Exception, match="leads outside"):
        checked_paths(["."], roots)  # a folder holding a link out


def test_index_is_off_unless_allowed() -> None:
    config = ServeConfig()
    with TestClient(create_app(config, fake_service(config))) as client:
        answer = client.post("/v1/index", json={"paths": ["a.md"]})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden"
        assert client.get("/v1/jobs/nope").status_code == 404


def test_the_listening_socket_lets_asyncio_turn_nagle_off() -> None:
    """asyncio sets TCP_NODELAY only on sockets made with IPPROTO_TCP; without it every
    response waited about 40 ms for the client's delayed ACK (bench_serve found it)."""
    import socket

    from mdchunk.serve.runner import bound_socket

    sock = bound_socket("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()


def test_index_metadata_is_checked_as_index_meta_is(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nok\n")
    config = ServeConfig(allow_index=True, index_roots=(tmp_path,))
    with TestClient(create_app(config, fake_service(config))) as client:
        for metadata, words in (({"": 1}, "non-empty string"), ([1], "valid dictionary")):
            answer = client.post("/v1/index", json={"paths": ["a.md"], "metadata": metadata})
            assert answer.status_code == 400 and words in answer.json()["error"]["message"]


def test_index_while_another_run_holds_the_lock_is_409(tmp_path: Path) -> None:
    from mdchunk.index.config import StoreConfig
    from mdchunk.index.lock import index_lock

    (tmp_path / "a.md").write_text("# A\n\nok\n")
    db = str(tmp_path / "kb.db")
    config = ServeConfig(store=StoreConfig(db), allow_index=True, index_roots=(tmp_path,))
    with TestClient(create_app(config, fake_service(config))) as client, \
            index_lock(db, "mdchunk"):
        answer = client.post("/v1/index", json={"paths": ["a.md"]})
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "locked"
        assert "another mdchunk index run" in answer.json()["error"]["message"]
