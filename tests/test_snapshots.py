"""Snapshots of every fixture's chunks: any change in chunking shows up as a reviewed diff.

Update deliberately with ``pytest tests/test_snapshots.py --snapshot-update`` and read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

import mdchunk
from mdchunk.formats import parse_markdown
from mdchunk.formats.sites import _headings, anchors
from mdchunk.text import document_text

from .conftest import fixture_files

FIXTURES = fixture_files(".md", ".mdx", ".txt")


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_chunks(path: Path, snapshot_json) -> None:
    chunks = mdchunk.chunk_file(path, doc_id=path.name, max_tokens=256, overlap_tokens=32)
    assert [c.to_dict() for c in chunks] == snapshot_json


#: Documentation-site fixtures, each chunked as its site publishes it: (fixture, site, the
#: document's id under the indexed root, base_url).
SITE_CASES = [
    ("docusaurus-rolling-upgrades.md", "docusaurus", "docs/operations/02-rolling-upgrades.md",
     "https://docs.example.com/"),
    ("mkdocs-backup-index.md", "mkdocs", "docs/backups/index.md", "https://handbook.example.com"),
    ("hugo-incident-section-index.md", "hugo", "content/handbook/incidents/_index.md",
     "https://example.com/"),
    ("cjk-headings-install-guide.zh.md", "docusaurus", "docs/zh/log-agent/install.md",
     "https://docs.example.com/"),
    ("cjk-headings-install-guide.zh.md", "mkdocs", "docs/zh/log-agent/install.md",
     "https://docs.example.com/"),
    ("cjk-headings-install-guide.zh.md", "hugo", "content/zh/log-agent/Install Guide.md",
     "https://docs.example.com/"),
    ("github-readme-duplicate-headings.md", "plain", "README.md",
     "https://github.com/example/queue-inspector/blob/main"),
]


@pytest.mark.parametrize("name,site,doc_id,base_url", SITE_CASES,
                         ids=[f"{site}-{name}" for name, site, _, _ in SITE_CASES])
def test_site_fixture_anchors_and_urls(name: str, site: str, doc_id: str, base_url: str,
                                       snapshot_json) -> None:
    """Every heading's anchor as the site gives it (duplicates and explicit ids included),
    and each chunk's headings, title, anchor and URL at a budget that gives most sections a
    chunk of their own."""
    path = Path(__file__).parent.parent / "fixtures" / name
    headings = list(_headings(parse_markdown(document_text(path)).blocks))
    found = anchors(parse_markdown(document_text(path)).blocks, site)  # type: ignore[arg-type]
    chunks = mdchunk.chunk_file(path, doc_id=doc_id, max_tokens=128, overlap_tokens=16,
                                min_tokens=0, site=site, base_url=base_url)
    assert {
        "anchors": [[h.title, found.get(h.start)] for h in headings],
        "chunks": [{"lines": [c.line_start, c.line_end], "headings": c.headings,
                    "title": c.title, "anchor": c.anchor, "url": c.url} for c in chunks],
    } == snapshot_json


#: One fixture per site generator, chunked for its site: every chunk, ``embed_text`` included,
#: at a budget that cuts tabs and admonitions' sections (read chunk by chunk when they change).
GENERATOR_CASES = [
    ("docusaurus-tabs-install.mdx", "docusaurus"),
    ("hugo-shortcodes-pods.md", "hugo"),
    ("mkdocs-material-restore.md", "mkdocs"),
    ("myst-directives-upgrade.md", "plain"),
    ("vitepress-containers-config.md", "plain"),
    ("github-alerts-readme.md", "plain"),
    ("mkdocs-content-tabs.md", "mkdocs"),
    ("hugo-callouts-drain.md", "hugo"),
    ("hugo-zh-kubelet-upgrade.md", "hugo"),
]


@pytest.mark.parametrize("name,site", GENERATOR_CASES,
                         ids=[f"{site}-{name}" for name, site in GENERATOR_CASES])
def test_generator_fixture_chunks(name: str, site: str, snapshot_json) -> None:
    path = Path(__file__).parent.parent / "fixtures" / name
    chunks = mdchunk.chunk_file(path, doc_id=name, max_tokens=128, overlap_tokens=16, site=site)
    assert [c.to_dict() for c in chunks] == snapshot_json
