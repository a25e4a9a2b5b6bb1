"""Issue 16's command line: whole-tree runs (--glob, --exclude, .gitignore, path, --stats),
the config file and ``mdchunk config``, ``inspect`` in a terminal and as a page, one-line
errors, plain metavars. Most go through the real console entry point in a subprocess."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mdchunk
from mdchunk.cli import app

from .conftest import FIXTURES, run_mdchunk

runner = CliRunner()


def _tree(root: Path) -> Path:
    """A small repository: docs, an ignored build folder, a vendored folder, a non-document."""
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.draft.md\n")
    docs = root / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "build").mkdir()
    (docs / "vendor").mkdir()
    (docs / "guide" / "install.md").write_text("# Install\n\nRun the installer. Then reboot.\n")
    (docs / "guide" / "notes.txt").write_text("NOTES\n\nKeep the disks cool.\n")
    (docs / "guide" / "page.mdx").write_text("# Page\n\nAn MDX page.\n")
    (docs / "guide" / "wip.draft.md").write_text("# Draft\n\nNot yet.\n")
    (docs / "build" / "out.md").write_text("# Built\n\nGenerated.\n")
    (docs / "vendor" / "lib.md").write_text("# Vendored\n\nSomeone else's.\n")
    (docs / "guide" / "image.png").write_bytes(b"\x89PNG\x00\x00")
    (docs / ".hidden.md").write_text("# Hidden\n")
    return docs


def _paths(stdout: str) -> list[str]:
    return sorted({json.loads(line)["path"] for line in stdout.splitlines()})


@pytest.mark.process
def test_chunk_walks_a_tree_honouring_gitignore_globs_and_excludes(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "repo")
    found = run_mdchunk("chunk", str(docs), cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert _paths(found.stdout) == [f"{docs.as_posix()}/guide/{n}"
                                    for n in ("install.md", "notes.txt", "page.mdx")] + \
        [f"{docs.as_posix()}/vendor/lib.md"]
    row = json.loads(found.stdout.splitlines()[0])
    assert set(mdchunk.chunk_markdown("# A\n\nB.\n")[0].to_dict()) | {"path"} == set(row)
    assert row["doc_id"] == "guide/install.md"

    no_ignore = run_mdchunk("chunk", str(docs), "--no-gitignore", cwd=tmp_path)
    assert {"build/out.md", "guide/wip.draft.md"} <= {
        json.loads(line)["doc_id"] for line in no_ignore.stdout.splitlines()}

    excluded = run_mdchunk("chunk", str(docs), "--exclude", "vendor/", "--exclude", "*.txt",
                           cwd=tmp_path)
    assert [p.rsplit("/", 1)[1] for p in _paths(excluded.stdout)] == ["install.md", "page.mdx"]

    globbed = run_mdchunk("chunk", str(docs), "--glob", "guide/*.md", cwd=tmp_path)
    assert [p.rsplit("/", 1)[1] for p in _paths(globbed.stdout)] == ["install.md"]

    nothing = run_mdchunk("chunk", str(docs), "--glob", "*.rst", cwd=tmp_path)
    assert nothing.returncode == 1
    assert nothing.stderr.strip().splitlines() == [
        f"mdchunk: error: {docs}: no documents in this folder (looked for files matching *.rst; "
        "skipped hidden files, .gitignore)"]


@pytest.mark.process
def test_config_file_sets_options_and_flags_win(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "repo")
    (tmp_path / "repo" / "pyproject.toml").write_text(
        "[project]\nname = 'kb'\n\n[tool.mdchunk]\nmax-tokens = 64\noverlap_tokens = 8\n"
        "exclude = ['vendor/']\ndb = 'kb.db'\nlevels = [256, 64]\n")
    work = docs / "guide"  # found from a subfolder, upwards
    shown = run_mdchunk("config", "--overlap", "4", cwd=work)
    assert shown.returncode == 0, shown.stderr
    *settings, index = shown.stdout.splitlines()[1:]
    lines = dict(line.split(" = ", 1) for line in settings)
    pyproject = str(tmp_path / "repo" / "pyproject.toml")
    assert shown.stdout.splitlines()[0] == f"# config file: {pyproject}"
    assert index.startswith("# index: none read: kb.db: no index here")  # and none is made:
    assert not (work / "kb.db").exists()
    assert lines["max_tokens"] == f"64  # {pyproject}"
    assert lines["overlap_tokens"] == "4  # flag"
    assert lines["levels"] == f"[256, 64]  # {pyproject}"
    assert lines["exclude"] == f'["vendor/"]  # {pyproject}'
    assert lines["db"] == f'"kb.db"  # {pyproject}'
    assert lines["min_tokens"] == "16  # default" and lines["site"] == '"plain"  # default'

    rows = run_mdchunk("chunk", str(docs), cwd=work)
    assert rows.returncode == 0, rows.stderr
    chunks = [json.loads(line) for line in rows.stdout.splitlines()]
    assert "vendor/lib.md" not in {c["doc_id"] for c in chunks}
    assert {c["level"] for c in chunks} == {1, 2}  # levels from the file
    flat = run_mdchunk("chunk", str(docs / "guide" / "install.md"), "--levels", "64", cwd=work)
    assert {json.loads(line)["level"] for line in flat.stdout.splitlines()} == {1}


def test_mdchunk_toml_wins_over_pyproject_in_the_same_folder(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.mdchunk]\nmax_tokens = 100\n")
    (tmp_path / "mdchunk.toml").write_text("max_tokens = 200\nsite = 'mkdocs'\n")
    monkeypatch.chdir(tmp_path)
    shown = runner.invoke(app, ["config"])
    assert shown.exit_code == 0, shown.output
    assert f"max_tokens = 200  # {tmp_path / 'mdchunk.toml'}" in shown.stdout
    assert f'site = "mkdocs"  # {tmp_path / "mdchunk.toml"}' in shown.stdout


@pytest.mark.process
@pytest.mark.parametrize(("body", "message"), [
    ("[tool.mdchunk]\nmax_tokenz = 100\n", "unknown key [tool.mdchunk] 'max_tokenz' (known keys: "),
    ("[tool.mdchunk]\nmax_tokens = '100'\n", "[tool.mdchunk] max_tokens = '100' must be an integer"),
    ("[tool.mdchunk]\noversized = 'trim'\n", "oversized = 'trim' must be one of 'split', 'keep'"),
    ("[tool.mdchunk]\nlevels = [512, 'x']\n", "levels = [512, 'x'] must be a list of integers"),
    ("[tool.mdchunk]\ngitignore = 'no'\n", "gitignore = 'no' must be true or false"),
    ("[tool.mdchunk]\ntokenizer = 5\n", "tokenizer = 5 must be a string"),
    ("[tool.mdchunk]\nmax_tokens = 8\n", "max_tokens=8 is too small"),
    ("[tool.mdchunk\n", "not valid TOML"),
])
def test_bad_config_is_one_line_naming_file_and_key(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(body)
    for args in (["config"], ["chunk", str(FIXTURES / "long-code.md")]):
        result = run_mdchunk(*args, cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr
        assert lines[0].startswith(f"mdchunk: error: {tmp_path / 'pyproject.toml'}: ")
        assert message in lines[0], lines[0]


@pytest.mark.process
def test_unknown_tokenizer_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = run_mdchunk("chunk", str(FIXTURES / "long-code.md"), "--tokenizer",
                         str(tmp_path / "no-such-tokenizer"), cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mdchunk: error: ") and "no-such-tokenizer" in lines[0]


@pytest.mark.process
def test_bad_files_are_named_the_run_goes_on_and_stats_count_them(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nFine text.\n")
    (docs / "binary.md").write_bytes(b"# x\x00\x01\x02")
    (docs / "latin1.md").write_bytes("# Café\n\nCrème brûlée.\n".encode("latin-1"))
    result = run_mdchunk("chunk", str(docs), "--stats", cwd=tmp_path)
    assert result.returncode == 1
    assert _paths(result.stdout) == [f"{docs.as_posix()}/good.md"]
    errors = [line for line in result.stderr.splitlines() if line.startswith("mdchunk: error:")]
    assert len(errors) == 3
    assert errors[0].startswith(f"mdchunk: error: {docs / 'binary.md'}: ")
    assert errors[1].startswith(f"mdchunk: error: {docs / 'latin1.md'}: ")
    assert errors[2] == ("mdchunk: error: 2 of 3 files failed (each named above); the other 1 "
                         "was chunked")
    assert "files: 1 chunked, 2 failed" in result.stderr
    assert f"failed: {docs / 'binary.md'}: " in result.stderr


@pytest.mark.process
def test_stats_report_distribution_and_splits(tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    result = run_mdchunk("chunk", str(FIXTURES), "--max-tokens", "128", "--stats", "-o", str(out),
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    counts = sorted(r["token_count"] for r in rows)
    lines = result.stdout.splitlines()  # with -o the summary goes to stdout
    files = len([p for p in FIXTURES.iterdir() if p.is_file()])
    assert lines[0] == f"files: {files} chunked, 0 failed"
    assert lines[1] == f"level 3: {len(rows)} chunks, budget 128"
    assert lines[2].startswith(f"  tokens: min {counts[0]}, median ") and \
        f"max {counts[-1]} ({counts[-1] / 128:.0%} of the budget; 0 over it)" in lines[2]
    split = re.fullmatch(r"  split blocks: (\d+) \((.*)\)", lines[3])
    assert split, lines[3]
    reasons = dict(part.rsplit(" ", 1) for part in split.group(2).split(", "))
    assert int(split.group(1)) == sum(map(int, reasons.values()))
    for reason in ("table rows", "code lines", "list items", "prose sentences"):
        assert int(reasons[reason]) >= 1, reasons
    # the long table's fixture is cut between rows, and its chunks say so
    table = [r for r in rows if r["doc_id"] == "alert-catalogue-long-table.md"]
    assert len(table) > 5


@pytest.mark.process
def test_inspect_terminal_view_shows_every_boundary(tmp_path: Path) -> None:
    fixture = FIXTURES / "alert-catalogue-long-table.md"
    chunks = mdchunk.chunk_file(fixture, max_tokens=128, doc_id=fixture.name)
    result = run_mdchunk("inspect", str(fixture), "--max-tokens", "128", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    headers = [line for line in result.stdout.splitlines() if re.match(r"#\d+  ", line)]
    assert len(headers) == len(chunks)
    for line, c in zip(headers, chunks):
        assert line.startswith(f"#{c.index}  {c.section_path}  L{c.line_start}-{c.line_end}  "
                               f"{c.token_count}/128 tokens  {', '.join(c.kinds)}")
    assert sum("[split table]" in h for h in headers) >= 3
    # the document itself is shown, whole, between the rules and headers
    shown = [line for line in result.stdout.splitlines()[1:]
             if not re.match(r"#\d+  ", line) and set(line) != {"─"}]
    assert " ".join("\n".join(shown).split()) == " ".join(fixture.read_text().split())

    one = run_mdchunk("inspect", str(fixture), "--max-tokens", "128", "--chunk", "4", cwd=tmp_path)
    assert one.returncode == 0 and chunks[4].embed_text in one.stdout
    assert one.stdout.splitlines()[1].startswith("#4  ")
    bad = run_mdchunk("inspect", str(fixture), "--chunk", "999", cwd=tmp_path)
    assert bad.returncode == 2 and "999 is not a chunk" in bad.stderr


@pytest.mark.process
def test_inspect_a_hierarchy_level(tmp_path: Path) -> None:
    fixture = FIXTURES / "long-code.md"
    chunks = mdchunk.Chunker(mdchunk.ChunkerConfig(levels=(1024, 256, 64), overlap_tokens=16)
                             ).chunk_file(fixture, doc_id=fixture.name)
    for level, budget in ((1, 1024), (3, 64)):
        result = run_mdchunk("inspect", str(fixture), "--levels", "1024,256,64", "--overlap", "16",
                             "--level", str(level), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        mine = [c for c in chunks if c.level == level]
        assert result.stdout.splitlines()[0].endswith(f"{len(mine)} chunks, budget {budget}")
    bad = run_mdchunk("inspect", str(fixture), "--level", "2", cwd=tmp_path)
    assert bad.returncode == 2


def test_inspect_html_is_one_self_contained_page(tmp_path: Path) -> None:
    fixture = FIXTURES / "cpu-high-load-runbook.zh.md"
    page = tmp_path / "view.html"
    result = runner.invoke(app, ["inspect", str(fixture), "--max-tokens", "96", "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    chunks = mdchunk.chunk_file(fixture, max_tokens=96, doc_id=fixture.name)
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                html, re.S).group(1))
    assert [d["embed"] for d in data] == [c.embed_text for c in chunks]
    assert html.count('class="mark"') == len(chunks) == html.count("<li data-i=")
    assert "<link" not in html and "<script src" not in html and "http" not in html.split("<body>")[1]
    # the source is all there, escaped once
    import html as html_lib
    body = re.search(r'<pre id="doc">(.*?)</pre>', html, re.S).group(1)
    assert html_lib.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<span class="mark"[^>]*>#\d+</span>',
                                                             "", body))) == fixture.read_text()


@pytest.mark.process
def test_help_shows_plain_metavars() -> None:
    for command in ("chunk", "inspect", "index", "search", "config"):
        result = run_mdchunk(command, "--help")
        assert result.returncode == 0, result.stderr
        assert not re.search(r"<(int|str|bool|path|float|list\[\w+\])>", result.stdout), \
            (command, result.stdout)
        if command != "config":
            assert "TEXT" in result.stdout or "INTEGER" in result.stdout
    chunk_help = run_mdchunk("chunk", "--help").stdout
    assert "PATH..." in chunk_help and "INTEGER" in chunk_help and "--glob" in chunk_help
    assert "[default: 512]" in chunk_help  # help text is not read as markup
    assert "[tool.mdchunk]" in run_mdchunk("config", "--help").stdout


@pytest.mark.slow
def test_index_and_search_take_the_config_file(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    (docs / "archive").mkdir(parents=True)
    (docs / "redis.md").write_text("# Redis\n\n## Memory\n\nEvictions start when maxmemory is reached.\n")
    (docs / "archive" / "old.md").write_text("# Old\n\n## Memory\n\nmaxmemory was 1 GB in 2019.\n")
    (tmp_path / "mdchunk.toml").write_text(
        "db = 'kb.db'\ncollection = 'runbooks'\nexclude = ['archive/']\nmax_tokens = 128\n"
        "overlap_tokens = 16\n")
    monkeypatch.chdir(tmp_path)
    first = runner.invoke(app, ["index", "docs"])
    assert first.exit_code == 0, first.output
    assert "added 1, updated 0, deleted 0, unchanged 0 documents" in first.stdout
    assert (tmp_path / "kb.db").exists() and not (tmp_path / "mdchunk.db").exists()
    found = runner.invoke(app, ["search", "maxmemory", "--mode", "bm25", "--json"])
    assert found.exit_code == 0, found.output
    hits = [json.loads(line) for line in found.stdout.splitlines()]
    assert [h["path"] for h in hits] == ["docs/redis.md"]  # archive/ excluded by the file
    other = runner.invoke(app, ["search", "maxmemory", "--collection", "nothing-here"])
    assert other.exit_code == 1  # the flag wins: a collection that does not exist


@pytest.mark.process
@pytest.mark.slow
def test_search_json_is_one_compact_hit_a_line_whatever_the_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``search --json`` writes JSON Lines as its help says: one object a line, every field of
    a hit, no colour or indentation even where colours are forced, as ``chunk`` writes."""
    import dataclasses

    from mdchunk.index import SearchHit

    docs = tmp_path / "docs"
    docs.mkdir()
    pages = {
        "redis.md": "# Redis\n\n## Memory\n\nEvictions start when maxmemory is reached.\n\n"
                    "## Persistence\n\nAOF rewrites run in the background.\n",
        "postgres.md": "# Postgres\n\n## Vacuum\n\nAutovacuum reclaims dead tuples; "
                       "maxmemory is a Redis setting, not a Postgres one.\n",
    }
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    indexed = run_mdchunk("index", "docs", "--db", "kb.db", cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    monkeypatch.setenv("FORCE_COLOR", "1")  # what a terminal would get: Rich colours it
    monkeypatch.setenv("TERM", "xterm-256color")
    found = run_mdchunk("search", "maxmemory", "--db", "kb.db", "--mode", "bm25", "-k", "3",
                        "--json", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert "\x1b" not in found.stdout and found.stdout.endswith("\n")
    lines = found.stdout.splitlines()
    assert len(lines) == 2  # two leaves say maxmemory
    hits = [json.loads(line) for line in lines]
    fields = {f.name for f in dataclasses.fields(SearchHit)}
    for line, hit in zip(lines, hits):
        assert set(hit) == fields and line == line.strip()
        assert pages[hit["path"].removeprefix("docs/")][hit["start"]:hit["end"]] == hit["text"]
        assert "maxmemory" in hit["text"] and hit["marks"] == [[0, len(hit["text"])]]
    assert sorted(h["path"] for h in hits) == ["docs/postgres.md", "docs/redis.md"]
    assert hits[0]["score"] >= hits[1]["score"]  # best first, as the listing ranks them
    none = run_mdchunk("search", "zzzqqq", "--db", "kb.db", "--mode", "bm25", "--json",
                       cwd=tmp_path)
    assert none.returncode == 0 and none.stdout == ""  # no hits, no lines (and no prose)


@pytest.mark.slow
def test_index_takes_the_chunker_options_of_the_config_file(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Options beyond the budgets (here html_comments) reach the index's chunker: changing one
    in mdchunk.toml changes the index's config, so the next run rebuilds it."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "redis.md").write_text(
        "# Redis\n\n<!-- owner: cache team -->\n\nEvictions start at maxmemory.\n")
    monkeypatch.chdir(tmp_path)
    first = runner.invoke(app, ["index", "docs", "--db", "kb.db"])
    assert first.exit_code == 0, first.output
    assert "(rebuilt)" not in first.stdout
    (tmp_path / "mdchunk.toml").write_text("html_comments = 'keep'\n")
    second = runner.invoke(app, ["index", "docs", "--db", "kb.db"])
    assert second.exit_code == 0, second.output
    assert "(rebuilt)" in second.stdout and "added 1" in second.stdout


def test_stats_per_level_of_a_hierarchy(tmp_path: Path) -> None:
    out = tmp_path / "tree.jsonl"
    result = runner.invoke(app, ["chunk", str(FIXTURES / "long-code.md"), "--levels", "1024,256,64",
                                 "--overlap", "16", "--stats", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    for level, budget in ((1, 1024), (2, 256), (3, 64)):
        mine = sorted(r["token_count"] for r in rows if r["level"] == level)
        assert f"level {level}: {len(mine)} chunks, budget {budget}" in result.stdout
        assert f"max {mine[-1]} ({mine[-1] / budget:.0%} of the budget; 0 over it)" in result.stdout
    # the fixture's long YAML block is cut between lines at the leaves' budget
    leaves = result.stdout.split("level 3:")[1]
    assert re.search(r"split blocks: \d+ \(.*code lines \d+", leaves)


@pytest.mark.process
def test_json_lines_stay_one_line_a_chunk_for_any_line_splitter(tmp_path: Path) -> None:
    """Issue 15: text with U+2028, U+2029 or NEL (which JSON leaves raw) is escaped in the JSON
    Lines, so readers that split at them (Python's splitlines) still see one chunk a line."""
    page = tmp_path / "notes.md"
    page.write_text("# Notes\n\nFirst line\u2028second line\u2029third\u0085fourth.\n",
                    encoding="utf-8")
    result = run_mdchunk("chunk", str(page), "--no-gitignore", check=True)
    lines = result.stdout.splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 1 and "\u2028" in rows[0]["text"] and "\u0085" in rows[0]["text"]
