"""Real ``mdchunk serve`` processes for the tests: started on 127.0.0.1 with ``--port 0``, their
address read from the one JSON line they print, stopped (SIGTERM, then SIGKILL) at the end."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from .conftest import ROOT

#: A Milvus Lite file that cannot be opened: the server starts, answers /healthz and /v1/chunk,
#: and says on /readyz why it is not ready; no model is loaded.
NO_INDEX = "/nonexistent-folder/mdchunk.db"


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mdchunk.cli", "serve", "--port", "0", *args]


def serve_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", **extra,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")]))}


def read_address(proc: subprocess.Popen[bytes], timeout: float = 60) -> dict[str, Any]:
    """The JSON line a server prints once it accepts connections."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            assert line, f"the server ended: {proc.wait()} {_stderr(proc)}"
            return dict(json.loads(line))
        if proc.poll() is not None:
            raise AssertionError(f"the server ended: {proc.returncode} {_stderr(proc)}")
    raise AssertionError("no address line within the time")


def _stderr(proc: subprocess.Popen[bytes]) -> str:
    return proc.stderr.read().decode(errors="replace")[-2000:] if proc.stderr else ""


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    url: str

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=120, **kwargs)

    def wait_ready(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        with self.client() as client:
            while time.monotonic() < deadline:
                answer = client.get("/readyz")
                if answer.status_code == 200:
                    return
                assert "could not be opened" not in answer.text, answer.text
                time.sleep(0.5)
        raise AssertionError("not ready within the time")


@contextmanager
def running(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None
            ) -> Iterator[Server]:
    proc = subprocess.Popen(serve_command(*args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                            env=env or serve_env(), cwd=cwd)
    try:
        yield Server(proc, read_address(proc)["url"])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def gone_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` ends within ``seconds`` (reaped or not)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended
                if stat.read().split(")")[-1].split()[0] == "Z":
                    return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.1)
    return False
