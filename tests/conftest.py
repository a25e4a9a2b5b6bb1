"""Shared test inputs: the project's fixtures, and the real corpora when they are present.

The runbook corpora (``MDCHUNK_CORPORA``, default ``../shared/corpora``) and Chroma's benchmark
(``MDCHUNK_CHROMA``, default ``../shared/chroma``) live beside the repository here and in CI,
not in a user's clone: tests over them skip when they are absent, and the run ends with one
line saying how many were skipped and how to enable them. CI sets
``MDCHUNK_REQUIRE_CORPORA=1`` so that they can never be skipped silently there.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from mdchunk.tokens import get_counter

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPORA = Path(os.environ.get("MDCHUNK_CORPORA") or ROOT.parent / "shared" / "corpora")
CHROMA = Path(os.environ.get("MDCHUNK_CHROMA") or ROOT.parent / "shared" / "chroma") / "corpora"
REQUIRE_CORPORA = bool(os.environ.get("MDCHUNK_REQUIRE_CORPORA"))
#: The skip reason of every test that needs a corpus; the summary line counts them by it.
CORPUS_ABSENT = "corpus not present"


def bench_module(name: str) -> ModuleType:
    """``bench/NAME.py`` loaded as a module (the bench folder is no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixture_files(*suffixes: str) -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.suffix in suffixes)


def corpus_files() -> list[Path]:
    return sorted(CORPORA.rglob("*.md")) if CORPORA.is_dir() else []


#: The documentation-site corpora and the site each page is written for (issue 32); every
#: other corpus is plain Markdown.
SITE_CORPORA = {"hugo-docs": "hugo", "ory-docs": "docusaurus", "rocketmq-docs": "plain"}


def site_corpus_mdx() -> list[Path]:
    """The MDX pages of the site corpora (``corpus_files`` gives their ``.md`` pages)."""
    return sorted(p for name in SITE_CORPORA for p in (CORPORA / name).rglob("*.mdx"))


def site_of(path: Path) -> str:
    """The site a corpus page is chunked for: its corpus's, else ``"plain"``."""
    try:
        first = path.relative_to(CORPORA).parts[0]
    except (ValueError, IndexError):
        return "plain"
    return SITE_CORPORA.get(first, "plain")


def with_corpus(files: list[Path], corpus_dir: Path) -> list[object]:
    """Parameters for a test over ``files``, marked ``corpus`` (``make test-fast`` leaves them
    out); one skipped placeholder when ``corpus_dir`` is absent."""
    if corpus_dir.is_dir():
        return [pytest.param(path, marks=pytest.mark.corpus, id=path.name) for path in files]
    return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CORPUS_ABSENT}: {corpus_dir}"))]


@pytest.fixture(scope="session")
def counter():
    return get_counter("cl100k_base")


#: Not a test module: the refusal of heavy imports, loaded below or by ``site``.
collect_ignore = ["refuse_heavy"]

#: ``make test-fast`` sets it: a test that imports a model runtime or Milvus fails (see
#: tests/refuse_heavy/sitecustomize.py), here and in the subprocesses the tests start.
REFUSE_HEAVY = bool(os.environ.get("MDCHUNK_REFUSE_HEAVY"))


def _refuse_heavy_imports() -> ModuleType:
    folder = Path(__file__).resolve().parent / "refuse_heavy"
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(folder), os.environ.get("PYTHONPATH")]))  # for subprocesses
    module = sys.modules.get("sitecustomize")
    if not hasattr(module, "REFUSED"):  # not started with the folder on PYTHONPATH
        spec = importlib.util.spec_from_file_location("refuse_heavy", folder / "sitecustomize.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    module.install()
    return module


_REFUSAL = _refuse_heavy_imports() if REFUSE_HEAVY else None


@pytest.fixture(autouse=True)
def _no_heavy_import_in_the_fast_set() -> Iterator[None]:
    """Under ``MDCHUNK_REFUSE_HEAVY``, fail a test that tried to load a model runtime or Milvus,
    even when the code under test caught the error."""
    before = len(_REFUSAL.REFUSED) if _REFUSAL else 0
    yield
    if _REFUSAL and _REFUSAL.REFUSED[before:]:
        pytest.fail(f"imported {sorted(set(_REFUSAL.REFUSED[before:]))}: a test that loads a "
                    "model or opens Milvus is marked @pytest.mark.slow")


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if CORPUS_ABSENT in str(getattr(r, "longrepr", ""))]
    if skipped:
        terminalreporter.write_line(
            f"mdchunk: {len(skipped)} corpus tests skipped: corpora not found at {CORPORA} or "
            f"{CHROMA}; set MDCHUNK_CORPORA / MDCHUNK_CHROMA to run them")


# Fixtures that need the embedding model or Milvus live beside their helpers.
from .conftest_milvus import corpus, milvus, milvus_server, model  # noqa: E402,F401


def embedded_text(source: str, chunk, site: str = "plain") -> str:
    """What ``chunk.embed_text`` must end with: its text after hygiene (the span of the text the
    chunker read, ``tests/audit.py`` ``as_read``), heading id markup, images' destinations and
    HTML comments left out (the default ``html_comments="drop"``), generator markup as its page
    shows it (``site``), blank lines they leave collapsed."""
    from mdchunk.plan.visible import clipped, visible_text
    from tests.audit import as_read

    source, [(start, end)] = as_read(source, [(chunk.start, chunk.end)])
    rewrites = clipped(_rewrites(source, site), start, end)
    if not rewrites:
        return source[start:end]
    return visible_text(source, start, end, rewrites)


@functools.lru_cache(maxsize=4)
def _rewrites(source: str, site: str) -> tuple[tuple[int, int, str], ...]:
    from mdchunk.formats import parse_markdown
    from mdchunk.formats.site_markup import render_markup
    from mdchunk.plan.visible import page_hidden

    return page_hidden(render_markup(parse_markdown(source, site), site), comments=True)


def run_mdchunk(*args: str, cwd: Path | None = None, check: bool = False):
    """Run the real console entry point (``mdchunk`` beside this interpreter, else ``python -m
    mdchunk.cli``) on this checkout's package, from ``cwd``."""
    import subprocess
    import sys

    script = Path(sys.executable).with_name("mdchunk")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "mdchunk.cli"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "200",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([*command, *args], capture_output=True, text=True, check=check,
                          cwd=cwd, env=env)
