"""docs/contract.md says what the code offers: every flag it lists is one its command takes, and
every public name and keyword argument of the API is in it, so that neither drifts alone."""

from __future__ import annotations

import dataclasses
import inspect
import re
import tomllib

import pytest
from typer.testing import CliRunner

import mdchunk
from mdchunk.cli import app
from mdchunk.config import ChunkerOptions
from mdchunk.index import IndexReport, SearchHit, index_paths, search

from .conftest import ROOT

CONTRACT = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
#: The flags table of the command line section: command -> the flags its row lists.
FLAGS = {row[0]: re.findall(r"`(--?[\w-]+)`", row[1]) for row in
         re.findall(r"^\| `(\w+)` \| (.+) \|$",
                    CONTRACT.split("## Command line")[1].split("\n## ")[0], re.MULTILINE)}
runner = CliRunner()


def named(name: str) -> bool:
    """Whether the contract names ``name`` in code: `name`, `mdchunk.name`, `name=` or `name(`."""
    return re.search(rf"[`.]{re.escape(name)}\b|\b{re.escape(name)}[=(]", CONTRACT) is not None


def test_the_flags_table_has_every_command() -> None:
    assert set(FLAGS) == {"chunk", "inspect", "index", "search", "eval", "serve", "mcp", "config"}


@pytest.mark.parametrize("command", ["chunk", "inspect", "index", "search", "eval", "serve",
                                     "mcp"])
def test_every_listed_flag_is_one_the_command_takes(command: str) -> None:
    shown = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    taken = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", shown.stdout))
    assert FLAGS[command] and set(FLAGS[command]) <= taken, set(FLAGS[command]) - taken


@pytest.mark.parametrize("name", mdchunk.__all__)
def test_every_public_name_is_in_the_contract(name: str) -> None:
    assert named(name), name


@pytest.mark.parametrize("function", [mdchunk.chunk_markdown, mdchunk.chunk_file,
                                      mdchunk.chunk_hierarchy, index_paths, search],
                         ids=lambda f: f.__name__)
def test_every_keyword_argument_is_in_the_contract(function) -> None:
    params = list(inspect.signature(function).parameters.values())[1:]  # after text/path/query
    # ``**options`` stands for every ChunkerConfig field, each a keyword the contract names
    names = [name for p in params for name in
             (ChunkerOptions.__annotations__ if p.kind is p.VAR_KEYWORD else (p.name,))]
    assert [name for name in names if not named(name)] == []


@pytest.mark.parametrize("cls", [mdchunk.Chunk, mdchunk.ChunkerConfig, SearchHit],
                         ids=lambda c: c.__name__)
def test_every_field_is_in_the_contract(cls: type) -> None:
    assert [f.name for f in dataclasses.fields(cls) if not named(f.name)] == []


def test_the_report_fields_it_names_are_fields() -> None:
    fields = {f.name for f in dataclasses.fields(IndexReport)}
    listed = {"added", "updated", "deleted", "unchanged", "embedded_chunks", "failed"}
    assert listed <= fields and all(named(name) for name in listed)


def test_version_is_written_once_and_printed() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mdchunk.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", mdchunk.__version__)
    shown = runner.invoke(app, ["--version"])
    assert shown.exit_code == 0 and shown.stdout == f"mdchunk {mdchunk.__version__}\n"
