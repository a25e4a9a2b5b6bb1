"""The MCP tools through the official SDK's client, in process over the in-memory index: the
tools are listed, ``search`` answers hits citing path, lines and url, ``get_chunk`` gives a
passage and its parent. The same over HTTP and stdio, in real processes: test_serve_index."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import Client

from mdchunk.serve.mcp_tools import mcp_server
from tests.serve_fakes import RUN_METADATA, fake_service


def payload(result: Any) -> Any:
    """A tool's answer: its structured content, else its text parsed."""
    assert not result.is_error, result
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content)
    return json.loads(result.content[0].text)


def test_the_tools_are_listed_and_answer() -> None:
    service = fake_service()

    async def session() -> None:
        async with Client(mcp_server(lambda: service)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {"search", "get_chunk"}
            assert "query" in tools["search"].input_schema["properties"]
            hits = payload(await client.call_tool("search", {"query": "promote the standby",
                                                             "k": 2, "mode": "bm25"}))
            assert hits and hits[0]["path"] == "ops/postgres.md"
            assert {"path", "lines", "url", "text", "id"} <= set(hits[0])
            assert hits[0]["metadata"] == RUN_METADATA and hits[0]["lang"] == "en"
            first, last = map(int, hits[0]["lines"].split("-"))
            assert 1 <= first <= last
            parent = payload(await client.call_tool("get_chunk", {"id": hits[0]["id"],
                                                                  "expand": "parent"}))
            assert parent["id"] == hits[0]["parent_id"] and hits[0]["text"] in parent["text"]
            missing = await client.call_tool("get_chunk", {"id": "nope"})
            assert missing.is_error

    anyio.run(session)


def test_the_search_tool_takes_a_filter() -> None:
    service = fake_service()

    async def session() -> None:
        async with Client(mcp_server(lambda: service)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert "where" in tools["search"].input_schema["properties"]
            hits = payload(await client.call_tool("search", {
                "query": "promote the standby maxmemory", "k": 5, "mode": "bm25",
                "where": 'path ~ "ops/r*.md"'}))
            assert hits and {h["path"] for h in hits} == {"ops/redis.md"}
            bad = await client.call_tool("search", {"query": "x", "where": "path ~"})
            assert bad.is_error and "column 7" in bad.content[0].text
            unknown = await client.call_tool("search", {"query": "x", "where": "sev == 1"})
            assert unknown.is_error and "unknown field 'sev'" in unknown.content[0].text

    anyio.run(session)


def test_the_search_tool_takes_collapse_and_per_page() -> None:
    service = fake_service()

    async def session() -> None:
        async with Client(mcp_server(lambda: service)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert {"collapse", "per_page"} <= set(tools["search"].input_schema["properties"])
            query = {"query": "redis maxmemory fragmentation replica promote", "k": 5,
                     "mode": "bm25", "collapse": False}
            every = payload(await client.call_tool("search", query))
            assert len(every) > len({h["path"] for h in every})  # some page has two hits
            one_each = payload(await client.call_tool("search", {**query, "per_page": 1}))
            paths = [h["path"] for h in one_each]
            assert len(paths) == len(set(paths)) == len({h["path"] for h in every})
            bad = await client.call_tool("search", {**query, "per_page": 0})
            assert bad.is_error and "per_page" in bad.content[0].text

    anyio.run(session)


def test_the_server_reports_mdchunks_version() -> None:
    """Issue 43: an agent's client saw version '' (the SDK's default)."""
    import mdchunk

    service = fake_service()

    async def session() -> None:
        async with Client(mcp_server(lambda: service)) as client:
            info = client.server_info
            assert info is not None and (info.name, info.version) == ("mdchunk",
                                                                     mdchunk.__version__)
            assert mdchunk.__version__  # a real version, not the empty default

    anyio.run(session)
