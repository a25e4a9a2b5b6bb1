"""Every code block of README.md runs as written: a reader pastes them, so each must work.

How each block is taken, by its fence's info string:

- ``python``: run whole, in a fresh namespace, from a temporary folder holding a copy of the
  repository's ``fixtures/`` (the files the snippets read); it must not raise, and what it
  claims it checks with its own ``assert`` lines.
- ``sh``: each command run in turn, as the reader's shell would (continuation lines joined,
  ``#`` comments dropped). ``mdchunk ...`` runs through the real console script and must exit
  0, and a search must find something; the only other commands allowed are those in :data:`STANDS_FOR`, which this test run
  already is. Every shell block runs in one reader's folder, after the first screen's block
  (the quick start), so later examples may search the index it built.
- ``text`` (output, a grammar, a synopsis), ``toml`` and ``json`` (files to write, not
  programs): not run; the config file must still be one ``mdchunk config`` accepts and the
  JSON must parse.
- A block right after a ``<!-- not run: REASON -->`` line is not run: one that starts a server
  or a JVM (tests/test_serve_*.py run those). The reason is required.

A fence with no info string, or another one, fails: every block says what it is.

The blocks that load a model or open Milvus are marked ``slow`` (and the shell ones
``process``), as the rest of the suite is; ``make test-fast`` refuses the heavy imports, so a
block classified wrongly here fails there.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import FIXTURES, ROOT, run_mdchunk

README = ROOT / "README.md"
RUN = {"python", "sh"}
NOT_RUN = {"text", "toml", "json"}
#: Shell commands of the README that this test run already is, rather than runs.
STANDS_FOR = {
    "make demo": "builds the .venv this test runs in; its index and searches are the first screen's",
    "make test": "the suite this test is part of",
    "make test-fast": "the suite this test is part of",
    "make lint": "ruff and mypy, run by CI",
    ". .venv/bin/activate": "puts the venv's mdchunk on PATH; the test runs that mdchunk",
}
#: Words of a block that load an embedding model or open Milvus.
HEAVY_PYTHON = ("mdchunk.index", "VectorStoreIndex", 'semantic="embedding"')
HEAVY_COMMANDS = {"index", "search", "serve", "mcp"}
#: The first screen's stand-in for the reader's own folder: two of the fixtures.
MY_DOCS = ("tls-renewal-crlf.md", "deep-nesting-disk-replacement.md")


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    info: str
    code: str
    not_run: str | None  # the reason given in a <!-- not run: ... --> line before it

    @property
    def id(self) -> str:
        return f"{self.info}@{self.line}"


def readme_blocks() -> list[Block]:
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = re.match(r"(`{3,}|~{3,})(.*)$", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(fence[1]))
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = re.fullmatch(r"<!-- not run: (.+?) -->", before.strip())
        blocks.append(Block(i + 1, fence[2].strip(), "\n".join(lines[i + 1:end]) + "\n",
                            marker[1] if marker else None))
        i = end + 1
    return blocks


BLOCKS = readme_blocks()


def commands(code: str) -> list[list[str]]:
    """A shell block's commands as argument lists, as bash would split them."""
    joined = re.sub(r"\\\n", " ", code)
    return [argv for line in joined.splitlines() if (argv := shlex.split(line, comments=True))]


def _params(info: str, heavy: Callable[[Block], bool], but: Block | None = None) -> list[object]:
    out: list[object] = []
    for block in BLOCKS:
        if block.info != info or block.not_run or block == but:
            continue
        marks = [pytest.mark.slow] if heavy(block) else []
        if info == "sh":
            marks.append(pytest.mark.process)
        out.append(pytest.param(block, marks=marks, id=block.id))
    return out


def _python_is_heavy(block: Block) -> bool:
    return any(word in block.code for word in HEAVY_PYTHON)


def _shell_is_heavy(block: Block) -> bool:
    return any(argv[:1] == ["mdchunk"] and argv[1:2] and argv[1] in HEAVY_COMMANDS
               for argv in commands(block.code))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A reader's working folder: the repository's fixtures, nothing else."""
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_block_says_what_it_is() -> None:
    assert len(BLOCKS) >= 20, "the extractor found too few blocks"
    for block in BLOCKS:
        assert block.info in RUN | NOT_RUN, f"README.md:{block.line}: fence info {block.info!r}"
        if block.not_run:
            assert block.info in RUN and len(block.not_run) > 10, f"README.md:{block.line}"


def test_config_and_json_blocks_are_valid(folder: Path) -> None:
    """The ``toml`` blocks are config files ``mdchunk config`` reads; ``json``, JSON."""
    from typer.testing import CliRunner

    from mdchunk.cli import app

    for block in BLOCKS:
        if block.info == "json":
            json.loads(block.code)
        elif block.info == "toml":
            tomllib.loads(block.code)
            (folder / "pyproject.toml").write_text(block.code, encoding="utf-8")
            result = CliRunner().invoke(app, ["config"])
            assert result.exit_code == 0, f"README.md:{block.line}: {result.output}"
            for key in tomllib.loads(block.code)["tool"]["mdchunk"]:
                assert re.search(rf"^\s*{key}\b.*pyproject\.toml", result.output, re.MULTILINE), (
                    f"README.md:{block.line}: {key} not read from the file:\n{result.output}")


@pytest.mark.parametrize("block", _params("python", _python_is_heavy))
def test_python_block_runs(block: Block, folder: Path) -> None:
    code = compile(block.code, f"README.md:{block.line}", "exec")
    exec(code, {"__name__": "__readme__"})


@dataclass
class Reader:
    """The folder a reader works in, after the first screen's commands ran in it."""

    folder: Path
    outputs: list[tuple[list[str], str]]


def _run_block(block: Block, folder: Path) -> list[tuple[list[str], str]]:
    outputs = []
    for argv in commands(block.code):
        if argv[0] != "mdchunk":
            line = shlex.join(argv)
            assert line in STANDS_FOR, f"README.md:{block.line}: {line!r} is not an mdchunk command"
            continue
        result = run_mdchunk(*argv[1:], cwd=folder)
        assert result.returncode == 0, (
            f"README.md:{block.line}: {shlex.join(argv)} exited {result.returncode}:\n"
            f"{result.stdout}{result.stderr}")
        if argv[1] == "search":  # a search shown in the README finds something
            assert _hit_headers(result.stdout), f"README.md:{block.line}: {shlex.join(argv)}"
        outputs.append((argv, result.stdout))
    return outputs


#: The quick start's commands: the first shell block that runs mdchunk, and its sample output.
FIRST_SCREEN = next(b for b in BLOCKS if b.info == "sh" and not b.not_run
                    and any(argv[0] == "mdchunk" for argv in commands(b.code)))
SAMPLE = BLOCKS[BLOCKS.index(FIRST_SCREEN) + 1]


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Reader:
    folder = tmp_path_factory.mktemp("reader")
    shutil.copytree(FIXTURES, folder / "fixtures")
    (folder / "my-docs").mkdir()
    for name in MY_DOCS:
        shutil.copy(FIXTURES / name, folder / "my-docs" / name)
    return Reader(folder, _run_block(FIRST_SCREEN, folder))


def _hit_headers(output: str) -> list[str]:
    """Each hit's rank, place and breadcrumb, without its score (which differs by backend)."""
    return [re.sub(r"\s+\d\.\d{4}\s+", "  ", line)
            for line in output.splitlines() if re.match(r"\d+\. \S+:\d+-\d+ ", line)]


@pytest.mark.slow
@pytest.mark.process
def test_first_screen_runs_and_its_sample_output_is_real(reader: Reader) -> None:
    """The quick start's commands run, and the sample output shown under them is what the
    first search prints (its hits, places and breadcrumbs; scores aside)."""
    assert SAMPLE.info == "text"
    searches = [out for argv, out in reader.outputs if argv[1] == "search"]
    assert searches and all(_hit_headers(out) for out in searches), reader.outputs
    assert _hit_headers(SAMPLE.code) == _hit_headers(searches[0])
    assert any(argv[1:3] == ["index", "./my-docs"] for argv, _ in reader.outputs)


@pytest.mark.parametrize("block", _params("sh", _shell_is_heavy, but=FIRST_SCREEN))
def test_shell_block_runs(block: Block, request: pytest.FixtureRequest) -> None:
    """A block that indexes or searches runs where the first screen left the reader (its
    searches may use the examples' index); any other runs in a folder of its own."""
    if _shell_is_heavy(block):
        folder = request.getfixturevalue("reader").folder
    else:
        folder = request.getfixturevalue("tmp_path")
        shutil.copytree(FIXTURES, folder / "fixtures")
    _run_block(block, folder)


def test_only_server_blocks_are_not_run() -> None:
    """A block is left out only when it needs a running server or a JVM, and says so."""
    skipped = [b for b in BLOCKS if b.not_run]
    assert skipped, "the serve examples are expected to be marked"
    for block in skipped:
        assert re.search(r"server|JVM", block.not_run or ""), f"README.md:{block.line}"
