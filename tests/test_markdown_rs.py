"""The fast reader (markdown-it-pyrs) reads every document it takes exactly as the reference
(markdown-it-py with mdchunk's plugins) does: the same Document, block tree and all (issue #13:
a document of many tiny sections chunks at the speed of ordinary Markdown).

Compared on the grammar's documents (as generated, and with what the fast reader leaves to the
reference written away, so that it reads every one), every fixture and the corpora.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

import pytest
from hypothesis import assume, given, note
from hypothesis import strategies as st

import mdchunk
from mdchunk.formats import parse_markdown
from mdchunk.formats.blocks import LineIndex, rstrip_end
from mdchunk.formats.markdown import parse_markdown_it
from mdchunk.formats.markdown_rs import (
    _LINE_BREAK,
    _body_refusals,
    _comment_over_blank,
    _front_matter,
    _rust_parser,
    _source_lines,
    may_read,
    parse_fast,
    refusals,
    tables_agree,
)
from mdchunk.formats.rust_tree import TreeReader, line_finder
from mdchunk.formats.sites.generators import SITES
from mdchunk.text import document_text

from .conftest import CORPORA, corpus_files, fixture_files, with_corpus
from .pathological import document
from .test_fast_footnotes import assert_fast_or_refused
from .test_grammar import markdown_documents, profile

needs_rust = pytest.mark.skipif(_rust_parser() is None, reason="markdown-it-pyrs not installed")

#: What sends a document to the reference, written away: definitions, link references (and
#: with them the comments in paragraphs, which the inline parse reads by them),
#: footnotes, quotes and math become plain text, ``~`` fences backtick fences, and lone
#: surrogates (the Rust parser takes UTF-8 only) question marks. Tables stay, unless they are
#: of a shape the fast reader leaves to the reference (:func:`tables_agree`): then their pipes
#: become slashes.
_AWAY = {"~": "`", ":": ";", "[^": "[", "$$": "$", "!!!": "!",
         "???": "?", "\t": " ", ">": "»"}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _readable(source: str) -> str:
    for old, new in _AWAY.items():
        source = source.replace(old, new)
    source = _SURROGATE.sub("?", source).lstrip("-")
    if not tables_agree(source.replace("\r\n", "\n").replace("\r", "\n")):
        source = source.replace("|", "/")
    return source


def assert_same_reading(source: str) -> bool:
    """Both readers give the same Document when the fast one reads ``source``; whether it did."""
    fast = parse_fast(source)
    if fast is None:
        return False
    reference = parse_markdown_it(source)
    for mine, theirs in zip(fast.blocks, reference.blocks):
        assert mine == theirs
    assert fast == reference
    return True


def assert_read_fast_or_not(source: str, fast: bool) -> None:
    """The fast reader reads ``source`` (alike) exactly when ``fast``; either way the reading
    is the reference's."""
    assert assert_same_reading(source) is fast
    assert parse_markdown(source) == parse_markdown_it(source)


@needs_rust
@profile(150)
@given(source=markdown_documents())
def test_both_readers_agree_on_grammar_documents(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@profile(300)
@given(source=markdown_documents().map(_readable))
def test_both_readers_agree_where_the_fast_one_reads(source: str) -> None:
    assert assert_same_reading(source), "the fast reader reads what is written away"


# -- tables: the fast reader reads those both parsers read alike (tables_agree) ---------------

_CELLS = st.sampled_from(["a", "b c", "", " ", "`x|y`", "\\|", "x\\|y", "**b**", "<br>", "1.", "-",
                          "# h", "`", "::", "|", "a | b", "服务", "😀", "[l](u)", "&amp;", "*", "1",
                          "10", "1)", "![](u)", "1 2", "`a`", "a\\b", "x \\ y", "\\\\", "a\\"])
_ALIGNS = st.sampled_from(["---", ":--", "--:", ":-:", "-", ":-", " --- ", "--", "- -", "-- --",
                           "==", ""])
#: Lines that may follow a table's last row: another block may start there, or not.
_AFTER = st.sampled_from(["text", "# head", " # h", "```", "- item", "1. one", "2. two", "***",
                          "---", "<div>", "   ", "    code", "===", "| ", "|", "||", "a|b", "\\|",
                          "Term", "|-|-|", "[a]: /u", "[a]:", "1 | x", "![](u)", "10. x"])


def _row(cells: list[str], pipes: tuple[bool, bool]) -> str:
    return ("|" if pipes[0] else "") + "|".join(cells) + ("|" if pipes[1] else "")


@st.composite
def _any_table(draw: st.DrawFn) -> str:
    """A table of any shape: pipes at its ends or not, ragged rows, too few or too many
    delimiter cells, indented, rows that another block could start."""
    columns = draw(st.integers(1, 4))
    pipes = st.tuples(st.booleans(), st.booleans())
    indent = draw(st.sampled_from(["", "", " ", "   ", "    "]))
    spread = st.sampled_from([0, 0, 0, 1, -1])
    lines = [indent + _row(draw(st.lists(_CELLS, min_size=columns + draw(spread),
                                         max_size=columns + 1)), draw(pipes)),
             draw(st.sampled_from(["", " ", "   "]))
             + _row(draw(st.lists(_ALIGNS, min_size=max(0, columns + draw(spread)),
                                  max_size=columns + 1)), draw(pipes))]
    for _ in range(draw(st.integers(0, 5))):
        lines.append(draw(st.one_of(
            st.tuples(st.sampled_from(["", " ", "    "]), st.lists(_CELLS, max_size=columns + 2),
                      pipes).map(lambda t: t[0] + _row(t[1], t[2])),
            _AFTER)))
    return "\n".join(lines)


@st.composite
def _usual_table(draw: st.DrawFn) -> str:
    """A table as pages write them (pipes at both ends, every row a row), its body rows ragged
    and holding any cell."""
    columns = draw(st.integers(1, 4))
    indent = draw(st.sampled_from(["", "", " ", "   "]))
    header = st.sampled_from(["a", "b c", " ", "服务", "**b**", "<br>", "# h", "1.", "-", ""])
    lines = [indent + _row(draw(st.lists(header, min_size=columns, max_size=columns)), (1, 1)),
             indent + _row(draw(st.lists(st.sampled_from(["---", ":--", "--:", ":-:", " - "]),
                                         min_size=columns, max_size=columns)), (1, 1))]
    for _ in range(draw(st.integers(0, 6))):
        cells = draw(st.lists(_CELLS, max_size=columns + 2))
        lines.append(indent + "|" + "|".join(cells) + draw(st.sampled_from(["|", "", "| "])))
    return "\n".join(lines)


_OTHER = st.sampled_from(["para line", "# Heading", "- item", "1. item", "```\ncode\n```", "***",
                          "Setext\n---", "<div>\nx\n</div>", "text\nmore", "a\n-", "b\n--",
                          "a b\n--- ---", "a\n - - -", "Name  Value\n----  -----", "[a]: /u",
                          "[b]:", "Term\n: def", "> q"])


@st.composite
def _table_documents(draw: st.DrawFn, table: st.SearchStrategy[str], spaced: bool = False
                     ) -> str:
    """Tables among other blocks, a blank line between (``spaced``) or not; now and then in a
    list item (not when ``spaced``)."""
    parts = draw(st.lists(st.one_of(table, table, _OTHER), min_size=1, max_size=5))
    breaks = st.just("\n\n") if spaced else st.sampled_from(["\n", "\n\n"])
    source = "".join(part + draw(breaks) for part in parts)
    marker = "" if spaced else draw(st.sampled_from(["", "", "- ", "1. "]))
    if marker:
        source = "\n".join((marker if i == 0 else " " * len(marker)) + line if line else ""
                           for i, line in enumerate(source.split("\n")))
    return source.replace("\n", draw(st.sampled_from(["\n", "\n", "\r\n"])))


@needs_rust
@profile(400)
@given(source=_table_documents(_any_table()))
def test_both_readers_agree_on_tables_of_any_shape(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@profile(200)
@given(source=_table_documents(_usual_table(), spaced=True))
def test_tables_as_pages_write_them_are_read_fast(source: str) -> None:
    """A table as pages write it, a blank line before and after, is read fast and alike."""
    assert assert_same_reading(source)


@needs_rust
@profile(200)
@given(source=_table_documents(_usual_table()))
def test_usual_tables_next_to_other_blocks(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@pytest.mark.parametrize("source", [
    "| a | b |\n| --- | :-: |\n| 1 | 2 |\n| 3 |\n\ntext\n",
    "- item\n\n  | a | b |\n  |---|---|\n  | `x|y` | \\| |\n",
    "# Title\n\n|a|\n|-|\n|# not a heading|\n|2. not a list|\n",
    # issue 32: tables as Hugo's and RocketMQ's pages write them, no pipes at the ends, right
    # under a heading, rows that start with a link or a code span
    "Field|Precedence|Sort\n:--|:--|:--\n[`weight`][]|1|descending\n`date`|2|x\n\n"
    "[`weight`]: /w\n",
    "### 2.2 属性\n| 字段 | 取值 |\n| --- | --- |\n| a | b |\n",
    "Header字段 | 类型 | 说明\n--- | --- | --- |\ncode |int | 请求\nlanguage | L | 语言\n",
    # RocketMQ's: rows that start with digits, a delimiter row indented, a row that is an image,
    # a table right under a paragraph's line; Hugo's: a header that starts with a code span
    "线程数 | 线程名 | 线程具体说明\n --- | --- | --- \n1 | NettyBoss_%d | Reactor 主线程\n"
    "N | NettyServerEPOLLSelector_%d_%d | Reactor 线程池\n",
    "x\n\nHeader field | Type\n--- | --- |\ncode |int\n![](https://x/rocketmq_design_4.png)\nFrom\n",
    "Above block diagram.\nNumber of thread | Name of thread\n --- | --- \n1 | NettyBoss_%d\n",
    "`defaultMarkdownHandler` | Renderer\n:---|:---\n`goldmark` | Goldmark\n",
    "&nbsp;|Prebuilt binaries|Package managers\n:--|:--:|:--:\nLinux|x|y\n",
    "text\n| a | b |\n|---|---|\n", "## h\n  | a |\n  |---|\n",
    # GitLab's: a header with a pipe first and none last, a backslash that escapes no pipe
    "| First IP | Last IP | Subnet\n| -------  | ------  | ---\n| 10.0.0.0 | 10.0.0.255 | /24\n",
    "| Type of traffic pattern \\ Type of Block | Temporary |\n|---|---|\n| a | b |\n",
])
def test_tables_the_fast_reader_reads(source: str) -> None:
    assert assert_same_reading(source)


@needs_rust
@pytest.mark.parametrize("source", [
    "a\n--:\n",  # one column without pipes: a table to the Rust parser only
    "a|\n---\n", "a\n|---\n", "|a\\|b|\n|-|-|\n",  # header pipes and escapes
    "| a | b |\n|---|---|\n2. two\n", "| a | b |\n|---|---|\n# h\n",  # ends at a block
    "| a | b |\n|---|\n", "| a |\n|---|\n  | x |\n",  # cells and indentation that differ
    "a|b\n-|-\n2. two|x\n", "a|b\n-|-\n# h|x\n", "a|b\n-|-\n```|x\n",  # rows a block
    "1. a|b\n-|-\n", "- a|b\n-|-\n",  # headers a block may start
    "a|b\n-|-\n1. x|y\n", "a|b\n-|-\n10) x\n",  # rows an ordered list's marker starts
    "a | b\n    -|-\n", "  a|b\n -|-\n",  # a delimiter row indented otherwise
])
def test_tables_left_to_the_reference(source: str) -> None:
    assert parse_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


_FENCES = st.sampled_from([("```", "```"), ("~~~", "~~~"), ("````text", "````"), ("```", ""),
                           ("  ```", "  ```"), ("- ```", "  ```"), ("> ```", "> ```"),
                           ("- ```", ""), ("- ```", "```")])


@st.composite
def _fenced_tables(draw: st.DrawFn) -> str:
    """Tables of any shape inside fences (opened at a line's start or not, in a list item or a
    quote, unclosed), among tables and other blocks outside them."""
    opening, closing = draw(_FENCES)
    prefix = opening[:opening.index(opening.lstrip("-> ")[0])] if opening[0] in "->" else ""
    inner = "\n".join(("  " if prefix == "- " else prefix) + line if line else line
                      for line in draw(_any_table()).split("\n"))
    fenced = "\n".join(filter(None, [opening, inner, closing]))
    return draw(_table_documents(st.just(fenced))) if draw(st.booleans()) else fenced + "\n"


@needs_rust
@profile(300)
@given(source=_fenced_tables())
def test_both_readers_agree_on_tables_inside_fences(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@profile(200)
@given(table=_any_table(), fence=st.sampled_from(["```", "~~~", "````yaml"]))
def test_tables_of_any_shape_inside_top_level_fences_are_read_fast(table: str, fence: str
                                                                    ) -> None:
    """Issue 32: a table of boxes drawn in code (RocketMQ's filter pages) sent the page to the
    reference; inside a top-level fence neither parser reads a table. (A line that may close
    the fence is left out: after it the table stands outside; a line of code comes first, lest
    the opening line be a header; and a link reference's label alone, which the gate for a
    label over an empty item reads wherever it stands.)"""
    lines = [line for line in table.split("\n")
             if line.lstrip()[:1] not in ("`", "~") and not line.rstrip().endswith("]:")]
    assert assert_same_reading("\n".join(["text", "", fence, "code", *lines, fence[:3], "",
                                          "after"]))


#: Pages with tables of an unproven shape in fences, and whether the fast reader reads them.
_FENCED_TABLES = {
    "```\n------------\n| message  |\n|----------|   a > 5\n| a = 10   |  ---> Gotten\n```\n": True,
    "# h\n\n~~~yaml\nsteps:\n  - |\n    a\n  - |\n~~~\n\ntext\n": True,  # Hugo's workflows
    "~~~yaml\n- |\n~~~\n": False,  # the opening line is the header
    "```\n| a |\n|-|-|\n": True,  # unclosed, to the end
    "```a|b\n-|-\n```\n": False,  # the header is the opening line: a table to markdown-it-py
    "```\nx\n```\na|b\n-|-\n2. two\n": False,  # after the fence
    "- ```\n  a|b\n  --|--\n  ```\n": True, "> ```\n> a\n> --|--\n> ```\n": False,
    # in a list item or a definition (Hugo's build settings, YAML in a definition)
    "1. Step\n\n   ```yaml\n   x:\n     - |\n       y\n   ```\n": True,
    "`amplify.yml`\n: Settings:\n\n  ```yaml\n  # Install Go\n  - |\n  ```\n": True,
    "- a\n\n  ```\n  x\n\t- |\n  ```\n": False,  # a tab among its blanks
    "- a\n\n  ```\n  x\n- |\n  ```\n": False,  # less indented than the item: it ends it
    "  ```\n  a|b\n  -|-|\n  ```\n": False,  # a fence opened after blanks
}


@needs_rust
@pytest.mark.parametrize("source", _FENCED_TABLES)
def test_tables_of_an_unproven_shape_are_read_fast_inside_top_level_fences(source: str) -> None:
    assert_read_fast_or_not(source, _FENCED_TABLES[source])


@needs_rust
def test_a_huge_table_of_whole_rows_is_read_fast_and_alike() -> None:
    """More cells than markdown-it-py fills in (65,536), but every row whole: it fills in none
    and reads every row, as the Rust parser does (issue 32: such a table went to the reference,
    and chunking it took 3.7 times as long each time it doubled past 32,768 rows)."""
    assert 33_000 * 2 > 0x10000
    source = "| a | b |\n|---|---|\n" + "".join(f"| {i} | v{i} |\n" for i in range(33_000))
    assert assert_same_reading(source + "\ntext\n")


@needs_rust
def test_a_table_the_reference_stops_filling_in_is_left_to_it() -> None:
    """Rows of one cell under twenty columns: markdown-it-py fills in nineteen a row and ends
    the table once it has filled in more than 65,536; the Rust parser reads on. An escaped pipe
    splits no cell (its own split counts them); extra cells count less."""
    head = "|" + " c |" * 20 + "\n|" + "---|" * 20 + "\n"
    rows = ["| x |\n", "| x \\| y |\n", "|" + " z |" * 21 + "\n"]  # 19, 19 and -1 filled in
    under = head + "".join(rows * 1002) + "| x |\n" * 1498 + "\ntext\n"  # 65,536 filled in
    assert assert_same_reading(under)
    over = head + "".join(rows * 1002) + "| x |\n" * 1499 + "\ntext\n"
    assert parse_fast(over) is None  # so markdown-it-py reads it (parse_markdown)


# -- quotes: the fast reader reads those with no line that may read on lazily ----------------

#: Lines quotes are made of, and the lines around them: quoted blocks of every kind, nested
#: quotes, quotes in list items, lines that may read on lazily after a quoted paragraph.
_QUOTE_LINES = st.sampled_from([
    "> a", ">", "> ", "> > b", "> > > e", ">> d", "> >", "> 2. two", "> 1. one", "> 3) x", "> - x",
    "> + y", "> *", "> # h", "> # [a]", "> ```", "> ```js", "> ~~~", "> ---", "> ===", "> setext",
    "> | a | b |", "> |---|---|", "> | 1 | 2 |", "> <div>", "> </div>", "> [!NOTE]", "> [a]: /u",
    "> <!-- c -->", "> text <!-- c -->", ">     code", ">  - deep", ">    - deeper", ">   - b",
    ">     - c", ">    1. b", "  > in", "   > three", "    > code", "- > q", "  > q2", "1. > q",
    "* > x", "  - > y", ">- z", "> - [ ] task", "> text  ", "> a\\", "> $x$", "> <br>",
    "- > x", "  - > x", "    - > x", "   > > x", "> - > x", "> 1. > x", ">   > x", "  >  > x",
    "- - > x", "  > - y", "  >   z", "    >  w", "  > ", "  >", "10. > e", "> > - d", "> >   e",
    "> > ```", "> >     ind", "  > > x", "- > > y", "  * > y", "2) > z",
    "2. two", "1. one", "- item", "  - b", "    - c", "text", "  text", "para", "", "", "```", "~~~",
    "---", "<div>", "</div>", "    code", "[a]: /v", "# [a] h", "lazy words", "若需要", "#### h",
    "- 自动", "***", "a | b", "x ===", "**b**"])


def _documents_of(lines: st.SearchStrategy[str], most: int) -> st.SearchStrategy[str]:
    """Documents of up to ``most`` of ``lines``, each ended by LF, CRLF or CR alike."""
    return st.builds(lambda chosen, newline: newline.join(chosen) + newline,
                     st.lists(lines, min_size=1, max_size=most),
                     st.sampled_from(["\n", "\r\n", "\r"]))


@needs_rust
@profile(300)
@given(source=_documents_of(_QUOTE_LINES, 12))
def test_both_readers_agree_on_quotes(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@pytest.mark.parametrize("source", [
    "> [!NOTE]\n> A note, quoted line by line.\n\ntext\n",
    "> a\n>\n> > nested\n> > quote\n\n- item\n\n  > in an item\n  > still\n",
    "> ```\n> code\n> ```\n",
    # issue 32: a line after a quote that ends it in both, or lazy lines of words in both
    "> 建议停机时先停从再停主。\n若需要改变升级前后主备关系，则需要对齐。\n",
    "> note\n---\n", "> note\n- item\n", "> note\n#### 2.1 Topic\n", "> note\n```\nx\n```\n",
    "> note\nlazy words\nmore words\n\n2. two\n",
])
def test_quotes_without_a_lazy_line_are_read_fast(source: str) -> None:
    """Issue 32: Hugo's and RocketMQ's pages quote their notes, and every quote went to the
    reference."""
    assert assert_same_reading(source)


@needs_rust
@pytest.mark.parametrize("source", [
    "> quoted\n2. two\n",  # markdown-it-py ends the quote, the Rust parser reads on lazily
    "> > a\n> 2. b\n",  # lazy for the inner quote
    "> quoted\nlazy words\n2. two\n",  # a lazy run that reaches an ordered list from 2
    "> | a | b |\n> |---|---|\n> | 1 | 2 |\n",  # a table in a quote
    ">" + " " * 16 + "- deep\n",  # nested deep inside a quote
])
def test_quotes_that_may_read_apart_are_left_to_the_reference(source: str) -> None:
    assert parse_fast(source) is None


# -- tabs: read fast inside a line's text and inside top-level fences ------------------------

#: Lines with tabs in every position (leading, after markers, inside text, trailing, in cells,
#: definitions, headings, fences' info and closing lines) and the lines around them: fences
#: opened and closed every way, at the top level, indented and in list items and quotes.
_TAB_LINES = st.sampled_from([
    "\tcode", "\t\tdeep", " \tx", "  \t- y", "-\titem", "- \titem", "1.\tone", "2)\ttwo", ">\tq",
    "> a\tb", "#\th", "# h\t#", "## a\tb", "a\tb", "word\t", "* [cmd](x)\t - what", "- a\tb",
    "  - a\tb", "    a\tb", "1. a\tb", "- [ ]\ttask", "| a\t| b |", "|---\t|---|", "a\t| b",
    "[a]:\t/u", "[a]: /u\t'title'", "[a]\t: /u", "---\t", "===\t", "a\t\tb", "```\tgo", "```go\t",
    "```\t", "\t```", "~~~\t", "\t~~~", " \t```", "<div\tclass=x>", "<!--\t-->", "-\t-\t-",
    "*\t*\t*", "a  \t", "Term\t", "x\ty\tz", "+ a\tb", "10. a\t", "[x\ty](z)", "`a\tb`",
    "```", "````", "~~~", "```go", "~~~sh", "  ```", "   ```", "    ```", "- ```", "  ```js", "> ```",
    "text", "para", "", "", "- item", "  - b", "1. one", "    code", "# h", "---", "===", "| a | b |",
    "|---|---|", "| 1 | 2 |", "<div>", "</div>", "[a]: /v", "> q",
    # indented by a tab: a paragraph's later line, a code block's, or what a block rule may read
    "   \tx", "    \tx", "\t: def", "\t~ def", "\t```", "\t<div>", "\t# h", "\t> q", "\t- x",
    "\t2. two", "\t---", "\t===", "\t***", "\t| a | b |", "\t|---|---|", "\t[a]: /u", "\t",
    "  \t ", "\t<!-- c -->", "\t:::note", "\t[*] --> s1 : x", "<Mermaid", "  chart={`", "`}",
    "/>", "Term", ": def", ":::note", ":::", "lazy words",
    # a tab after a first word of digits: no ordered list's marker, or one
    "4.5\tpublic Message request()", "123\tx", "1234567890.\tx", "1.2.\tx", "1)\tx", "12.\t",
])


@needs_rust
@profile(400)
@given(source=_documents_of(_TAB_LINES, 14))
def test_both_readers_agree_on_tabs(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


#: Pages with tabs, and whether the fast reader reads them: inside top-level fences and inside
#: a line's text (issue 32: Go and shell code, generated CLI pages), or where they may count as
#: columns (indentation, after a marker, fences indented, in items or quotes, cells, definitions).
_TABBED = {
    "# Go\n\n```go\nfunc main() {\n\tif err != nil {\n\t\treturn\n\t}\n}\n```\n\ntext\n": True,
    "text\n~~~sh\n\tcat > f <<EOF\n~~~\n\n```\n\tmore\n```\n": True,
    "### SEE ALSO\n\n* [hydra create](hydra-create)\t - Create resources\n": True,
    "```\n\tunclosed to the end\n": True,
    # issue 32: lines indented by a tab after a paragraph's first line (Ory's state diagrams in
    # JSX) or in an indented code block (Hugo's generated CLI pages)
    "<Mermaid\n  chart={`\nstateDiagram\n\t[*] --> s1 : User clicks\n  s1 --> s2\n`}\n/>\n": True,
    "Text\n\t- not a list\n  \t# nor a heading\n\n\tindented code\n\t\tdeeper\n": True,
    "\tindented code\n": True, "# h\n\tcode\n": True,
    # issue 32: a line a tab indents in a list item, read as indented by spaces (listed_tab)
    "- a\n\tlazy in an item\n": True, "- a\n\n\tin an item\n": True, "> q\n\tlazy\n": False,
    # a delimiter row a tab leads, tried in the item's paragraph after a lazy line: a table to
    # the Rust parser, a lazy line to markdown-it-py (read fast, and otherwise, before)
    "- far\ntext\n\t--:\n": False, "-    far\ntext\n\t\t--:\n": False, "Words\n\t|---|---|\n": True,
    # issue 32: a tab after a first word of digits that mark no item (RocketMQ's rpc_request)
    "4.5\tpublic Message request(final Message msg)\n\nmsg\n": True, "123\tx\n": True,
    "1234567890.\tx\n": True, "- 4.5\tx\n": True, "1.\tone\n": False, "10)\tten\n": False,
    "Term\n\t: definition\n": False, "-\titem\n": False, "<div>\n\tin HTML\n": False,
    "- a\n\n  ```\n  \tin an item\n  ```\n": False,
    "> ```\n> \tquoted\n> ```\n": False, "  ```\n\tindented fence\n  ```\n": False,
    "```\n\t```\n": True,  # indented four columns: it closes the fence in neither
    "```\n  \t```\n": True, "```\n \t```\n": True, "```\n   ```\t\n": False, "| a\t| b |\n|---|---|\n": False, "[a]: /u\t'title'\n": False,
}


#: What a line indented by a tab may hold after its blanks: any block's start.
_AFTER_TAB = st.sampled_from(["- x", "1. one", "2. two", "# h", "```", "~~~", "> q", "| a | b |",
                              "|---|---|", "<div>", "<!-- c -->", "---", "===", "***", "[a] ref",
                              "text", "a\tb", "-\tx", "[*] --> s1 : x", "    deeper", "\tmore"])
_TAB_INDENTS = st.sampled_from(["\t", " \t", "  \t", "   \t", "\t\t", "    \t", "\t "])


@st.composite
def _tab_indented_pages(draw: st.DrawFn) -> str:
    """Paragraphs whose later lines are indented by a tab, and indented code blocks of such
    lines, holding any block's start after their blanks, a blank line between blocks."""
    blocks = []
    for _ in range(draw(st.integers(1, 4))):
        lines = [draw(_TAB_INDENTS) + draw(_AFTER_TAB)
                 for _ in range(draw(st.integers(1, 4)))]
        head = draw(st.sampled_from(["Words", "<Mermaid", "  chart={`", "服务", "", "# Title"]))
        blocks.append("\n".join([head, *lines] if head else lines))
    return "\n\n".join(blocks) + draw(st.sampled_from(["\n", "\n\ntext\n"]))


@needs_rust
@profile(300)
@given(source=_tab_indented_pages())
def test_lines_indented_by_a_tab_in_paragraphs_and_code_blocks_are_read_fast(source: str
                                                                              ) -> None:
    """Issue 32: a line indented by a tab (four columns or more, at the top level) after a
    paragraph's first line or in an indented code block is read fast and alike."""
    assert assert_same_reading(source)


@needs_rust
@pytest.mark.parametrize("source", ["- a\n\n\t> q\n", "- a\n\n\t- \tx\n", "- a\n\t: def\n",
                                    "- a\n\n\t-\n", "1. one\n\t- - x\n", "- a\n\n\t-\tx\n",
                                    "* x\n\t~ y\n", "1. a\n\t2.\n", "- a\n\t# h\n",
                                    "- a\n\n\t```\n\tcode\n\t```\n", "- a\n\t<div>\n",
                                    "- a\n\t---\n", "- a\n\ta\tb\n", "   * x\n\n\n\t\t> y\n"])
def test_a_line_led_by_a_tab_under_a_list_item_is_refused_before_the_parse(source: str) -> None:
    """A line a tab indents under an item's line that starts a block (but a list item or a
    table's row), holds a tab after its first character or a second list marker: refused by
    the gate, not after a parse spent in vain."""
    assert "tab" in refusals(source)
    assert parse_markdown(source) == parse_markdown_it(source)


@needs_rust
@pytest.mark.parametrize("source", [
    "- [producerGroup](u)\n\n\t`private String producerGroup`\n", "1. one\n\tlazy\n",
    "   * x\n\n\n\t\ty\n", "1.  createTopic\n\n\t`createTopic(String key)`\n",
    "1. DefaultMQProducer\n\t\n\t`DefaultMQProducer()`\n\n\t创建一个新的生产者。\n\n"
    "\t- 入参描述：\n\n\t\t参数名 | 类型 | 是否必须\n\t\t---|---|---\n\t\tgroup | String | 是\n\n"
    "2. DefaultMQProducer\n\n\t- 入参描述：\n\n\t参数名 | 类型\n\t---|---\n\trpcHook | RPCHook\n",
    "* labels: any\n  * team: which\n  * pager: if\n\t* environment: this one\n* annotations\n",
    "- a\n\n\tx <!--\n\tc -->\n", "- a\n\n\t| a | b |\n\t|---|---|\n\t| 1 | 2 |\n"])
def test_lines_a_tab_indents_in_list_items_are_read_fast(source: str) -> None:
    """Issue 32: RocketMQ's API pages indent an item's paragraphs, nested lists and tables by
    tabs (4% of its characters went to markdown-it-py), GitLab's runbooks a nested item."""
    assert_read_fast_or_not(source, True)
    assert_read_fast_or_not(source.replace("\n", "\r\n"), True)


#: Lines of list items and the lines around them: items of content columns 2 to 5, nested,
#: empty, and the blocks that end or hold them.
_ITEM_LINES = st.sampled_from([
    "- item", "* [link](u)", "+ x", "1. one", "2. two", "10. ten", "1.  wide", "-    far", "  - b",
    "   * x", "    - c", "  1. d", "-", "1.", "- ", "text", "", "", "", "# h", "> q", "- > q",
    "```", "  ```", "| a | b |", "|---|---|", "a | b", "--|--", "Term", ": def", "[a]: /u",
    "[a]:", "<div>", "</div>", "    code", "- a\tb", "-\titem", "<!-- c -->", "---", "==="])
#: What a tab leads in a list item: text, every block's start, tabs after it.
_AFTER_TABS = st.sampled_from([
    "text", "`private String producerGroup`", "生产者的分组名称。", "a - b", "x*y*z", "1024 bytes",
    "- x", "* x", "+ x", "1. one", "2. two", "10) ten", "- [ ] task", "-", "- ", "1.", "- - x",
    "# h", "```", "~~~", "> q", "- > q", "| a | b |", "|---|---|", "a | b", "---|---", "--|--",
    "--:", "a", "<div>", "<!-- c -->", "x <!-- c", "c -->", "---", "===", "***", "- ---",
    "[a]: /u", "[a]", "[^1]: note", "[^1]", ": def", "~ def", "a\tb", "-\tx", "- \tx", ":::note",
    ":::", "$$", "    deeper", "1 | NettyBoss", '=== "Tab"', "!!! note", "\tmore", "`", "``",
    "| 1 | 2 |", ":-:|--", "*emphasis*", "_x_", "&amp;", "\\", "\\- x"])
_LEADING_TABS = st.sampled_from(["\t", "\t\t", " \t", "  \t", "   \t", "\t ", "\t  ", "\t   ",
                                 "    \t", "\t\t\t\t", "\t\t ", " \t\t"])
_TABBED_ITEM_LINES = st.one_of(_ITEM_LINES, st.builds(str.__add__, _LEADING_TABS, _AFTER_TABS))


@needs_rust
@profile(500)
@given(source=_documents_of(_TABBED_ITEM_LINES, 14))
def test_both_readers_agree_on_lines_a_tab_indents_in_list_items(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


#: Text a line a tab indents in an item may hold (RocketMQ's), none of it a block's start.
_ITEM_TEXT = st.sampled_from(["text", "`private String producerGroup`", "生产者的分组名称。",
                              "a - b", "x*y*z", "默认值：1024 * 4", "[link](u)", "a`b`c"])


@st.composite
def _tab_indented_items(draw: st.DrawFn) -> str:
    """Lists whose items hold paragraphs, nested lists and tables indented by tabs (blank lines,
    or lines of a tab, between them and between the items: a table's rows run to a blank line
    for :func:`tables_agree`), as RocketMQ's API pages write them."""
    lines = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        marker = draw(st.sampled_from(["- ", "* ", f"{number}. ", f"{number}.  "]))
        lines += [marker + draw(_ITEM_TEXT)] if number == 1 else ["", marker + draw(_ITEM_TEXT)]
        nested = False  # a nested item's blocks are indented by two tabs, or by one after it
        for _ in range(draw(st.integers(1, 4))):
            lines.append(draw(st.sampled_from(["", "\t"])))
            tab = draw(st.sampled_from(["\t", "\t\t"])) if nested else "\t"
            block = draw(st.sampled_from(["paragraph", "item", "table"]))
            nested = block == "item" or (nested and tab == "\t\t")
            if block == "paragraph":
                lines += [tab + draw(_ITEM_TEXT) for _ in range(draw(st.integers(1, 3)))]
            elif block == "item":
                lines.append(tab + draw(st.sampled_from(["- ", "* ", "1. "])) + draw(_ITEM_TEXT))
            else:
                columns = draw(st.integers(2, 4))
                lines += [tab + " | ".join(["参数名"] * columns), tab + "|".join(["---"] * columns),
                          *(tab + " | ".join(["v"] * columns)
                            for _ in range(draw(st.integers(1, 3))))]
    return "\n".join(lines) + "\n"


@needs_rust
@profile(300)
@given(source=_tab_indented_items(), newline=st.sampled_from(["\n", "\r\n"]))
def test_tab_indented_items_are_read_fast(source: str, newline: str) -> None:
    """Issue 32: paragraphs, nested lists and tables a tab indents in list items (RocketMQ's API
    pages) are read fast and alike."""
    assert assert_same_reading(source.replace("\n", newline))


@needs_rust
@pytest.mark.parametrize("source", _TABBED)
def test_tabs_are_read_fast_where_they_count_no_column(source: str) -> None:
    assert_read_fast_or_not(source, _TABBED[source])


# -- lines nested deep: read fast inside top-level fences -----------------------------------

_DEEP = " " * 16
_STAIRS = "".join(" " * (2 * level) + "- x\n" for level in range(24)).rstrip("\n")
#: Lines that start 16 deep (spaces, list markers, ``>`` s) or less, and the fences and blocks
#: around them: a stair of 24 nested items runs past markdown-it-py's ``maxNesting``.
_DEEP_LINES = st.sampled_from([
    _DEEP + "code();", _DEEP + "- x", _DEEP + "> q", "- " * 9 + "x", "> " * 9 + "x",
    "1. " * 6 + "x", _DEEP + "```", _DEEP + "~~~", _DEEP + "    deeper", _STAIRS,
    " " * 12 + "- y", "        - z", "  - b", "- item", "> q", "text", "", "", "    code",
    "```", "````", "~~~", "```java", "  ```", "   ```", "    ```", "- ```", "> ```", "  - ```",
    "<div>", "</div>", "# h", "---", "| a | b |", "|---|---|", " " * 24, "\t\t\t\t  ", "1. x",
    "   more", "  > q",
])


@needs_rust
@profile(400)
@given(source=_documents_of(_DEEP_LINES, 14))
def test_both_readers_agree_on_deep_lines(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


#: Pages with lines nested deep, and whether the fast reader reads them: inside top-level fences
#: (issue 32: RocketMQ's Java code, indented four levels), or where they may nest.
_NESTED_DEEP = {
    "```java\nclass A {\n" + _DEEP + "return;\n}\n```\n\ntext\n": True,
    "text\n\n~~~\n" + _DEEP + "- not a list\n" + _DEEP + "1. nor an item\n~~~\n": True,
    "```\n" + _DEEP + "unclosed to the end\n": True,
    "```\n```\n" + _STAIRS + "\n": False, _STAIRS + "\n": False,
    "- a\n\n  ```\n" + _DEEP + "in an item\n  ```\n": False,
    "> ```\n>" + _DEEP + "quoted\n> ```\n": False, "```\n" + " " * 2000 + "x\n```\n": False,
    # issue 32: a line of blanks only is a blank line (RocketMQ's API pages, between items)
    "1. one\n" + " " * 24 + "\n2. two\n" + " " * 24 + "\n   more\n": True,
    "- a\n\t\t\t\t\n  b\n": True,
}


@needs_rust
@pytest.mark.parametrize("source", _NESTED_DEEP)
def test_deep_lines_are_read_fast_inside_fences(source: str) -> None:
    assert_read_fast_or_not(source, _NESTED_DEEP[source])


# -- ::: containers: read fast where their lines are found as the container rule finds them --

#: Lines inside a container, and around it: every block, and the ones that may run past a line.
_CONTAINED = st.sampled_from([
    "text", "more text", "- item", "  - b", "1. one", "2. two", "```", "~~~", "    code", "<div>",
    "</div>", "<!-- c -->", "<!--", "-->", "> q", "# h", "---", "===", "| a | b |", "|---|---|",
    "", "", "[a]: /u", "[a]", "  text", "* x", "<pre>", "</pre>", "***", "- ```", "  ```", "> ```",
    "- :::note", "1. :::tip", "> :::note", "> :::", "  - :::", ": :::note", "Term",
])
_OPENERS = st.sampled_from([":::note", ":::tip Title", ":::{note}", ":::note[Title]", "::: info",
                            "::::warning", ":::danger", ":::", "  :::note", ":::bad name!"])
_CLOSERS = st.sampled_from([":::", "::::", ":::  ", "::::: ", "::", "  :::", ":::x"])


@st.composite
def _container_pages(draw: st.DrawFn) -> str:
    """Containers among other lines, each opened and closed as pages write them, or not."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            lines += [draw(_OPENERS), *draw(st.lists(_CONTAINED, max_size=5)), draw(_CLOSERS)]
        else:
            lines += draw(st.lists(_CONTAINED, min_size=1, max_size=4))
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines) + "\n"


#: Lines a note in a fence may hold that no other refusal looks at (quotes, tables, fences).
_UNMARKED = st.sampled_from(["text", "more text", "- item", "  - b", "1. one", "2. two", "# h",
                             "", "", "    code", "<div>", "</div>", "<!-- c -->", "* x", "Term",
                             "---", "[a]", "<pre>", "</pre>"])


@st.composite
def _fenced_container_pages(draw: st.DrawFn) -> str:
    """Containers inside top-level fences (and fences inside them), among other lines."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        fence = draw(st.sampled_from(["```", "````mdx-code-block", "~~~", "  ```", "- ```"]))
        closing = draw(st.sampled_from([fence[:fence.index("`") + 3] if "`" in fence else "~~~",
                                        "````", "```", ""]))
        lines += [fence, *draw(_container_pages()).splitlines(), closing]
        lines += draw(st.lists(_CONTAINED, max_size=3))
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines) + "\n"


@needs_rust
@profile(400)
@given(source=st.one_of(_container_pages(), _fenced_container_pages()))
def test_both_readers_agree_on_containers(source: str) -> None:
    """Containers among other lines, and inside top-level fences (issue 32)."""
    note(f"read fast: {assert_same_reading(source)}")


#: Pages with ``:::`` containers, and whether the fast reader reads them (issue 32: Ory's
#: admonitions sent 42 of its 150 pages to the reference).
_CONTAINER_PAGES = {
    "text\n\n:::note\n\nA note.\n\n- a list\n\n:::\n\nafter\n": True,
    "text\n:::tip Title\nA tip, right after text.\n:::\n- item\n": True,
    "::::warning\n```sh\nrun\n```\n::::\n\n:::info\n| a | b |\n|---|---|\n:::\n": True,
    ":::note\n:::\n": True, "::: tip\nbody\n:::\n": True,
    "- a\n:::note\n- b\n:::\n": False,  # the list would run on over the blanked line
    ":::note\n```\n:::\n```\n": False,  # the container ends inside the fence
    "<div>\n:::note\nx\n:::\n": False,  # the opening line inside an HTML block
    ":::note\nunclosed\n": False, ":::note\n:::tip\nx\n:::\n:::\n": False,  # nested
    "- item\n  :::note\n  x\n  :::\n": False,  # in a list item
    # opened on a list item's, a quote's or a definition's line: a container inside it
    "- :::note\n  x\n  :::\n": False, "1. :::tip\n\n   text\n": False, "> :::note\n> x\n> :::\n": False,
    "Term\n: :::note\n  x\n  :::\n": False, "- :::note\n": False,
    # issue 32: marker lines inside a top-level fence are its code (Ory's MDX in four backticks)
    "````mdx-code-block\n:::note\n\nx\n\n:::\n````\n\n:::tip\ny\n:::\n": True,
    "~~~\n:::note\n:::\n~~~\n": True,
    "```\n:::note\n```\n:::\n": True,  # the colons after the fence open nothing: text to both
    "  ```\n:::note\nx\n:::\n  ```\n": False,  # a fence not opened at its line's start
    # colons that open nothing: a paragraph's text (Ory's oathkeeper/sdk.md), unless after a
    # block's marker, where this is not told
    "Missing your language?\n:::\n\n## Next\n\n:::\n": True, ":::bad name!\nx\n:::\n": True,
    ":::note\nx\n:::\n:::\n": True, "  ::: \n\n:::tip\ny\n:::\n": True, "- :::\n": False,
}


@needs_rust
@profile(200)
@given(opening=st.sampled_from([":::note", ":::tip Title", "::::warning", ":::{note}"]),
       body=st.lists(_UNMARKED, max_size=6), after=st.lists(_UNMARKED, max_size=3))
def test_containers_inside_top_level_fences_are_read_fast(opening: str, body: list[str],
                                                          after: list[str]) -> None:
    """Issue 32: Ory's pages show MDX that notes inside a fence of four backticks."""
    closing = ":" * (len(opening) - len(opening.lstrip(":")))
    source = "\n".join(["````mdx-code-block", opening, *body, closing, "````", "", *after]) + "\n"
    assert assert_same_reading(source)


@needs_rust
@pytest.mark.parametrize("source", _CONTAINER_PAGES)
def test_containers_are_read_fast_where_their_lines_are_found_alike(source: str) -> None:
    assert_read_fast_or_not(source, _CONTAINER_PAGES[source])


# -- ::: containers in a list item: read fast where the item's content column places them --

#: List items' first lines, each with the column its content starts at.
_ITEMS = st.sampled_from([
    ("1. Step", 3), ("- a", 2), ("* b", 2), ("+ c", 2), ("10. ten", 4), ("2) two", 3), ("-", 2),
    ("1.", 3), (" - one in", 3), ("   - three in", 5), ("1.  two spaces", 4), ("-    four", 5),
    ("-     code", 2), ("- - nested", 4), ("1. [a]: /u", 3)])
#: Lines that start no item's content where their marker says, or no item.
_ODD_ITEMS = st.sampled_from(["> - quoted", "1. > q", "\t- tab", "-\tx", "Term", "text", ""])
_INDENTS = st.sampled_from(["", " ", "  ", "   ", "    ", "     ", "      ", "\t", " \t"])
_LISTED_OPENERS = st.sampled_from([":::note", ":::note", ":::tip Title", "::::warning", ":::{note}",
                                   "::: info", ":::bad name!", ":::note | x", ":::", "::"])
_LISTED_CLOSERS = st.sampled_from([":::", ":::", ":::", "::::", ":::  ", "::", ":::x", ":::note"])
_LISTED_CONTENT = st.sampled_from([
    "text", "more", "- item", "1. one", "```", "```sh", "    code", "<div>", "</div>", "# h", "---",
    "===", "| a | b |", "|---|---|", "", "", "", "", "***", "- ```", "<!-- c -->", "[a]: /u"])
_ODD_CONTENT = st.sampled_from([
    "~~~", "<!--", "-->", "> q", ": def", "~ def", "Term", "<pre>", "</pre>", "$$", "- :::note",
    "> :::", "  - b", "-", "1.", "x\ty"])


@st.composite
def _listed_container_pages(draw: st.DrawFn) -> str:
    """List items holding containers, opened and closed at their content's column, about it or
    far from it, among lines of every block at every indentation: on a page drawn ``odd``,
    anywhere; on the others, at the content's column or about it, among the usual blocks."""
    odd = draw(st.booleans())
    content = st.one_of(_LISTED_CONTENT, _ODD_CONTENT) if odd else _LISTED_CONTENT

    def near(column: int, shifts: tuple[int, ...] = (0,)) -> str:
        if odd and not draw(st.integers(0, 3)):
            return draw(_INDENTS) if draw(st.booleans()) else " " * max(0, column - 1)
        return " " * (column + draw(st.sampled_from(shifts)))

    def around(column: int, most: int) -> list[str]:
        return [near(column, (0, 0, 0, 1, 2, 4)) + line
                for line in draw(st.lists(content, max_size=most))]

    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if not draw(st.integers(0, 5)):
            lines += around(0, 4)
            continue
        item, column = draw(_ITEMS) if not odd or draw(st.integers(0, 3)) else (
            draw(_ODD_ITEMS), 2)
        lines.append(item)
        lines += around(column, 2)
        lines += [""] * draw(st.sampled_from([1, 1, 1, 1, 0, 2] if odd else [1, 1, 2]))
        lines.append(near(column, (0, 0, 0, 1, 2)) + draw(
            _LISTED_OPENERS if odd else st.sampled_from([":::note", ":::tip Title", ":::info"])))
        lines += [*around(column, 3), near(column) + "A note.", *around(column, 2)]
        lines.append(near(column, (0, 0, 0, 1, 2, 3, 4)) + draw(
            _LISTED_CLOSERS if odd else st.sampled_from([":::", "::::", ":::  "])))
        lines += around(column, 3)
    return "\n".join(lines) + "\n"


@needs_rust
@profile(400)
@given(source=_listed_container_pages(), newline=st.sampled_from(["\n", "\r\n"]),
       site=st.sampled_from(SITES))
def test_both_readers_agree_on_containers_in_list_items(source: str, newline: str,
                                                        site: str) -> None:
    note(f"read fast: {assert_fast_or_refused(source.replace(chr(10), newline), site)}")


#: Containers in list items, and whether the fast reader reads them (issue 32: Ory's steps
#: hold admonitions, ``1. Step`` over ``   :::note``).
_LISTED_PAGES = {
    "1. Step\n\n   :::note\n\n   A note.\n\n   :::\n\n   ```sh\n   run\n   ```\n\n2. Next\n": True,
    "- a\n\n  :::tip Title\n  A tip.\n  :::\nafter\n": True,
    "1. a\n\n   :::note\n   x\n   :::\n\n:::tip\ny\n:::\n": True,  # and one at the top level
    "1.  a\n\n    :::note\n    | a | b |\n    |---|---|\n\n    :::\n": True,
    "1. a\n\n    :::note\n    x\n      :::\n": True,  # a column past the content's
    "1. a\n   - b\n\n   :::note\n   x\n   :::\n": True,  # after a nested list
    "1. a\n\n   :::note\n   x\n   :::": True,  # the item ends on the closing line
    "- a\n\n  :::note\n  x\n  :::\n- b\n\n  :::tip\n  y\n  :::\n": True,  # one an item
    "-\n  a\n\n  :::note\n  - x\n\n    y\n  :::\n  z\n": True,  # a list in it, text after
    "1.\n\n   :::note\n   x\n   :::\n": False,  # the empty item has ended: at the top level
    "- item\n  :::note\n  x\n  :::\n": False,  # no blank line above
    "1. a\n\n     :::note\n     x\n     :::\n": False,  # two columns past: maybe nested
    "1. a\n   - b\n\n     :::note\n     x\n     :::\n": False,  # in the nested item
    "1. a\n\n   :::note\n  x\n   :::\n": False,  # a line less indented ends the item
    "1. a\n\n   :::note\n   x\n:::\n": False,  # and so does the closing line
    "1. a\n\n   :::note\n   x\n": False,  # unclosed
    "1. a\n\n   :::note\n   ```\n   :::\n   ```\n": False,  # closed in a fence
    "1. a\n\n   ```\n\n   :::note\n   ```\n   :::\n": False,  # opened in one
    "- a\n  - b\n\n    :::note\n    x\n    :::\n": False,  # in a nested list's item
    "> - a\n>\n>   :::note\n>   x\n>   :::\n": False,  # in a quote
    "1. a\n\n   :::note | x\n   --- | ---\n   :::\n": False,  # a table's header, maybe
    "   :::note\n   x\n   :::\n": False,  # indented, in no item
    "1. a\n\n   :::note\n   :::tip\n   x\n   :::\n   :::\n": False,  # nested
}


@needs_rust
@pytest.mark.parametrize("source", _LISTED_PAGES)
def test_containers_in_list_items_are_read_fast_where_the_item_places_them(source: str) -> None:
    assert_read_fast_or_not(source, _LISTED_PAGES[source])


# -- lines led by colons in a fence: its content, no container's lines --

_FENCE_OPENERS = st.sampled_from(["```", "````mdx-code-block", "~~~", "```js", "~~~~ x", " ```",
                                  "   ```", "    ```", "```a`b", "- ```", "> ```", "``"])
_FENCE_CLOSERS = st.sampled_from(["```", "````", "~~~", "   ```", "    ```", "```  ", "``` x",
                                  "~~~~", "``", "\t```", ""])
_FENCED = st.sampled_from([
    ":::note", ":::", "::::", "  :::tip", "- :::note", "> :::", ":::bad name!", "text", "", "```",
    "```sh", "~~~", "<TabItem>", "- item", "   :::note", "   :::", "# h", ": :::x"])


@st.composite
def _fenced_marker_pages(draw: st.DrawFn) -> str:
    """Fences holding lines led by colons, closed or not, among containers at the top level and
    in list items."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            parts.append(draw(_container_pages()))
        elif kind == 1:
            parts.append(draw(_listed_container_pages()))
        else:
            lines = [draw(_FENCE_OPENERS), *draw(st.lists(_FENCED, max_size=6)),
                     draw(_FENCE_CLOSERS)]
            parts.append("\n".join(lines) + "\n")
    return draw(st.sampled_from(["", "\n"])).join(parts)


@needs_rust
@profile(400)
@given(source=_fenced_marker_pages(), newline=st.sampled_from(["\n", "\r\n"]),
       site=st.sampled_from(SITES))
def test_both_readers_agree_on_colons_in_fences(source: str, newline: str, site: str) -> None:
    note(f"read fast: {assert_fast_or_refused(source.replace(chr(10), newline), site)}")


#: Fences holding lines led by colons, and whether the fast reader reads them (issue 32: Ory's
#: tabs of examples, ``:::note`` and all, in a ````` ````mdx-code-block ````` fence).
_FENCED_PAGES = {
    "````mdx-code-block\n<Tabs>\n\n:::note\n\nx\n\n:::\n\n```sh\nrun\n```\n</Tabs>\n````\n": True,
    "~~~\n- :::note\n> :::\n~~~\n\n:::tip\ny\n:::\n": True,
    "```\n:::note\n": True,  # unclosed: the fence runs to the end
    "text\n```\n:::note\n```\n": True,  # a fence interrupts a paragraph
    ":::note\n```\n:::\n```\n": False,  # the container's closing line in a fence
    "<div>\n```\n:::note\n```\n": False,  # no fence: an HTML block's lines
    "- a\n  ```\n  :::note\n  ```\n": False,  # a fence in an item: not at the top level
    "```\n:::note\n``\n:::\n": True,  # two backticks close nothing: all the fence's
    "   ```\n:::note\n   ```\n": False,  # indented: not taken for a fence (nor a container)
}


@needs_rust
@pytest.mark.parametrize("source", _FENCED_PAGES)
def test_colons_in_fences_at_the_top_level_are_read_fast(source: str) -> None:
    assert_read_fast_or_not(source, _FENCED_PAGES[source])


# -- link reference definitions: read alike; a heading that may use one goes to the reference -

_DEFINITIONS = st.sampled_from([
    "[a]: http://x", "[a]: <http://x> 'title'", "[b]:\n  http://y", "[c]: /u\n\"title\"",
    "[d]: /u \"unclosed", "[e]: /u 'a\nb'", "[ f ]: /v", "[g]:", "[h]: /w (paren)", "   [i]: /z",
    "    [j]: /code", "[k]: /u 'x' trailing", "[A]: /dup", "[a]: /dup2", "[x\ny]: /ml",
    "[]: /empty", "[l]: <>", "[m]: /u\n  'next line title'", "[n]: /u\n=== ", "[a]:/u",
    "[a] : /u", "[\\]]: /u", "[a[b]]: /u", "[a]: /u\n\"multi\nline\"", "[a]: /u 'x'\npara after",
    "[" + "x" * 1000 + "]: /long", "[a]: /u\n[b]: /v\n[c]: /w", "1. [a]: /li", "[a]: /u\n- item",
    "[a]: /u\n# h", "[a]: /u\n```\nx\n```", "[a]: \n/u", "[a]: /u 'title' \n", "[b]:\n1.",
    "[b]:\n-", "[b]: \n* ", "[b]:\n1. one", "[b]:\n- x"])
_NEAR_DEFINITIONS = st.sampled_from([
    "para", "# [a] heading", "# heading", "- item", "1. one", "```\ncode\n```", "---", "===", "",
    "text [a] ref", "Setext\n---", "- [a]: /in-list", "    code", "<div>", "Setext [a]\n===",
    "para\n[a]: /cannot-interrupt", "| a | b |\n|---|---|\n| [a] | x |", "[a]"])


@needs_rust
@profile(300)
@given(source=st.lists(st.one_of(_DEFINITIONS, _NEAR_DEFINITIONS, _DEFINITIONS), min_size=1,
                       max_size=7).flatmap(
    lambda parts: st.lists(st.sampled_from(["\n", "\n\n"]), min_size=len(parts),
                           max_size=len(parts)).map(
        lambda breaks: "".join(p + b for p, b in zip(parts, breaks)))))
def test_both_readers_agree_on_link_reference_definitions(source: str) -> None:
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@pytest.mark.parametrize("source", ["[b]:\n1.\n", "[b]: \n-\n", "  [b]:\n  2.  \n", "[b]:\n*\n\ntext\n",
                                    "[b]:\n1.\n---\n", "x\n\n[b]:\t\n+\n"])
def test_a_label_over_an_empty_list_item_is_left_to_the_reference(source: str) -> None:
    """markdown-it-py ends a link reference definition at an empty list item (it ends no
    paragraph), so ``[b]:`` over ``1.`` is a paragraph, over ``-`` a heading; the Rust parser
    reads the marker as the destination (found by the table properties, issue 32)."""
    assert parse_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


@needs_rust
def test_definitions_are_read_fast_unless_a_heading_may_use_one() -> None:
    source = "# Runbook\n\nSee [the docs][docs].\n\n[docs]: https://docs.example/x 'Docs'\n"
    assert assert_same_reading(source)
    assert not assert_same_reading(source.replace("# Runbook", "# [Runbook][docs]"))


# -- front matter: markdown-it-py's rule makes its token, the Rust parser reads what follows --


#: Front matter as pages write it, and near it: closed by dashes (as many or more) or ``...``,
#: empty, holding what the fast reader leaves to the reference elsewhere, with CRLF or CR.
_FRONT_MATTERS = st.sampled_from([
    "---\ntitle: x\n---\n", "---\n---\n", "----\na: 1\n-----\n",
    "---\na: 1\n...\n", "---\na: 1\n...  \n", "---\na: 1\n  ---\n", "---\na: 1\n--- \n",
    "---\r\ntitle: x\r\n---\r\n", "---\rtitle: x\r---\r", "---yaml\na: 1\n---\n",
    "---\ndesc: >\n  <!-- x --> [^1] $$ ::: !!!\n\ttab: 1\n---\n", "---\n\n# not a heading\n---\n",
    "---\na: |\n  - item\n  > quote\n---\n",
])
#: Near front matter, which the fast reader leaves to the reference: unclosed, closed by fewer
#: dashes, by an indented or dotted line the rule does not take, a thematic break.
_NEAR_FRONT_MATTERS = st.sampled_from([
    "---\na: 1\n", "-----\na: 1\n---\n", "---\na: 1\n    ---\n", "---\na: 1\n ...\n",
    "---\na: 1\n....\n", "---\n",
])
#: What may follow the closing line (up to a blank line, which a table's header needs).
_AFTER_FRONT = st.sampled_from(["", "\n", "---\n\n", "text\n===\n\n", "    code\n\n",
                                "- item\n\n", "# H\n\n", "text\n\n", "***\n\n"])


@needs_rust
@profile(300)
@given(front=_FRONT_MATTERS, after=_AFTER_FRONT,
       source=markdown_documents().map(_readable))
def test_documents_with_front_matter_are_read_fast(front: str, after: str, source: str) -> None:
    """Front matter sends no document to the reference: what follows it may (lines deep enough
    to nest lists eight levels, which the grammar now and then writes)."""
    assert (assert_same_reading(front + after + source)
            or next(_body_refusals(after + source, "plain"), None) is not None)


@needs_rust
@profile(200)
@given(front=st.one_of(_FRONT_MATTERS, _NEAR_FRONT_MATTERS), after=_AFTER_FRONT,
       source=markdown_documents())
def test_both_readers_agree_on_front_matter(front: str, after: str, source: str) -> None:
    note(f"read fast: {assert_same_reading(front + after + source)}")


@needs_rust
@pytest.mark.parametrize("source", ["---\ntitle: x\n---", "---\r\na: 1\r\n...", "---\n---"])
def test_front_matter_at_the_end_is_read_fast(source: str) -> None:
    assert assert_same_reading(source)


@needs_rust
@pytest.mark.parametrize("source", ["- ---**x**\n</pre>\n", "- a--\nb\n", "- - ---\n  x\n",
                                    "- ---\nfoo\n---\n"])
def test_a_first_list_item_the_front_matter_rule_may_read_is_left_to_the_reference(
        source: str) -> None:
    """mdit-py-plugins' front_matter rule asks the source's first character and the item's
    next two: in a first list item it may make a front matter block of the reference's own."""
    assert parse_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


@needs_rust
@pytest.mark.parametrize("front", ["---\na: 1\n", "-----\na: 1\n---\nb\n-----\n",
                                   "---\na: 1\n    ---\n---\n"])
def test_front_matter_it_cannot_split_off_is_left_to_the_reference(front: str) -> None:
    source = front + "\ntext\n"
    assert parse_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


# -- HTML comments: the same html_block and paragraph content, the reference's comment code --


#: Comments in every position: own line, in a paragraph (first, inside, last, over lines),
#: in list items (tight, loose, indented, over lines), quoted, in a heading, a table cell, a
#: code span or fence, unclosed, degenerate (``<!-->``, ``<!--->``), an end without a start.
_COMMENTED = st.sampled_from([
    "<!-- c -->", "<!--\nc\n-->", "<!-- c -->\ntext", "text <!-- c --> text", "<!-- c --> text",
    "text\n<!-- c -->", "text\n<!-- c -->\nmore", "text <!-- c\nd --> e", "a <!-- c\n\nd --> e",
    "- item <!-- c -->\n- two", "- item\n\n  <!-- c -->\n- two", "- a <!-- c\n  d -->\n- b",
    "1. x\n   <!-- a\n   b -->", "- <!-- c -->", "-   <!-- c -->\n    more", "> <!-- c -->\n> q",
    "# H <!-- c -->", "H <!-- c -->\n===", "| a <!-- c --> |\n| --- |\n| <!-- d --> |",
    "`<!-- c -->`", "```\n<!-- c -->\n```", "    <!-- code -->", "<!-- unclosed", "a <!-- unclosed",
    "<!-->", "<!--->", "<!-- a --> <!-- b -->", "<!-- a -->x", "text -->", "<div>\n<!-- c -->\n</div>",
    "[a]: http://x\n\ntext <!-- c -->", "text <!-- c -->\n\n[a]: http://x", "<!-- c --\n-->",
    "* <!-- c\n\n  d -->\n* e", "<!-- c -->\n- item", "text\n<!--\nc", "  <!-- c -->",
])


@needs_rust
@profile(300)
@given(parts=st.lists(st.one_of(_COMMENTED, markdown_documents()), min_size=1, max_size=6),
       joins=st.lists(st.sampled_from(["\n", "\n\n", "\r\n\r\n"]), min_size=6, max_size=6))
def test_both_readers_agree_on_html_comments(parts: list[str], joins: list[str]) -> None:
    note(f"read fast: {assert_same_reading(''.join(p + j for p, j in zip(parts, joins)))}")


@needs_rust
@profile(300)
@given(parts=st.lists(_COMMENTED.filter(lambda p: ">" not in p.replace("-->", "")
                                         and "]:" not in p), min_size=1, max_size=6),
       join=st.sampled_from(["\n\n", "\r\n\r\n", "\n\n\n"]))
def test_html_comments_are_read_fast(parts: list[str], join: str) -> None:
    """Quotes and, beside link references, comments in paragraphs go to the reference; so
    does a comment in a list item that runs over a blank line to its ``-->`` (mdchunk's own
    HTML block rule reads it whole, markdown-it-pyrs as markdown-it does)."""
    source = join.join(parts) + join
    if _comment_over_blank(source.replace("\r\n", "\n")):
        assert parse_fast(source) is None
        return
    assert assert_same_reading(source) or not tables_agree(source.replace("\r\n", "\n"))


@needs_rust
@pytest.mark.parametrize("path", fixture_files(".md"), ids=lambda p: p.name)
def test_both_readers_agree_on_fixtures(path) -> None:
    assert_same_reading(document_text(path))


@needs_rust
@pytest.mark.parametrize("path", with_corpus(corpus_files(), CORPORA),
                         ids=lambda p: getattr(p, "name", "absent"))
def test_both_readers_agree_on_the_corpora(path) -> None:
    assert_same_reading(document_text(path))


@needs_rust
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_tiny_sections_are_read_fast(newline: str) -> None:
    source = document("tiny sections", 3000, newline)
    assert assert_same_reading(source)


@needs_rust
@pytest.mark.parametrize("source", [
    "[a]: http://x\n\ntext <!-- x -->\n", "---\ntitle: x\n\ntext\n",
    "$$\nx\n$$\n", "!!! note\n    body\n",
    ":::note\nunclosed\n", "[a]: http://x\n\n# [a]\n", "-\ttabbed\n",
])
def test_what_the_fast_reader_leaves_to_the_reference(source: str) -> None:
    assert parse_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


# -- byte offsets: each node's span as the per-node conversion found it --------------------

#: Pieces of every width in UTF-8 and every line break: ASCII, accents, CJK, emoji, NUL, tabs,
#: and the blocks that nest (lists, quotes, fences, tables, definitions) around them.
_WIDE_PIECES = st.lists(st.sampled_from(
    ["a", "word", " ", "- ", "> ", "# ", "1. ", "```", "    ", "\t", "é", "服务", "🙂", "\0",
     "\n", "\n\n", "\r\n", "\r", "|", "|-|", "***", "<div>", "[a]: /u", ": ", "\u3000",
     "\xa0", "  \n"]), max_size=50).map("".join)


def _spans_as_they_were(source: str, first_line: int, text: str, nodes: list) -> list:
    """Each node's span as the reader found it before issue 32 made it faster: the text's line
    starts in bytes, two bisects and the source's line starts for each node."""
    byte_starts = list(accumulate((len(line.encode("utf-8")) + 1 for line in text.split("\n")),
                                  initial=0))
    char_starts = (*LineIndex.of(source).starts, len(source))
    spans = []
    for node in nodes:
        first_byte, end_byte = node.srcmap
        first = bisect_right(byte_starts, first_byte) - 1 + first_line
        after = bisect_right(byte_starts, max(first_byte, end_byte - 1)) + first_line
        start = char_starts[first]
        spans.append((start, rstrip_end(source, start, char_starts[after])))
    return spans


@needs_rust
@profile(300)
@given(front=st.sampled_from(["", "---\na: 1\n---\n", "---\r\na: é\r\n---\r\n", "---\n---\n",
                              "---\na: 1\n---"]),
       body=_WIDE_PIECES)
def test_spans_are_found_as_they_were(front: str, body: str) -> None:
    """The Rust parser's byte offsets become the same character spans, ASCII pages (whose
    offsets are taken as they are) and others, CR line breaks and front matter or not; the
    source's line index is the same from the body's lines split already."""
    source = front + body
    split = _front_matter(source)
    assume(split is not None)
    body_start, token = split
    first_line = token.map[1] if token is not None and token.map else 0
    body_lines = _LINE_BREAK.sub("\n", source[body_start:]).split("\n")
    index = LineIndex.of(source)
    assert LineIndex.of(source, _source_lines(source, body_start, body_lines)) == index
    text = "\n".join(body_lines).replace("\0", "\ufffd")
    at = line_finder(index, body_start, first_line, text, text.split("\n"),
                     verbatim="\r" not in source[body_start:])
    nodes = [node for node in _rust_parser().tree(text).walk(include_self=False)
             if node.srcmap is not None]
    note(f"ASCII: {at.delta == body_start and at.shift == -1}")
    assert [TreeReader(source, index, at, first_line).span(node.srcmap) for node in nodes] \
        == _spans_as_they_were(source, first_line, text, nodes)


# -- definition lists: read alike, but where the two plugins may part (formats/deflists.py) ---

#: Terms, and lines that may look like one: markup, a comment, an id, a list's or a quote's
#: first line, a heading, a fence, a table's row, a link reference.
_TERMS = st.sampled_from([
    "Term", "`key`", "Term <!-- c -->", "**bold** term", "Term {#x}", "a: b", "[a]", "[a][]",
    "<span>x</span>", "服务", "Term  ", " Term", "   Term", "- x", "1. x", "# h", "Term ~",
    "```", "<!-- c -->", "<div>", "Term\t", "> q", "|a|b|"])
#: What a definition holds: prose (lazy or not), code, lists, quotes, headings, tables, HTML,
#: comments, link references, and lines that may start a definition inside any of them.
_INSIDE = st.sampled_from([
    "text", "text <!-- c -->", "two\nlines", "lazy\nnot indented", "```\ncode\n```",
    "```go\ncode\n\n: x\n```", "    indented", "- a\n- b", "1. a\n2. b", "- a\n\n- b",
    "> q\n> r", "> q", "# h", "h\n---", "h\n===", "***", "| a | b |\n|---|---|\n| 1 | 2 |",
    "<div>\nhtml\n</div>", "<!-- c\nd -->", "[a]: /u", "text [a]", "~~~\nx\n~~~",
    "- a\n  : x", "- a\n: x", "text\n: x", "text\n~ y", "a\n\n: x", "> q\n: x"])


@st.composite
def _deflist(draw: st.DrawFn, inside: st.SearchStrategy[str]) -> str:
    """A definition list: terms, each with definitions (``:`` or ``~``, blanks or a tab after
    it) of ``inside`` blocks, their lines indented any way or not at all, blank lines between
    or not (loose or tight)."""
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        lines.append(draw(_TERMS))
        if draw(st.booleans()):
            lines.append("")
        for _ in range(draw(st.integers(1, 3))):
            marker = draw(st.sampled_from([": ", "~ ", ":   ", ":\t", "  : ", " ~ "]))
            first, *rest = draw(st.sampled_from(["\n", "\n\n"])).join(
                draw(st.lists(inside, min_size=1, max_size=3))).split("\n")
            indent = draw(st.sampled_from(["  ", "  ", "   ", "    ", "\t", ""]))
            lines += [marker + first, *(indent + line if line else "" for line in rest)]
            if draw(st.booleans()):
                lines.append("")
    return "\n".join(lines)


def _in_list(inside: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(lambda marker, blocks, join: join.join(
        marker + block.replace("\n", "\n" + " " * len(marker)) for block in blocks),
        st.sampled_from(["- ", "1. ", "-   "]), st.lists(inside, min_size=1, max_size=3),
        st.sampled_from(["\n", "\n\n"]))


def _in_quote(inside: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return inside.map(lambda block: "\n".join(f"> {line}" if line else ">"
                                              for line in block.split("\n")))


def _deflist_nested(depth: int) -> st.SearchStrategy[str]:
    """Definition lists nested up to ``depth`` deep in definitions, list items and quotes."""
    if depth == 0:
        return _INSIDE
    inner = _deflist_nested(depth - 1)
    return st.one_of(_INSIDE, _deflist(inner), _deflist(inner), _in_list(inner), _in_quote(inner))


_DEFLIST_DOCUMENTS = st.builds(
    lambda blocks, joins, newline: "".join(b + j for b, j in zip(blocks, joins)).replace(
        "\n", newline),
    st.lists(st.one_of(_deflist_nested(3), markdown_documents().map(_readable)), min_size=1,
             max_size=5),
    st.lists(st.sampled_from(["\n", "\n\n"]), min_size=5, max_size=5),
    st.sampled_from(["\n", "\n", "\r\n", "\r"]))


#: Lines definition lists are made of, and lines around them, in any order: terms, markers
#: indented and not, with tabs, empty, doubled; continuations, lists, quotes, fences, setext
#: underlines, tables, HTML, comments and link references in and around definitions.
_DEFLIST_LINES = st.sampled_from([
    "Term", "Term 2", "`code` term", "Term <!-- c -->", "# Head", "Head", "===", "---", "***",
    ": def", ": def <!-- c -->", "~ tilde", ":  two spaces", ":   three", ":    four", ": ", ":",
    "~", ":\tdef", "  : def", "   : def", "    : def", "     : def", " : def", "  more",
    "    more", "      more", "more", "", "", "", "- item", "  - item", "1. one", "  1. one",
    "- : def", "- Term", "  Term", "    Term", "> Term", "> : def", ">", "> more", "  > q", "```",
    "  ```", "    ```", "~~~", "<div>", "</div>", "<!-- c -->", "| a | b |", "|---|---|",
    "  | a | b |", "  |---|---|", "[a]: /u", "  [a]: /u", "text [a]", ": : nested",
    ": - list in dd", ": > quote in dd", ": # head in dd", ": ```", ": Term", "  : nested dd",
    "    : deep", ":: x", "~~ x", ": ~ x", "  ~ y", "- a\tb", "Term\t", "  text", "2. two",
    "  2. two", "   - x", "10. x", "+ x", "* * *", "Term {#id}", "<br>", "    code", "  ---",
    "  ===", ": ---", ": ===", "  : - x", "[b]:", "  /url", "  'title'", ": [c]: /u",
    "  [d]: /v 't'", "'title'", ": <div>", ": <!-- x", "  -->", "-->", ": | a |", ": > x",
    "  > y", "> > : z", "  - : a", ": 1. x", "  2. y", ":  - a", "    - b", "      : c",
    "  : ~ d", "~ : e", ": ~~~", "  ~~~", ":   ```js", " " * 16 + "x", " " * 20 + "- y",
    ": " + " " * 14 + "- z", "  : " + "- " * 7 + "w", "```json", " " * 16 + "{", "```"])


@needs_rust
@profile(500)
@given(source=st.one_of(_DEFLIST_DOCUMENTS, _documents_of(_DEFLIST_LINES, 12)))
def test_both_readers_agree_on_definition_lists(source: str) -> None:
    """Definition lists nested in every container and holding every block, and their lines in
    any order."""
    note(f"read fast: {assert_same_reading(source)}")


@needs_rust
@pytest.mark.parametrize("source", [
    "`key`\n: (`string`) What it is. See [details][d].\n\n`other`\n: (`bool`) Whether.\n\n"
    "[d]: https://x.y/z\n",  # Hugo's configuration pages
    "`disqus.shortname`\n: (`string`) To access this value from a template:\n\n"
    "  ```go-html-template\n  {{ .Site.Config.Services.Disqus.Shortname }}\n  ```\n\n## Next\n",
    "Term\n: definition\n", "Term\n~ tilde definition\n", "Term\n\n: loose\n\n  more\n",
    "T1\n: a\n: b\nT2\n~ c\n  more\n- x\n", "- item\n\n  Term\n  : in an item\n",
    "> Term\n> : quoted\n", "Term\n: def <!-- c -->\n", "Term\n: <!--\n  c\n  -->\n",
    "Term\n: Inner\n  : nested\n", "Term\n: - a\n  - b\n\nafter\n",
    # issue 32: lines sixteen spaces deep in a top-level fence, on a page of definitions (Hugo's
    # JSON on its Batch page)
    "`key`\n: What it is.\n\n```json\n{\n" + " " * 16 + "\"id\": \"0\"\n}\n```\n",
])
def test_definition_lists_are_read_fast(source: str) -> None:
    """Issue 32: every page that may hold a definition list went to markdown-it-py (on Hugo's
    docs 24 pages, 27% of the characters, for that alone)."""
    assert assert_same_reading(source)
    blocks = list(parse_markdown_it(source).blocks)
    while blocks and blocks[0].kind != "deflist":  # at any depth
        blocks[:1] = blocks[0].children
    assert blocks


#: Where the Rust parser reads a definition list otherwise than markdown-it-py (found by the
#: properties above): what markdown-it-py makes of it.
_DEFLISTS_APART = {
    "Term\n: def\n  ---\n": "heading",  # a setext heading first, to markdown-it-py
    "T\n: d\nx\n---\n": "heading",
    "Term\n: - list in dd\n: : nested\n": "deflist",  # the marker ends the item's paragraph
    "Term\n: > x\n  2. y\n": "deflist",  # a lazy line of a quote opened on the marker's line
    "T\n: " + "- " * 8 + "x\n": "deflist",  # eighteen containers deep
}


@needs_rust
@pytest.mark.parametrize("source", _DEFLISTS_APART)
def test_definition_lists_the_parsers_read_apart_are_left_to_the_reference(source: str,
                                                                              monkeypatch) -> None:
    from mdchunk.formats import markdown_rs, rust_tree

    reference = parse_markdown_it(source)
    assert reference.blocks[0].kind == _DEFLISTS_APART[source]
    assert parse_fast(source) is None
    assert parse_markdown(source) == reference
    # not needlessly: without the tests, the Rust parser's reading differs or is refused
    monkeypatch.setattr(markdown_rs, "deflist_refusals", lambda text: iter(()))
    monkeypatch.setattr(rust_tree, "marker_inside", lambda source, spans: False)
    assert parse_fast(source) != reference


@needs_rust
def test_lists_nested_deep_on_a_definition_s_line_are_left_to_the_reference() -> None:
    """The Rust parser recurses once a level (and overflows its stack some 100,000 levels
    down): markers after a definition's ``:`` are counted as those at a line's start are."""
    source = "Term\n: " + "- " * 2_000 + "x\n"
    assert "definitions nested deep" in refusals(source)
    assert parse_markdown(source) == parse_markdown_it(source)


@needs_rust
@pytest.mark.parametrize("source", [
    "~~~\ncode\n~~~\n", "- a\n\n  ~~~\n  c\n  ~~~\n", "~~~~\n~~~\n~~~~\n", "~~~\nunclosed\n",
    "a :: b\n:: c\n", "Term\n:no space, no definition\n",
])
def test_tilde_fences_and_colons_that_define_nothing_are_read_fast(source: str) -> None:
    """Issue 32: the definition list's trigger took a ``~~~`` fence or a ``:`` without a space
    after it for a definition's marker."""
    assert assert_same_reading(source)


#: Lists nested ``depth`` deep: markers on one line, or one item a line, each indented more.
_NESTED = {
    "markers": lambda depth: "- " * depth + "x\n\nmore\n",
    "ordered": lambda depth: "1. " * depth + "x\n\nmore\n",
    "indented": lambda depth: "".join("  " * i + "- item\n" for i in range(depth)) + "\nmore\n",
}


@needs_rust
@pytest.mark.parametrize("style", _NESTED)
def test_nesting_past_markdown_it_py_s_limit_is_left_to_it(style: str) -> None:
    """markdown-it-py stops at 20 open tokens (maxNesting), the Rust parser reads on (and
    overflows its stack some 100,000 levels down): deep lists go to the reference, shallower
    ones are read alike."""
    read = [assert_same_reading(_NESTED[style](depth)) for depth in range(1, 41)]
    assert read[:7] == [True] * 7 and not any(read[9:])
    assert not may_read(document("nested lists", 20_000))


def test_without_the_rust_parser_the_reference_reads_everything(monkeypatch) -> None:
    from mdchunk.formats import markdown_rs

    monkeypatch.setattr(markdown_rs, "_rust_parser", lambda: None)
    source = document("tiny sections", 300)
    assert parse_fast(source) is None
    assert parse_markdown(source) == parse_markdown_it(source)


@needs_rust
def test_chunks_are_the_same_whichever_reader_reads(monkeypatch) -> None:
    from mdchunk.formats import markdown_rs

    source = document("tiny sections", 3000) + "```bash\nrun it\n```\n\n1. one\n2. two\n"
    fast = [c.to_dict() for c in mdchunk.chunk_markdown(source, max_tokens=32, overlap_tokens=4)]
    monkeypatch.setattr(markdown_rs, "parse_fast", lambda source, site="plain": None)
    reference = mdchunk.chunk_markdown(source, max_tokens=32, overlap_tokens=4)
    assert fast == [c.to_dict() for c in reference]
    assert len(fast) > 50


# -- the refusal scans made cheaper (issue 32): the same refusals as the scans they replace ----

_OLD_MARKED_QUOTE = re.compile(r"\n[ ]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ ]+)*(?:>[ ]*)+")
#: table_shapes' delimiter-like line as it was (unproven_tables asks only its matches' spans).
_OLD_DELIMITER_LIKE = re.compile(r"\n[ ]*[|:\- ]*-[|:\- ]*(?=\n|\Z)")
#: RULE_TRIGGERS' tests of math and admonitions as they were, one search for the pair or triple.
_OLD_TRIGGERS = {"math_block": lambda source: "$$" in source,
                 "admonition": lambda source: "!!!" in source or "???" in source}


def _old_deep_line_numbers(text: str) -> list[int]:
    """fenced_lines.deep_line_numbers as it was: its search from the text's start."""
    from mdchunk.formats.fenced_lines import _DEEP_AFTER_BREAK

    numbers: list[int] = []
    number = at = 0
    for found in _DEEP_AFTER_BREAK.finditer("\n" + text):
        number += text.count("\n", at, found.start())
        at = found.start()
        numbers.append(number)
    return numbers


def _old_body_refusals(source: str, site: str) -> list[str]:
    """``_Body(source).refusals(site)`` as it was before the scans were made cheaper: every quote
    scan from the page's start, every rule's trigger searched for as a whole."""
    from mdchunk.formats import markdown_rs as rs
    from mdchunk.formats.markdown_it_parser import RULE_TRIGGERS
    from mdchunk.formats.quote_lines import lazy_quote

    body, found = rs._Body(source), []
    text, lines = body.text, "\n" + body.text
    if "\t" in source and rs.lines_to_place(body.lines, rs.tabbed_line, "\t",
                                            placed_after=rs.listed_tab) is None:
        found.append("tab")
    quoted = ">" in source and _OLD_MARKED_QUOTE.search(lines) is not None
    if quoted and lazy_quote(lines):
        found.append("blockquote")
    if (rs._DEEP_QUOTED if quoted else rs._DEEP).search(lines) and (
            rs._TOO_DEEP.search(lines) or rs.lines_to_place(
                body.lines, rs.deep_line, among=_old_deep_line_numbers(text)) is None):
        found.append("deep nesting")
    tables = rs.unproven_tables(text)  # and, where a list may open, the tabs led as spaces
    if body.tabbed and rs._MAY_OPEN_A_LIST.search(lines):
        tables = sorted({*tables, *rs.unproven_tables(
            rs.indented_as_spaces(body.lines, frozenset(body.tabbed)))})
    if tables and not rs.may_be_placed(body.lines, tables, listed=True):
        found.append("table of an unproven shape")
    if quoted and rs._QUOTED_PIPE.search(lines):
        found.append("a quote's line with a pipe")
    found += rs.deflist_refusals(text)
    if "]:" in source and rs._LABEL_OVER_EMPTY_ITEM.search(text):
        found.append("a link reference's label over an empty list item")
    acting = rs.read_as(site).rules_that_may_act(source)
    if acting:
        found.append(f"a {site} rule ({', '.join(rule.label for rule in acting)})")
    if rs.CONTAINER_MARKER in source and rs.container_lines(body.lines) is None:
        found.append("a ::: container it cannot place")
    found += (rule for rule, may_use in {**RULE_TRIGGERS, **_OLD_TRIGGERS}.items()
              if rule not in rs._READ_HERE and may_use(source))
    return found


def assert_same_refusals(source: str) -> None:
    """The refusals of ``source``'s body on every site are those of the scans they replace."""
    from mdchunk.formats.fenced_lines import deep_line_numbers
    from mdchunk.formats.markdown_rs import _Body
    from mdchunk.formats.sites.generators import SITES
    from mdchunk.formats.table_shapes import _DELIMITER_LIKE

    for site in SITES:
        assert list(_Body(source).refusals(site)) == _old_body_refusals(source, site), site
    text = _Body(source).text
    assert deep_line_numbers(text) == _old_deep_line_numbers(text)  # parse_fast asks it too
    assert [found.span() for found in _DELIMITER_LIKE.finditer(text)] == [
        found.span() for found in _OLD_DELIMITER_LIKE.finditer(text)]


_SCANNED_LINES = st.one_of(
    _QUOTE_LINES, _DEEP_LINES, _TAB_LINES, _CONTAINED, _OPENERS, _CLOSERS, _DEFINITIONS,
    _DEFLIST_LINES, _any_table(), st.sampled_from([
        "$$", "$x$", "a $ b $ c", "!!! note", "!! x", "??? tip", "?? y", "a > b", "x -> y",
        "<T> f()", "if a > b {", "a >", " x >> y", "- a > b", "1. a>b", "> ", "a | b > c",
        " " * 15 + "x", " " * 15 + "-", "-" * 16, "1.1.1.1.1.1.1.1.1", "1. " * 8, "1) " * 5 + " ",
        "> " * 8, ">" * 16, "- " * 7 + "-", "* + " * 4, "12345678901234567", " " * 14 + "> x",
        "- " * 8 + "\t", "  " * 7 + "1." + " " * 3, "- " * 500 + "x", " " * 1000 + ">",
        "    - x", " | - |", "  --  ", "-", ":", "|", "- | -", ": -", "  :-:|", " -x", "|-|-|-"]))


@profile(400)
@given(source=_documents_of(_SCANNED_LINES, 16))
def test_the_cheaper_refusal_scans_refuse_as_before(source: str) -> None:
    assert_same_refusals(source)


@pytest.mark.parametrize("source", ["", ">", "\n>", "a>\n> b", "x > y\n  - > q\n| a |",
                                    "$", "$$", "a$\n$b", "!!", "!!!", "??", "???", "\r\n> q\r\n"])
def test_the_cheaper_refusal_scans_on_their_edges(source: str) -> None:
    assert_same_refusals(source)
