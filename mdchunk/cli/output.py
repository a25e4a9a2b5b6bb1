"""What the command line prints besides its results' own lines: errors as one line each (exit
status 1, 2 for usage: docs/contract.md), the failed files of a run, JSON Lines records, notes
and a progress bar."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperArgument, TyperOption

from ..errors import ConfigError, MdchunkError

if TYPE_CHECKING:
    from ..chunks import Chunk
    from ..index import SearchHit
    from ..index.applying import ProgressCallback

err = Console(stderr=True)
out = Console()


def error_line(message: object) -> None:
    """One line, whatever the message holds (a library's exception text may span several)."""
    text = " ".join(line.strip() for line in str(message).splitlines() if line.strip())
    err.print(f"mdchunk: error: {text}", markup=False, highlight=False, soft_wrap=True)


#: The command running: its context and which of its parameters sets each config key, for
#: :func:`flag_error` to tell a bad flag from bad input (set by :func:`.options.with_flags`).
running_command: ContextVar[tuple[typer.Context, Mapping[str, str]] | None] = ContextVar(
    "running_command", default=None)


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn mdchunk's errors into one line on stderr and exit status 1; a
    :class:`~mdchunk.errors.ConfigError` about a value given on the command line is a usage
    error instead (exit status 2, naming the flag, :func:`flag_error`)."""
    try:
        yield
    except ConfigError as exc:
        usage = flag_error(exc)
        if usage is not None:
            raise usage from None
        error_line(exc)
        raise typer.Exit(1) from None
    except MdchunkError as exc:
        error_line(exc)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        err.print("mdchunk: interrupted", markup=False)
        raise typer.Exit(130) from None


def flag_error(exc: ConfigError) -> typer.BadParameter | None:
    """The usage error ``exc`` is when it names a key (``k=0 must be…``: the library's checks
    name the value they refuse) that a flag or its environment variable set on this command
    line, else ``None`` (a value from a config file names the file: bad input, exit 1)."""
    named = re.match(r"(\w+)=(?=\S+\s)", str(exc))
    running = running_command.get()
    if named is None or running is None:
        return None
    ctx, keys = running
    name = keys.get(named.group(1))
    param = next((p for p in ctx.command.params if p.name == name), None)
    source = ctx.get_parameter_source(name) if name is not None else None
    if not isinstance(param, TyperOption | TyperArgument) or source is None \
            or source.name not in ("COMMANDLINE", "ENVIRONMENT"):
        return None
    said = str(exc)[named.end():]
    if getattr(param, "is_flag", False):  # "--allow-index: needs …", not "True needs …"
        said = said.split(None, 1)[-1]
    return typer.BadParameter(said, ctx=ctx, param=param)


@contextmanager
def debug_log(verbose: bool) -> Iterator[None]:
    """With ``verbose``, mdchunk's debug log on stderr while a command runs (the includes a run
    left out, each named; a run says only how many otherwise)."""
    logger = logging.getLogger("mdchunk")
    level = logger.level
    if verbose:
        logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.setLevel(level)


def counted(n: int, thing: str) -> str:
    """``1 text``, ``2 texts``.

    >>> counted(1, "chunk"), counted(0, "chunk")
    ('1 chunk', '0 chunks')
    """
    return f"{n} {thing}{'' if n == 1 else 's'}"


class Failures:
    """Files that failed in a run that goes on: each is one error line as it happens; at the end,
    one line counts them and the exit status is 1 (the contract's "bad input")."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __call__(self, path: object, error: object) -> None:
        self.messages.append(str(error))
        error_line(error)

    def finish(self, total: int, done: str) -> None:
        count = len(self.messages)
        if count:
            rest = total - count
            error_line(f"{count} of {total} file{'s' if total != 1 else ''} failed (each "
                       f"named above); the other {rest} {'was' if rest == 1 else 'were'} {done}")
            raise typer.Exit(1)


#: Characters JSON leaves raw that line splitters other than "\n" (Python's splitlines, some
#: JSON Lines readers) take for line ends; escaped, a chunk stays on its one line.
_LINE_BREAKS = {"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def json_line(row: dict[str, object]) -> str:
    """One JSON Lines record: UTF-8 as it is, but no character any reader splits lines at.

    >>> json_line({"text": "a\u2028b"})
    '{"text": "a\\\\u2028b"}\\n'
    """
    line = json.dumps(row, ensure_ascii=False)
    for raw, escaped in _LINE_BREAKS.items():
        line = line.replace(raw, escaped)
    return line + "\n"


def write_hits(hits: Iterable[SearchHit]) -> None:
    """``search --json``: each hit one JSON Lines record on stdout, every field of
    :class:`~mdchunk.index.SearchHit`, written as ``chunk`` writes chunks — never through the
    console, so no colour, wrapping or indentation whatever the terminal; no hits, no lines."""
    for hit in hits:
        sys.stdout.write(json_line(dataclasses.asdict(hit)))


def note_preamble(chunks: list[Chunk]) -> None:
    """Say on stderr that a Q&A file's text before its first question is in the metadata, not
    in a chunk, so that nobody looks for it among the chunks."""
    from ..formats.qa import PREAMBLE_KEY

    preamble = chunks[0].metadata.get(PREAMBLE_KEY) if chunks else None
    if isinstance(preamble, str):
        shown = " ".join(preamble.split())
        shown = shown if len(shown) <= 80 else shown[:79] + "…"
        err.print(f"mdchunk: {chunks[0].doc_id}: text before the first question is in metadata "
                  f"{PREAMBLE_KEY!r}, not in a chunk: {shown}", markup=False, highlight=False,
                  soft_wrap=True)


def toml_value(value: object) -> str:
    """A value as TOML writes it (``None``, which TOML lacks, as a bare word)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


@contextmanager
def progress_bar(label: str) -> Iterator[ProgressCallback | None]:
    """A progress bar on a terminal; nothing at all when output is piped or in CI."""
    if not err.is_terminal:
        yield None
        return
    from rich.progress import Progress

    with Progress(console=err, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int, doc_id: str, embedded: int) -> None:
            bar.update(task, completed=done, total=total,
                       description=f"{label} {doc_id} · {embedded} chunks embedded")

        yield update


def preview(hit: SearchHit, width: int = 200) -> str:
    """The start of what matched: the first marked leaf from its first passage the page shows
    (not a front matter or comment it opens with), with an ellipsis when a parent's text comes
    before it."""
    from ..index.units import unit_spans

    mark, end = hit.marks[0] if hit.marks else (0, len(hit.text))
    shown = unit_spans(hit.text[mark:end], page_start=hit.start + mark == 0)
    start = mark + shown[0][0] if shown else mark
    return ("… " if mark else "") + " ".join(hit.text[start:].split())[:width]


def also_in(hit: SearchHit) -> str:
    """``also in: a.md:3-9, b.md:40-52 (nearly)``: where else a collapsed hit's passage lies
    (its other locations, best first; ``nearly`` for a passage not quite the same)."""
    return "also in: " + ", ".join(
        f"{x.path}:{x.line_start}-{x.line_end}" + (" (nearly)" if x.similarity < 1 else "")
        for x in hit.locations[1:])


#: How ``search`` marks the part of a matching line that matched, on a terminal.
MATCH_STYLE = "bold black on yellow"
#: Lines shown of one match at most (a long code group or paragraph), and characters of a line.
_MATCH_LINES, _LINE_WIDTH = 4, 200


def matching_lines(hit: SearchHit) -> list[Text]:
    """The lines of ``hit`` that hold its matches as ``grep -n`` shows them (the matched part in
    :data:`MATCH_STYLE` where colours are on, ``…`` for lines left out); without matches, the
    :func:`preview` of the hit."""
    from ..formats.blocks import LineIndex

    if not hit.matches:
        return [Text(preview(hit))]
    lines = LineIndex.of(hit.text)
    shown: list[Text] = []
    for match in hit.matches:
        first = lines.line_of(match.start)
        last = lines.line_of(match.end - 1)
        for n in range(first, min(last, first + _MATCH_LINES - 1) + 1):
            a, b = lines.offset(n - 1), lines.offset(n)
            line = hit.text[a:b].rstrip()
            indent = len(line) - len(line.lstrip())
            body, base = line[indent:indent + _LINE_WIDTH], a + indent
            text = Text().append(f"{hit.line_start + n - 1}:", style="dim")
            at = len(text)
            text.append(body)
            lo, hi = max(match.start, base) - base, min(match.end, base + len(body)) - base
            if hi > lo:
                text.stylize(MATCH_STYLE, at + lo, at + hi)
            shown.append(text)
        if last >= first + _MATCH_LINES:
            shown.append(Text("…"))
    return shown
