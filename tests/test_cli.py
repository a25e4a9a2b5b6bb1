"""The command line: JSON Lines out, one-line errors, the contract's exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from mdchunk.cli import app

from .conftest import FIXTURES

runner = CliRunner()


def test_chunk_writes_json_lines_with_every_field(tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    result = runner.invoke(app, ["chunk", str(FIXTURES / "long-code.md"), "--max-tokens", "128",
                                 "--overlap", "16", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) > 3 and all(r["token_count"] <= 128 for r in rows)
    assert rows[0]["doc_id"] == "long-code.md" and rows[0]["level"] == 3


def test_chunk_a_folder_gives_relative_doc_ids() -> None:
    result = runner.invoke(app, ["chunk", str(FIXTURES)])
    assert result.exit_code == 0
    doc_ids = {json.loads(line)["doc_id"] for line in result.stdout.splitlines()}
    assert "cpu-high-load-runbook.zh.md" in doc_ids and "faq.qa.txt" in doc_ids


def test_bad_input_is_one_line_and_exit_1(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["chunk", str(tmp_path / "nope.md")])
    assert missing.exit_code == 1
    assert missing.stderr.strip().splitlines() == [f"mdchunk: error: {tmp_path / 'nope.md'}: no such file or directory"]
    bad = runner.invoke(app, ["chunk", str(FIXTURES), "--max-tokens", "8"])
    assert bad.exit_code == 1 and "max_tokens=8 is too small" in bad.stderr
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
    done = subprocess.run([sys.executable, "-m", "mdchunk.cli", "--help"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and "chunk" in done.stdout


def test_workers_give_the_same_chunks_and_ids() -> None:
    one = runner.invoke(app, ["chunk", str(FIXTURES), "--max-tokens", "128"])
    two = runner.invoke(app, ["chunk", str(FIXTURES), "--max-tokens", "128", "--workers", "2"])
    assert one.exit_code == two.exit_code == 0, two.output
    assert one.stdout == two.stdout


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
    assert "unchanged 2 documents; embedded 0 chunks" in again.stdout
    found = runner.invoke(app, ["search", "replication lag WAL", "--db", db, "-k", "1"])
    assert found.exit_code == 0 and "pg.md:" in found.stdout and "Postgres > Replication" in found.stdout
    bm25 = runner.invoke(app, ["search", "maxmemory", "--db", db, "-k", "1", "--mode", "bm25"])
    assert bm25.exit_code == 0 and "redis.md:" in bm25.stdout


def test_unreachable_server_is_one_line_and_exit_1() -> None:
    result = runner.invoke(app, ["search", "anything", "--db", "http://127.0.0.1:9"])
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("mdchunk: error: Milvus at http://127.0.0.1:9")
    assert len(result.stderr.strip().splitlines()) == 1
