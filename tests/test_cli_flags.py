"""Issue 30: the command line declares each shared flag once (:func:`mdchunk.cli.options.
with_flags`) and types the flags with a fixed set of values by the library's own literals:
``--help`` lists the choices, a value not among them is a usage error (exit 2). ``--token``
is ``--milvus-token`` now and the config key ``include`` is ``glob``, the old names accepted
with a warning. The index and search commands hand the library their configs whole."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from typer.testing import CliRunner

import mdchunk.index
from mdchunk.cli import app
from mdchunk.cli.options import FLAGS, SEARCH_FIELDS, with_flags
from mdchunk.cli.settings import KEYS
from mdchunk.config import Oversized, Semantic, Site
from mdchunk.index.config import AnalyzerChoice, BackendChoice, IndexConfig, SearchConfig
from mdchunk.index.fusion import FusionName
from mdchunk.index.store import Expand, SearchMode

from .conftest import FIXTURES, run_mdchunk

runner = CliRunner()

#: Each flag with a fixed set of values, its literal, and the commands that take it.
CHOICES = [
    ("--mode", SearchMode, ["search"]),
    ("--backend", BackendChoice, ["index", "search"]),
    ("--site", Site, ["chunk", "inspect", "index", "config"]),
    ("--fusion", FusionName, ["search"]),
    ("--expand", Expand, ["search"]),
    ("--oversized", Oversized, ["chunk", "inspect", "config"]),
    ("--semantic", Semantic, ["chunk", "inspect", "index", "config"]),
    ("--analyzer", AnalyzerChoice, ["index", "config"]),
]
#: What each command needs besides the flag to get as far as parsing it.
ARGUMENTS = {"chunk": [str(FIXTURES / "long-code.md")], "inspect": [str(FIXTURES / "long-code.md")],
             "index": [str(FIXTURES)], "search": ["query"], "config": []}


def _help(command: str) -> str:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize(("flag", "literal", "commands"), CHOICES, ids=[c[0] for c in CHOICES])
def test_help_lists_the_choices_of_the_library_literal(flag: str, literal: Any,
                                                       commands: list[str]) -> None:
    listed = "[" + "|".join(get_args(literal)) + "]"
    for command in commands:
        assert re.search(rf"^\s+{re.escape(flag)} {re.escape(listed)}", _help(command),
                         re.MULTILINE), (command, flag)


@pytest.mark.parametrize(("flag", "literal", "commands"), CHOICES, ids=[c[0] for c in CHOICES])
def test_a_value_not_among_the_choices_is_a_usage_error(flag: str, literal: Any,
                                                        commands: list[str]) -> None:
    for command in commands:
        result = runner.invoke(app, [command, *ARGUMENTS[command], flag, "nonsense"])
        assert result.exit_code == 2, (command, result.output)
        message = " ".join(result.stderr.split())
        assert f"Invalid value for '{flag}'" in message
        assert "'nonsense' is not one of " + ", ".join(map(repr, get_args(literal))) in message


def test_every_flag_of_the_table_sets_a_key_its_command_reads() -> None:
    search_fields = {f.name for f in dataclasses.fields(SearchConfig)}
    keys = {flag.key for flag in FLAGS.values()}
    assert keys - set(KEYS) == set(SEARCH_FIELDS) | {"milvus_token", "token", "metadata"}
    assert set(SEARCH_FIELDS) <= search_fields
    assert "metadata" in {f.name for f in dataclasses.fields(IndexConfig)}  # --meta's


def test_a_layout_must_place_every_own_parameter() -> None:
    def command(paths: str, flags: dict[str, object], stats: bool = False) -> None:
        return None

    with pytest.raises(TypeError, match="'stats'"):
        with_flags("paths", "site")(command)


def _captured(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    """Calls of ``mdchunk.index.<name>`` (index_paths or search), made to do nothing."""
    calls: list[Any] = []

    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["config"])
        if name == "search":
            return []
        return mdchunk.index.IndexReport(max_tokens=1, tokenizer="t", levels=(4, 1))

    monkeypatch.setattr(mdchunk.index, name, record)
    return calls


def test_index_hands_the_chunker_config_over_whole(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "mdchunk.toml").write_text('oversized = "keep"\nhtml_comments = "keep"\n'
                                           'title_keys = ["name"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    calls = _captured(monkeypatch, "index_paths")
    result = runner.invoke(app, ["index", str(FIXTURES), "--db", str(tmp_path / "x.db"),
                                 "--site", "hugo", "--base-url", "https://example.org",
                                 "--levels", "1024,256", "--overlap", "16", "--glob", "*.md",
                                 "--backend", "torch", "--analyzer", "jieba", "--wait", "2"])
    assert result.exit_code == 0, result.output
    [config] = calls
    assert isinstance(config, IndexConfig)
    chunker = config.chunker
    assert (chunker.site, chunker.base_url, chunker.levels, chunker.overlap_tokens) == (
        "hugo", "https://example.org", (1024, 256), 16)
    assert (chunker.oversized, chunker.html_comments, chunker.title_keys) == (
        "keep", "keep", ("name",))  # from the config file, no shaping dict between
    assert config.model_tokens  # no tokenizer named: the model's own tokens
    assert (config.embedder.backend, config.analyzer, config.wait) == ("torch", "jieba", 2.0)
    assert config.store.db == str(tmp_path / "x.db") and config.selection.glob == ("*.md",)
    assert (config.units, config.bigrams) == (False, True)  # the defaults
    named = runner.invoke(app, ["index", str(FIXTURES), "--tokenizer", "cl100k_base"])
    assert named.exit_code == 0 and not calls[-1].model_tokens
    switched = runner.invoke(app, ["index", str(FIXTURES), "--units", "--no-bigrams"])
    assert switched.exit_code == 0 and (calls[-1].units, calls[-1].bigrams) == (True, False)


def test_search_hands_its_config_over_whole(monkeypatch) -> None:
    calls = _captured(monkeypatch, "search")
    result = runner.invoke(app, ["search", "q", "-k", "3", "--mode", "bm25", "--fusion", "rrf",
                                 "--weights", "0.5,0.5", "--expand", "parent",
                                 "--path-prefix", "docs/"])
    assert result.exit_code == 0, result.output
    [config] = calls
    assert isinstance(config, SearchConfig)
    assert (config.k, config.mode, config.fusion, config.weights, config.expand,
            config.path_prefix) == (3, "bm25", "rrf", (0.5, 0.5), "parent", "docs/")
    assert config.embedder.backend is None  # the collection's own


@pytest.mark.parametrize("command", ["index", "search"])
def test_milvus_token_and_its_old_name(command: str, monkeypatch) -> None:
    name = "index_paths" if command == "index" else "search"
    calls = _captured(monkeypatch, name)
    new = runner.invoke(app, [command, *ARGUMENTS[command], "--milvus-token", "root:a"])
    assert new.exit_code == 0, new.output
    assert calls[-1].store.credential == "root:a" and "deprecated" not in new.stderr
    old = runner.invoke(app, [command, *ARGUMENTS[command], "--token", "root:b"])
    assert old.exit_code == 0, old.output
    assert calls[-1].store.credential == "root:b"
    assert "--token is deprecated: use --milvus-token" in old.stderr
    from_env = runner.invoke(app, [command, *ARGUMENTS[command]], env={"MILVUS_TOKEN": "root:c"})
    assert from_env.exit_code == 0 and calls[-1].store.credential == "root:c"
    assert not re.search(r"--token\b", _help(command)) and "--milvus-token" in _help(command)


def test_config_key_include_is_read_as_glob_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "mdchunk.toml").write_text('include = ["*.rst"]\n', encoding="utf-8")
    result = run_mdchunk("config", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert re.search(r'^glob = \["\*\.rst"\]  # .*mdchunk\.toml$', result.stdout, re.MULTILINE)
    assert not re.search(r"^include =", result.stdout, re.MULTILINE)
    assert "key 'include' is deprecated: call it 'glob'" in result.stderr
    (tmp_path / "mdchunk.toml").write_text('glob = ["*.rst"]\n', encoding="utf-8")
    renamed = run_mdchunk("config", cwd=tmp_path)
    assert "deprecated" not in renamed.stderr and 'glob = ["*.rst"]' in renamed.stdout


def test_the_glob_key_selects_files(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    (tmp_path / "docs" / "b.txt").write_text("beta\n", encoding="utf-8")
    (tmp_path / "mdchunk.toml").write_text('glob = ["*.txt"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["chunk", "docs"])
    assert result.exit_code == 0, result.output
    assert {json.loads(line)["doc_id"] for line in result.stdout.splitlines()} == {"b.txt"}
