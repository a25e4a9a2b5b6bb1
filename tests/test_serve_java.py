"""A client written in Java (``docs/Client.java``: java.net.http, the JDK alone) chunks and
searches through the API over real HTTP, its bearer token sent; skipped where ``java`` is
absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

pytest.importorskip("fastapi")

from mdchunk import ChunkerConfig, chunk_markdown
from tests.serve_fakes import live_server
from tests.test_serve_api import TEXT  # the document Client.java sends

from .conftest import ROOT

pytestmark = pytest.mark.process  # it compiles and runs a Java client in a JVM


def test_a_java_client_chunks_and_searches() -> None:
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on PATH")
    with live_server(token="j4va") as url:
        done = subprocess.run([java, str(ROOT / "docs" / "Client.java"), url, "promote standby"],
                              capture_output=True, text=True, timeout=180, check=False,
                              env={**os.environ, "MDCHUNK_SERVE_TOKEN": "j4va"})
        assert done.returncode == 0, done.stderr
        chunked, searched = (json.loads(line) for line in done.stdout.splitlines())
        expected = chunk_markdown(TEXT, doc_id="guide.md",
                                  config=ChunkerConfig(max_tokens=64, overlap_tokens=0))
        assert chunked["chunks"] == [c.to_dict() for c in expected]
        assert searched["hits"][0]["path"] == "ops/postgres.md"
        refused = subprocess.run([java, str(ROOT / "docs" / "Client.java"), url],
                                 capture_output=True, text=True, timeout=180, check=False,
                                 env={k: v for k, v in os.environ.items()
                                      if k != "MDCHUNK_SERVE_TOKEN"})
        assert refused.returncode != 0 and "401" in refused.stderr


def test_a_java_thread_pool_of_32_is_served_by_the_defaults_without_an_error() -> None:
    """Issue 45: 32 threads sharing one HttpClient, 10 searches each, against a server with
    every default: what exceeds the running limit waits for a slot, none is refused."""
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on PATH")
    with live_server() as url:
        done = subprocess.run([java, str(ROOT / "docs" / "Client.java"), url, "promote standby",
                               "32", "10"], capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, done.stderr
        tally = json.loads(done.stdout.splitlines()[-1])
        assert tally == {"requests": 320, "errors": 0, "first_error": ""}


def test_a_java_client_sending_a_body_over_the_limit_reads_the_413() -> None:
    """Issue 45: java.net.http sends the whole 64 MB body before it reads; the server answers
    413 and reads on (dropping it), so the client gets the answer, not a reset connection."""
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on PATH")
    with live_server() as url:
        done = subprocess.run([java, str(ROOT / "tests" / "java" / "LargeBody.java"), url, "64"],
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        status, body = done.stdout.strip().split(" ", 1)
        assert status == "413" and json.loads(body)["error"]["code"] == "too_large"
