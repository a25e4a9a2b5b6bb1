"""The readers of generator markup that is a whole line or block the parser already made: each
looks at one block of a kind it names in :mod:`.markup_rules` and gives its markup (the text
the page shows in its place) and, for a block the page shows as another kind, that kind. Line
markers (admonitions, ``:::`` containers, GitHub alerts, content tabs), MyST directive fences,
MDX ``import``/``export`` paragraphs and MyST targets, MkDocs snippets (``--8<--``)."""

from __future__ import annotations

import re
from typing import NamedTuple

from .blocks import NEWLINE, Block, Markup
from .content_tabs import CONTENT_TAB_LINE
from .site_inline import MarkupEnv, admonition_label

__all__ = ["BlockFound", "last_line", "read_admonition", "read_alert", "read_container",
           "read_content_tab", "read_directive", "read_esm", "read_snippets", "read_target"]


class BlockFound(NamedTuple):
    """What a block reader found: markup, and the kind the page shows the block as (``""``:
    its own) with the span of it still to read as prose (a directive's body)."""

    markup: tuple[Markup, ...]
    kind: str = ""
    body: tuple[int, int] | None = None


def _first_line(source: str, block: Block) -> tuple[int, int]:
    line_end = NEWLINE.search(source, block.start, block.end)
    return block.start, line_end.start() if line_end else block.end


def last_line(source: str, start: int, end: int) -> tuple[int, int]:
    """The span of the last line of ``source[start:end]``."""
    brk = max(source.rfind("\n", start, end), source.rfind("\r", start, end))
    return (brk + 1 if brk >= 0 else start), end


#: ``!!! type "title"``, ``??? type``, ``???+ type inline end "title"``.
_ADMONITION = re.compile(r"[ \t]*(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?P<mods>[^\"\n]*)"
                         r"(?:\"(?P<title>[^\n]*)\")?[ \t]*$")


def read_admonition(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    start, end = _first_line(source, block)
    match = _ADMONITION.fullmatch(source, start, end)
    if match is None:
        return None
    return BlockFound((Markup(start, end, admonition_label(match["kind"], match["title"] or "")),))


#: ``::: tip Title``, ``:::tip[Title]``, ``:::{note} Title``.
_CONTAINER = re.compile(r"[ \t]*(?P<fence>:{3,})[ \t]*(?:\{(?P<directive>[\w-]+)\}|"
                        r"(?P<kind>[\w-]+))(?:\[(?P<bracket>[^\]\n]*)\])?[ \t]*(?P<title>[^\n]*)$")
_CLOSING = re.compile(r"[ \t]*:{3,}[ \t]*$")


def read_container(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    """A container's marker shows its type and title (a ``details`` its summary alone), its
    closing ``:::`` nothing."""
    start, end = _first_line(source, block)
    match = _CONTAINER.fullmatch(source, start, end)
    if match is None:
        return None
    name = match["directive"] or match["kind"]
    title = match["bracket"] or match["title"]
    label = (" ".join(title.split()) or "Details") if name == "details" else \
        admonition_label(name, title)
    found = [Markup(start, end, label)]
    close_start, close_end = last_line(source, block.start, block.end)
    if close_start > end and _CLOSING.fullmatch(source, close_start, close_end):
        found.append(Markup(close_start, close_end, ""))
    return BlockFound(tuple(found))


#: A GitHub alert's marker, the first line of its quote.
_ALERT = re.compile(r"[ \t]*>[ \t]*(?P<marker>\[!(?P<kind>NOTE|TIP|IMPORTANT|WARNING|CAUTION)\])"
                    r"[ \t]*$", re.IGNORECASE)


def read_alert(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    start, end = _first_line(source, block)
    match = _ALERT.fullmatch(source, start, end)
    if match is None:
        return None
    return BlockFound((Markup(match.start("marker"), match.end("marker"),
                              admonition_label(match["kind"])),))


def read_content_tab(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    """An MkDocs content tab's marker line shows its label."""
    start, end = _first_line(source, block)
    while start < end and source[start] in " \t>":  # a tab in a quote: after its >
        start += 1
    if not CONTENT_TAB_LINE.fullmatch(source, start, end):
        return None
    return BlockFound((Markup(start, end, block.title),))


#: A MyST directive fence: ```` ```{note} Title ````.
_DIRECTIVE_FENCE = re.compile(r"[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*\{(?P<name>[\w-]+)\}"
                              r"[ \t]*(?P<title>[^\n]*)$")
#: MyST directives that are admonitions (the rest, ``{code-block}``, ``{toctree}`` …, stay).
_MYST_ADMONITIONS = frozenset({"note", "warning", "tip", "important", "caution", "danger",
                               "attention", "hint", "error", "seealso", "admonition",
                               "versionadded", "versionchanged", "deprecated", "todo"})


def read_directive(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    """A MyST admonition directive's fenced block is an admonition: its fences its label and
    nothing, its body prose."""
    start, end = _first_line(source, block)
    match = _DIRECTIVE_FENCE.fullmatch(source, start, end)
    if match is None or match["name"] not in _MYST_ADMONITIONS:
        return None
    name = match["name"] if match["name"] != "admonition" else ""
    found = [Markup(start, end, admonition_label(name or "Note", match["title"])
                    if name or not match["title"] else " ".join(match["title"].split()))]
    close_start, close_end = last_line(source, block.start, block.end)
    if close_start > end and source[close_start:close_end].strip().startswith(match["fence"]):
        found.append(Markup(close_start, close_end, ""))
    return BlockFound(tuple(found), "admonition", (end, close_start))


#: A paragraph of MDX ESM: import and export statements only.
ESM = re.compile(r"(?:import\s[^\n]*?(?:\sfrom\s*)?(['\"])[^'\"\n]+\1;?[ \t]*(?:\n|$)"
                 r"|import\s*\{[^}]*\}\s*from\s*(['\"])[^'\"\n]+\2;?[ \t]*(?:\n|$)"
                 r"|export\s+(?:const|let|var|function|default|class|async)\s[\s\S]*)+")
_IMPORTED = re.compile(r"import\s+(?:(\w+)|\{([^}]*)\})")
#: How every match of :data:`ESM` starts: the regex is asked of no other paragraph.
ESM_STARTS = ("import", "export")


def read_esm(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    """A top-level paragraph of MDX ``import`` / ``export`` statements: nothing, and the
    document is MDX (its imported names are components)."""
    if not (source.startswith(ESM_STARTS, block.start)
            and ESM.fullmatch(source, block.start, block.end)):
        return None
    env["mdx"] = True
    for default, named in _IMPORTED.findall(source[block.start:block.end]):
        env["components"].update(filter(None, [default, *re.split(r"[\s,]+", named)]))
    return BlockFound((Markup(block.start, block.end, ""),), "esm")


#: A MyST target: ``(label)=`` alone in its paragraph.
TARGET = re.compile(r"[ \t]*\([\w.:/-]+\)=[ \t]*")
#: What a match of :data:`TARGET` starts with: the regex is asked of no other paragraph.
TARGET_STARTS = ("(", " ", "\t")


def read_target(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    if not (source.startswith(TARGET_STARTS, block.start)
            and TARGET.fullmatch(source, block.start, block.end)):
        return None
    return BlockFound((Markup(block.start, block.end, ""),), "target")


#: A MkDocs (pymdownx) snippet line.
_SNIPPET = re.compile(r"[ \t]*-{1,}8<-{1,}[ \t]+(['\"])(?P<file>[^'\"\n]+)\1[ \t]*$",
                      re.MULTILINE)


def read_snippets(source: str, block: Block, env: MarkupEnv) -> BlockFound | None:
    """Each snippet line of a block (text or code) shows as a short line naming its file."""
    found = tuple(Markup(m.start(), m.end(), f"snippet: {m['file']}", "snippet", m["file"])
                  for m in _SNIPPET.finditer(source, block.start, block.end))
    return BlockFound(found) if found else None
