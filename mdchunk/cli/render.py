"""``mdchunk inspect`` output: the document in a terminal (Rich) or as one self-contained HTML
page (Jinja2), chunk after chunk in alternating colours, a header at each boundary and the
overlap shaded; the page adds the chunks' ``embed_text`` and a histogram of their sizes."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from .views import Inspection, histogram, runs

__all__ = ["chunk_header", "print_chunk", "print_inspection", "render_html"]

#: Alternating chunk backgrounds, and the overlap's, in the terminal: chosen so that they stay
#: three different colours when a 16-colour terminal downgrades them (blue, brown, grey).
_STYLES = ("on #1a237e", "on #6b4500")
_OVERLAP = "italic on #4a4a4a"
_OUTSIDE = "dim"


def chunk_header(view: Inspection, i: int) -> str:
    """``#3  Guide > Install  L12-40  187/256 tokens  paragraph, code  [split code]``."""
    c = view.chunks[i]
    flags = view.flags[i] + (["over budget"] if c.token_count > view.budget else [])
    parts = [f"#{c.index}", c.section_path or "(no heading)", f"L{c.line_start}-{c.line_end}",
             f"{c.token_count}/{view.budget} tokens", ", ".join(c.kinds)]
    return "  ".join(parts) + (f"  [{', '.join(flags)}]" if flags else "")


def print_inspection(console: Console, view: Inspection) -> None:
    """The whole document, with a rule and a header where each chunk starts."""
    console.print(view.title, markup=False, highlight=False, soft_wrap=True)
    text = Text()
    for run in runs(view.source, view.chunks):
        for i in run.opens:
            if text:  # a chunk may start mid-line (overlap does): the rule starts a new one
                console.print(text, end="" if text.plain.endswith("\n") else "\n",
                              soft_wrap=True)
                text = Text()
            _boundary(console, view, i)
        if not run.owners:
            style = _OUTSIDE
        elif len(run.owners) > 1:
            style = _OVERLAP
        else:
            style = _STYLES[run.owners[0] % 2]
        text.append(view.source[run.start:run.end], style=style)
    console.print(text, soft_wrap=True)


def _boundary(console: Console, view: Inspection, i: int) -> None:
    """A rule, then the chunk's header in full (a rule's title would be cut to the width)."""
    console.rule(style="bright_black")
    console.print(Text(chunk_header(view, i), style="bold"), soft_wrap=True)


def print_chunk(console: Console, view: Inspection, i: int) -> None:
    """One chunk's header, then its ``embed_text`` exactly."""
    _boundary(console, view, i)
    console.print(view.chunks[i].embed_text, markup=False, highlight=False, soft_wrap=True)


def render_html(view: Inspection) -> str:
    """The page, from ``templates/inspect.html.j2``."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("mdchunk.cli", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                      lstrip_blocks=True)
    counts = [c.token_count for c in view.chunks]
    bars = histogram(counts, view.budget)
    tallest = max([b.count for b in bars] + [1])
    chunks: list[dict[str, Any]] = [
        {"index": c.index, "section": c.section_path, "tokens": c.token_count,
         "kinds": c.kinds, "flags": view.flags[i], "lines": [c.line_start, c.line_end],
         "over": c.token_count > view.budget, "embed": c.embed_text,
         "overlap": view.overlap(i) is not None}
        for i, c in enumerate(view.chunks)]
    pieces = [(run.opens, view.source[run.start:run.end],
               "out" if not run.owners else "ov" if len(run.owners) > 1
               else f"c{run.owners[0] % 2}", " ".join(map(str, run.owners)))
              for run in runs(view.source, view.chunks)]
    return env.get_template("inspect.html.j2").render(
        view=view, chunks=chunks, pieces=pieces, bars=bars, tallest=tallest,
        total_tokens=sum(counts))
