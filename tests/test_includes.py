"""Includes (issue 26): with an include root, ``code_sample``, ``include``, ``--8<--`` and MDX
raw-loader references show the file's text in ``embed_text`` as a code block of its language,
cut like code when it does not fit; without one (or when the file is missing, or its path
leaves the root) the reference is a short visible line, and the run says so once per file.
``text`` is always the page's own verbatim slice (``docs/sites.md``)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from syrupy.extensions.json import JSONSnapshotExtension
from typer.testing import CliRunner

import mdchunk
from mdchunk import Chunker, ChunkerConfig
from mdchunk.chunks.includes import IncludeRoot, include_run
from mdchunk.cli import app
from mdchunk.formats.includes import language_of
from mdchunk.tokens import get_counter

from .conftest import FIXTURES, run_mdchunk

COUNT = get_counter("cl100k_base").count
ROOT = FIXTURES / "includes" / "examples"
POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n"
TOOL = "import sys\n\n\ndef main() -> int:\n    return len(sys.argv)\n"
LOG = "mdchunk.chunks.includes"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "examples"
    (folder / "pods").mkdir(parents=True)
    (folder / "pods" / "pod.yaml").write_text(POD, encoding="utf-8")
    (folder / "tool.py").write_text(TOOL, encoding="utf-8")
    (tmp_path / "secret.txt").write_text("do not read me\n", encoding="utf-8")
    return folder


def one_chunk(source: str, root: Path | None, site: str = "plain") -> mdchunk.Chunk:
    chunks = mdchunk.chunk_markdown(source, max_tokens=1024, overlap_tokens=0, site=site,
                                    doc_id="page.md", includes=root)
    assert len(chunks) == 1
    chunk = chunks[0]
    assert chunk.text == source[chunk.start:chunk.end] == source.strip()
    assert chunk.token_count == COUNT(chunk.embed_text)
    return chunk


POD_BLOCK = "```yaml\n" + POD + "```"
TOOL_BLOCK = "```python\n" + TOOL + "```"
#: Where a chunk has markup that shows nothing (a marker, an import), the drafter collapses the
#: blank lines it leaves behind, a code block's too (``mdchunk.plan.visible.visible_text``).
TOOL_COLLAPSED = TOOL_BLOCK.replace("\n\n\n", "\n\n")
#: (page, embed_text with the root, embed_text without one)
CASES = [
    ('{{% code_sample file="pods/pod.yaml" %}}', POD_BLOCK, "code sample: pods/pod.yaml"),
    ('{{< code_sample file="pods/pod.yaml" >}}', POD_BLOCK, "code sample: pods/pod.yaml"),
    ('{{< codenew file="pods/pod.yaml" >}}', POD_BLOCK, "code sample: pods/pod.yaml"),
    ('{{% code_sample language="yml" file="pods/pod.yaml" %}}', "```yml\n" + POD + "```",
     "code sample: pods/pod.yaml"),
    ('{{< include "tool.py" >}}', TOOL_BLOCK, "include: tool.py"),
    ('{{% include "tool.py" %}}', TOOL_BLOCK, "include: tool.py"),
    ('--8<-- "tool.py"', TOOL_BLOCK, "snippet: tool.py"),
    ('--8<-- "tool.py:4:5"', "```python\ndef main() -> int:\n    return len(sys.argv)\n```",
     "snippet: tool.py:4:5"),
    ("--8<--\npods/pod.yaml\ntool.py\n--8<--", POD_BLOCK + "\n" + TOOL_COLLAPSED,
     "snippet: pods/pod.yaml\nsnippet: tool.py"),
    ('```python\n# before\n--8<-- "tool.py"\n# after\n```',
     "```python\n# before\n" + TOOL + "# after\n```",
     '```python\n# before\nsnippet: tool.py\n# after\n```'),
    ("import PodYaml from '!!raw-loader!./pods/pod.yaml';\n"
     "import CodeBlock from '@theme/CodeBlock';\n\n"
     '<CodeBlock language="yaml" title="pod.yaml">{PodYaml}</CodeBlock>',
     POD_BLOCK, "code sample: ./pods/pod.yaml"),
    ("import Tool from '!!raw-loader!@site/tool.py';\n\n<CodeBlock>\n  {Tool}\n</CodeBlock>",
     TOOL_COLLAPSED, "code sample: tool.py"),
    ('1. Create it:\n\n   {{% code_sample file="pods/pod.yaml" %}}\n\n2. Apply it.',
     "1. Create it:\n\n   ```yaml\n   apiVersion: v1\n   kind: Pod\n   metadata:\n     name: "
     "web\n   ```\n\n2. Apply it.",
     "1. Create it:\n\n   code sample: pods/pod.yaml\n\n2. Apply it."),
    ('> {{< include "tool.py" >}}',
     "> ```python\n> import sys\n>\n>\n> def main() -> int:\n>     return len(sys.argv)\n> ```",
     "> include: tool.py"),
]


@pytest.mark.parametrize("source,with_root,without", CASES, ids=[c[0][:40] for c in CASES])
def test_each_construct_with_and_without_a_root(root: Path, source: str, with_root: str,
                                                without: str) -> None:
    included = one_chunk(source, root)
    assert included.embed_text == with_root
    assert included.metadata["includes"]
    plain = one_chunk(source, None)
    assert plain.embed_text == without
    assert "includes" not in plain.metadata


def test_a_reference_inside_a_line_of_text_stays_its_line(root: Path,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    with caplog.at_level(logging.DEBUG, LOG):
        chunk = one_chunk('See {{< include "tool.py" >}} for the script.', root)
    assert chunk.embed_text == "See include: tool.py for the script."
    assert "shares its line with text" in caplog.text
    assert said(caplog) == ["1 include not put in: sharing their line with text; --verbose (or "
                            "the debug log) names each"]


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The warnings of the includes' logger: a call's one summary line."""
    return [r.getMessage() for r in caplog.records
            if r.name == LOG and r.levelno == logging.WARNING]


def named(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The debug lines of the includes' logger: each include left out, named."""
    return [r.getMessage() for r in caplog.records if r.name == LOG and r.levelno == logging.DEBUG]


def test_missing_file_and_escaping_path_are_lines_and_one_warning_each(
        root: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[Path] = []
    from mdchunk.chunks import includes

    real = includes.decode_document
    monkeypatch.setattr(includes, "decode_document", lambda p: read.append(p) or real(p))
    page = ('{{% code_sample file="pods/gone.yaml" %}}\n\n{{< include "../secret.txt" >}}\n\n'
            '{{% code_sample file="pods/gone.yaml" %}}\n\n--8<-- "/../../secret.txt"\n')
    chunker = Chunker(ChunkerConfig(max_tokens=256, overlap_tokens=0, includes=str(root)))
    for doc_id in ("a.md", "b.md"):  # each call says its own, once
        caplog.clear()
        with caplog.at_level(logging.DEBUG, LOG):
            [chunk] = chunker.chunk(page, doc_id=doc_id)
        assert chunk.embed_text == ("code sample: pods/gone.yaml\n\ninclude: ../secret.txt\n\n"
                                    "code sample: pods/gone.yaml\n\nsnippet: /../../secret.txt")
        assert chunk.token_count == COUNT(chunk.embed_text)
        messages = named(caplog)
        assert len(messages) == 3, messages  # once per file per call, however often cited
        assert all(m.startswith(f"{doc_id}: ") for m in messages)
        assert sum("gone.yaml" in m and "no such file" in m for m in messages) == 1
        assert sum("leaves the include root" in m for m in messages) == 2
        assert said(caplog) == [f"3 includes not put in: 1 missing or unreadable under "
                                f"{root.resolve()}; 2 leaving the include root {root.resolve()}; "
                                "--verbose (or the debug log) names each"]
        assert not any(r.exc_info for r in caplog.records)
    assert all("secret" not in p.name for p in read)  # never read


def test_without_a_root_each_call_says_so_in_one_line(caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    chunker = Chunker(ChunkerConfig(max_tokens=256, overlap_tokens=0))
    page = '{{% code_sample file="pods/pod.yaml" %}}\n\n{{% code_sample file="pods/b.yaml" %}}\n'
    with caplog.at_level(logging.DEBUG, LOG):
        for _ in range(3):
            chunker.chunk(page, doc_id="a.md")
    assert named(caplog) == 3 * [
        "a.md: code sample: pods/pod.yaml not included: no include root set (includes= or "
        "--includes)", "a.md: code sample: pods/b.yaml not included: no include root set "
                       "(includes= or --includes)"]
    assert said(caplog) == 3 * ["2 includes not put in: no include root set (pass --includes "
                                "DIR, or includes= in Python); --verbose (or the debug log) "
                                "names each"]


@pytest.mark.process
def test_the_command_line_says_one_line_and_names_each_with_verbose(tmp_path: Path) -> None:
    """Issue 43: a Hugo site indexed without its include root printed a line per include,
    which read as failures; now one line counts them, ``--verbose`` names each."""
    for i in range(5):
        (tmp_path / f"p{i}.md").write_text(f'# P{i}\n\n{{{{% code_sample file="s{i}.yaml" %}}}}\n',
                                           encoding="utf-8")
    quiet = run_mdchunk("chunk", str(tmp_path), "--workers", "2")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr.splitlines() == [
        "mdchunk: 5 includes not put in: no include root set (pass --includes DIR, or includes= "
        "in Python); --verbose (or the debug log) names each"]
    loud = run_mdchunk("chunk", str(tmp_path), "--verbose")
    lines = loud.stderr.splitlines()
    assert lines[-1] == quiet.stderr.splitlines()[0] and len(lines) == 6
    assert sorted(lines[:-1]) == [f"mdchunk: p{i}.md: code sample: s{i}.yaml not included: no "
                                  "include root set (includes= or --includes)" for i in range(5)]


def test_an_undecodable_file_is_a_line_not_a_traceback(root: Path,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    with caplog.at_level(logging.DEBUG, LOG):
        chunk = one_chunk('--8<-- "blob.bin"', root)
    assert chunk.embed_text == "snippet: blob.bin"
    assert "looks binary" in caplog.text and len(said(caplog)) == 1


def test_included_text_is_read_as_documents_are(root: Path) -> None:
    """Decoded by BOM (UTF-16 here), cleaned of invisible characters, CRLF read as lines."""
    (root / "crlf.sh").write_bytes("\ufeffecho 'zero\u200bwidth'\r\nexit 0\r\n".encode("utf-16"))
    assert one_chunk('--8<-- "crlf.sh"', root).embed_text == \
        "```bash\necho 'zerowidth'\nexit 0\n```"


def test_languages_from_extensions() -> None:
    assert [language_of(p) for p in ("a/b.yml", "x.py", "run.sh", "Dockerfile", "x", "q.rego")
            ] == ["yaml", "python", "bash", "dockerfile", "", "rego"]


def test_backticks_in_the_file_lengthen_the_fence(root: Path) -> None:
    (root / "doc.md").write_text("Text.\n\n```sh\nls\n```\n", encoding="utf-8")
    assert one_chunk('--8<-- "doc.md"', root).embed_text == \
        "````markdown\nText.\n\n```sh\nls\n```\n````"


def yaml_lines(n: int) -> str:
    return "".join(f"key_{i:03d}: value number {i} of the example\n" for i in range(n))


#: Each construct around a file ``big.yaml``: (prefix before it, the reference, site).
REFERENCES = [
    ("", '{{% code_sample file="big.yaml" %}}', "hugo"),
    ("   ", '{{< codenew file="big.yaml" >}}', "hugo"),
    ("> ", '{{< include "big.yaml" >}}', "hugo"),
    ("", '--8<-- "big.yaml"', "mkdocs"),
    ("", "--8<--\nbig.yaml\n--8<--", "mkdocs"),
    ("", '<CodeBlock language="yaml">{Big}</CodeBlock>', "docusaurus"),
]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(max_tokens=st.one_of(st.integers(32, 1024), st.sampled_from([32, 64, 128, 512, 1024])),
       lines=st.integers(1, 120), overlap=st.sampled_from([0, 8]),
       reference=st.sampled_from(REFERENCES), crlf=st.booleans())
def test_a_large_include_is_cut_like_code(root: Path, max_tokens: int, lines: int, overlap: int,
                                          reference: tuple[str, str, str], crlf: bool) -> None:
    """Budgets 32-1024, every construct: ``text`` verbatim, counts exact, no chunk over budget,
    every chunk that holds part of the file opens its fence, every line of the file is shown
    once, in order, ids are distinct and the same on a second run."""
    (root / "big.yaml").write_text(yaml_lines(lines), encoding="utf-8")
    lead, ref_text, site = reference
    intro = "1. Apply this:\n\n" if lead == "   " else ""
    esm = "import Big from '!!raw-loader!./big.yaml';\n\n" if site == "docusaurus" else ""
    source = (f"{esm}# Guide\n\nSome prose before the sample.\n\n{intro}{lead}{ref_text}"
              "\n\nSome prose after it.\n")
    if crlf:
        source = source.replace("\n", "\r\n")
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens,
                                    overlap_tokens=min(overlap, max_tokens - 1),
                                    doc_id="g.md", includes=root, site=site)
    ref = source.index(ref_text.replace("\n", "\r\n") if crlf else ref_text) + (
        7 + crlf if ref_text.startswith("--8<--\n") else 0)
    shown: list[str] = []
    for c in chunks:
        assert c.text == source[c.start:c.end]
        assert c.token_count == COUNT(c.embed_text) <= max_tokens
        assert c.line_start == source.count("\n", 0, c.start) + 1
        held = re.findall(r"key_\d{3}: value number \d+ of the example", c.embed_text)
        if held:
            assert c.start <= ref < c.end  # the reference is its text
            assert re.search(r"^(> |   )?```yaml$", c.embed_text, re.MULTILINE), c.embed_text
            assert c.metadata["includes"] in (["big.yaml"], ["./big.yaml"])
        shown += held
        assert "8<" not in c.embed_text and "{{" not in c.embed_text
    assert shown == yaml_lines(lines).splitlines()
    assert len({c.id for c in chunks}) == len(chunks)
    again = mdchunk.chunk_markdown(source, max_tokens=max_tokens,
                                   overlap_tokens=min(overlap, max_tokens - 1),
                                   doc_id="g.md", includes=root, site=site)
    assert [c.id for c in again] == [c.id for c in chunks]


def test_hierarchy_with_an_include(root: Path) -> None:
    (root / "big.yaml").write_text(yaml_lines(150), encoding="utf-8")
    source = ("# Guide\n\nProse.\n\n## Sample\n\n{{% code_sample file=\"big.yaml\" %}}\n\n"
              "## After\n\nMore prose.\n")
    chunks = mdchunk.chunk_hierarchy(source, levels=(1024, 256, 64), overlap_tokens=0,
                                     doc_id="g.md", includes=root)
    by_id = {c.id: c for c in chunks}
    assert len(by_id) == len(chunks)
    for c in chunks:
        assert c.text == source[c.start:c.end]
        assert c.token_count == COUNT(c.embed_text) <= (1024, 256, 64)[c.level - 1]
        if c.parent_id is not None:
            parent = by_id[c.parent_id]
            assert parent.start <= c.start <= c.end <= parent.end
    for level in (1, 2, 3):
        shown = [line for c in chunks if c.level == level
                 for line in re.findall(r"key_\d{3}: value number \d+ of the example",
                                        c.embed_text)]
        assert shown == yaml_lines(150).splitlines()
    first = [c for c in chunks if c.level == 1]
    assert first[0].start == 0 and first[-1].end == len(source)
    for a, b in zip(first, first[1:]):  # level 1 still tiles the page; a cut include's
        assert b.start <= a.end  # pieces share its reference line
        assert a.end == b.start or source[b.start:a.end].startswith("{{%")


def test_chunk_file_reads_raw_loader_paths_beside_the_page(tmp_path: Path) -> None:
    docs = tmp_path / "docs" / "guide"
    docs.mkdir(parents=True)
    (docs / "pod.yaml").write_text(POD, encoding="utf-8")
    page = docs / "pods.mdx"
    page.write_text("import Pod from '!!raw-loader!./pod.yaml';\n\n"
                    '<CodeBlock language="yaml">{Pod}</CodeBlock>\n', encoding="utf-8")
    [chunk] = mdchunk.chunk_file(page, includes=tmp_path / "docs", site="docusaurus")
    assert chunk.embed_text == POD_BLOCK


def test_the_fingerprint_says_a_root_is_set_not_where() -> None:
    plain = ChunkerConfig().fingerprint
    here, there = ChunkerConfig(includes="/a").fingerprint, ChunkerConfig(includes="b").fingerprint
    assert plain != here == there


def test_digest_follows_the_included_files(root: Path) -> None:
    page = '{{% code_sample file="pods/pod.yaml" %}}\n--8<-- "tool.py:1:2"\n'
    includes = IncludeRoot(root)
    first = includes.digest(page)
    assert first and includes.digest(page) == first
    (root / "tool.py").write_text(TOOL + "# more\n", encoding="utf-8")
    assert includes.digest(page) != first
    assert IncludeRoot(root).digest("# no includes\n") == ""
    assert IncludeRoot(None).digest(page) == ""


# -- the command line and the config file ------------------------------------------------------

runner = CliRunner()


def test_cli_option_and_config_key(root: Path, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    page.write_text('# Pod\n\n{{% code_sample file="pods/pod.yaml" %}}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["chunk", str(page), "--includes", str(root)])
    assert result.exit_code == 0, result.output
    [row] = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert row["embed_text"] == "# Pod\n\n" + POD_BLOCK
    assert row["metadata"]["includes"] == ["pods/pod.yaml"]
    # the config key, relative to the config file's folder
    (tmp_path / "mdchunk.toml").write_text('includes = "examples"\n', encoding="utf-8")
    shown = runner.invoke(app, ["config"])
    assert f'includes = "{root.resolve()}"  # {tmp_path / "mdchunk.toml"}' in shown.stdout
    result = runner.invoke(app, ["chunk", str(page)])
    assert json.loads(result.stdout.splitlines()[0])["embed_text"].endswith(POD_BLOCK)
    inspected = runner.invoke(app, ["inspect", str(page), "--chunk", "0"])
    assert inspected.exit_code == 0 and "kind: Pod" in inspected.stdout
    bad = runner.invoke(app, ["chunk", str(page), "--includes", str(tmp_path / "nowhere")])
    assert bad.exit_code == 0  # a root without the file: the visible line, never a traceback
    assert "code sample: pods/pod.yaml" in bad.stdout


# -- the fixture ---------------------------------------------------------------------------------

@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


def test_fixture_with_its_include_root(snapshot_json, caplog: pytest.LogCaptureFixture) -> None:
    """``fixtures/hugo-code-samples.md`` read with ``fixtures/includes/examples``: every chunk
    (read chunk by chunk when it changes); the long Job manifest is cut with its fence
    reopened, the missing CronJob is a visible line and one warning."""
    path = FIXTURES / "hugo-code-samples.md"
    source = path.read_text(encoding="utf-8")
    with caplog.at_level(logging.DEBUG, LOG):
        chunks = mdchunk.chunk_file(path, doc_id=path.name, max_tokens=128, overlap_tokens=16,
                                    site="hugo", includes=ROOT)
    for c in chunks:
        assert c.text == source[c.start:c.end]
        assert c.token_count == COUNT(c.embed_text) <= 128
    job = [c for c in chunks if "jobs/report-job.yaml" in c.metadata.get("includes", [])]
    assert len(job) > 1 and all("```yaml" in c.embed_text for c in job)
    assert named(caplog) == [
        f"hugo-code-samples.md: code sample: jobs/legacy-report-cronjob.yaml not included: "
        f"{ROOT.resolve()}/jobs/legacy-report-cronjob.yaml: cannot read: no such file or "
        "directory"]
    assert said(caplog) == [f"1 include not put in: missing or unreadable under "
                            f"{ROOT.resolve()}; --verbose (or the debug log) names each"]
    assert [c.to_dict() for c in chunks] == snapshot_json


# -- the index -------------------------------------------------------------------------------------

@pytest.mark.slow
def test_index_re_embeds_a_page_when_a_file_it_includes_changes(tmp_path: Path) -> None:
    from mdchunk.index import index_paths, search

    from .conftest_milvus import CountingEmbedder, HashEmbedder

    kb = tmp_path / "kb"
    (kb / "pods").mkdir(parents=True)
    (kb / "pods" / "pod.yaml").write_text(POD, encoding="utf-8")
    (kb / "pod.md").write_text('# Pod\n\n{{% code_sample file="pods/pod.yaml" %}}\n',
                               encoding="utf-8")
    (kb / "other.md").write_text("# Other\n\nNo includes here.\n", encoding="utf-8")
    db = {"db": str(tmp_path / "index.db"), "collection": "kb"}
    model = CountingEmbedder(HashEmbedder())
    first = index_paths([kb], model=model, includes=kb, analyzer="standard", **db)
    assert (first.added, first.updated) == (2, 0)  # the .yaml is no document
    assert any("name: web" in text for text in model.texts)
    model.texts.clear()
    again = index_paths([kb], model=model, includes=kb, analyzer="standard", **db)
    assert (again.updated, again.unchanged, again.embedded_chunks) == (0, 2, 0)
    (kb / "pods" / "pod.yaml").write_text(POD.replace("web", "cache"), encoding="utf-8")
    changed = index_paths([kb], model=model, includes=kb, analyzer="standard", **db)
    assert (changed.updated, changed.unchanged) == (1, 1)
    assert any("name: cache" in text for text in model.texts)
    hits = search("name: cache", model=model, mode="bm25", **db)
    assert hits and hits[0].doc_id == "pod.md"
    assert '{{% code_sample file="pods/pod.yaml" %}}' in hits[0].text  # text is the page's


@pytest.mark.parametrize("clean", [True, False])
def test_spans_are_the_callers_with_hygiene_and_crlf(clean: bool) -> None:
    """Offsets map back through the expansion, then through hygiene, to the string passed in."""
    source = ("\ufeff# Gu\u200bide\r\n\r\nText\u200b here.\r\n\r\n"
              '{{% code_sample file="jobs/report-job.yaml" %}}\r\n\r\nAfter\u00ad it.\r\n')
    for max_tokens in (32, 64, 512):
        chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=0,
                                        includes=ROOT, clean=clean)
        assert any("kind: Job" in c.embed_text for c in chunks)
        for c in chunks:
            assert c.text == source[c.start:c.end]
            assert c.line_start == source.count("\n", 0, c.start) + 1
            assert c.token_count == COUNT(c.embed_text) <= max_tokens


def test_workers_say_each_missing_file_once(tmp_path: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    from mdchunk.sources.batch import chunk_paths

    pages = []
    for i in range(6):
        page = tmp_path / f"p{i}.md"
        page.write_text(f"# P{i}\n\n{{{{% code_sample file=\"gone.yaml\" %}}}}\n\n"
                        f"{{{{% code_sample file=\"gone-{i % 2}.yaml\" %}}}}\n", encoding="utf-8")
        pages.append(page)
    config = ChunkerConfig(max_tokens=64, overlap_tokens=0, includes=str(tmp_path))
    with caplog.at_level(logging.DEBUG, LOG):
        results = list(chunk_paths(pages, config, workers=2, root=tmp_path))
    assert [p for p, _ in results] == pages
    messages = named(caplog)
    assert len(messages) == 3, messages  # gone.yaml, gone-0.yaml, gone-1.yaml
    # one line for the whole call, however many workers and pages (issue 43)
    assert said(caplog) == [f"3 includes not put in: missing or unreadable under "
                            f"{tmp_path.resolve()}; --verbose (or the debug log) names each"]


@pytest.mark.slow
def test_each_index_call_says_what_it_left_out_in_one_line(tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    """Issue 43: indexing a Hugo site without its include root printed a line per include, and
    again on every call; a call now says one line (when it reads pages that include)."""
    from mdchunk.index import index_paths

    from .conftest_milvus import HashEmbedder

    kb = tmp_path / "kb"
    kb.mkdir()
    for i in range(4):
        (kb / f"p{i}.md").write_text(f'# P{i}\n\n{{{{% code_sample file="s{i}.yaml" %}}}}\n',
                                     encoding="utf-8")
    where = {"db": str(tmp_path / "kb.db"), "collection": "kb", "analyzer": "standard",
             "model": HashEmbedder()}
    for call in range(2):
        caplog.clear()
        (kb / "p0.md").write_text(f'# P0 v{call}\n\n{{{{% code_sample file="s0.yaml" %}}}}\n',
                                  encoding="utf-8")  # the second call reads this page again
        with caplog.at_level(logging.WARNING, LOG):
            index_paths([kb], **where)
        expected = 4 if call == 0 else 1
        assert said(caplog) == [
            f"{expected} include{'s' if expected > 1 else ''} not put in: no include root set "
            "(pass --includes DIR, or includes= in Python); --verbose (or the debug log) names "
            "each"]


def test_a_ray_task_sends_back_what_its_pages_left_out(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """The Ray engine's tasks prepare pages elsewhere: what their includes left out comes back
    with each page and is said once, by the run here (without Ray: the task's function and
    the unpacking, as the engine calls them)."""
    from mdchunk.index.distributed import _prepare_batch, _unpacked
    from mdchunk.index.engine import Preparer

    pages = []
    for i in range(3):
        page = tmp_path / f"p{i}.md"
        page.write_text(f'# P{i}\n\n{{{{% code_sample file="s{i % 2}.yaml" %}}}}\n',
                        encoding="utf-8")
        pages.append(page)
    batch = {"i": list(range(3)), "doc_id": [p.name for p in pages],
             "path": [p.name for p in pages], "file": [str(p) for p in pages],
             "digest": ["d"] * 3, "known": [False] * 3}
    preparer = Preparer(ChunkerConfig(max_tokens=64, overlap_tokens=0, levels=(256, 64)))
    with caplog.at_level(logging.DEBUG, LOG):
        rows = _prepare_batch(batch, preparer)["prepared"]
        assert not said(caplog) and not named(caplog)  # the task says nothing itself
        with include_run():
            prepared = [_unpacked(row) for row in rows]
    assert [source.doc_id for source, _ in prepared] == ["p0.md", "p1.md", "p2.md"]
    assert len(named(caplog)) == 2  # s0.yaml, s1.yaml: once each
    assert said(caplog) == ["2 includes not put in: no include root set (pass --includes DIR, "
                            "or includes= in Python); --verbose (or the debug log) names each"]
