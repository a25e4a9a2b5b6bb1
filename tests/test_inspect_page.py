"""The ``inspect --html`` page in a real browser: headless Chromium (Debian's ``chromium``)
driven by Playwright, pointed at the system browser (no browser download).

Skips with a message saying what is missing where no browser can be had; CI installs one and
sets ``MDCHUNK_REQUIRE_BROWSER=1``, so there a missing browser fails instead. The screenshot
lands in ``test-artifacts/`` (gitignored) for a person to look at.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from .conftest import FIXTURES, ROOT, run_mdchunk

ARTIFACTS = ROOT / "test-artifacts"


def _browser() -> str:
    """The system Chromium's path, or skip (fail in CI) saying what is missing."""
    found = os.environ.get("MDCHUNK_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = "playwright is not installed (pip install -e '.[dev]')"
    if found is None:
        problem = "no Chromium on PATH (apt-get install -y chromium, or set MDCHUNK_CHROMIUM)"
    if problem:
        if os.environ.get("MDCHUNK_REQUIRE_BROWSER"):
            pytest.fail(f"browser test required here but {problem}")
        pytest.skip(f"browser test skipped: {problem}")
    assert found is not None
    return found


@pytest.mark.process
def test_inspect_page_in_chromium(tmp_path: Path) -> None:
    browser_path = _browser()
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "view.html"
    fixture = FIXTURES / "alert-catalogue-long-table.md"
    done = run_mdchunk("inspect", str(fixture), "--max-tokens", "128", "--html", str(page_file),
                       cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = run_mdchunk("chunk", str(fixture), "--max-tokens", "128", cwd=tmp_path,
                       check=True).stdout
    chunks = [json.loads(line) for line in rows.splitlines()]
    assert len(chunks) > 10
    html = page_file.read_text(encoding="utf-8")
    assert "<link" not in html and "src=" not in html  # self-contained: nothing fetched

    ARTIFACTS.mkdir(exist_ok=True)
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=args, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(page_file.as_uri())
            assert page.locator("#list li").count() == len(chunks)
            assert page.locator("#doc .mark").count() == len(chunks)
            assert page.locator("#hist .bar").count() > 1

            page.locator("#list li").nth(5).click()
            assert "sel" in page.locator("#list li").nth(5).get_attribute("class")
            highlighted = page.locator("#doc [data-c].sel, #doc [data-c].sel-ov")
            assert highlighted.count() >= 1
            shown = page.locator("#doc [data-c].sel, #doc [data-c].sel-ov").all_text_contents()
            assert chunks[5]["text"] == "".join(shown)  # exactly its text, overlap included
            assert page.locator("#embed").text_content() == chunks[5]["embed_text"]

            page.keyboard.press("j")
            assert "sel" in page.locator("#list li").nth(6).get_attribute("class")
            assert "sel" not in (page.locator("#list li").nth(5).get_attribute("class") or "")
            assert page.locator("#embed").text_content() == chunks[6]["embed_text"]
            if chunks[6]["start"] < chunks[5]["end"]:  # the overlap it shares is marked apart
                assert page.locator("#doc [data-c].sel-ov").count() >= 1
            page.keyboard.press("ArrowUp")
            assert page.locator("#embed").text_content() == chunks[5]["embed_text"]

            page.locator("#doc .mark").nth(2).click()  # a boundary in the text selects too
            assert page.locator("#embed").text_content() == chunks[2]["embed_text"]

            # Keys scroll the text under a resting pointer; what slides beneath it
            # is not a preview the reader asked for, so the selection stays shown.
            for start in (page.locator("#doc .mark").nth(3), page.locator("#list li").nth(3)):
                start.click()
                for step in range(4, 12):
                    page.keyboard.press("j")
                    page.wait_for_timeout(120)  # let the scroll settle and its events fire
                    shown_now = page.locator("#embed").text_content()
                    assert shown_now == chunks[step]["embed_text"]
            page.locator("#doc .mark").nth(2).click()

            page.locator("#list li").nth(8).hover()  # hover previews another chunk
            assert page.locator("#embed").text_content() == chunks[8]["embed_text"]
            assert page.locator("#doc [data-c].hov").count() >= 1
            page.locator("header h1").hover()  # and leaving it goes back to the selected one
            assert page.locator("#embed").text_content() == chunks[2]["embed_text"]
            assert page.locator("#doc [data-c].hov").count() == 0
            page.screenshot(path=str(ARTIFACTS / "inspect-page.png"))
            assert errors == []
        finally:
            browser.close()
    assert (ARTIFACTS / "inspect-page.png").stat().st_size > 10_000
