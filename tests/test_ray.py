"""The Ray engine on a local two-CPU cluster against a ``milvus-lite server``: the collection
it builds equals, id for id and vector for vector, the one the single-process indexer builds
from the same tree, through edits, deletions and a crash. Skipped when Ray is not installed
(``make test-ray`` installs it)."""

from __future__ import annotations

import importlib.util
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mdchunk.index import index_paths
from mdchunk.index.distributed import RayEngine, index_paths_ray
from mdchunk.index.milvus import MilvusStore

from .conftest import FIXTURES, ROOT
from .conftest_milvus import CountingEmbedder, HashEmbedder, write_corpus
from .test_index import snapshot

# asked without importing Ray, so that collecting this module costs nothing in the fast set
pytestmark = [pytest.mark.slow, pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                                   reason="Ray is not installed (make test-ray)")]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local Ray cluster of 2 CPUs; its workers import this checkout (and tests/)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}})
    yield
    ray.shutdown()


def _tree(tmp_path: Path) -> Path:
    kb = write_corpus(tmp_path / "kb")
    shutil.copytree(FIXTURES, kb / "fixtures")
    return kb


def _pair(milvus_server: str) -> tuple[dict[str, str], dict[str, str]]:
    tag = uuid.uuid4().hex[:8]
    return ({"db": milvus_server, "collection": f"local_{tag}"},
            {"db": milvus_server, "collection": f"ray_{tag}"})


def test_ray_builds_the_collection_the_local_indexer_builds(
        tmp_path: Path, milvus_server: str, cluster: None) -> None:
    kb = _tree(tmp_path)
    local, remote = _pair(milvus_server)
    model = HashEmbedder(dim=16)
    first_local = index_paths([kb], model=model, batch_chunks=64, **local)
    first_ray = index_paths_ray([kb], workers=2, model=model, batch_chunks=64, **remote)
    assert first_ray.added == first_local.added == len(list(kb.rglob("*.*")))
    assert first_ray.written_chunks == first_local.written_chunks > 100
    assert first_ray.embedded_chunks == first_local.embedded_chunks
    assert snapshot(remote) == snapshot(local)

    # An edit, a deletion and a new file: the same incremental run on both.
    (kb / "fixtures" / "api-reference.md").write_text("# API\n\n## Limits\n\nAt most 50 calls "
                                                       "a second per token.\n", encoding="utf-8")
    (kb / "fixtures" / "long-code.md").unlink()
    (kb / "new.md").write_text("# New\n\nA page added later.\n", encoding="utf-8")
    second_local = index_paths([kb], model=model, **local)
    second_ray = index_paths([kb], model=model, engine=RayEngine(workers=1), **remote)
    for report in (second_local, second_ray):
        assert (report.added, report.updated, report.deleted) == (1, 1, 1)
    assert second_ray.embedded_chunks == second_local.embedded_chunks
    assert snapshot(remote) == snapshot(local)

    third = index_paths_ray([kb], model=model, **remote)  # nothing changed: nothing embedded
    assert third.embedded_chunks == 0 and third.unchanged == third.total


def test_a_crash_inside_an_actor_is_finished_by_the_next_run(
        tmp_path: Path, milvus_server: str, cluster: None) -> None:
    kb = _tree(tmp_path)
    local, remote = _pair(milvus_server)
    model = HashEmbedder(dim=16)
    index_paths([kb], model=model, **local)
    # The actor's copy embeds the first group (two shards: two calls), then fails.
    failing = CountingEmbedder(model, fail_after=2)
    with pytest.raises(Exception, match="simulated crash"):
        index_paths([kb], model=failing, engine=RayEngine(workers=1), batch_chunks=8, **remote)
    with MilvusStore(remote["db"], remote["collection"]) as store:
        entries = store.manifest.entries()
        rows = store.rows(("id", "doc_id"))
    committed = {d for d, e in entries.items() if not e.pending}
    assert 0 < len(committed) < len(entries)  # some documents written whole, the rest pending
    assert {r["doc_id"] for r in rows} <= set(entries)
    again = index_paths_ray([kb], model=model, **remote)
    assert again.unchanged == len(committed)  # the pending ones are redone, the others kept
    assert snapshot(remote) == snapshot(local)


def test_cli_index_with_the_ray_engine(tmp_path: Path, milvus_server: str,
                                       cluster: None) -> None:
    from typer.testing import CliRunner

    from mdchunk.cli.app import app

    kb = write_corpus(tmp_path / "kb", {"a.md": "# A\n\nAlpha text.\n",
                                        "b.md": "# B\n\nBeta text.\n"})
    local, remote = _pair(milvus_server)
    result = CliRunner().invoke(app, ["index", str(kb), "--db", milvus_server, "--collection",
                                      remote["collection"], "--engine", "ray"])
    assert result.exit_code == 0, result.output
    assert "added 2" in result.output
    index_paths([kb], **local)
    assert snapshot(remote)[0].keys() == snapshot(local)[0].keys()
    bad = CliRunner().invoke(app, ["index", str(kb), "--engine", "spark"])
    assert bad.exit_code == 2 and "--engine" in bad.output
    lone = CliRunner().invoke(app, ["index", str(kb), "--address", "auto"])
    assert lone.exit_code == 2 and "--address" in lone.output
