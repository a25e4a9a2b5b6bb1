"""What ``mdchunk eval`` shows: a table of the figures (one column group a collection), the
same as JSON, and a self-contained HTML page (inline CSS and SVG charts, no other file, no
script) with a chart per mode and tag and every miss beside the hits it got instead."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from ..index.evaluate import EvalReport

__all__ = ["as_json", "failures", "html_page", "table_rows"]

#: The figures each chart shows, with their labels.
FIGURES = (("hit", "hit@k"), ("complete", "complete@k"), ("mrr", "MRR"))
#: One colour per collection compared (the first is the collection evaluated).
COLOURS = ("#3b6ea8", "#d08a2c", "#4b9a5a")


def _groups(report: EvalReport) -> list[str | None]:
    return [None, *report.tags]


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _names(reports: Sequence[EvalReport]) -> list[str]:
    """What each report is called: its collection, with its database's file name when two
    compared collections share a name."""
    shared = len({r.collection for r in reports}) < len(reports)
    return [f"{PurePath(r.db).name}:{r.collection}" if shared else r.collection
            for r in reports]


def table_rows(reports: Sequence[EvalReport]) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the figures: a row per mode and tag (``all`` first), the
    questions and, for each collection, hit@k, complete@k, MRR and tokens."""
    k = reports[0].k
    header = ["mode", "tag", "questions"]
    for label in _names(reports):
        name = f" ({label})" if len(reports) > 1 else ""
        header += [f"hit@{k}{name}", f"complete@{k}{name}", f"MRR{name}", f"tokens{name}"]
    rows = []
    for mode in reports[0].modes:
        for tag in _groups(reports[0]):
            first = reports[0].scores(mode, tag)
            row = [mode, tag or "all", str(first.questions)]
            for report in reports:
                s = report.scores(mode, tag)
                row += [_cell(s.hit), _cell(s.complete), _cell(s.mrr), f"{s.tokens:.0f}"]
            rows.append(row)
    return header, rows


def as_json(reports: Sequence[EvalReport]) -> dict[str, Any]:
    """The first report's figures and misses, and those of each compared one."""
    main, *others = reports
    return {**main.as_dict(), "compare": [other.as_dict() for other in others]}


def failures(report: EvalReport, minimum: dict[str, float | None]) -> list[str]:
    """A line for each figure of each mode below its floor (``minimum``: ``hit``,
    ``complete``, ``mrr`` to a floor or ``None``)."""
    lines = []
    for mode in report.modes:
        scores = report.scores(mode)
        for name, floor in minimum.items():
            value = getattr(scores, name)
            if floor is not None and value is not None and value < floor:
                label = dict(FIGURES)[name].replace("@k", f"@{report.k}")
                lines.append(f"{mode} {label} {value:.3f} is below {floor}")
    return lines


def _chart(reports: Sequence[EvalReport], mode: Any, tag: str | None) -> str:
    """An SVG bar chart: a group of bars per figure, one bar per collection, 0 to 1."""
    width, height, bar, gap = 360, 150, 22, 26
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'role="img" aria-label="{html.escape(mode)} {html.escape(tag or "all")}">',
             f'<line x1="30" y1="120" x2="{width - 10}" y2="120" stroke="#999"/>']
    x, names = 40, _names(reports)
    for key, label in FIGURES:
        for i, report in enumerate(reports):
            value = getattr(report.scores(mode, tag), key)
            tall = 100 * (value or 0.0)
            parts.append(f'<rect x="{x}" y="{120 - tall:.1f}" width="{bar}" height="{tall:.1f}" '
                         f'fill="{COLOURS[i % len(COLOURS)]}"><title>{html.escape(label)} '
                         f'{html.escape(names[i])}: {_cell(value)}</title></rect>')
            parts.append(f'<text x="{x + bar / 2}" y="{115 - tall:.1f}" font-size="10" '
                         f'text-anchor="middle">{_cell(value)}</text>')
            x += bar + 2
        parts.append(f'<text x="{x - (bar + 2) * len(reports) / 2}" y="138" font-size="11" '
                     f'text-anchor="middle">{html.escape(label)}</text>')
        x += gap
    parts.append("</svg>")
    return "".join(parts)


def _misses(report: EvalReport, mode: Any) -> str:
    items = []
    for asked in report.misses(mode):
        why = "no hit on the page" if asked.rank is None else "the answer is in no hit"
        got = "".join(f"<li><code>{html.escape(h.doc_id)}:{h.line_start}-{h.line_end}</code> "
                      f"{html.escape(h.section_path)}</li>" for h in asked.hits)
        items.append(f"<li><b>{html.escape(asked.question.question)}</b> — expected "
                     f"<code>{html.escape(asked.question.path)}</code> ({why}); got:"
                     f"<ol>{got or '<li>no hits</li>'}</ol></li>")
    return f"<ul>{''.join(items)}</ul>" if items else "<p>No miss.</p>"


def html_page(reports: Sequence[EvalReport]) -> str:
    """The whole report as one HTML page."""
    main = reports[0]
    header, rows = table_rows(reports)
    table = ("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
             + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                       for row in rows) + "</table>")
    names = _names(reports)
    legend = " ".join(f'<span style="color:{COLOURS[i % len(COLOURS)]}">■</span> '
                      f"{html.escape(name)}" for i, name in enumerate(names))
    sections = []
    for mode in main.modes:
        charts = "".join(f"<figure><figcaption>{html.escape(tag or 'all')}</figcaption>"
                         f"{_chart(reports, mode, tag)}</figure>" for tag in _groups(main))
        misses = "".join(f"<h3>Misses: {html.escape(name)}</h3>{_misses(r, mode)}"
                         for name, r in zip(names, reports, strict=True))
        sections.append(f"<h2>{html.escape(mode)}</h2><div class=charts>{charts}</div>{misses}")
    style = ("body{font:14px sans-serif;margin:2em;max-width:70em}table{border-collapse:"
             "collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
             "figure{display:inline-block;margin:0 1em 1em 0}.charts{display:flex;flex-wrap:"
             "wrap}code{font-size:12px}")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>mdchunk eval: "
            f"{html.escape(main.collection)}</title><style>{style}</style></head><body>"
            f"<h1>mdchunk eval: {html.escape(main.collection)}, k={main.k}</h1>"
            f"<p>{legend}</p>{table}{''.join(sections)}</body></html>\n")

