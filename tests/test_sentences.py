"""Sentence spans: CJK and Latin terminators, abbreviations, closing marks, and inline code
(issue #23), checked against the rules written plainly."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk.text.sentences import sentence_spans


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
    from mdchunk.text.sentences import code_spans
    from tests.audit import inline_code

    assert code_spans(text) == inline_code(text, 0, len(text)) == _reference_code_spans(text)


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(
    ["a", "b", " ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\xa0",
     "\u3000", "服"]), max_size=30).map("".join), data=st.data())
def test_line_spans_are_the_non_blank_lines_with_their_indentation(text: str, data) -> None:
    """Each line (between ``\\r\\n``, ``\\r`` or ``\\n``) with text on it, from its start to
    its last non-blank character, as the rule says plainly."""
    from mdchunk.text.sentences import line_spans

    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    expected, pos = [], start
    for line_break in [*re.finditer(r"\r\n?|\n", text[start:end]), None]:
        line_end = end if line_break is None else start + line_break.start()
        line = text[pos:line_end]
        if line.strip():
            expected.append((pos, pos + len(line.rstrip())))
        pos = end if line_break is None else start + line_break.end()
    assert line_spans(text, start, end) == expected
