"""Shared test inputs: the project's fixtures and the real runbook corpora beside the repo."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdchunk.tokens import get_counter

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPORA = ROOT.parent / "shared" / "corpora"


def fixture_files(*suffixes: str) -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.suffix in suffixes)


def corpus_files() -> list[Path]:
    return sorted(CORPORA.rglob("*.md")) if CORPORA.is_dir() else []


@pytest.fixture(scope="session")
def counter():
    return get_counter("cl100k_base")


# Fixtures that need the embedding model or Milvus live beside their helpers.
from .conftest_milvus import corpus, milvus, milvus_server, model  # noqa: E402,F401
