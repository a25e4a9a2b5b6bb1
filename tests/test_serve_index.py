"""``mdchunk serve`` over a real index (the bundled model, Milvus Lite), in real processes on
127.0.0.1: every endpoint through httpx, searches equal to ``mdchunk search``'s, MCP over HTTP
and stdio through the SDK's client, ``/v1/index`` rewriting a document while searches keep
succeeding, and two servers over one ``milvus-lite server`` answering alike."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("fastapi")

from .conftest import run_mdchunk
from .conftest_milvus import CORPUS, milvus_server, write_corpus  # noqa: F401  (a fixture)
from .serve_processes import Server, running, serve_env

# pymilvus is asked for without importing it, so that collecting this module costs nothing
# (and imports no Milvus) in the fast set
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(importlib.util.find_spec("pymilvus") is None,
                                 reason="pymilvus is not installed (mdchunk[milvus])")]

QUERIES = ["replica falls behind the primary", "redis evicts keys at maxmemory",
           "pod stuck in CrashLoopBackOff"]


def index(root: Path, *store: str) -> None:
    done = run_mdchunk("index", str(root), *store, "--backend", "torch", "--meta", "team=sre")
    assert done.returncode == 0, done.stderr


def cli_hits(query: str, *store: str) -> list[dict[str, Any]]:
    done = run_mdchunk("search", query, *store, "-k", "5", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A corpus indexed into a Lite file, and what ``mdchunk search`` answers on it."""
    base = tmp_path_factory.mktemp("serve")
    root = write_corpus(base / "kb")
    db = str(base / "kb.db")
    index(root, "--db", db)
    return {"root": root, "db": db, "expected": {q: cli_hits(q, "--db", db) for q in QUERIES}}


@pytest.fixture(scope="module")
def server(kb: dict[str, Any]) -> Any:
    with running("--db", kb["db"], "--allow-index", "--index-root", str(kb["root"])) as served:
        served.wait_ready()
        yield served


def test_search_answers_as_the_command_does(server: Server, kb: dict[str, Any]) -> None:
    with server.client() as client:
        for query, expected in kb["expected"].items():
            hits = client.post("/v1/search", json={"query": query, "k": 5}).json()["hits"]
            assert [h["id"] for h in hits] == [h["id"] for h in expected]
            assert [h["score"] for h in hits] == pytest.approx([h["score"] for h in expected])
            assert all(h["path"] and h["line_start"] >= 1 for h in hits)
            assert [(h["metadata"], h["lang"]) for h in hits] == \
                [(h["metadata"], h["lang"]) for h in expected]


def test_hits_carry_their_pages_metadata(kb: dict[str, Any]) -> None:
    """Issue 45: ``search --json`` (the library's hits) carries the run's ``--meta``, the
    page's front matter over it, and its language."""
    hits = [hit for found in kb["expected"].values() for hit in found]
    assert hits and all(hit["metadata"]["team"] == "sre" for hit in hits)
    assert all(hit["lang"] for hit in hits)
    postgres = [hit for hit in hits if hit["path"].endswith("postgres_replication.md")]
    assert postgres and all(hit["metadata"] == {"team": "sre", "title": "PostgreSQL replication",
                                                "source_encoding": "utf-8"} for hit in postgres)


def test_every_endpoint(server: Server) -> None:
    with server.client() as client:
        hit = client.post("/v1/search", json={"query": QUERIES[0], "k": 1,
                                              "mode": "dense"}).json()["hits"][0]
        assert client.get(f"/v1/chunks/{hit['id']}").json()["text"] == hit["text"]
        parent = client.get(f"/v1/chunks/{hit['id']}?expand=parent").json()
        assert parent["id"] == hit["parent_id"] and hit["text"] in parent["text"]
        listed = client.get("/v1/collections").json()
        assert "collections" in listed, listed
        (collection,) = listed["collections"]
        assert collection["chunks"] > 3 and collection["analyzer"] in ("standard", "jieba")
        embedded = client.post("/v1/embed", json={"texts": ["a", "b"]}).json()
        # the served collection's model (the corpus has Chinese: USE multilingual)
        assert (embedded["model"], embedded["dim"]) == (collection["model"], collection["dim"])
        assert len(embedded["vectors"]) == 2
        assert all(len(v) == collection["dim"] for v in embedded["vectors"])
        assert client.post("/v1/chunk", json={"text": "# A\n\nb\n"}).json()["chunks"]
        assert "mdchunk_requests_total" in client.get("/metrics").text


def test_mcp_over_http(server: Server) -> None:
    from mcp import Client

    async def session() -> None:
        async with Client(f"{server.url}/mcp") as client:
            assert {t.name for t in (await client.list_tools()).tools} == {"search",
                                                                             "get_chunk"}
            result = await client.call_tool("search", {"query": QUERIES[1], "k": 2})
            assert not result.is_error and "redis" in str(result.structured_content).lower()

    anyio.run(session)


def test_index_rewrites_while_searches_go_on(server: Server, kb: dict[str, Any]) -> None:
    doc = Path(kb["root"]) / "docs" / "redis_memory.md"
    doc.write_text(doc.read_text() + "\n## Swap\n\nA swapping Redis host answers slowly.\n")
    with server.client() as client:
        refused = client.post("/v1/index", json={"paths": ["../"]})
        assert refused.status_code == 400
        # the run's metadata as `index --meta` gave it: only the changed page is rewritten
        job = client.post("/v1/index", json={"paths": ["."], "metadata": {"team": "sre"}})
        assert job.status_code == 202, job.text
        searched = 0
        while (state := client.get(f"/v1/jobs/{job.json()['id']}").json())["state"] == "running":
            answer = client.post("/v1/search", json={"query": "redis memory", "k": 3})
            assert answer.status_code == 200 and answer.json()["hits"]
            searched += 1
        assert state["state"] == "done", state
        assert state["report"]["updated"] == 1 and searched >= 1
        hits = client.post("/v1/search", json={"query": "swapping Redis host",
                                               "mode": "bm25"}).json()["hits"]
        assert "swapping" in hits[0]["text"] and hits[0]["metadata"]["team"] == "sre"
        (collection,) = client.get("/v1/collections").json()["collections"]
        assert collection["documents"] == len(CORPUS)


def test_two_servers_over_one_milvus_answer_alike(milvus_server: str,  # noqa: F811
                                                  kb: dict[str, Any]) -> None:
    store = ("--db", milvus_server, "--collection", "served")
    index(Path(kb["root"]), *store)
    with running(*store) as one, running(*store) as two:
        one.wait_ready()
        two.wait_ready()
        with one.client() as a, two.client() as b:
            for query in QUERIES:
                body = {"query": query, "k": 5, "expand": "auto"}
                assert a.post("/v1/search", json=body).json() == \
                    b.post("/v1/search", json=body).json()


def test_mcp_over_stdio(milvus_server: str, kb: dict[str, Any]) -> None:  # noqa: F811
    from mcp import Client, StdioServerParameters

    store = ["--db", milvus_server, "--collection", "served_stdio"]
    index(Path(kb["root"]), *store)
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "mdchunk.cli", "mcp", *store], env=serve_env())

    async def session() -> None:
        async with Client(params) as client:
            result = await client.call_tool("search", {"query": QUERIES[2], "k": 1})
            assert not result.is_error and "CrashLoopBackOff" in str(result.structured_content)

    started = time.monotonic()
    anyio.run(session)
    assert time.monotonic() - started < 300
