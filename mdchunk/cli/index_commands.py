"""The commands that write and read an index: ``index`` and ``search``. The index package is
imported when a command runs, so that ``mdchunk chunk`` never loads Milvus or a model."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape
from rich.text import Text

from .options import (
    CHUNKER_PLACE,
    SEARCH_FIELDS,
    SELECTION,
    STORE,
    embedder_of,
    selection_of,
    settings_of,
    store_of,
    with_flags,
)
from .output import (
    Failures,
    also_in,
    counted,
    matching_lines,
    one_line_errors,
    out,
    progress_bar,
    write_hits,
)
from .settings import DEFAULT

if TYPE_CHECKING:
    from ..index.config import IndexConfig
    from .settings import Settings

__all__ = ["index", "search"]


@with_flags("paths", *STORE, "model", "backend", "max_tokens", "overlap", "tokenizer", "analyzer",
            "units", "bigrams", "meta", "query_prompt", "document_prompt", "token", "old_token",
            *CHUNKER_PLACE, *SELECTION, "wait",
            "engine", "address", "prune")
def index(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH",
                                                help="Files or folders to index.")],
    flags: dict[str, object],
    wait: Annotated[float, typer.Option(
        "--wait", show_default=False, help="Seconds to wait for another index run on the same "
                                           "index to finish [default: 0, stop at once with a "
                                           "message].")] = 0.0,
    engine: Annotated[str, typer.Option(
        "--engine", help="local (this process) or ray (chunk and embed on a Ray cluster; "
                         "pip install 'mdchunk[ray]').")] = "local",
    address: Annotated[Optional[str], typer.Option(
        "--address", help="The Ray cluster's address (ray://host:10001, auto); default: a new "
                          "local cluster. Only with --engine ray.")] = None,
    prune: Annotated[bool, typer.Option(
        "--prune/--no-prune", show_default=False, help="Remove from the index the documents this "
                                                     "run does not find (--no-prune: keep them, "
                                                     "e.g. another folder's, indexed into the "
                                                     "same collection with other --meta) "
                                                     "[default: on].")] = True,
) -> None:
    """Chunk, embed and write to Milvus; only what changed is re-embedded.

    Leaves are embedded and searched; the coarser levels are kept for search --expand. Without
    --levels: 16x, 4x and 1x the leaf budget (--max-tokens, capped at the model's window).

    A file that cannot be read is named on stderr and the others are indexed (exit status 1);
    a file indexed before keeps its last good version, one deleted during the run is removed."""
    if engine not in ("local", "ray"):
        raise typer.BadParameter(f"{engine!r} is not local or ray", param_hint="--engine")
    if address is not None and engine != "ray":
        raise typer.BadParameter("only with --engine ray", param_hint="--address")
    with one_line_errors():
        from ..index import index_paths

        metadata = flags["metadata"]
        assert isinstance(metadata, dict)  # --meta's, parsed
        config = _index_config(settings_of(flags), flags, wait, engine, address, metadata,
                               prune)
        failures = Failures()
        with progress_bar("indexing") as progress:
            report = index_paths(paths, config=config, progress=progress,
                                 on_error=lambda error: failures(None, error))
        # the texts embedded are fewer than the chunks written (chunks of one text share its
        # vector); the index's own count is the one /v1/collections gives
        out.print(f"added {report.added}, updated {report.updated}, deleted {report.deleted}, "
                  f"unchanged {report.unchanged} documents; "
                  f"{counted(report.embedded_chunks, 'text')} "
                  + (f"and {counted(report.embedded_units, 'unit')} " if config.units else "")
                  + f"embedded in {report.seconds:.1f}s (chunks of the same text share one); "
                  f"the index holds {counted(report.stored_leaves, 'chunk')}; levels "
                  + "/".join(map(str, report.levels)) + f"; model {report.model}"
                  + f" ({report.backend})"
                  + (" (rebuilt)" if report.rebuilt else "")
                  + f"; {report.duplicate_leaves} duplicate leaves",
                  highlight=False, soft_wrap=True)
        failures.finish(report.total, "indexed")


@with_flags("query", *STORE, "k", "mode", "path_prefix", "where", "model", "backend", "fusion",
            "weights", "token", "old_token", "as_json", "expand", "rerank", "collapse", "per_page",
            "depth", "query_prompt", "document_prompt")
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.")],
    flags: dict[str, object],
    as_json: Annotated[bool,
                       typer.Option("--json", help="JSON Lines instead of a listing.")] = False,
) -> None:
    """Search an index: hybrid (dense + BM25), dense only, or BM25 only. Each hit shows its
    matching lines as grep -n does (LINE:text, the match highlighted on a terminal)."""
    with one_line_errors():
        from ..index import search as run_search
        from ..index.config import SearchConfig
        from ..index.where import FilterError

        settings = settings_of(flags)
        config = SearchConfig(
            store_of(settings, flags),
            embedder_of(settings, search=True),
            **{field: flags[field] for field in SEARCH_FIELDS})  # type: ignore[arg-type]
        try:
            hits = run_search(query, config=config)
        except FilterError as exc:  # a field the index does not have: a usage error too
            raise typer.BadParameter(str(exc), param_hint="--where") from None
        if as_json:
            write_hits(hits)
            return
        for rank, hit in enumerate(hits, 1):
            out.print(f"[bold]{rank}. {escape(hit.path)}:{hit.line_start}-{hit.line_end}[/]  "
                      f"level {hit.level}  [dim]{hit.score:.4f}[/]  {escape(hit.section_path)}",
                      highlight=False, soft_wrap=True)
            if hit.url:
                out.print(f"   {hit.url}", markup=False, highlight=False)
            for line in matching_lines(hit):
                out.print(Text("   ") + line, highlight=False, soft_wrap=True)
            if len(hit.locations) > 1:
                out.print(f"   {also_in(hit)}", markup=False, highlight=False, soft_wrap=True)
        if not hits:
            out.print("no hits")


def _index_config(settings: Settings, flags: Mapping[str, object], wait: float, engine: str,
                  address: str | None, metadata: Mapping[str, object], prune: bool
                  ) -> IndexConfig:
    """The index run the settings describe, its chunker config whole, with ``--meta`` 's
    ``metadata``. A tokenizer not named anywhere sizes chunks in the model's own tokens."""
    from ..index.config import IndexConfig

    run_engine = None
    if engine == "ray":
        from ..index.distributed import RayEngine

        run_engine = RayEngine(address)
    return IndexConfig(
        settings.chunker(), model_tokens=settings.origin("tokenizer") == DEFAULT,
        embedder=embedder_of(settings),
        store=store_of(settings, flags),
        analyzer=settings.value("analyzer"), selection=selection_of(settings),
        units=settings.value("units"), bigrams=settings.value("bigrams"),
        engine=run_engine, wait=wait, metadata=metadata, prune=prune)
