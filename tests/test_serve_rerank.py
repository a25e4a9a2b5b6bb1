"""Reranking in ``mdchunk serve`` (issue 46): a server started with ``--rerank`` reranks each
search's candidate pool (not its top k) over ``/v1/search`` and the MCP ``search`` tool, unless a
request says ``"rerank": false``; a request asking for it on a server without one is a 400; a
reranker that cannot be loaded stops the server before it binds, in one line.

The cross-encoder is a tiny BERT with random weights made in the test (nothing is downloaded):
what is tested is that the hits come in the order, and with the scores, it gives."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from mdchunk.embedding import load_reranker
from mdchunk.serve import ServeConfig
from mdchunk.serve.app import create_app
from mdchunk.serve.service import Service
from tests.serve_fakes import fake_service
from tests.serve_processes import NO_INDEX, serve_command, serve_env

from .tiny_models import tiny_cross_encoder

QUERY = "redis memory eviction"


def passage(hit: dict[str, Any]) -> str:
    """What the reranker reads of a hit: its text under its section's path."""
    return f"{hit['section_path']}\n\n{hit['text']}" if hit["section_path"] else hit["text"]


def searched(service: Service, **body: Any) -> list[dict[str, Any]]:
    config = service.config
    with TestClient(create_app(config, service)) as client:
        answer = client.post("/v1/search", json={"query": QUERY, **body})
    assert answer.status_code == 200, answer.text
    hits: list[dict[str, Any]] = answer.json()["hits"]
    return hits


def mcp_search(service: Service, **arguments: Any) -> Any:
    from mcp import Client

    from mdchunk.serve.mcp_tools import mcp_server

    async def session() -> Any:
        async with Client(mcp_server(lambda: service)) as client:
            return await client.call_tool("search", {"query": QUERY, **arguments})

    return anyio.run(session)


def mcp_hits(service: Service, **arguments: Any) -> list[dict[str, Any]]:
    result = mcp_search(service, **arguments)
    assert not result.is_error, result
    content = result.structured_content
    hits: list[dict[str, Any]] = content.get("result", content)
    return hits


class Longest:
    """A fake reranker: the longer the passage the better; remembers how many it was given."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def __call__(self, query: str, texts: Sequence[str]) -> list[float]:
        self.asked.append(len(texts))
        return [float(len(text)) for text in texts]


def test_a_served_reranker_reorders_the_whole_pool_not_the_top_k() -> None:
    longest = Longest()
    service = fake_service(ServeConfig(rerank=longest))
    fused = searched(service, k=100, rerank=False)
    assert len(fused) > 3
    asked = len(longest.asked)
    [top] = searched(service, k=1)
    assert longest.asked[asked:] == [len(fused)]  # the pool, read once, whatever k is
    best = max(fused, key=lambda hit: len(passage(hit)))
    assert (top["id"], top["score"]) == (best["id"], float(len(passage(best))))
    assert searched(service, k=1, rerank=True) == [top]


def test_rerank_false_keeps_the_fused_order() -> None:
    plain = searched(fake_service(), k=4)
    assert searched(fake_service(ServeConfig(rerank=Longest())), k=4, rerank=False) == plain
    assert searched(fake_service(), k=4, rerank=False) == plain


def test_a_server_without_a_reranker_refuses_a_request_for_one() -> None:
    service = fake_service()
    with TestClient(create_app(service.config, service)) as client:
        answer = client.post("/v1/search", json={"query": QUERY, "rerank": True})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "bad_request"
    assert "no reranker" in error["message"] and "--rerank" in error["message"]
    refused = mcp_search(service, rerank=True)
    assert refused.is_error and "no reranker" in refused.content[0].text


@pytest.mark.process
@pytest.mark.parametrize("command", [serve_command(), [sys.executable, "-m", "mdchunk.cli", "mcp"]],
                         ids=["serve", "mcp"])
def test_a_reranker_that_cannot_be_loaded_stops_the_server_at_start(command: list[str]) -> None:
    done = subprocess.run([*command, "--db", NO_INDEX, "--rerank", "nope"],
                          check=False, capture_output=True, text=True, env=serve_env(),
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 1 and not done.stdout  # no address, no MCP: it never started
    [line] = done.stderr.splitlines()
    assert line.startswith("mdchunk: error: reranker 'nope'") and "Traceback" not in line


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tiny_cross_encoder(tmp_path_factory.mktemp("cross-encoder"))


@pytest.mark.slow
def test_a_served_cross_encoder_orders_and_scores_the_hits(cross_encoder: Path) -> None:
    """``mdchunk serve --rerank FOLDER``'s service: ``/v1/search`` and the MCP tool give the
    pool's best k as the cross-encoder scores them, each with its score."""
    service = fake_service(ServeConfig(rerank=str(cross_encoder)))
    fused = searched(service, k=100, rerank=False)
    scores = load_reranker(str(cross_encoder))(QUERY, [passage(hit) for hit in fused])
    best = sorted(zip(scores, (hit["id"] for hit in fused), strict=True),
                  key=lambda pair: -pair[0])[:3]
    expected = [(i, pytest.approx(s, abs=1e-5)) for s, i in best]
    reranked = searched(service, k=3)
    assert [(hit["id"], hit["score"]) for hit in reranked] == expected
    assert [hit["id"] for hit in reranked] != [hit["id"] for hit in fused[:3]]  # a new order
    assert [(hit["id"], hit["score"]) for hit in mcp_hits(service, k=3)] == expected
    assert [hit["id"] for hit in mcp_hits(service, k=3, rerank=False)] == \
        [hit["id"] for hit in fused[:3]]
