"""The run's own metadata (issue 34): ``IndexConfig.metadata``, ``index_paths(metadata=)`` and
``mdchunk index --meta KEY=VALUE`` give every chunk of a run metadata beside its front matter
(which overrides a key), checked once; the manifest records it, so a changed one rewrites the
run's documents. On Milvus Lite: two folders of one collection, each with its own, are told
apart by ``where``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import mdchunk.index
from mdchunk import ChunkerConfig
from mdchunk.cli import app
from mdchunk.errors import ConfigError
from mdchunk.index.build_config import run_fingerprint
from mdchunk.index.config import IndexConfig
from mdchunk.index.engine import Preparer
from mdchunk.index.planning import plan_index
from mdchunk.index.store import ManifestEntry
from mdchunk.sources import Selection, Source

runner = CliRunner()

PAGE = "---\ntitle: Lag\nteam: dbre\n---\n\n# Lag\n\nCheck the replay lag first.\n"


def test_the_config_keeps_a_checked_copy() -> None:
    given: dict[str, Any] = {"team": "db", "tags": ("a", "b"), "n": 2}
    config = IndexConfig(metadata=given)
    given["team"] = "web"
    assert dict(config.metadata) == {"team": "db", "tags": ["a", "b"], "n": 2}
    with pytest.raises(TypeError):
        config.metadata["team"] = "x"  # type: ignore[index]
    assert dict(IndexConfig().metadata) == {}


@pytest.mark.parametrize("metadata, said", [
    ({"": 1}, "non-empty string"), ({1: "x"}, "non-empty string"),
    ({"x": object()}, "not a JSON value"), ({"x": math.nan}, "not a JSON value"),
    (["team"], "must be a mapping")])
def test_a_bad_metadata_is_refused_naming_it(metadata: Any, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        IndexConfig(metadata=metadata)


def test_the_keyword_overrides_the_configs_metadata(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """As every keyword beside ``config=`` does (issue 44; they were refused together)."""
    from mdchunk.index import indexer

    calls: list[IndexConfig] = []
    monkeypatch.setattr(indexer, "run_index", lambda paths, config, *_: calls.append(config))
    base = IndexConfig(metadata={"team": "web"}, units=True)
    mdchunk.index.index_paths([tmp_path], config=base, metadata={"team": "db"})
    assert dict(calls[-1].metadata) == {"team": "db"} and calls[-1].units
    with pytest.raises(ConfigError, match="metadata key"):
        mdchunk.index.index_paths([tmp_path], config=base, metadata={"": 1})


def test_the_fingerprint_changes_with_the_metadata_only() -> None:
    assert run_fingerprint("cfg", {}) == "cfg"  # a run without any: as before metadata
    assert run_fingerprint("cfg", IndexConfig(metadata={"n": 1}).metadata) == \
        run_fingerprint("cfg", {"n": 1})  # the config's read-only view
    one = run_fingerprint("cfg", {"team": "db", "n": 1})
    assert one == run_fingerprint("cfg", {"n": 1, "team": "db"}) != "cfg"
    assert one != run_fingerprint("cfg", {"team": "web", "n": 1})


def test_a_document_written_with_other_metadata_is_rewritten(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    source = Source("a.md", "a.md", tmp_path / "a.md")
    first = plan_index([source], {}, run_fingerprint("cfg", {"team": "db"}), prune=True)
    [(_, digest, _)] = first.write
    entry = ManifestEntry("a.md", digest, run_fingerprint("cfg", {"team": "db"}), 1, "a.md")
    same = plan_index([source], {"a.md": entry}, run_fingerprint("cfg", {"team": "db"}),
                      prune=True)
    other = plan_index([source], {"a.md": entry}, run_fingerprint("cfg", {"team": "web"}),
                       prune=True)
    assert same.unchanged == ["a.md"] and not same.write
    assert [s.doc_id for s, _, known in other.write if known] == ["a.md"]


def test_every_chunk_gets_it_under_its_front_matter(tmp_path: Path) -> None:
    (tmp_path / "lag.md").write_text(PAGE, encoding="utf-8")
    source = Source("lag.md", "lag.md", tmp_path / "lag.md")
    config = ChunkerConfig(levels=(64, 16), overlap_tokens=0)
    plain = Preparer(config)(source, "d", known=False)
    doc = Preparer(config, metadata={"team": "db", "tier": 1})(source, "d", known=False)
    chunks = [*doc.leaves, *doc.parents]
    assert chunks and all(c.metadata["team"] == "dbre" and c.metadata["tier"] == 1
                          for c in chunks)  # the page's front matter wins its key
    assert [(c.id, c.embed_text) for c in doc.leaves] == \
        [(c.id, c.embed_text) for c in plain.leaves]  # never in a chunk's text


def _index_config(monkeypatch: pytest.MonkeyPatch, *flags: str) -> Any:
    calls: list[IndexConfig] = []

    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["config"])
        return mdchunk.index.IndexReport(max_tokens=1, tokenizer="t", levels=(4, 1))

    monkeypatch.setattr(mdchunk.index, "index_paths", record)
    result = runner.invoke(app, ["index", ".", *flags])
    return result, calls


def test_meta_flags_are_read_as_json_else_as_text(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    result, [config] = _index_config(
        monkeypatch, "--meta", "team=db", "--meta", "tier=2", "--meta", 'tags=["a","b"]',
        "--meta", "note=a = b", "--meta", "draft=true", "--meta", "empty=", "--no-prune")
    assert result.exit_code == 0, result.output
    assert dict(config.metadata) == {"team": "db", "tier": 2, "tags": ["a", "b"],
                                     "note": "a = b", "draft": True, "empty": ""}
    assert config.prune is False
    result, [config] = _index_config(monkeypatch)
    assert dict(config.metadata) == {} and config.prune is True


@pytest.mark.parametrize("flag", ["team", "=db", " =db"])
def test_a_malformed_meta_is_a_usage_error_naming_it(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path, flag: str) -> None:
    monkeypatch.chdir(tmp_path)
    result, calls = _index_config(monkeypatch, "--meta", "ok=1", "--meta", flag)
    assert result.exit_code == 2 and not calls
    assert "--meta" in result.output and "KEY=VALUE" in result.output


@pytest.mark.slow
def test_two_folders_of_one_collection_each_with_its_metadata(tmp_path: Path) -> None:
    from mdchunk.index.milvus import MilvusStore

    from .conftest_milvus import HashEmbedder, write_corpus

    kb = write_corpus(tmp_path / "runbooks", {
        "db/failover.md": "# Failover\n\nPromote the replica when the primary fails.\n",
        "db/lag.md": PAGE,
        "web/failover.md": "# Failover\n\nPromote the standby load balancer.\n"})
    db, emb = str(tmp_path / "teams.db"), HashEmbedder()

    def run(folder: str, team: str) -> Any:
        return mdchunk.index.index_paths(
            [kb], db=db, collection="kb", model=emb, analyzer="standard", prune=False,
            selection=Selection(glob=(f"{folder}/**",)), metadata={"team": team, "tier": 1})

    def found(where: str) -> list[str]:
        return sorted({h.doc_id for h in mdchunk.index.search(
            "promote failover replay lag", db=db, collection="kb", mode="bm25", k=20,
            where=where, collapse=False)})

    assert run("db", "db").added == 2 and run("web", "web").added == 1
    assert found('team == "db"') == ["db/failover.md"]  # lag.md's front matter says dbre
    assert found('team == "dbre"') == ["db/lag.md"]
    assert found('team == "web"') == ["web/failover.md"]
    assert found("tier == 1") == ["db/failover.md", "db/lag.md", "web/failover.md"]
    assert run("db", "db").unchanged == 2  # the same metadata: nothing to write
    changed = run("db", "dba")  # another: every document of the run is rewritten
    assert (changed.updated, changed.unchanged) == (2, 0)
    assert found('team == "db"') == [] and found('team == "dba"') == ["db/failover.md"]
    with MilvusStore(db, "kb") as store:
        teams = {r["doc_id"]: r["metadata"]["team"]
                 for r in store.parent_rows(("doc_id", "metadata"))}
    assert teams == {"db/failover.md": "dba", "db/lag.md": "dbre", "web/failover.md": "web"}
