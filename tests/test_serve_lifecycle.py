"""``mdchunk serve`` as a child process, for real on 127.0.0.1: the address on stdout (port 0),
exit on the parent's death and on stdin's end, SIGTERM answering the request under way and
exiting 0, a host beyond loopback refused without a token and guarded with one. No model and
no index (:data:`~tests.serve_processes.NO_INDEX`): what is tested is the process."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("fastapi")

from .serve_processes import NO_INDEX, gone_within, read_address, running, serve_command, serve_env

pytestmark = pytest.mark.process  # each test starts `mdchunk serve` as a real process

BIG = "# Big\n\n" + "".join(f"## Part {i}\n\n" + "A sentence of the part. " * 60 + "\n\n"
                            for i in range(400))


def test_port_zero_prints_the_address_and_serves() -> None:
    with running("--db", NO_INDEX) as server, server.client() as client:
        assert server.url.startswith("http://127.0.0.1:") and not server.url.endswith(":0")
        assert client.get("/healthz").json() == {"status": "ok"}
        answer = client.get("/readyz")
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "not_ready"
        assert client.post("/v1/chunk", json={"text": "# A\n\nb\n"}).json()["chunks"]


def test_sigterm_answers_the_request_under_way_then_exits_0() -> None:
    with running("--db", NO_INDEX) as server, server.client() as client:
        answer: dict[str, object] = {}
        slow = threading.Thread(target=lambda: answer.update(
            response=client.post("/v1/chunk", json={"text": BIG, "max_tokens": 64, "overlap_tokens": 8})))
        started = time.perf_counter()
        slow.start()
        time.sleep(0.4)
        server.proc.send_signal(signal.SIGTERM)
        slow.join(120)
        response = answer["response"]
        assert response.status_code == 200 and len(response.json()["chunks"]) > 400  # type: ignore[attr-defined]
        assert server.proc.wait(30) == 0
        assert time.perf_counter() - started > 0.4


def test_exits_soon_after_its_parent_dies() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c",
         "import os, subprocess, sys, time\n"
         f"child = subprocess.Popen({serve_command('--db', NO_INDEX)!r} + "
         "['--parent-pid', str(os.getpid())], stdout=sys.stdout)\n"
         "time.sleep(600)\n"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=serve_env())
    try:
        address = read_address(parent)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert gone_within(int(address["pid"]), 5), "the server outlived its parent"
    finally:
        parent.kill()


def test_exits_when_stdin_closes() -> None:
    with running("--db", NO_INDEX, "--exit-on-stdin-eof") as server:
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        assert server.proc.wait(10) == 0


def test_beyond_loopback_refuses_to_start_without_a_token() -> None:
    env = {k: v for k, v in serve_env().items() if k != "MDCHUNK_SERVE_TOKEN"}
    done = subprocess.run(serve_command("--host", "0.0.0.0", "--db", NO_INDEX),
                          check=False, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode != 0 and "token" in done.stderr and not done.stdout


def test_beyond_loopback_with_a_token_guards_every_call() -> None:
    with running("--host", "0.0.0.0", "--db", NO_INDEX,
                 env=serve_env(MDCHUNK_SERVE_TOKEN="tok3n")) as server:
        url = server.url.replace("0.0.0.0", "127.0.0.1")
        import httpx

        with httpx.Client(base_url=url) as client:
            assert client.post("/v1/chunk", json={"text": "a"}).status_code == 401
            assert client.post("/v1/chunk", json={"text": "a"},
                               headers={"Authorization": "Bearer tok3n"}).status_code == 200
            assert client.get("/healthz").status_code == 200
