"""The Q&A reader (issue 15): markers in any case and in Chinese, every line ending, the
preamble as metadata, and long answers split with the question carried along."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mdchunk
from mdchunk import InputError
from mdchunk.cli.app import app
from mdchunk.formats.registry import format_for

from .conftest import FIXTURES

PAIRS = ("QUESTION: How do I rotate keys?\nAnswer: Run the rotation job.\n\n"
         "question: Who approves changes?\nANSWER: The change board.\n\n"
         "问题：如何重启服务？\n答案：执行 restart 命令。\n\n"
         "问题:日志在哪里?\n答案:在 /var/log 目录下。\n\n"
         "Q: Short form?\nA: Also read.\n\n问：旧的写法？\n答：也能识别。\n")
QUESTIONS = ["How do I rotate keys?", "Who approves changes?", "如何重启服务？", "日志在哪里?",
             "Short form?", "旧的写法？"]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_marker_in_any_case_with_every_line_ending(newline: str) -> None:
    source = PAIRS.replace("\n", newline)
    chunks = mdchunk.chunk_qa(source, max_tokens=256, overlap_tokens=0, min_tokens=0)
    assert [c.headings for c in chunks] == [[q] for q in QUESTIONS]
    assert all(c.text == source[c.start:c.end] for c in chunks)
    assert [c.line_start for c in chunks] == [1, 4, 7, 10, 13, 16]
    assert format_for(".txt", source) == "qa"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_text_before_the_first_question_goes_to_the_metadata(newline: str) -> None:
    banner = "Exported from HelpDesk 5.2 on 2024-06-03\nArticles: 6".replace("\n", newline)
    source = banner + newline * 2 + PAIRS.replace("\n", newline)
    chunks = mdchunk.chunk_qa(source, max_tokens=256, overlap_tokens=0, min_tokens=0)
    assert [c.headings for c in chunks] == [[q] for q in QUESTIONS]  # no chunk of its own
    assert all(c.metadata == {"qa_preamble": banner} for c in chunks)
    assert "HelpDesk" not in "".join(c.text + c.embed_text for c in chunks)
    assert format_for(".txt", source) == "qa"  # a preamble does not hide a Q&A file


def test_a_preamble_still_leads_level_one_of_a_hierarchy() -> None:
    source = "导出时间：2024-05-20\n\n" + PAIRS
    chunks = mdchunk.chunk_hierarchy(source, levels=(256, 16), overlap_tokens=0, reader="qa")
    assert "".join(c.text for c in chunks if c.level == 1) == source
    assert chunks[0].metadata == {"qa_preamble": "导出时间：2024-05-20"}
    # as front matter: in a leaf only when its whole parent fits the leaf budget (not here)
    assert all("导出" not in c.text for c in chunks if c.level == 2)


def test_the_callers_metadata_comes_after_the_preamble() -> None:
    [chunk] = mdchunk.chunk_qa("Banner\n\nQ: a?\nA: b.\n", metadata={"qa_preamble": "mine"})
    assert chunk.metadata == {"qa_preamble": "mine"}


def test_a_pair_over_the_budget_is_split_inside_the_answer_with_the_question_repeated() -> None:
    question = "Why does replication lag grow at night?"
    answer = " ".join(f"Reason {i} is that one more nightly job competes for the link." for i in
                      range(120))
    source = f"question: {question}\nanswer: {answer}\n\nquestion: Next?\nanswer: Short.\n"
    chunks = mdchunk.chunk_qa(source, max_tokens=512, overlap_tokens=0)
    long = [c for c in chunks if c.headings == [question]]
    assert len(long) > 2 and all(c.token_count <= 512 for c in chunks)
    assert long[0].embed_text.startswith(f"question: {question}\nanswer: Reason 0")
    for piece in long[1:]:  # each later piece opens with the question as its breadcrumb
        assert piece.embed_text.startswith(f"{question}\n\n") and piece.text.startswith("Reason")
    assert chunks[-1].headings == ["Next?"]


def test_a_text_file_that_only_mentions_a_question_is_not_qa() -> None:
    assert format_for(".txt", "Chapter 1\nQ: is not answered here\nText.\n") == "text"
    assert format_for(".txt", "\n".join(f"line {i}" for i in range(8)) + "\nQ: x?\nA: y.\n") \
        == "text"  # the first question comes too late to be a Q&A file


def test_the_command_line_reports_the_preamble(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["chunk", str(FIXTURES / "gb18030-faq-export.zh.qa.txt")])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and all(r["metadata"]["qa_preamble"].startswith("知识库导出工具 v2.1") for r in rows)
    assert result.stderr.strip() == (
        "mdchunk: gb18030-faq-export.zh.qa.txt: text before the first question "
        "is in metadata 'qa_preamble', not in a chunk: 知识库导出工具 v2.1 导出时间：2024-05-20 "
        "10:32 共 4 条")
    shown = runner.invoke(app, ["inspect", str(FIXTURES / "utf16be-bom-helpdesk-export.qa.txt")])
    assert shown.exit_code == 0 and "not in a chunk: Exported from HelpDesk 5.2" in shown.stderr


def test_a_long_question_is_repeated_whole_in_every_piece_of_its_answer() -> None:
    """Issue 15: a pair over the budget is split inside its answer with the question repeated
    in embed_text: whole, up to half the budget, not cut to a breadcrumb's sixteenth."""
    question = ("What is the difference between keyword, vector and hybrid search, and when "
                "should each of them be used in production?")
    source = f"question: {question}\nanswer: " + "Run the rotation job and check the pods. " * 60
    chunks = mdchunk.chunk_qa(source, max_tokens=128, overlap_tokens=0)
    assert len(chunks) > 2
    assert all(c.embed_text.startswith(question + "\n\n") for c in chunks[1:])
    assert all(c.token_count <= 128 for c in chunks)


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
