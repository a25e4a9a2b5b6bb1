"""The search page at ``/``: a query box and the hits, each with its breadcrumb, url, lines and
text (its matching lines marked, or its matching leaves when it has none), and its parent behind
"show the parent". Rendered on the server from ``templates/search.html.j2`` (jinja2,
autoescaped); no script, no external asset."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Any, get_args

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse

from ..errors import MdchunkError
from ..index.config import SearchConfig
from ..index.store import SearchHit, SearchMode
from .api import state_of
from .state import NotReady

__all__ = ["Shown", "add_page", "pieces", "template"]


@dataclass(frozen=True, slots=True)
class Shown:
    """A hit as the page shows it: its text in pieces (``(text, marked)``) and its parent."""

    hit: SearchHit
    pieces: list[tuple[str, bool]]
    parent: SearchHit | None


def pieces(text: str, marks: tuple[tuple[int, int], ...]) -> list[tuple[str, bool]]:
    """``text`` cut at ``marks``: each piece with whether it is a matching leaf's.

    >>> pieces("abcdef", ((1, 3),))
    [('a', False), ('bc', True), ('def', False)]
    """
    out, at = [], 0
    for start, end in sorted(marks):
        if start > at:
            out.append((text[at:start], False))
        out.append((text[max(start, at):end], True))
        at = max(at, end)
    if at < len(text):
        out.append((text[at:], False))
    return [piece for piece in out if piece[0]]


def _marked(hit: SearchHit) -> tuple[tuple[int, int], ...]:
    """What the page marks in a hit's text: its matching lines, else its matching leaves."""
    return tuple((m.start, m.end) for m in hit.matches) or hit.marks


@functools.cache
def template(name: str) -> Any:
    """One of the server's page templates (``templates/``; jinja2, autoescaped)."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("mdchunk.serve", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                      lstrip_blocks=True)
    return env.get_template(name)


def add_page(app: FastAPI) -> None:
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page(request: Request, q: Annotated[str, Query(max_length=1000)] = "",
             mode: SearchMode = "hybrid", k: Annotated[int, Query(ge=1, le=50)] = 5,
             per_page: Annotated[int | None, Query(ge=1, le=50)] = None) -> HTMLResponse:
        shown: list[Shown] = []
        problem = None
        if q.strip():
            try:
                service = state_of(request).service
                hits = service.search(SearchConfig(k=k, mode=mode, per_page=per_page), q)
                parents = service.parents_of([h.parent_id for h in hits if h.parent_id])
                shown = [Shown(h, pieces(h.text, _marked(h)), parents.get(h.parent_id or ""))
                         for h in hits]
            except (MdchunkError, NotReady, LookupError) as exc:
                problem = str(exc).splitlines()[0]
        html = template("search.html.j2").render(
            query=q, mode=mode, k=k, modes=get_args(SearchMode), shown=shown, problem=problem,
            per_page=per_page)
        return HTMLResponse(html, status_code=200 if problem is None else 400)
