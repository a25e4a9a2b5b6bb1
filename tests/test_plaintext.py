"""The plain-text line classifier and nesting rules (docs/plaintext.md), one rule a test."""

from __future__ import annotations

import pytest

import mdchunk
from mdchunk.formats import parse_plain_text
from mdchunk.formats.plaintext import heading_style


def outline(source: str) -> list[tuple[int, str]]:
    """(level, title) of every heading the reader finds."""
    return [(b.level, b.title) for b in parse_plain_text(source).blocks if b.kind == "heading"]


# -- the classifier, in its order --------------------------------------------------------------

def test_blank_indented_and_long_lines_are_body_text() -> None:
    assert heading_style("") is None
    assert heading_style("    1.1 Indented") is None
    assert heading_style("1.1 " + "word " * 20) is None  # over 60 characters
    assert heading_style("1.1 Scope") == "decimal"


@pytest.mark.parametrize("line", ["- 1.1 Scope", "• 第一章 概述", "* Chapter 2 Setup", "· 一、组成"])
def test_bullet_lines_are_never_headings(line: str) -> None:
    assert heading_style(line) is None


@pytest.mark.parametrize("line", ["第 1 步 登录管理节点", "第一步 登录", "步骤 2 重启服务", "Step 1 Log in",
                                  "STEP 3 Check the logs"])
def test_step_lines_are_never_headings(line: str) -> None:
    assert heading_style(line) is None


@pytest.mark.parametrize("line,style", [
    ("第一章 概述", "chapter"), ("第2篇 附件", "chapter"), ("第三部分 运维", "chapter"),
    ("Chapter 2 Setup", "chapter"), ("PART IV", "chapter"), ("第一节 要求", "section"),
    ("附录 A 术语", "appendix"), ("附录A 配置项", "appendix"), ("附录一：命令", "appendix"),
    ("Appendix A. Error codes", "appendix"), ("APPENDIX B", "appendix"),
    ("一、系统组成", "cn_enum"), ("（二）时钟同步", "cn_paren"), ("(三) 磁盘", "cn_paren"),
    ("1.1 硬件要求", "decimal"), ("1.2.3. Deep", "decimal"), ("1. Introduction", "numbered"),
])
def test_numbering_styles(line: str, style: str) -> None:
    assert heading_style(line) == style


@pytest.mark.parametrize("line", ["一、本章介绍系统的组成。", "1.1 The disks must be replaced.",
                                  "Chapter 2 covers the setup:", "附录A见下文，"])
def test_a_line_ending_in_sentence_punctuation_is_not_a_heading(line: str) -> None:
    assert heading_style(line) is None


def test_a_numbered_line_that_reads_as_a_sentence_is_not_a_heading() -> None:
    assert heading_style("1. Introduction") == "numbered"
    assert heading_style("1. Restart the service and check the logs.") is None  # punctuation
    assert heading_style("1. Restart the service and then check all of the logs") is None  # words
    assert heading_style("2. Stop the queue, then the workers") is None  # a clause mark
    assert heading_style("2. 停止网关服务，避免写入") is None


def test_a_numbered_line_inside_a_list_is_an_item_not_a_heading() -> None:
    assert heading_style("1. 登录服务器", after="2. 重启") is None
    assert heading_style("2. 重启", before="1. 登录服务器") is None
    assert heading_style("2. Upgrading", before="- a bullet") is None
    assert heading_style("2. Upgrading", before="", after="Text under it.") == "numbered"


# -- nesting -----------------------------------------------------------------------------------

def test_a_style_first_seen_below_another_nests_under_it() -> None:
    assert outline("第一章 概述\n\n一、组成\n\n（一）网关\n") == [
        (1, "第一章 概述"), (2, "一、组成"), (3, "（一）网关")]


def test_a_style_first_seen_under_a_shallow_heading_nests_under_that_one() -> None:
    """1.1 first appears right under a chapter: one level below it, not below the deepest
    style seen so far."""
    assert outline("第一章 概述\n\n一、组成\n\n（一）网关\n\n第二章 安装\n\n1.1 要求\n") == [
        (1, "第一章 概述"), (2, "一、组成"), (3, "（一）网关"), (1, "第二章 安装"), (2, "1.1 要求")]


def test_a_style_seen_again_returns_to_its_level() -> None:
    assert outline("第一章 概述\n\n一、组成\n\n（一）网关\n\n二、术语\n\n第二章 安装\n") == [
        (1, "第一章 概述"), (2, "一、组成"), (3, "（一）网关"), (2, "二、术语"), (1, "第二章 安装")]


def test_numbering_depth_adds_levels_within_a_style() -> None:
    assert outline("1. Introduction\n\n1.1 Scope\n\n1.1.1 Hosts\n\n2. Setup\n\n2.1 Disks\n") == [
        (1, "1. Introduction"), (2, "1.1 Scope"), (3, "1.1.1 Hosts"), (1, "2. Setup"),
        (2, "2.1 Disks")]
    assert outline("第一章 概述\n\n1.1 要求\n\n1.2.1 系统\n") == [
        (1, "第一章 概述"), (2, "1.1 要求"), (3, "1.2.1 系统")]


@pytest.mark.parametrize("appendix", ["附录 A 配置项", "Appendix A. Error codes"])
def test_appendices_are_at_the_top_level(appendix: str) -> None:
    """Issue 15: after numbered sections an appendix used to nest under the last of them."""
    source = f"第一章 概述\n\n一、组成\n\n1.1 要求\n\n1.1.1 系统\n\n{appendix}\n\nText.\n"
    assert outline(source)[-1] == (1, appendix)
    source = f"1. Introduction\n\n1.1 Scope\n\n{appendix}\n\nText.\n\n1.2 Back\n"
    assert outline(source)[-2:] == [(1, appendix), (2, "1.2 Back")]


def test_no_level_is_deeper_than_six() -> None:
    source = "\n\n".join(["第一章 A", "第一节 B", "一、C", "（一）D", "1.1 E", "1.1.1 F", "1.1.1.1 G",
                          "1.1.1.1.1 H"]) + "\n"
    assert [level for level, _ in outline(source)] == [1, 2, 3, 4, 5, 6, 6, 6]


def test_an_appendix_chunk_never_shares_with_the_last_numbered_section() -> None:
    source = "1. Introduction\n\nShort.\n\n1.1 Scope\n\nShort.\n\nAppendix A. Codes\n\nE1 bad.\n"
    chunks = mdchunk.chunk_text(source, max_tokens=256, overlap_tokens=0)
    assert [c.headings for c in chunks] == [["1. Introduction"], ["Appendix A. Codes"]]


def test_plain_text_headings_by_line_classifier() -> None:
    source = ("第一章 概述\n本系统用于日志采集。\n\n一、系统要求\n内存至少8GB。\n\n1.1 硬件要求\n"
              "1. 登录服务器\n2. 检查磁盘\n\n第二章 安装\n解压安装包。\n")
    chunks = mdchunk.chunk_text(source, max_tokens=40, overlap_tokens=0, min_tokens=0)
    paths = [c.section_path for c in chunks]
    assert "第一章 概述 > 一、系统要求 > 1.1 硬件要求" in paths
    assert paths[-1] == "第二章 安装"
    assert any(c.kinds == ["heading", "list"] for c in chunks)
