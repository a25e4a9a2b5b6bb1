"""Coverage-guided fuzzing of the chunkers with the contract's guarantees as assertions (#13).

    make fuzz                      # FUZZ_TIME=600 seconds by default; goes on after a failure
    PYTHONPATH=. python bench/fuzz_chunk.py .fuzz/corpus fixtures -max_total_time=600

With ``FUZZ_KEEP_GOING=1`` (as ``make fuzz`` sets) a failing input and its traceback are
written to ``.fuzz/failures/`` and the run goes on; without it libFuzzer stops at the first
and writes a ``crash-*`` file. ``PYTHONPATH`` must name this checkout: the venv's editable
install may point at another.

One input is 4 header bytes and a body. Byte 0 picks the entry point (``chunk_markdown``,
``chunk_text``, or ``chunk_file`` on a ``.md`` / ``.txt`` temp file), bytes 1-2 the budget
(16 to 2048, mostly small) and byte 3 the overlap (a fraction of the budget). The body is
decoded as UTF-8 with ``surrogateescape`` (undecodable bytes become lone surrogates); the file
entry point writes it raw. Every guarantee the audit can check from spans is asserted: the
budget and exact counts, verbatim spans, coverage of non-blank text, whole atomic blocks,
no chunk of headings alone (from 48 tokens, as in the tests), no shared top-level section,
and overlap of whole sentences. Only ``InputError`` and ``ConfigError`` may be raised.

``tests/test_fuzz_regressions.py`` replays every input kept under ``tests/data/fuzz/``
through :func:`check` without atheris.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/audit.py's checks

ENTRY_POINTS = ("markdown", "markdown", "text", "file.md", "file.txt")
#: Below this budget a heading and its breadcrumb may fill a chunk: the budget wins (the tests
#: skip the headings-only check there too).
HEADINGS_CHECKED_FROM = 48


def decode_header(data: bytes) -> tuple[str, int, int, bytes]:
    """``(entry point, max_tokens, overlap_tokens, body)`` of one fuzz input."""
    head = data[:4].ljust(4, b"\0")
    entry = ENTRY_POINTS[head[0] % len(ENTRY_POINTS)]
    value = head[1] << 8 | head[2]
    max_tokens = 16 + (value % 2033 if head[1] & 0x80 else value % 113)
    overlap = head[3] * (max_tokens - 1) // 255 if head[3] & 1 else head[3] % 9
    return entry, max_tokens, min(overlap, max_tokens - 1), data[4:]


def check(data: bytes) -> None:
    """Chunk one fuzz input and assert every guarantee; documented refusals pass."""
    import mdchunk
    from mdchunk.formats import parse_markdown
    from mdchunk.text import document_text
    from mdchunk.tokens import get_counter
    from tests.audit import as_read, audit_markdown, overlap_problems, uncovered

    entry, max_tokens, overlap, body = decode_header(data)
    kwargs = {"max_tokens": max_tokens, "overlap_tokens": overlap}
    try:
        if entry.startswith("file"):
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / ("doc" + entry[len("file"):])
                path.write_bytes(body)
                try:
                    source = document_text(path)
                except mdchunk.InputError:
                    source = None
                chunks = mdchunk.chunk_file(path, **kwargs)
                assert source is not None, "chunk_file read a file document_text refuses"
            markdown = entry == "file.md"
        else:
            source = body.decode("utf-8", "surrogateescape")
            markdown = entry == "markdown"
            chunker = mdchunk.chunk_markdown if markdown else mdchunk.chunk_text
            chunks = chunker(source, **kwargs)
    except (mdchunk.InputError, mdchunk.ConfigError):
        return
    counter = get_counter("cl100k_base")
    spans = [(c.start, c.end) for c in chunks]
    for c in chunks:
        assert c.text == source[c.start:c.end], "guarantee 4: text is source[start:end]"
        assert c.token_count == counter.count(c.embed_text), "token_count is exact"
        assert c.token_count <= max_tokens, f"guarantee 1: {c.token_count} > {max_tokens}"
    assert [c.index for c in chunks] == list(range(len(chunks)))
    source, spans = as_read(source, spans)  # structure is that of the text after hygiene
    assert markdown or all(c.embed_text.endswith(source[a:b]) for c, (a, b) in zip(chunks, spans)
                           ), "embed_text ends with the text read"
    if not markdown:
        assert uncovered(source, spans, _qa_body_start(source, chunks)) == [], \
            "guarantee 4: text no chunk covers"
        return
    report = audit_markdown(source, spans, [c.token_count for c in chunks], counter, max_tokens)
    assert report.uncovered == [], f"guarantee 4: uncovered {report.uncovered}"
    assert report.cut == [], f"guarantee 2: cut {report.cut}"
    assert report.shared_top == [], f"guarantee 3: shared top-level sections {report.shared_top}"
    if max_tokens >= HEADINGS_CHECKED_FROM:
        assert report.headings_only == [], f"guarantee 3: headings alone {report.headings_only}"
    blocks = parse_markdown(source).blocks
    problems = overlap_problems(source, blocks, spans, counter, overlap)
    assert problems == [], f"guarantee 5: {problems}"


def _qa_body_start(read: str, chunks: list) -> int:
    """Where the body a chunk must cover starts in the text as ``read``: after a Q&A file's
    preamble (its text before the first question), which goes to ``metadata["qa_preamble"]``
    as front matter does (guarantee 4), and which must be that text, whole."""
    preamble = chunks[0].metadata.get("qa_preamble") if chunks else None
    if not preamble:
        return 0
    at = read.find(preamble)
    assert at >= 0 and not read[:at].strip(), "qa_preamble is the text before the first question"
    return at + len(preamble)


def keep_going(data: bytes) -> None:
    """:func:`check`, but a failure is written to ``.fuzz/failures/`` (at most three inputs for
    each kind of failure) and the run goes on: libFuzzer's fork mode does not work here."""
    import hashlib
    import traceback

    try:
        check(data)
    except Exception as exc:
        kind = f"{type(exc).__name__}: {str(exc).split(':')[0][:60]}"
        seen = _FAILURES.setdefault(kind, 0)
        _FAILURES[kind] = seen + 1
        if seen < 3:
            name = hashlib.sha1(data).hexdigest()[:16]
            FAILURES.mkdir(parents=True, exist_ok=True)
            (FAILURES / f"{name}.bin").write_bytes(data)
            (FAILURES / f"{name}.txt").write_text(traceback.format_exc(), encoding="utf-8")
            print(f"\n=== failure {kind} -> {FAILURES / name}.bin", flush=True)


FAILURES = Path(".fuzz/failures")
_FAILURES: dict[str, int] = {}


def main() -> None:
    import os

    import atheris

    with atheris.instrument_imports(include=["mdchunk", "markdown_it", "mdit_py_plugins"]):
        import tests.audit  # noqa: F401
    from mdchunk.tokens import get_counter

    get_counter("cl100k_base").count("warm up")
    target = keep_going if os.environ.get("FUZZ_KEEP_GOING") else check
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
