"""Overlap (guarantee 5): whole sentences of the previous chunk's paragraph, never across a
heading, never code, never inside inline code, within ``overlap_tokens``."""

from __future__ import annotations

import pytest

from mdchunk import chunk_markdown
from mdchunk.tokens import get_counter


def test_long_paragraph_splits_by_sentences_with_overlap() -> None:
    sentences = [f"Sentence number {i} explains one more detail of the procedure." for i in range(30)]
    chunks = chunk_markdown("# P\n\n" + " ".join(sentences) + "\n", max_tokens=80, overlap_tokens=20)
    assert len(chunks) > 3
    for prev, nxt in zip(chunks, chunks[1:]):
        assert nxt.start < prev.end  # overlap moved the start back...
        overlap = prev.text[nxt.start - prev.start:]
        assert overlap.startswith("Sentence number") and overlap.endswith(".")  # ...by whole sentences
        assert get_counter("cl100k_base").count(overlap) <= 20


def test_overlap_never_crosses_a_heading_or_comes_from_code() -> None:
    source = ("# A\n\n" + "Prose sentence here. " * 20 + "\n\n## B\n\n```\n" + "code\n" * 60 + "```\n\n"
              + "More prose follows. " * 10)
    chunks = chunk_markdown(source, max_tokens=60, overlap_tokens=30)
    shared = [source[nxt.start:prev.end] for prev, nxt in zip(chunks, chunks[1:])
              if nxt.start < prev.end]
    assert shared, "the prose chunks overlap"
    for text in shared:
        assert "#" not in text and "code" not in text


def test_overlap_in_hard_wrapped_prose_starts_and_ends_at_whole_sentences() -> None:
    wrapped = "\n".join(["服务在凌晨两点开始重启，", "重启完成后需要检查日志。", "如果日志里出现连接超时，",
                          "先确认数据库主节点是否可用。"] * 12)
    english = "\n".join(["The service restarts at two in the morning and", "the logs must be read",
                          "after it comes back. If they show", "timeouts, check the primary."] * 12)
    for source in (f"# 重启\n\n{wrapped}\n", f"# Restart\n\n{english}\n"):
        chunks = chunk_markdown(source, max_tokens=64, overlap_tokens=24)
        overlaps = [(nxt.start, prev.end) for prev, nxt in zip(chunks, chunks[1:])
                    if nxt.start < prev.end]
        assert overlaps
        for start, end in overlaps:
            assert source[:start].rstrip()[-1] in "。.", source[start:end]
            assert source[end - 1] in "。."


#: Paragraphs whose sentences hold and open with code spans (issue #23): a terminator inside
#: code (``.``, ``。``, ``?``) ends no sentence, and a sentence after a CJK terminator that opens
#: with a code span starts at its backtick.
CODE_SPAN_PROSE = {
    "latin": " ".join([
        "A line of the config ends with `;` or `.` and never with `?` alone.",
        "The ``a `b`. c`` form quotes a backtick inside code.",
        "Run `make test. lint` before you push the branch to the remote."] * 8),
    "cjk": "".join([
        "先修改调度器的配置。`requestedToCapacityRatio` 参数决定节点的打分方式。",
        "然后重启调度器！`kube-scheduler。service` 会在一分钟内恢复。",
        "检查日志里是否还有 `error?` 字样。"] * 8),
}


@pytest.mark.parametrize("name", sorted(CODE_SPAN_PROSE))
def test_overlap_and_cuts_never_fall_inside_inline_code(name: str) -> None:
    from mdchunk.formats import parse_markdown
    from tests.audit import inline_code, overlap_problems

    source = f"# Code\n\n{CODE_SPAN_PROSE[name]}\n"
    counter = get_counter("cl100k_base")
    chunks = chunk_markdown(source, max_tokens=64, overlap_tokens=32)
    spans = [(c.start, c.end) for c in chunks]
    overlaps = [(nxt.start, prev.end) for prev, nxt in zip(chunks, chunks[1:])
                if nxt.start < prev.end]
    assert overlaps
    blocks = parse_markdown(source).blocks
    assert overlap_problems(source, blocks, spans, counter, 32) == []
    code = inline_code(source, blocks[1].start, blocks[1].end)
    assert len(code) >= 3 * 8  # markdown-it reads them as code
    for start, end in [*overlaps, *spans]:  # every chunk ends at a sentence here, too
        assert not any(a < start < b or a < end < b for a, b in code), source[start:end]


def test_the_audit_sees_an_overlap_that_starts_or_ends_inside_inline_code(counter) -> None:
    from mdchunk.formats import parse_markdown
    from tests.audit import overlap_problems

    source = "先修改配置。`ratio` 参数决定打分。它的值用 `a。b` 分隔。\n"
    blocks = parse_markdown(source).blocks
    end = len(source) - 1
    after_tick = source.index("ratio")  # where the sentence started before the fix
    in_code = source.index("a。b") + 2  # after a terminator that is code
    assert any("code span '`ratio`'" in p for p in
               overlap_problems(source, blocks, [(0, end), (after_tick, end)], counter, 30))
    assert any("code span '`a。b`'" in p for p in
               overlap_problems(source, blocks, [(0, in_code), (0, end)], counter, 30))
    tick = source.index("`ratio`")
    assert overlap_problems(source, blocks, [(0, end), (tick, end)], counter, 30) == []
