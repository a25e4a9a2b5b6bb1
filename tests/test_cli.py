"""The command line: JSON Lines out, one-line errors, the contract's exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mdchunk
from mdchunk.cli import app

from .conftest import FIXTURES, ROOT

runner = CliRunner()


def test_chunk_writes_json_lines_with_every_field(tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    result = runner.invoke(app, ["chunk", str(FIXTURES / "long-code.md"), "--max-tokens", "128",
                                 "--overlap", "16", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) > 3 and all(r["token_count"] <= 128 for r in rows)
    assert rows[0]["doc_id"] == "long-code.md" and rows[0]["level"] == 3


def test_a_small_budget_needs_no_overlap_and_a_too_large_one_is_a_usage_error() -> None:
    """``--max-tokens 64`` alone chunks (the overlap nobody gave is 64 // 8, issue 44); an
    ``--overlap`` as large as the budget is refused naming the flag, exit status 2."""
    fixture = str(FIXTURES / "long-code.md")
    small = runner.invoke(app, ["chunk", fixture, "--max-tokens", "64"])
    assert small.exit_code == 0, small.output
    rows = [json.loads(line) for line in small.stdout.splitlines()]
    assert [r["id"] for r in rows] == [c.id for c in mdchunk.chunk_file(
        FIXTURES / "long-code.md", doc_id="long-code.md", max_tokens=64, overlap_tokens=8)]
    bad = runner.invoke(app, ["chunk", fixture, "--max-tokens", "64", "--overlap", "64"])
    assert bad.exit_code == 2
    assert "Invalid value for '--overlap': 64 must be smaller than max_tokens=64" in \
        _error_text(bad.stderr)


def test_chunk_a_folder_gives_relative_doc_ids() -> None:
    result = runner.invoke(app, ["chunk", str(FIXTURES)])
    assert result.exit_code == 0
    doc_ids = {json.loads(line)["doc_id"] for line in result.stdout.splitlines()}
    assert "cpu-high-load-runbook.zh.md" in doc_ids and "faq.qa.txt" in doc_ids


def test_bad_input_is_one_line_and_exit_1(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["chunk", str(tmp_path / "nope.md")])
    assert missing.exit_code == 1
    assert missing.stderr.strip().splitlines() == [f"mdchunk: error: {tmp_path / 'nope.md'}: no such file or directory"]
    # a flag's bad value is a usage error, naming the flag (issue 43; from a config file it is
    # bad input, exit 1: tests/test_cli_runs.py)
    bad = runner.invoke(app, ["chunk", str(FIXTURES), "--max-tokens", "8"])
    assert bad.exit_code == 2 and "'--max-tokens': 8 is too small" in bad.stderr
    assert "Traceback" not in bad.output


def test_usage_error_is_exit_2() -> None:
    assert runner.invoke(app, ["chunk"]).exit_code == 2
    assert runner.invoke(app, ["search", "q", "--mode", "fuzzy"]).exit_code == 2


def test_inspect_shows_boundaries_and_writes_html(tmp_path: Path) -> None:
    page = tmp_path / "view.html"
    result = runner.invoke(app, ["inspect", str(FIXTURES / "api-reference.md"), "--max-tokens",
                                 "256", "--html", str(page)])
    assert result.exit_code == 0
    assert "chunks, budget 256" in result.stdout
    assert page.read_text().count('class="c') > 5


def test_console_script_runs() -> None:
    """What the ``mdchunk`` script pyproject.toml installs runs: its entry point, called as the
    script's wrapper calls it, prints the usage of every command."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module, function = project["scripts"]["mdchunk"].split(":")
    done = subprocess.run([sys.executable, "-c", f"import sys; from {module} import {function}; "
                           f"sys.argv = ['mdchunk', '--help']; sys.exit({function}())"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip().startswith("Usage: mdchunk [OPTIONS] COMMAND [ARGS]...")
    listed = re.findall(r"^  (\w+)  ", done.stdout.split("Commands:")[1], re.MULTILINE)
    assert {"chunk", "inspect", "index", "search", "config"} <= set(listed), done.stdout


def test_workers_give_the_same_chunks_and_ids() -> None:
    one = runner.invoke(app, ["chunk", str(FIXTURES), "--max-tokens", "128"])
    two = runner.invoke(app, ["chunk", str(FIXTURES), "--max-tokens", "128", "--workers", "2"])
    assert one.exit_code == two.exit_code == 0, two.output
    assert one.stdout == two.stdout


@pytest.mark.slow  # the model and Milvus
def test_index_then_search_through_the_cli(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "redis.md").write_text("# Redis\n\n## Memory\n\nEvictions start when maxmemory is reached.\n")
    (docs / "pg.md").write_text("# Postgres\n\n## Replication\n\nReplication lag grows when WAL piles up.\n")
    db = str(tmp_path / "kb.db")
    first = runner.invoke(app, ["index", str(docs), "--db", db])
    assert first.exit_code == 0, first.output
    assert "added 2, updated 0, deleted 0, unchanged 0 documents" in first.stdout
    again = runner.invoke(app, ["index", str(docs), "--db", db])
    assert "unchanged 2 documents; 0 texts embedded in " in again.stdout
    found = runner.invoke(app, ["search", "replication lag WAL", "--db", db, "-k", "1"])
    assert found.exit_code == 0 and "pg.md:" in found.stdout and "Postgres > Replication" in found.stdout
    bm25 = runner.invoke(app, ["search", "maxmemory", "--db", db, "-k", "1", "--mode", "bm25"])
    assert bm25.exit_code == 0 and "redis.md:" in bm25.stdout


@pytest.mark.slow  # the Milvus client
def test_unreachable_server_is_one_line_and_exit_1() -> None:
    result = runner.invoke(app, ["search", "anything", "--db", "http://127.0.0.1:9"])
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("mdchunk: error: Milvus at http://127.0.0.1:9")
    assert len(result.stderr.strip().splitlines()) == 1


def _error_text(stderr: str) -> str:
    """The usage error's message, unwrapped from the box Typer draws around it."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", stderr.split("Error", 1)[-1]).split())


def test_chunk_levels_writes_every_level_linked(tmp_path: Path) -> None:
    fixture = FIXTURES / "long-code.md"
    out = tmp_path / "tree.jsonl"
    result = runner.invoke(app, ["chunk", str(fixture), "--levels", "1024,256,64", "--overlap",
                                 "16", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r.pop("path") for r in rows] == [fixture.as_posix()] * len(rows)  # issue 16's field
    assert rows == [c.to_dict() for c in mdchunk.Chunker(mdchunk.ChunkerConfig(
        overlap_tokens=16, levels=(1024, 256, 64))).chunk_file(fixture, doc_id="long-code.md")]
    levels = [r["level"] for r in rows]
    assert levels == sorted(levels) and set(levels) == {1, 2, 3}
    ids = {r["id"]: r for r in rows}
    for r in rows:
        assert (r["parent_id"] is None) == (r["level"] == 1)
        if r["parent_id"]:
            assert ids[r["parent_id"]]["level"] == r["level"] - 1
    source = fixture.read_text(encoding="utf-8")
    assert "".join(r["text"] for r in rows if r["level"] == 1) == source
    for budget, level in ((1024, 1), (256, 2), (64, 3)):
        assert all(r["token_count"] <= budget for r in rows if r["level"] == level)
    # the worker processes chunk with the same levels
    two = runner.invoke(app, ["chunk", str(FIXTURES), "--levels", "1024,256,64", "--overlap",
                              "16", "--workers", "2"])
    one = runner.invoke(app, ["chunk", str(FIXTURES), "--levels", "1024,256,64", "--overlap",
                              "16"])
    assert one.exit_code == two.exit_code == 0, two.output
    assert one.stdout == two.stdout and '"level": 1' in one.stdout


def test_bad_levels_are_usage_errors(tmp_path: Path) -> None:
    fixture = str(FIXTURES / "long-code.md")
    for value, words in [("1024,abc", "'1024,abc' is not comma-separated integers"),
                         ("128,512", "must decrease strictly, coarsest first: 512 follows 128"),
                         ("256,8", "budget 8 is too small"),
                         ("", "is not comma-separated integers")]:
        for command in (["chunk", fixture], ["index", fixture, "--db", str(tmp_path / "x.db")]):
            result = runner.invoke(app, [*command, "--levels", value])
            assert result.exit_code == 2, (command, value, result.output)
            assert result.stderr.count("Invalid value for --levels") == 1
            assert words in _error_text(result.stderr), (value, result.stderr)
            assert "Traceback" not in result.output
    assert not (tmp_path / "x.db").exists()  # refused before anything was opened


@pytest.mark.slow  # the Milvus client
def test_index_levels_over_the_window_is_a_usage_error_naming_the_flag(tmp_path: Path) -> None:
    # the flag's value is what is refused: a usage error, as every bad flag value (issue 43)
    result = runner.invoke(app, ["index", str(FIXTURES / "long-code.md"), "--db",
                                 str(tmp_path / "x.db"), "--levels", "2048,512"])
    assert result.exit_code == 2
    said = _error_text(result.stderr)
    assert said.startswith(": Invalid value for '--levels': 2048,512: the leaf budget 512 "), said
    assert "254-token window" in said and "Traceback" not in result.output


@pytest.mark.slow  # the model and Milvus
def test_search_expand_through_the_cli(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    sections = "".join(f"## Part {i}\n\nPart {i} of the replication guide: the replica lag "
                       f"grows when WAL piles up on disk number {i}.\n\n" for i in range(6))
    (docs / "pg.md").write_text("# Postgres\n\n" + sections)
    (docs / "redis.md").write_text("# Redis\n\n## Memory\n\nEvictions start at maxmemory.\n")
    db = str(tmp_path / "kb.db")
    first = runner.invoke(app, ["index", str(docs), "--db", db, "--levels", "512,128,32",
                                "--overlap", "0"])
    assert first.exit_code == 0, first.output
    assert "levels 512/128/32" in first.stdout
    rows = {}
    for expand in ("none", "parent", "auto"):
        found = runner.invoke(app, ["search", "replica lag WAL", "--db", db, "-k", "2",
                                    "--mode", "bm25", "--expand", expand, "--json"])
        assert found.exit_code == 0, found.output
        rows[expand] = [json.loads(block) for block in
                        re.split(r"(?m)^(?=\{)", found.stdout) if block.strip()]
    assert [r["level"] for r in rows["none"]] == [3, 3]
    assert all(r["level"] == 2 for r in rows["parent"]) and rows["parent"]
    for r in rows["parent"] + rows["auto"]:
        assert {"line_start", "line_end", "marks", "leaf_ids"} <= set(r)
        for (a, b), leaf in zip(r["marks"], r["leaf_ids"]):
            assert "replica lag" in r["text"][a:b] and leaf
    listing = runner.invoke(app, ["search", "replica lag WAL", "--db", db, "-k", "2",
                                  "--expand", "parent"])
    assert listing.exit_code == 0
    assert re.search(r"^1\. \S*pg\.md:\d+-\d+  level 2  ", listing.stdout, re.MULTILINE)
    bad = runner.invoke(app, ["search", "q", "--db", db, "--expand", "wide"])
    assert bad.exit_code == 2
    said = _error_text(bad.stderr)  # no pydantic wording ("Value error,": issue 43)
    assert "'--expand': 'wide' is not one of 'none', 'parent', 'auto'" in said


def test_chunk_docsearch_format_with_site_urls(tmp_path: Path) -> None:
    page = FIXTURES / "docusaurus-rolling-upgrades.md"
    result = runner.invoke(app, ["chunk", str(page), "--format", "docsearch", "--site",
                                 "docusaurus", "--base-url", "https://docs.example.com"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    chunks = mdchunk.chunk_file(page, doc_id=page.name, site="docusaurus",
                                base_url="https://docs.example.com")
    assert [r["objectID"] for r in records] == [c.id for c in chunks]
    for record, chunk in zip(records, chunks):
        assert record["url"] == chunk.url and record["url"].startswith("https://docs.example.com/")
        assert record["anchor"] == chunk.anchor and record["content"]
        assert record["hierarchy"]["lvl1"] == chunk.headings[0]
        assert record["type"] in ("content", *(f"lvl{n}" for n in range(7)))
    bad = runner.invoke(app, ["chunk", str(page), "--format", "xml"])
    assert bad.exit_code == 2
    bad_site = runner.invoke(app, ["chunk", str(page), "--site", "jekyll"])
    assert bad_site.exit_code == 2 and "jekyll" in bad_site.output
