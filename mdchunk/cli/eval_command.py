"""``mdchunk eval``: one's own questions asked of an index in each mode, judged, and compared
with a second collection; thresholds make it a CI check (exit 1 below a floor)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .options import SEARCH_FIELDS, STORE, embedder_of, settings_of, store_of, with_flags
from .output import one_line_errors, out

__all__ = ["evaluate"]

@with_flags("questions", *STORE, "k", "modes", "path_prefix", "where", "model", "backend",
            "fusion", "weights", "token", "old_token", "expand", "rerank", "collapse",
            "per_page", "depth", "query_prompt", "document_prompt", "compare", "compare_db",
            "as_json", "html", "min_hit",
            "min_complete", "min_mrr")
def evaluate(
    questions: Annotated[Path, typer.Argument(
        metavar="QUESTIONS", exists=True, dir_okay=False,
        help="JSON Lines: question, path (the page as indexed), optional answer and tags.")],
    flags: dict[str, object],
    modes: Annotated[Optional[list[str]], typer.Option(
        "--mode", metavar="MODE", help="hybrid, dense or bm25; repeatable. Default: all three."
    )] = None,
    compare: Annotated[Optional[str], typer.Option(
        "--compare", metavar="COLLECTION",
        help="A second collection asked the same questions, shown side by side.")] = None,
    compare_db: Annotated[Optional[str], typer.Option(
        "--compare-db", metavar="DB", help="Where the --compare collection is (default: --db)."
    )] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The report as JSON.")] = False,
    html: Annotated[Optional[Path], typer.Option(
        "--html", metavar="FILE", help="Also write a self-contained HTML report.")] = None,
    min_hit: Annotated[Optional[float], typer.Option(
        "--min-hit", min=0.0, max=1.0, metavar="X",
        help="Exit 1 when a mode's hit@k is below X.")] = None,
    min_complete: Annotated[Optional[float], typer.Option(
        "--min-complete", min=0.0, max=1.0, metavar="X",
        help="Exit 1 when a mode's complete@k is below X.")] = None,
    min_mrr: Annotated[Optional[float], typer.Option(
        "--min-mrr", min=0.0, max=1.0, metavar="X",
        help="Exit 1 when a mode's MRR is below X.")] = None,
) -> None:
    """Ask your questions of an index in each mode and report hit@k (the expected page among
    the hits), complete@k (the answer's text inside them), MRR and the tokens of the k hits,
    overall and per tag."""
    from ..index.evaluate import MODES

    wanted = tuple(dict.fromkeys(modes or MODES))
    for mode in wanted:
        if mode not in MODES:
            raise typer.BadParameter(f"{mode!r} is not one of {', '.join(MODES)}",
                                     param_hint="--mode")
    with one_line_errors():
        from dataclasses import replace

        from ..index.config import SearchConfig, StoreConfig
        from ..index.evaluate import evaluate as run_evaluate
        from ..index.evaluate import read_questions
        from .eval_report import as_json as report_json
        from .eval_report import failures, html_page, table_rows

        settings = settings_of(flags)
        store = store_of(settings, flags)
        config = SearchConfig(
            store, embedder_of(settings, search=True),
            **{f: flags[f] for f in SEARCH_FIELDS if f != "mode"})  # type: ignore[arg-type]
        asked = read_questions(questions)
        reports = [run_evaluate(asked, config, modes=wanted)]  # type: ignore[arg-type]
        if compare is not None:
            other = StoreConfig(compare_db or store.db, compare, store.credential)
            reports.append(run_evaluate(asked, replace(config, store=other),
                                        modes=wanted))  # type: ignore[arg-type]
        if as_json:
            print(json.dumps(report_json(reports), ensure_ascii=False, indent=1))
        else:
            _print_table(*table_rows(reports))
        if html is not None:
            html.write_text(html_page(reports), encoding="utf-8")
        below = failures(reports[0], {"hit": min_hit, "complete": min_complete, "mrr": min_mrr})
    for line in below:
        typer.echo(f"mdchunk: {line}", err=True)
    if below:
        raise typer.Exit(1)


def _print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[Any]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    out.print(line(header), markup=False, highlight=False, soft_wrap=True)
    for row in rows:
        out.print(line(row), markup=False, highlight=False, soft_wrap=True)
