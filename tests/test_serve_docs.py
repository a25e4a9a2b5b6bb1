"""Issue 43: the server's pages work offline. FastAPI's ``/docs`` and ``/redoc`` loaded Swagger
UI, ReDoc and their fonts from a CDN (a blank page without the internet); ``/docs`` is now the
API reference rendered on the server from the app's own OpenAPI schema, ``/redoc`` leads to it,
and no page the server gives refers to anything outside it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from mdchunk.serve import ServeConfig
from mdchunk.serve.app import create_app
from mdchunk.serve.docs_page import operations
from tests.serve_fakes import fake_service

#: An attribute or CSS reference to a resource: what a browser would fetch.
_FETCHED = re.compile(r"""(?:src|href|action)\s*=\s*["']?([^"'\s>]+)|url\(\s*["']?([^"')]+)"""
                      r"""|@import\s+["']([^"']+)""", re.IGNORECASE)


@pytest.fixture()
def client() -> Iterator[TestClient]:
    config = ServeConfig()
    with TestClient(create_app(config, fake_service(config))) as client:
        yield client


def external(html: str) -> list[str]:
    """Every resource or link of a page that lies outside the server (a scheme or ``//``)."""
    found = [next(filter(None, groups)) for groups in _FETCHED.findall(html)]
    return [ref for ref in found if re.match(r"(?i)^(?:[a-z][a-z0-9+.-]*:|//)", ref)]


def test_docs_lists_every_operation_of_the_schema(client: TestClient) -> None:
    answer = client.get("/docs")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    html = answer.text
    schema = client.get("/openapi.json").json()
    ops = operations(schema)
    assert {(op.method, op.path) for op in ops} >= {("POST", "/v1/search"), ("POST", "/v1/chunk"),
                                                    ("GET", "/v1/collections")}
    for op in ops:
        assert f'id="{op.method.lower()}-{op.path}"' in html, (op.method, op.path)
    search = next(op for op in ops if op.path == "/v1/search")
    assert "query" in {f.name for f in search.fields}  # the body's fields are listed
    assert "SearchRequest" in search.body and "<script" not in html


def test_redoc_leads_to_docs(client: TestClient) -> None:
    answer = client.get("/redoc", follow_redirects=False)
    assert answer.status_code in (302, 307) and answer.headers["location"] == "/docs"


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/", "/?q=promote+the+standby&mode=bm25"])
def test_no_page_refers_to_anything_outside_the_server(client: TestClient, path: str) -> None:
    html = client.get(path).text
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert external(html) == []
    assert "cdn" not in html.lower() and "fonts.googleapis" not in html


def test_the_check_sees_what_fastapis_own_pages_fetch() -> None:
    """The check above would have caught the old pages."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html

    swagger = get_swagger_ui_html(openapi_url="/openapi.json", title="t").body.decode()
    redoc = get_redoc_html(openapi_url="/openapi.json", title="t").body.decode()
    assert external(swagger) and external(redoc)
