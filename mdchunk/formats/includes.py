"""Includes: where a page shows another file's text (Hugo's ``code_sample``/``include``/
``readfile``, MkDocs snippets ``--8<--``, MDX raw-loader imports shown by a ``CodeBlock``: the
syntaxes are in ``docs/sites.md``), and the page with that text put in.

The markup pass finds the references (:mod:`.site_markup`); :func:`find_includes` reads them off
the parsed :class:`~.blocks.Document`. Nothing here reads a file: :func:`splice_includes` takes
each reference's text (read by :mod:`mdchunk.chunks.includes`) and gives the page with every
reference that has its lines to itself replaced by a fenced code block of the file's language,
and the :class:`Expansion` that maps positions back to the page's. The planner reads the expanded
text, so an included file is cut like code and counted exactly; ``text`` stays the reference, a
slice of the page."""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from .blocks import NEWLINE, Block, Document, Markup, line_start

__all__ = ["Expansion", "Include", "find_includes", "language_of", "referenced_paths",
           "splice_includes"]

_LANGUAGE_PARAM = re.compile(r"\blang(?:uage)?\s*=\s*[\"'`]?([\w+#.-]+)")
#: What may stand before a reference on its line: indentation, quote markers, a list marker.
_LEAD = re.compile(r"[ \t]*(?:>[ \t]?[ \t]*)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?")
_LIST_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?=[ \t])")
#: A snippet's line range: ``file.py:3:8``, ``file.py:3``.
_RANGE = re.compile(r"(?P<path>.+?):(?P<first>\d*)(?::(?P<last>\d*))?")
#: The block form of snippets: ``--8<--`` lines around one file a line.
_SNIPPET_BLOCK = re.compile(r"[ \t]*(-+8<-+)[ \t]*\r?\n((?:[ \t]*[^\s'\"][^\n]*\n)+)"
                            r"[ \t]*-+8<-+[ \t]*")
#: A line of the block form's ``--8<--`` alone: the page shows nothing for it.
_MARKER = re.compile(r"^[ \t]*-+8<-+[ \t]*(?=\r?$)", re.MULTILINE)
#: An MDX raw-loader import (webpack's ``!!raw-loader!`` prefix).
_RAW_IMPORT = re.compile(r"""import\s+(\w+)\s+from\s*(['"])!!raw-loader!([^'"\n]+)\2""")
_CODE_BLOCK = re.compile(r"<CodeBlock\b(?P<attrs>[^>]*)>\s*\{\s*(?P<name>\w+)\s*\}\s*"
                         r"</CodeBlock\s*>")
_ATTR_LANGUAGE = re.compile(r"""\blanguage\s*=\s*(?:(['"])(?P<a>[^'"]*)\1"""
                            r"""|\{\s*(['"])(?P<b>[^'"]*)\3\s*\})""")

#: File extensions whose code block language has another name.
_LANGUAGES = {"yml": "yaml", "py": "python", "sh": "bash", "js": "javascript", "mjs": "javascript",
              "ts": "typescript", "rs": "rust", "rb": "ruby", "md": "markdown",
              "markdown": "markdown", "h": "c", "hpp": "cpp", "cc": "cpp", "cs": "csharp",
              "kt": "kotlin", "tf": "hcl", "ps1": "powershell", "txt": "text", "conf": "text"}


def language_of(path: str) -> str:
    """The code block language of a file: from its extension (``pods/pod.yaml`` → ``yaml``,
    ``Dockerfile`` → ``dockerfile``).

    >>> language_of("pods/pod.yml"), language_of("tools/check.py"), language_of("Dockerfile")
    ('yaml', 'python', 'dockerfile')
    """
    name = PurePosixPath(path.replace("\\", "/")).name
    suffix = name.rpartition(".")[2].lower() if "." in name else ""
    if not suffix:
        return name.lower() if name.lower() in ("dockerfile", "makefile") else ""
    return _LANGUAGES.get(suffix, suffix)


@dataclass(frozen=True, slots=True)
class Include:
    """A reference to another file's text: its span of the page, the file as written (a
    snippet's line range taken off), and how the page shows it."""

    start: int
    end: int
    path: str
    #: The short visible line the page keeps when the file's text is not there
    #: (``code sample: pods/pod.yaml``).
    shown: str
    language: str
    #: A snippet line inside a code block: the file's lines go in as they are, no fence.
    in_code: bool = False
    #: A snippet's line range, 1-based and inclusive (``None``: from the start, to the end).
    first: int | None = None
    last: int | None = None
    #: The reference has its lines to itself, so a code block can take its place; one inside
    #: a line of text stays its visible line.
    standalone: bool = True
    #: What the following lines of the code block start with: the reference line's
    #: indentation and quote markers (a list marker as blanks).
    lead: str = ""
    #: How a raw-loader path is resolved: against the page's folder (``./pod.yaml``).
    relative: bool = False
    #: A file line of the snippets' block form: when the page is expanded and the file is
    #: not read, the line becomes its visible line there.
    block_form: bool = False


def find_includes(doc: Document) -> tuple[list[Include], list[Markup]]:
    """Every include reference of a parsed (and :func:`~.site_markup.render_markup` ed) page,
    in order, and the markup the page needs whether or not a file is read: the block form's
    ``--8<--`` lines show nothing, its file lines and an MDX ``CodeBlock`` their visible line."""
    source = doc.source
    found: list[Include] = []
    extra: list[Markup] = []
    snippets = "8<" in source  # a snippet's marker: without it, no snippet to look for
    codes = _code_spans(doc.blocks) if snippets else []
    for start, end, shown, role, path in doc.markup:
        if role == "include":
            if "://" in path:
                continue  # remote-code-sample: a URL, never read
            language = _LANGUAGE_PARAM.search(source, start, end)
            found.append(_placed(source, Include(
                start, end, path, shown, language[1] if language else language_of(path))))
        elif role == "snippet":
            i = bisect.bisect_right([a for a, _ in codes], start) - 1
            in_code = i >= 0 and codes[i][1] >= end
            lead = len(source[start:end]) - len(source[start:end].lstrip())
            found.append(_snippet(source, start + lead, end, path, in_code))
    for block in _prose_leaves(doc.blocks) if snippets else ():
        if source.find("8<", block.start, block.end) < 0:
            continue
        match = _SNIPPET_BLOCK.fullmatch(source, block.start, block.end)
        if match is not None:
            _block_form(source, match, found, extra)
        extra.extend(Markup(m.start(), m.end(), "") for m in _MARKER.finditer(
            source, block.start, block.end))
    _raw_loader(doc, found, extra)
    found.sort(key=lambda inc: inc.start)
    return found, extra


def _placed(source: str, include: Include) -> Include:
    """``include`` with where it stands on its line: alone there (so a code block can take its
    place), and the lead the code block's following lines take (its indentation and quote
    markers, a list marker as blanks)."""
    start, end = include.start, include.end
    line = line_start(source, start)
    line_end = NEWLINE.search(source, end)
    after = source[end:line_end.start() if line_end else len(source)]
    before = source[line:start]
    standalone = bool(_LEAD.fullmatch(before)) and not after.strip()
    lead = _LIST_MARKER.sub(lambda m: " " * len(m[0]), before) if standalone else ""
    return replace(include, standalone=standalone, lead=lead)


def _snippet(source: str, start: int, end: int, written: str, in_code: bool,
             block_form: bool = False) -> Include:
    path, first, last = written, None, None
    ranged = _RANGE.fullmatch(written)
    if ranged is not None and (ranged["first"] or ranged["last"]):
        path = ranged["path"]
        first = int(ranged["first"]) if ranged["first"] else None
        last = int(ranged["last"]) if ranged["last"] else None
        # ``file:5`` is line 5 to the end, ``file::5`` the start to line 5 (pymdownx)
    return _placed(source, Include(start, end, path, f"snippet: {path}", language_of(path),
                                   first=first, last=last, in_code=in_code,
                                   block_form=block_form))


def _block_form(source: str, match: re.Match[str], found: list[Include],
                extra: list[Markup]) -> None:
    """``--8<--`` / file lines / ``--8<--``: each file line a reference, the markers nothing."""
    body_start = match.start(2)
    for line in re.finditer(r"[^\n]+", match[2]):
        written = line[0].strip()
        a = body_start + line.start() + len(line[0]) - len(line[0].lstrip())
        b = a + len(written)
        include = _snippet(source, a, b, written, in_code=False, block_form=True)
        found.append(include)
        extra.append(Markup(a, b, include.shown))


def _raw_loader(doc: Document, found: list[Include], extra: list[Markup]) -> None:
    """``<CodeBlock …>{Name}</CodeBlock>`` where ``Name`` is a raw-loader import."""
    source = doc.source
    if "raw-loader" not in source:
        return
    imports = {name: path for block in doc.blocks if block.kind == "esm"
               for name, _, path in _RAW_IMPORT.findall(source, block.start, block.end)}
    if not imports:
        return
    for block in _prose_leaves(doc.blocks, kinds=("paragraph", "html")):
        for match in _CODE_BLOCK.finditer(source, block.start, block.end):
            path = imports.get(match["name"])
            if path is None:
                continue
            attr = _ATTR_LANGUAGE.search(match["attrs"])
            language = (attr["a"] if attr["a"] is not None else attr["b"]) if attr else ""
            site_path = path.removeprefix("@site/")
            include = _placed(source, Include(match.start(), match.end(), site_path,
                                              f"code sample: {site_path}",
                                              language or language_of(site_path),
                                              relative=path.startswith(".")))
            found.append(include)
            extra.append(Markup(match.start(), match.end(), include.shown))


def _code_spans(blocks: Sequence[Block]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    stack = list(blocks)
    while stack:
        block = stack.pop()
        if block.kind == "code":
            out.append((block.start, block.end))
        stack.extend(block.children)
    return sorted(out)


def _prose_leaves(blocks: Sequence[Block], kinds: Sequence[str] = ("paragraph",)
                  ) -> list[Block]:
    out: list[Block] = []
    stack = list(reversed(blocks))
    while stack:
        block = stack.pop()
        if block.kind in kinds:
            out.append(block)
        elif block.kind not in ("code", "esm", "front_matter"):
            stack.extend(reversed(block.children))
    return out


def referenced_paths(text: str) -> list[str]:
    """Every path ``text`` may include, found without parsing: a superset of what
    :func:`find_includes` finds (a reference in a code span too), for a digest of what a page
    depends on (:mod:`mdchunk.chunks.includes`)."""
    out: list[str] = []
    for match in re.finditer(r"\{\{[<%]\s*(?:code_sample|codenew|code|include|readfile)\b([^}]*)"
                             r"[>%]\}\}", text):
        params = match[1]
        named = re.search(r"\b(?:file|path)\s*=\s*[\"'`]?([^\"'`\s]+)", params)
        positional = re.search(r"[\"'`]([^\"'`]+)[\"'`]", params)
        chosen = named or positional
        if chosen is not None:
            out.append(chosen[1])
    for match in re.finditer(r"-+8<-+[ \t]+(['\"])([^'\"\n]+)\1", text):
        out.append(match[2].split(":")[0] if re.search(r":\d*(?::\d*)?$", match[2])
                   else match[2])
    for match in _SNIPPET_BLOCK.finditer(text):
        out.extend(line.strip() for line in match[2].splitlines() if line.strip())
    out.extend(path for _, _, path in _RAW_IMPORT.findall(text))
    return list(dict.fromkeys(out))


# -- the expanded page -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Expansion:
    """Where the expanded text differs from the page: each expanded reference's span in both,
    in order. A position inside an included file's text maps to its reference: a chunk that
    starts there starts at the reference, one that ends there ends after it."""

    #: ``(start, end)`` of each included text in the expanded text.
    spans: tuple[tuple[int, int], ...]
    #: ``(start, end)`` of each reference in the page.
    refs: tuple[tuple[int, int], ...]
    #: The path of each included file, as the page writes it.
    paths: tuple[str, ...] = ()
    _starts: tuple[int, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", tuple(a for a, _ in self.spans))

    def start(self, i: int) -> int:
        """Position ``i`` of the expanded text as the page's, for a span that starts there."""
        k = bisect.bisect_right(self._starts, i) - 1
        if k < 0:
            return i
        b = self.spans[k][1]
        if i < b:
            return self.refs[k][0]
        return self.refs[k][1] + i - b

    def end(self, i: int) -> int:
        """Position ``i`` of the expanded text as the page's, for a span that ends there."""
        k = bisect.bisect_left(self._starts, i) - 1
        if k < 0:
            return i
        b = self.spans[k][1]
        if i <= b:
            return self.refs[k][1]
        return self.refs[k][1] + i - b

    def paths_in(self, start: int, end: int) -> list[str]:
        """The files whose included text ``[start, end)`` of the expanded text holds some of."""
        return list(dict.fromkeys(path for (a, b), path in zip(self.spans, self.paths)
                                  if path and a < end and start < b))

    def touches(self, start: int, end: int) -> bool:
        return any(a < end and start < b for a, b in self.spans)


def splice_includes(source: str, includes: Sequence[Include], texts: Mapping[int, str]
                    ) -> tuple[str, Expansion] | None:
    """``source`` with each standalone reference whose text is known (``texts``, by the
    reference's start) replaced by a fenced code block of that text, and the way back;
    ``None`` when no reference is replaced."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    refs: list[tuple[int, int]] = []
    paths: list[str] = []
    pos = length = 0
    for include in includes:
        text = texts.get(include.start)
        if not include.standalone or include.start < pos or (
                text is None and not include.block_form):
            continue
        parts.append(source[pos:include.start])
        length += include.start - pos
        shown = include.shown if text is None else _code_block(include, text)
        parts.append(shown)
        spans.append((length, length + len(shown)))
        refs.append((include.start, include.end))
        paths.append("" if text is None else include.path)
        length += len(shown)
        pos = include.end
    if not any(paths):
        return None
    parts.append(source[pos:])
    return "".join(parts), Expansion(tuple(spans), tuple(refs), tuple(paths))


def _code_block(include: Include, text: str) -> str:
    """The included text as the page shows it: a fenced block of its language, each line after
    the first led as the reference's line is."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if include.first is not None or include.last is not None:
        first = max(1, include.first or 1)
        lines = lines[first - 1:include.last]
    lead = include.lead

    def led(line: str) -> str:
        return lead + line if line.strip() else lead.rstrip()

    if include.in_code:
        return "\n".join([lines[0] if lines else "", *map(led, lines[1:])])
    ticks = max((len(m[0]) for line in lines for m in [re.match(r"[ \t]*(`+)", line)] if m),
                default=0)
    fence = "`" * max(3, ticks + 1)
    language = include.language.replace("`", "")
    return "\n".join([fence + language, *map(led, lines), led(fence)])
