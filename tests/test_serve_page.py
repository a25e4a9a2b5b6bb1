"""The search page at ``/``: rendered on the server, self-contained (nothing fetched), the
query escaped; each hit with its breadcrumb, lines and text, the matching leaves marked, its
parent behind "show the parent". In headless Chromium (Playwright on the system browser) where
one is installed, else skipped as test_inspect_page does."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from mdchunk.serve import ServeConfig
from mdchunk.serve.app import create_app
from tests.serve_fakes import fake_service, live_server

from .test_inspect_page import _browser


@pytest.fixture()
def client() -> Iterator[TestClient]:
    config = ServeConfig()
    with TestClient(create_app(config, fake_service(config))) as client:
        yield client


def test_the_page_shows_hits_and_their_parents(client: TestClient) -> None:
    empty = client.get("/")
    assert empty.status_code == 200 and '<input type="search" name="q"' in empty.text
    html = client.get("/", params={"q": "promote the standby", "mode": "bm25", "k": 2}).text
    assert "<link" not in html and "src=" not in html and "<script" not in html
    assert 'class="hit"' in html and "ops/postgres.md:" in html
    assert "PostgreSQL &gt; Failover" in html and "<mark>" in html
    assert "show the parent" in html


def test_the_query_is_escaped(client: TestClient) -> None:
    html = client.get("/", params={"q": "<script>alert(1)</script>"}).text
    assert "<script>alert" not in html and "&lt;script&gt;" in html


@pytest.mark.process
def test_the_page_in_chromium() -> None:
    browser_path = _browser()
    from playwright.sync_api import sync_playwright

    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with live_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=args, headless=True)
        try:
            page = browser.new_page()
            page.goto(url + "/")
            page.fill("input[name=q]", "maxmemory evicts keys")
            page.select_option("select[name=mode]", "bm25")
            page.click("button[type=submit]")
            page.wait_for_selector(".hit")
            first = page.locator(".hit").first
            assert "ops/redis.md" in first.locator(".where").text_content()
            # the hit's own breadcrumb; the parent's is inside its <details>
            assert "Eviction" in first.locator(":scope > .crumb").text_content()
            assert first.locator("mark").count() >= 1
            parent = first.locator("details.parent pre")
            assert not parent.is_visible()
            first.locator("summary").click()
            assert parent.is_visible() and "maxmemory" in parent.text_content()
            assert "lines" in first.locator("details.parent .crumb").text_content()
        finally:
            browser.close()
