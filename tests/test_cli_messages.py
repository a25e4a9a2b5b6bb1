"""Issue 43, messages a person can act on: a bad flag value is a usage error (exit status 2)
in mdchunk's words, naming the flag, whichever check refuses it (the parser's or the
library's); no option's help shows two defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mdchunk.cli import app

from .conftest import FIXTURES, run_mdchunk

runner = CliRunner()

PAGE = str(FIXTURES / "long-code.md")
#: Every command, and what it needs besides a flag to get as far as checking it.
COMMANDS = {"chunk": [PAGE], "inspect": [PAGE], "config": [], "index": [PAGE],
            "search": ["query"], "serve": [], "mcp": []}


def _error(result_stderr: str) -> str:
    return " ".join(result_stderr.split())


@pytest.mark.parametrize(("args", "said"), [
    (["search", "q", "-k", "0"], "Invalid value for '-k': 0 must be a positive integer"),
    (["chunk", PAGE, "--max-tokens", "0"], "Invalid value for '--max-tokens': 0 is too small: "
                                           "it must be at least 16"),
    (["inspect", PAGE, "--max-tokens", "0"], "Invalid value for '--max-tokens': 0 is too small"),
    (["config", "--max-tokens", "0"], "Invalid value for '--max-tokens': 0 is too small"),
    (["chunk", PAGE, "--overlap", "-3"], "Invalid value for '--overlap': -3 must not be negative"),
    (["chunk", PAGE, "--workers", "0"], "Invalid value for '--workers': 0 must be at least 1"),
    (["search", "q", "--mode", "fuzzy"], "Invalid value for '--mode': 'fuzzy' is not one of "
                                         "'hybrid', 'dense', 'bm25'"),
    (["search", "q", "-k", "abc"], "Invalid value for '-k': 'abc' is not an integer"),
    (["search", ""], "Invalid value for 'QUERY': '' asks nothing: the query is empty"),
    (["search", "q", "--per-page", "0"], "Invalid value for '--per-page': 0 must be at least 1"),
    (["index", PAGE, "--wait", "soon"], "Invalid value for '--wait': 'soon' is not a number"),
    (["chunk", PAGE, "--site", "jekyll"], "Invalid value for '--site': 'jekyll' is not one of"),
    (["serve", "--max-concurrent", "0"], "Invalid value for '--max-concurrent': 0 must be at "
                                         "least 1"),
    (["serve", "--host", "0.0.0.0"], "Invalid value for '--host': 0.0.0.0 is beyond this "
                                     "machine: binding it needs a bearer token"),
    (["serve", "--allow-index"], "Invalid value for '--allow-index': needs at least one root "
                                 "folder to index from (--index-root)"),
])
def test_a_bad_flag_value_is_a_usage_error_in_our_words(args: list[str], said: str,
                                                        tmp_path_factory: pytest.TempPathFactory,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MDCHUNK_SERVE_TOKEN", raising=False)  # serve --host: no token given
    if args[0] in ("search", "index"):
        args = [*args, "--db", str(tmp_path_factory.mktemp("db") / "x.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    message = _error(result.stderr)
    assert said in message, message
    # no library's wording: pydantic's "Value error," / "Input should be", a traceback
    assert "Value error" not in message and "Input should" not in message
    assert "Traceback" not in result.output and "mdchunk: error" not in message


def test_the_same_value_from_a_config_file_is_bad_input_naming_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mdchunk.toml").write_text("max_tokens = 0\n")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["chunk", PAGE])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"mdchunk: error: {tmp_path}/mdchunk.toml: max_tokens=0 ")


def _option_entries(help_text: str) -> list[str]:
    """Each option's entry in a command's help, its lines joined."""
    options = help_text.split("Options:", 1)[1]
    entries = re.split(r"\n(?=  -)", options)
    return [" ".join(entry.split()) for entry in entries if entry.strip()]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_option_shows_two_defaults(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    entries = _option_entries(result.stdout)
    assert len(entries) > 3
    for entry in entries:
        assert len(re.findall(r"(?i)\bdefault:", entry)) <= 1, entry
        # a switch's default is on or off, as the flag reads, not a Python value
        assert not re.search(r"\[default: (True|False|\(.*\))\]", entry), entry


# -- no index made by a command that only reads one ---------------------------------------------

def test_search_of_a_missing_db_says_so_and_makes_nothing(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 43: Milvus Lite makes the file it is asked to open, so ``search --db nope.db``
    left an empty index at nope.db (and at ./mdchunk.db, run in the wrong folder)."""
    monkeypatch.chdir(tmp_path)
    for args, path in ((["--db", "nope.db"], "nope.db"), ([], "./mdchunk.db"),
                       (["--db", "nope.db", "--mode", "bm25"], "nope.db")):
        result = runner.invoke(app, ["search", "query", *args])
        assert result.exit_code == 1, result.output
        assert result.stderr.splitlines() == [
            f"mdchunk: error: {path}: no index here (no such Milvus Lite file); index into it "
            f"first: mdchunk index PATH --db {path}"]
        assert list(tmp_path.iterdir()) == []


def test_config_of_a_missing_db_says_there_is_no_index_and_makes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``config`` ends with what the index it names holds; where there is none it says so
    (exit 0: the settings are its answer) and leaves nothing behind."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["config", "--db", "nope.db"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "# index: none read: nope.db: no index here (no such Milvus Lite file); index into it "
        "first: mdchunk index PATH --db nope.db")
    assert list(tmp_path.iterdir()) == []


def test_the_mcp_server_of_a_missing_db_says_so_and_makes_nothing(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    missing = tmp_path / "kb.db"
    result = runner.invoke(app, ["mcp", "--db", str(missing)])
    assert result.exit_code == 1 and result.stderr.startswith(
        f"mdchunk: error: {missing}: no index here"), result.output
    assert not missing.exists()


def test_a_server_makes_an_index_only_when_it_may_index(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from mdchunk.errors import StoreError
    from mdchunk.index.config import StoreConfig
    from mdchunk.serve import ServeConfig
    from mdchunk.serve.service import Service

    missing = tmp_path / "kb.db"
    with pytest.raises(StoreError, match="no index here"):  # /readyz says it (test_serve_*)
        Service(ServeConfig(StoreConfig(str(missing))))
    assert not missing.exists()


# -- counts that agree --------------------------------------------------------------------------

@pytest.mark.slow  # Milvus Lite
def test_the_index_run_and_the_server_count_the_same_chunks(tmp_path: Path) -> None:
    """Issue 43: ``index`` said "embedded 702 chunks" where ``/v1/collections`` said 706: the
    run counts texts embedded, and leaves of one text share one embedding. The run now says
    how many chunks the index holds too, the number the server and ``config`` give."""
    from mdchunk.index import index_paths
    from mdchunk.index.config import StoreConfig
    from mdchunk.serve import ServeConfig
    from mdchunk.serve.service import Service

    from .conftest_milvus import HashEmbedder

    kb = tmp_path / "kb"
    kb.mkdir()
    page = "# Escalation\n\nPage the on-call engineer, then open an incident channel.\n"
    for version in ("v1", "v2", "v3"):  # one page kept in three versions' folders
        (kb / version).mkdir()
        (kb / version / "escalation.md").write_text(page)
    (kb / "redis.md").write_text("# Redis\n\nEvictions start at maxmemory.\n")
    db = str(tmp_path / "kb.db")
    model = HashEmbedder()
    report = index_paths([kb], db=db, model=model, analyzer="standard", max_tokens=32,
                         overlap_tokens=0)
    assert report.stored_leaves == report.written_chunks
    assert report.embedded_chunks < report.stored_leaves  # the shared text embedded once
    service = Service(ServeConfig(StoreConfig(db)), embedder=model)
    try:
        [collection] = service.collections()
    finally:
        service.close()
    assert collection["chunks"] == report.stored_leaves
    shown = runner.invoke(app, ["config", "--db", db])
    assert shown.exit_code == 0, shown.output
    assert (f"# index: 'mdchunk' at {db}: {report.stored_leaves} chunks of "
            f"{collection['documents']} documents, model {model.name}") in shown.output
    assert collection["documents"] == 4
    again = index_paths([kb], db=db, model=model, analyzer="standard", max_tokens=32,
                        overlap_tokens=0)
    assert (again.embedded_chunks, again.stored_leaves) == (0, report.stored_leaves)


@pytest.mark.slow  # the model and Milvus Lite
@pytest.mark.process
def test_index_on_torch_says_its_counts_and_shows_no_library_progress_bar(tmp_path: Path
                                                                         ) -> None:
    """Issue 43: transformers drew a "Loading weights" bar; the command line switches the
    model libraries' bars off (they have only process-wide switches: mdchunk.cli.app.main)."""
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# Redis\n\nEvictions start at maxmemory.\n")
    result = run_mdchunk("index", str(kb), "--db", str(tmp_path / "kb.db"), "--backend", "torch",
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Loading weights" not in result.stderr and "it/s" not in result.stderr
    assert "\r" not in result.stderr, result.stderr
    assert "; 1 text embedded in " in result.stdout and "the index holds 1 chunk;" in result.stdout
