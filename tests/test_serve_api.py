"""``mdchunk serve``'s ``/v1`` API in process (FastAPI's test client) over the in-memory index
of serve_fakes.py: every endpoint's answer, and every error as ``{"error": {code, message}}``
with its status. The same app over Milvus and a model, in real processes: test_serve_process."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from mdchunk import ChunkerConfig, chunk_hierarchy, chunk_markdown
from mdchunk.serve import ServeConfig
from mdchunk.serve.app import create_app
from tests.serve_fakes import DOCS, RUN_METADATA, fake_service

TEXT = "# Guide\n\n## Install\n\nRun `pip install mdchunk`.\n\n## Use\n\nCall chunk_markdown.\n"


@pytest.fixture()
def client() -> Iterator[TestClient]:
    config = ServeConfig()
    with TestClient(create_app(config, fake_service(config))) as client:
        yield client


def error_of(response) -> str:  # type: ignore[no-untyped-def]
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert "Traceback" not in body["error"]["message"]
    return str(body["error"]["code"])


def test_chunk_gives_the_library_chunks_exactly(client: TestClient) -> None:
    answer = client.post("/v1/chunk", json={"text": TEXT, "name": "guide.md", "max_tokens": 64,
                                            "overlap_tokens": 0})
    assert answer.status_code == 200
    expected = chunk_markdown(TEXT, doc_id="guide.md",
                              config=ChunkerConfig(max_tokens=64, overlap_tokens=0))
    assert answer.json()["chunks"] == [c.to_dict() for c in expected]


def test_chunk_at_a_small_budget_needs_no_overlap_given(client: TestClient) -> None:
    """An overlap the request did not give fits its budget (issue 44); one that does not is
    a 400 naming it."""
    answer = client.post("/v1/chunk", json={"text": TEXT, "name": "g.md", "max_tokens": 64})
    assert answer.status_code == 200, answer.text
    assert answer.json()["chunks"] == [c.to_dict() for c in chunk_markdown(
        TEXT, doc_id="g.md", config=ChunkerConfig(max_tokens=64, overlap_tokens=8))]
    bad = client.post("/v1/chunk", json={"text": TEXT, "max_tokens": 64, "overlap_tokens": 64})
    assert bad.status_code == 400 and "overlap_tokens=64" in bad.json()["error"]["message"]


def test_chunk_with_levels_gives_the_hierarchy(client: TestClient) -> None:
    answer = client.post("/v1/chunk", json={"text": TEXT, "levels": [128, 16],
                                            "overlap_tokens": 0})
    expected = chunk_hierarchy(TEXT, levels=[128, 16], overlap_tokens=0)
    assert answer.json()["chunks"] == [c.to_dict() for c in expected]
    assert {c["level"] for c in answer.json()["chunks"]} == {1, 2}


def test_chunk_reads_a_files_bytes_by_its_name(client: TestClient) -> None:
    raw = "Q: Why?\nA: Because.\n\nQ: How?\nA: Like so.\n".encode("utf-16")
    answer = client.post("/v1/chunk", json={"file_base64": base64.b64encode(raw).decode(),
                                            "name": "faq.txt"})
    chunks = answer.json()["chunks"]
    assert [c["section_path"] for c in chunks] == ["Why?", "How?"]
    assert chunks[0]["metadata"]["source_encoding"].startswith("utf-16")


@pytest.mark.parametrize("body", [
    {"text": "a", "file_base64": "YQ=="}, {}, {"file_base64": "not base64!", "name": "a.md"},
    {"text": "a", "max_tokens": 0}, {"text": "a", "includes": "/etc"},
    {"text": "a", "tokenizer": "/etc/passwd"}, {"text": "a", "levels": [16, 128]},
    {"text": "a", "site": "wordpress"}])
def test_bad_chunk_requests_are_400(client: TestClient, body: dict[str, object]) -> None:
    answer = client.post("/v1/chunk", json=body)
    assert answer.status_code == 400 and error_of(answer) == "bad_request"


def test_embed_answers_the_served_model(client: TestClient) -> None:
    answer = client.post("/v1/embed", json={"texts": ["one", "two"]}).json()
    assert (answer["model"], answer["dim"], answer["backend"]) == ("test/hash-8", 8, "torch")
    assert len(answer["vectors"]) == 2 and all(len(v) == 8 for v in answer["vectors"])


def test_search_gives_hits_with_provenance(client: TestClient) -> None:
    answer = client.post("/v1/search", json={"query": "maxmemory evicts keys", "k": 2,
                                             "mode": "bm25"})
    hits = answer.json()["hits"]
    assert answer.status_code == 200 and hits
    assert hits[0]["path"] == "ops/redis.md" and "Eviction" in hits[0]["section_path"]
    assert hits[0]["line_start"] >= 1 and hits[0]["level"] == 2


def test_search_takes_every_search_option(client: TestClient) -> None:
    answer = client.post("/v1/search", json={
        "query": "promote the standby", "k": 3, "mode": "hybrid", "fusion": "rrf",
        "weights": [0.5, 0.5], "expand": "parent", "path_prefix": "ops/postgres"})
    hits = answer.json()["hits"]
    assert hits and {h["path"] for h in hits} == {"ops/postgres.md"}
    assert all(h["level"] == 1 for h in hits)  # widened to the parents


def test_search_takes_a_filter_and_says_where_a_bad_one_goes_wrong(client: TestClient) -> None:
    answer = client.post("/v1/search", json={"query": "maxmemory promote standby", "k": 5,
                                             "mode": "bm25", "where": 'path ~ "ops/p*.md"'})
    hits = answer.json()["hits"]
    assert answer.status_code == 200 and hits
    assert {h["path"] for h in hits} == {"ops/postgres.md"}
    for where, words in (('path ~ "ops/**" and', "column 20"),
                         ('severity == "x"', "unknown field 'severity' at column 1")):
        answer = client.post("/v1/search", json={"query": "x", "mode": "bm25", "where": where})
        assert answer.status_code == 400 and error_of(answer) == "bad_request"
        assert words in answer.json()["error"]["message"]


@pytest.mark.parametrize("body", [{"query": ""}, {"query": "x", "k": 0},
                                  {"query": "x", "mode": "fuzzy"}, {"query": "x", "weights": [1]},
                                  {"query": "x", "extra": 1}, {"query": "   "}])
def test_bad_searches_are_400(client: TestClient, body: dict[str, object]) -> None:
    answer = client.post("/v1/search", json=body)
    assert answer.status_code == 400 and error_of(answer) == "bad_request"


def test_a_chunk_by_id_and_its_parent(client: TestClient) -> None:
    hit = client.post("/v1/search", json={"query": "Promote standby", "mode": "bm25",
                                          "k": 1}).json()["hits"][0]
    leaf = client.get(f"/v1/chunks/{hit['id']}").json()
    assert leaf["id"] == hit["id"] and leaf["text"] == hit["text"]
    parent = client.get(f"/v1/chunks/{hit['id']}", params={"expand": "parent"}).json()
    assert parent["id"] == hit["parent_id"] and leaf["text"] in parent["text"]
    a, b = parent["marks"][0]
    assert parent["text"][a:b] == leaf["text"]
    assert client.get(f"/v1/chunks/{parent['id']}").json()["text"] == parent["text"]


def test_an_unknown_chunk_is_404(client: TestClient) -> None:
    answer = client.get("/v1/chunks/nope")
    assert answer.status_code == 404 and error_of(answer) == "not_found"
    assert error_of(client.get("/v1/nothing-here")) == "not_found"


def test_collections_name_the_model_and_counts(client: TestClient) -> None:
    (collection,) = client.get("/v1/collections").json()["collections"]
    assert collection["model"] == "test/hash-8" and collection["analyzer"] == "standard"
    assert collection["chunks"] > 4
    assert collection["documents"] == len(DOCS)


def test_hits_carry_their_pages_metadata(client: TestClient) -> None:
    """Issue 45: front matter over the run's metadata, the page's language and version, on
    every hit, its parent's too."""
    for expand in ("none", "parent"):
        hits = client.post("/v1/search", json={"query": "maxmemory evicts keys promote standby",
                                                "k": 5, "mode": "bm25",
                                                "expand": expand}).json()["hits"]
        by_path = {hit["path"]: hit for hit in hits}
        redis, postgres = by_path["ops/redis.md"], by_path["ops/postgres.md"]
        assert redis["metadata"] == {**RUN_METADATA, "tags": ["cache", "memory"],
                                     "version": "7.2"}
        assert (redis["lang"], redis["version"]) == ("en", "7.2")
        assert postgres["metadata"] == RUN_METADATA and postgres["version"] == ""
    leaf = client.get(f"/v1/chunks/{redis['leaf_ids'][0]}").json()
    assert leaf["metadata"]["tags"] == ["cache", "memory"]


def test_probes_and_metrics(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready"}
    client.post("/v1/search", json={"query": ""})
    metrics = client.get("/metrics").text
    assert 'mdchunk_requests_total{method="POST",route="/v1/search",status="400"} 1.0' in metrics
    assert 'mdchunk_errors_total{code="bad_request"} 1.0' in metrics
    assert "mdchunk_request_seconds_bucket" in metrics and "mdchunk_in_flight" in metrics


@pytest.mark.slow  # it opens a Milvus Lite store (that fails), so pymilvus loads
def test_not_ready_until_warm() -> None:
    config = ServeConfig(store=ServeConfig().store.__class__(db="/nonexistent/dir/x.db"))
    with TestClient(create_app(config)) as client:
        client.app.state.server.wait_open(30)  # type: ignore[attr-defined]
        answer = client.get("/readyz")
        assert answer.status_code == 503 and error_of(answer) == "not_ready"
        answer = client.post("/v1/search", json={"query": "x"})
        assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
        # chunking needs no index
        assert client.post("/v1/chunk", json={"text": TEXT}).status_code == 200
