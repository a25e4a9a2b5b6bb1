"""The same search over the Model Context Protocol, for agents (the official ``mcp`` SDK): the
tools ``search`` and ``get_chunk``, each result citing its path, lines and url. ``mdchunk mcp``
serves them on stdio (:func:`run_stdio`); ``mdchunk serve`` mounts them at ``/mcp``
(streamable HTTP, stateless, so that replicas answer alike)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import anyio.to_thread

from .. import __version__
from ..errors import ConfigError, InputError
from ..index.config import SearchConfig
from ..index.store import Expand, SearchHit, SearchMode
from .config import ServeConfig, is_loopback
from .service import Service

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["cited", "mcp_server", "run_stdio", "streamable_app"]

INSTRUCTIONS = ("Search an indexed documentation corpus (Markdown runbooks, guides). Call search "
                "with a question; each hit cites path, lines and url: cite them in answers. Call "
                "get_chunk with a hit's id and expand='parent' to read its wider context.")


def cited(hit: SearchHit) -> dict[str, Any]:
    """A hit as a tool answers it: its text, where it comes from, the lines of it that best
    match the query (``matching_lines``, as ``lines`` says them: cite those), and its page's
    metadata (front matter and the index run's, ``lang``, ``version``)."""
    return {"id": hit.id, "path": hit.path, "lines": f"{hit.line_start}-{hit.line_end}",
            "url": hit.url, "section_path": hit.section_path, "score": round(float(hit.score), 6),
            "level": hit.level, "parent_id": hit.parent_id, "text": hit.text,
            "also_in": [f"{x.path}:{x.line_start}-{x.line_end}" for x in hit.locations[1:]],
            "matching_lines": [f"{m.line_start}-{m.line_end}" for m in hit.matches],
            "metadata": hit.metadata, "lang": hit.lang, "version": hit.version}


def mcp_server(service: Callable[[], Service]) -> MCPServer:
    """The MCP server over the service ``service()`` gives (read when a tool is called, so
    that a server still loading answers with an error rather than hanging)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("mdchunk", instructions=INSTRUCTIONS, version=__version__)

    @server.tool()
    async def search(query: str, k: int = 5, mode: SearchMode = "hybrid",
                     expand: Expand = "none", path_prefix: str | None = None,
                     where: str | None = None, collapse: bool = True,
                     per_page: int | None = None,
                     rerank: bool | None = None) -> list[dict[str, Any]]:
        """Search the documentation: the k best passages for query, each with path, lines,
        url and section. mode: hybrid (default), dense or bm25; expand: none, parent (each
        hit's enclosing section) or auto; where: a filter such as 'tags contains "db" and
        lang == "zh"' or 'path ~ "runbooks/**"' (front matter keys, lang, version, path...);
        collapse (default true): a passage found on several pages is one hit, also_in listing
        the others; per_page: at most that many hits of one page (default: any number);
        rerank: whether the server's cross-encoder reorders the candidates (default: when the
        server has one)."""
        from mcp.server.mcpserver.exceptions import ToolError

        try:  # a filter's or a value's mistake is the caller's to fix: say what it is
            config = SearchConfig(k=max(1, min(k, 50)), mode=mode, expand=expand,
                                  path_prefix=path_prefix or None, where=where or None,
                                  collapse=collapse, per_page=per_page)
            hits = await anyio.to_thread.run_sync(
                lambda: service().search(config, query, rerank=rerank))
        except (ConfigError, InputError) as exc:  # a FilterError among them
            raise ToolError(str(exc)) from None
        return [cited(hit) for hit in hits]

    @server.tool()
    async def get_chunk(id: str, expand: Literal["none", "parent"] = "none") -> dict[str, Any]:
        """A passage by its id (from search); expand='parent' gives the enclosing section."""
        hit = await anyio.to_thread.run_sync(
            lambda: service().chunk(id, expand_parent=expand == "parent"))
        return cited(hit)

    return server


def streamable_app(server: MCPServer, host: str) -> Any:
    """The streamable-HTTP app of ``server`` answering at ``/mcp``: stateless JSON answers.
    Bound to loopback, the SDK checks Host and Origin against DNS rebinding; elsewhere the
    server's bearer token guards it."""
    from mcp.server.transport_security import TransportSecuritySettings

    security = None if is_loopback(host) else TransportSecuritySettings(
        enable_dns_rebinding_protection=False)
    return server.streamable_http_app(streamable_http_path="/mcp", json_response=True,
                                      stateless_http=True, host=host,
                                      transport_security=security)


def run_stdio(config: ServeConfig) -> None:
    """Open the index and the model, then answer MCP on stdin and stdout until stdin closes."""
    service = Service(config)
    service.warm_up()
    try:
        mcp_server(lambda: service).run("stdio")
    finally:
        service.close()
