"""Filters on real Milvus (issue 34): every operator on a Milvus Lite file and on a
``milvus-lite server`` keeps exactly the rows :func:`~mdchunk.index.where.matches` keeps; values
holding quotes, backslashes, brackets, wildcards and keywords never change what a filter means
(a property test); metadata stays current when only front matter changes; an older collection
is rebuilt once."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdchunk.index import index_paths, search
from mdchunk.index.milvus import MilvusStore
from mdchunk.index.rows import FILTER_FIELDS, metadata_terms
from mdchunk.index.store import SCHEMA_VERSION, DenseQuery, IndexMeta
from mdchunk.index.where import FilterError, glob_escaped, matches, parse_where, quoted

from .conftest_milvus import HashEmbedder, milvus, milvus_server, write_corpus  # noqa: F401

pytestmark = pytest.mark.slow


def row(id: str, doc_id: str, *, metadata: dict[str, Any], lang: str = "en", version: str = "",
        level: int = 2, title: str = "T", section_path: str = "S") -> dict[str, Any]:
    """A stored leaf row with what a filter reads (its vector points one way for all: a
    search with a large limit returns every row the filter keeps)."""
    return {"id": id, "doc_id": doc_id, "path": f"kb/{doc_id}", "file_type": "md",
            "title": title, "section_path": section_path, "level": level, "index": 0,
            "parent_id": "", "start": 0, "end": 4, "line_start": 1, "line_end": 1,
            "token_count": 1, "text": "text", "url": "", "anchor": "", "lang": lang,
            "version": version, "metadata": metadata, "terms": metadata_terms(metadata),
            "search_text": "text",
            "dense": [1.0, 0.0], "content_hash": id}


ROWS = [
    row("a", "runbooks/db/lag.md", metadata={"tags": ["db", "pg"], "severity": "critical",
                                             "priority": 2, "draft": True}),
    row("b", "runbooks/web_502.md", metadata={"tags": ["web"], "severity": "low",
                                              "priority": 5.5}),
    row("c", "runbooks/disk.md", lang="zh", metadata={"severity": 3}),
    row("d", "versioned_docs/version-5.0/intro.md", version="5.0", level=1, metadata={}),
    row("e", "runbooks/db/deep/x_y%z.md", level=3, metadata={"tags": "db"}),
]

#: Each filter and the rows it keeps: the operators one by one, then combined.
CASES = [
    ('severity == "critical"', "a"), ('severity != "critical"', "bcde"),
    ('not severity == "critical"', "bcde"), ("priority > 2", "b"),
    ("priority >= 2 and priority < 6", "ab"), ("priority == 2.0", "a"),
    ('severity > "a"', "ab"), ('not severity > "a"', "de"),
    ('tags contains "db"', "a"), ('not tags contains "db"', "bcde"),
    ('severity in ["low", "critical"]', "ab"), ('severity not in ["low"]', "acde"),
    ("draft == true", "a"), ('lang == "zh"', "c"), ('lang != "zh"', "abde"),
    ('version == "5.0"', "d"), ('version in ["5.0", "4.0"]', "d"), ("level <= 1", "d"),
    ("level in [2, 3]", "abce"), ('filetype == "md"', "abcde"),
    ('path ~ "runbooks/**"', "abce"), ('path ~ "runbooks/*.md"', "bc"),
    ('path ~ "runbooks/db/**/*.md"', "ae"), ('path ~ "**/x_y%z.md"', "e"),
    ('not path ~ "runbooks/*"', "ade"), ('doc_id ~ "kb/**"', ""),
    ('path ~ "kb/runbooks/db/lag.md"', "a"), ('path ~ "runbooks/web_???.md"', "b"),
    ('path == "runbooks/disk.md"', "c"),
    ('(severity == "low" or lang == "zh") and not level == 3', "bc"),
    ('meta.tags contains "web"', "b"),
    ('path ~ "runbooks/*.md" and priority > 1', "b"),
]


@pytest.fixture()
def filled(milvus: dict[str, str]) -> Iterator[MilvusStore]:  # noqa: F811
    with MilvusStore(milvus["db"], milvus["collection"]) as store:
        store.open(IndexMeta("test/hash-2", 2, "cfg", "standard"))
        store.add_metadata_keys(["tags", "severity", "priority", "draft"])
        store.upsert_chunks(ROWS)
        store.flush()
        yield store


def test_every_operator_keeps_what_it_means(filled: MilvusStore) -> None:
    ids = [r["id"] for r in ROWS]
    wrong = []
    for text, kept in CASES:
        where = parse_where(text)
        reference = "".join(r["id"] for r in ROWS if matches(where, r))
        found = "".join(sorted(h.id for h in filled.search(DenseQuery([1.0, 0.0]), limit=50,
                                                           where=where)))
        read = "".join(sorted(r["id"] for r in filled.leaf_rows(ids, where=where)))
        if not kept == reference == found == read:
            wrong.append(f"{text}: meant {kept}, reference {reference}, search {found}, "
                         f"rows {read}")
    assert not wrong, "\n".join(wrong)
    assert filled.metadata_keys() == {"tags", "severity", "priority", "draft"}


def test_a_loosened_filter_still_fills_the_limit(filled: MilvusStore) -> None:
    """``*`` stops at ``/``, which Milvus cannot say: the store asks for more until ``limit``
    rows pass the check (many decoys rank first)."""
    decoys = [row(f"z{i}", f"runbooks/deep/z{i}.md", metadata={}) for i in range(40)]
    filled.upsert_chunks(decoys)
    hits = filled.search(DenseQuery([1.0, 0.0]), limit=2, where=parse_where(
        'path ~ "runbooks/*.md"'))
    assert sorted(h.id for h in hits) == ["b", "c"]


_PIECES = ['"', "'", "\\", "[", "]", "(", ")", "%", "_", "*", "?", "~", " or ", " and ",
           " not ", " in ", " like ", "==", "!=", "\n", "\t", " ", "a", "Z", "é", "中", "/"]
_VALUES = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("".join)


@pytest.fixture(scope="module")
def lite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MilvusStore]:
    with MilvusStore(str(tmp_path_factory.mktemp("where") / "p.db"), "prop") as store:
        store.open(IndexMeta("test/hash-2", 2, "cfg", "standard"))
        store.add_metadata_keys(["k", "tags"])
        yield store


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_VALUES)
def test_a_value_never_changes_what_a_filter_means(lite: MilvusStore, value: str) -> None:
    """A row holding ``value`` (in its metadata, title, path) is found by equality on it, and
    none of its look-alikes is: whatever the value holds, it stays a value."""
    batch = uuid.uuid4().hex
    base = f"h/{batch}/"
    rows = [row(f"{batch}-a", base + value, title=value, section_path=batch,
                metadata={"k": value, "tags": [value]}),
            row(f"{batch}-b", base + "#" + value, title=value + "x", section_path=batch,
                metadata={"k": value + "x", "tags": [value + "x"]}),
            row(f"{batch}-c", base + "#x", title="x", section_path=batch,
                metadata={"k": "x" + value, "tags": ["x"]})]
    lite.upsert_chunks(rows)
    literal = quoted(value)
    for text in (f"k == {literal}", f"title == {literal}", f"tags contains {literal}",
                 f"k in [{literal}, {quoted(value + 'y')}]",
                 f"doc_id ~ {quoted(glob_escaped(base + value))}",
                 f"path ~ {quoted(glob_escaped(base + value) + '**')}",
                 f"not k != {literal}"):
        where = parse_where(f"section_path == {quoted(batch)} and ({text})")
        hits = lite.search(DenseQuery([1.0, 0.0]), limit=10, where=where)
        assert [h.id for h in hits] == [f"{batch}-a"], text
        assert [r["id"] for r in rows if matches(where, r)] == [f"{batch}-a"], text


def test_metadata_stays_current_when_only_front_matter_changes(tmp_path: Path) -> None:
    sections = "".join(f"## Step {i}\n\nWhen a replica falls behind, check the replay lag "
                       f"of step {i} first, then the WAL sender, then the network.\n\n"
                       for i in range(12))
    page = "---\ntitle: Lag\nseverity: {sev}\n---\n\n# Lag\n\n" + sections
    kb = write_corpus(tmp_path / "kb", {"lag.md": page.format(sev="low"),
                                        "other.md": "# Other\n\nThe replay of logs.\n"})
    db, emb = str(tmp_path / "fm.db"), HashEmbedder()

    def run() -> Any:
        return index_paths([kb], db=db, collection="kb", model=emb, analyzer="standard",
                           levels=(96, 32), overlap_tokens=0)

    def found(where: str) -> set[str]:
        return {h.doc_id for h in search("replay lag", db=db, collection="kb", mode="bm25",
                                         k=20, where=where)}

    def leaves() -> dict[str, dict[str, Any]]:
        with MilvusStore(db, "kb") as store:
            return {r["id"]: r for r in store.rows(("id", "doc_id", "text", "metadata"))
                    if r["doc_id"] == "lag.md"}

    run()
    assert found('severity == "low"') == {"lag.md"}
    before = leaves()
    # the same length: every chunk but those holding the front matter (the first leaf, the
    # first parent, whose children's parent_id it is) keeps its id and its text
    (kb / "lag.md").write_text(page.format(sev="mid"), encoding="utf-8")
    report = run()
    after = leaves()
    kept = set(before) & set(after)
    assert len(kept) >= 3 and all(before[i]["text"] == after[i]["text"] for i in kept)
    assert {r["metadata"]["severity"] for r in after.values()} == {"mid"}
    assert report.updated == 1 and report.written_chunks == len(after)
    assert found('severity == "low"') == set() and found('severity == "mid"') == {"lag.md"}
    with MilvusStore(db, "kb") as store:
        assert {r["metadata"].get("severity") for r in store.parent_rows(("doc_id", "metadata"))
                if r["doc_id"] == "lag.md"} == {"mid"}
    # a key new in this run is known at once; a misspelt one is an error
    (kb / "lag.md").write_text(page.format(sev="mid").replace("title: Lag", "title: Lag\n"
                                                              "owner: dba"), encoding="utf-8")
    run()
    assert found('owner == "dba"') == {"lag.md"}
    with pytest.raises(FilterError, match="unknown field 'sevrity'"):
        found('sevrity == "mid"')


def test_a_collection_of_the_schema_before_filters_is_rebuilt_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    kb = write_corpus(tmp_path / "kb", {"a.md": "---\ntags: [db]\n---\n\n# A\n\nReplicas.\n"})
    db, emb = str(tmp_path / "old.db"), HashEmbedder()
    index_paths([kb], db=db, collection="kb", model=emb, analyzer="standard")
    with MilvusStore(db, "kb") as store:  # what the version before this one recorded
        recorded = store.meta()
        assert recorded is not None and recorded.schema == SCHEMA_VERSION == "7"
        props = {**recorded.properties(), "mdchunk.schema": "6"}
        store._client.alter_collection_properties("kb", properties=props)
    with caplog.at_level(logging.WARNING, logger="mdchunk.index"):
        first = index_paths([kb], db=db, collection="kb", model=emb, analyzer="standard")
        second = index_paths([kb], db=db, collection="kb", model=emb, analyzer="standard")
    rebuilt = [r for r in caplog.records if "rebuilding collection" in r.getMessage()]
    assert first.rebuilt and not second.rebuilt and len(rebuilt) == 1
    assert "schema: 6 -> 7" in rebuilt[0].getMessage()
    hits = search("replicas", db=db, collection="kb", mode="bm25", where='tags contains "db"')
    assert [h.doc_id for h in hits] == ["a.md"]


def test_every_row_has_what_a_filter_reads(tmp_path: Path) -> None:
    kb = write_corpus(tmp_path / "kb", {
        "site/versioned_docs/version-5.0/a.md": "# A\n\nFive.\n",
        "b.md": "---\nversion: '6.1'\n---\n\n# B\n\nSix.\n",
        "zh.md": "# 磁盘\n\n告警提示根分区的磁盘使用率超过百分之九十五。\n",
        "c.txt": "Plain text.\n"})
    db = str(tmp_path / "f.db")
    index_paths([kb], db=db, collection="kb", model=HashEmbedder(), analyzer="standard")
    with MilvusStore(db, "kb") as store:
        rows = {r["doc_id"]: r for r in store.rows(("id", *FILTER_FIELDS))}
    assert rows["site/versioned_docs/version-5.0/a.md"]["version"] == "5.0"
    assert rows["b.md"]["version"] == "6.1" and rows["b.md"]["metadata"]["version"] == "6.1"
    assert rows["zh.md"]["lang"] == "zh" and rows["b.md"]["lang"] == "en"
    assert rows["c.txt"]["file_type"] == "txt" and rows["c.txt"]["version"] == ""


def test_the_command_line_takes_where_repeated_and_says_what_is_wrong(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mdchunk.cli import app

    kb = write_corpus(tmp_path / "kb", {
        "db/lag.md": "---\ntags: [db]\nseverity: critical\n---\n\n# Lag\n\nReplica lag.\n",
        "db/vacuum.md": "---\ntags: [db]\nseverity: low\n---\n\n# Vacuum\n\nReplica vacuum.\n",
        "web/502.md": "---\ntags: [web]\n---\n\n# 502\n\nReplica of nginx.\n"})
    db = str(tmp_path / "cli.db")
    index_paths([kb], db=db, collection="kb", model=HashEmbedder(), analyzer="standard")
    runner = CliRunner()

    def run(*where: str) -> Any:
        flags = [part for w in where for part in ("--where", w)]
        return runner.invoke(app, ["search", "replica", "--db", db, "--collection", "kb",
                                   "--mode", "bm25", "--json", *flags])

    found = run('tags contains "db"', 'severity == "critical"')
    assert found.exit_code == 0, found.output
    assert [json.loads(line)["doc_id"] for line in found.stdout.splitlines()] == ["db/lag.md"]
    found = run('path ~ "db/*" or tags contains "web"')
    assert sorted(json.loads(line)["doc_id"] for line in found.stdout.splitlines()) == \
        ["db/lag.md", "db/vacuum.md", "web/502.md"]
    bad = run('tags contains "db"', "severity ==")
    assert bad.exit_code == 2 and "--where #2" in bad.output and "column 12" in bad.output
    unknown = run('sevrity == "low"')
    assert unknown.exit_code == 2 and "unknown field 'sevrity' at column 1" in unknown.output
