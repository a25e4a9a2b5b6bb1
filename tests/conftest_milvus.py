"""Shared fixtures for the embedder, store and index tests: a small bilingual knowledge base,
the bundled model (loaded once), embedders that count or fail, and Milvus in both shapes — a
Milvus Lite file and a ``milvus-lite server`` process reached over ``http://127.0.0.1:PORT``.

Test modules import what they use from here (pytest finds fixtures in a module's namespace).
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Each document has several sections of about 180 model tokens, more than half the model's
# window, so every section is a chunk of its own whatever the packing policy, and editing one
# section changes only its chunk.
_SECTION = (
    "{topic} matters to the on-call engineer. {body} Check the dashboards first, then read the "
    "recent deploy log, and only then change anything in production. Write down every command "
    "you run in the incident channel so that the next person can follow what happened.\n\n"
    "Before you close the incident, confirm that the alert has cleared for at least fifteen "
    "minutes, link the graphs that show the recovery, and open a follow-up issue for anything "
    "that was fixed by hand. If the same alert fired twice this week, page the owning team "
    "during working hours and ask for a review of the runbook.\n"
)
CORPUS: dict[str, str] = {
    "docs/postgres_replication.md": (
        "---\ntitle: PostgreSQL replication\n---\n\n# PostgreSQL replication\n\n"
        + "".join(f"## {name}\n\n" + _SECTION.format(topic=name, body=body) + "\n"
                  for name, body in [
                      ("Replica lag", "When a streaming replica falls behind the primary, "
                       "pg_stat_replication shows a growing replay_lag and WAL piles up."),
                      ("Failover", "Promote the standby with pg_ctl promote when the primary is "
                       "lost, then repoint the connection pooler at the new primary."),
                      ("Vacuum", "Autovacuum cannot remove dead tuples while a long transaction "
                       "on the replica holds back the xmin horizon."),
                  ])
    ),
    "docs/redis_memory.md": (
        "# Redis memory\n\n"
        + "".join(f"## {name}\n\n" + _SECTION.format(topic=name, body=body) + "\n"
                  for name, body in [
                      ("Eviction", "When used_memory reaches maxmemory, Redis evicts keys by the "
                       "maxmemory-policy such as allkeys-lru."),
                      ("Fragmentation", "A mem_fragmentation_ratio far above one means the "
                       "allocator holds freed pages; activedefrag can reclaim them."),
                  ])
    ),
    "ops/k8s_pods.md": (
        "# Kubernetes pods\n\n## CrashLoopBackOff\n\n"
        + _SECTION.format(topic="CrashLoopBackOff", body="A container that exits right after "
                          "start is restarted with a growing back-off delay; kubectl logs "
                          "--previous shows why it died.")
        + "\n## OOMKilled\n\n"
        + _SECTION.format(topic="OOMKilled", body="The kernel kills a container that exceeds "
                          "its memory limit; raise the limit or fix the leak.")
    ),
    "zh/cpu_load.md": (
        "# 服务器CPU负载过高\n\n## 现象\n\n"
        "监控告警显示服务器的CPU使用率持续超过百分之九十，系统负载远高于核心数，接口响应变慢。"
        "值班工程师需要先确认是哪个进程占用了处理器资源。\n\n## 排查步骤\n\n"
        "使用top命令查看占用CPU最高的进程，再用perf或火焰图分析热点函数。"
        "如果是最近发布引起的，先回滚版本，再分析原因。\n"
    ),
    "zh/disk_full.md": (
        "# 磁盘空间不足\n\n## 现象\n\n"
        "告警提示根分区的磁盘使用率超过百分之九十五，写入日志失败，数据库无法创建临时文件。\n\n"
        "## 处理方法\n\n"
        "用du命令找出占用空间最大的目录，清理过期的日志文件和临时文件，必要时扩容云盘。\n"
    ),
    "notes/a_b%c.txt": (
        "Certificate rotation\n\nThe TLS certificate of the ingress expires every ninety days; "
        "cert-manager renews it automatically unless the ACME challenge fails.\n"
    ),
}


def write_corpus(root: Path, corpus: dict[str, str] = CORPUS) -> Path:
    for rel, text in corpus.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "kb")


@pytest.fixture(scope="session")
def model():
    """The bundled all-MiniLM-L6-v2, loaded once for the whole session."""
    from mdchunk.embedding import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


class CountingEmbedder:
    """Delegates to a real embedder and records every text it was asked to embed.

    ``fail_after`` makes the call after that many successful calls raise, to simulate a crash.
    """

    def __init__(self, inner, fail_after: int | None = None) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.max_tokens, self.tokenizer = inner.max_tokens, inner.tokenizer
        self.backend = getattr(inner, "backend", "torch")  # what the index records
        self.export = getattr(inner, "export", "")
        self.fail_after = fail_after
        self.calls = 0
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise RuntimeError("simulated crash inside the embedder")
        self.calls += 1
        self.texts.extend(texts)
        return self.inner.embed(texts)


class HashEmbedder:
    """A stand-in model of any dimension: deterministic unit vectors from text hashes."""

    def __init__(self, dim: int = 8, name: str = "test/hash") -> None:
        self.name, self.dim = f"{name}-{dim}", dim
        self.max_tokens, self.tokenizer = 512, "cl100k_base"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode()).digest()[:4], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows) if rows else np.zeros((0, self.dim), np.float32)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(uri: str) -> bool:
    from pymilvus import MilvusClient

    try:
        client = MilvusClient(uri=uri, timeout=2, dedicated=True)
        client.list_collections()
        client.close()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``milvus-lite server`` in its own process on a free loopback port; yields its URI."""
    data = tmp_path_factory.mktemp("milvus-server")
    port = free_port()
    log = (data / "server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(data / "data"),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    uri = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _answers(uri):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"milvus-lite server did not start: "
                                   f"{(data / 'server.log').read_text(errors='replace')[-2000:]}")
            time.sleep(0.3)
        yield uri
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(params=["lite", "server"])
def milvus(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """``db`` and ``collection`` for one test, on a Lite file or on the shared server."""
    if request.param == "lite":
        return {"db": str(tmp_path / "index.db"), "collection": "kb"}
    uri = request.getfixturevalue("milvus_server")
    return {"db": uri, "collection": f"kb_{uuid.uuid4().hex[:10]}"}
