"""The commands that write and read an index: ``index`` and ``search``.

Each is a plain function whose signature declares its flags (:mod:`.options`); :mod:`.app`
registers them on the Typer app. The index package is imported when a command runs, so that
``mdchunk chunk`` never loads Milvus or a model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer
from rich.markup import escape

from ..index.expand import MERGE_RATIO
from ..index.fusion import FUSIONS
from ..index.store import EXPAND_NAMES
from .options import (
    BACKEND_CHOICES,
    Analyzer,
    BackendOption,
    BaseUrl,
    Collection,
    Db,
    Excludes,
    FusionOption,
    Gitignore,
    Globs,
    IncludesOption,
    Levels,
    MaxTokens,
    Model,
    Overlap,
    SemanticOption,
    SiteOption,
    Token,
    Tokenizer,
    WeightsOption,
    choice,
    chunker_flags,
    selection_flags,
    selection_of,
    settings_of,
)
from .output import Failures, one_line_errors, out, preview, progress_bar, write_hits
from .settings import DEFAULT

if TYPE_CHECKING:
    from ..index import SearchMode

__all__ = ["index", "search"]


def index(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH",
                                                help="Files or folders to index.")],
    db: Db = None,
    collection: Collection = None,
    model: Model = None,
    backend: BackendOption = None,
    max_tokens: MaxTokens = None,
    overlap: Overlap = None,
    tokenizer: Tokenizer = None,
    analyzer: Analyzer = None,
    token: Token = None,
    levels: Levels = None,
    base_url: BaseUrl = None,
    site: SiteOption = None,
    includes: IncludesOption = None,
    semantic: SemanticOption = None,
    globs: Globs = None,
    excludes: Excludes = None,
    gitignore: Gitignore = None,
    wait: Annotated[float, typer.Option(
        "--wait", help="Seconds to wait for another index run on the same index to finish "
                       "(default: stop at once with a message).")] = 0.0,
    engine: Annotated[str, typer.Option(
        "--engine", help="local (this process) or ray (chunk and embed on a Ray cluster; "
                         "pip install 'mdchunk[ray]').")] = "local",
    address: Annotated[Optional[str], typer.Option(
        "--address", help="The Ray cluster's address (ray://host:10001, auto); default: a new "
                          "local cluster. Only with --engine ray.")] = None,
) -> None:
    """Chunk, embed and write to Milvus; only what changed is re-embedded.

    Leaves are embedded and searched; the coarser levels are kept for search --expand. Without
    --levels: 16x, 4x and 1x the leaf budget (--max-tokens, capped at the model's window).

    A file that cannot be read is named on stderr and the others are indexed (exit status 1);
    a file indexed before keeps its last good version, one deleted during the run is removed."""
    flags = {**chunker_flags(max_tokens=max_tokens, overlap=overlap, tokenizer=tokenizer,
                             levels=levels, base_url=base_url, site=site, semantic=semantic,
                             includes=includes),
             "db": db, "collection": collection, "model": model, "analyzer": analyzer,
             "backend": choice(backend, BACKEND_CHOICES, "--backend"),
             **selection_flags(globs, excludes, gitignore)}
    if engine not in ("local", "ray"):
        raise typer.BadParameter(f"{engine!r} is not local or ray", param_hint="--engine")
    if address is not None and engine != "ray":
        raise typer.BadParameter("only with --engine ray", param_hint="--address")
    with one_line_errors():
        from ..index import index_paths
        from ..index.build_config import SHAPING_KEYS

        run_engine = None
        if engine == "ray":
            from ..index.distributed import RayEngine

            run_engine = RayEngine(address)
        settings = settings_of(flags)
        config = settings.chunker()
        failures = Failures()
        with progress_bar("indexing") as progress:
            report = index_paths(paths, db=settings.value("db"),
                                 collection=settings.value("collection"),
                                 model=settings.value("model"),
                                 backend=settings.value("backend"), max_tokens=config.max_tokens,
                                 overlap_tokens=config.overlap_tokens,
                                 tokenizer=(None if settings.origin("tokenizer") == DEFAULT
                                            else config.tokenizer),
                                 analyzer=settings.value("analyzer"), token=token,
                                 progress=progress, levels=config.levels,
                                 base_url=config.base_url, site=config.site,
                                 semantic=config.semantic, includes=config.includes,
                                 shaping={key: getattr(config, key) for key in SHAPING_KEYS
                                          if settings.origin(key) != DEFAULT},
                                 on_error=lambda error: failures(None, error), wait=wait,
                                 selection=selection_of(settings), engine=run_engine)
        out.print(f"added {report.added}, updated {report.updated}, deleted {report.deleted}, "
                  f"unchanged {report.unchanged} documents; embedded {report.embedded_chunks} "
                  f"chunks in {report.seconds:.1f}s; levels "
                  + "/".join(map(str, report.levels)) + f"; model {report.model}"
                  + f" ({report.backend})"
                  + (" (rebuilt)" if report.rebuilt else ""),
                  highlight=False, soft_wrap=True)
        failures.finish(report.total, "indexed")


def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.")],
    db: Db = None,
    collection: Collection = None,
    k: Annotated[int, typer.Option("-k", help="How many hits.")] = 5,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, dense or bm25.")] = "hybrid",
    path_prefix: Annotated[Optional[str],
                           typer.Option("--path-prefix", help="Only paths under this.")] = None,
    model: Model = None,
    backend: BackendOption = None,
    fusion: FusionOption = None,
    weights: WeightsOption = None,
    token: Token = None,
    as_json: Annotated[bool,
                       typer.Option("--json", help="JSON Lines instead of a listing.")] = False,
    expand: Annotated[str, typer.Option(
        "--expand", help="none (the matching chunks), parent (each one's parent), or auto "
                         f"(a parent where at least {MERGE_RATIO:.0%} of its children match, "
                         "level after level).")] = "none",
) -> None:
    """Search an index: hybrid (dense + BM25), dense only, or BM25 only."""
    if mode not in ("hybrid", "dense", "bm25"):
        raise typer.BadParameter(f"{mode!r} is not one of hybrid, dense, bm25", param_hint="--mode")
    if expand not in EXPAND_NAMES:
        raise typer.BadParameter(f"{expand!r} is not one of {', '.join(EXPAND_NAMES)}",
                                 param_hint="--expand")
    if fusion is not None and fusion not in FUSIONS:
        raise typer.BadParameter(f"{fusion!r} is not one of {', '.join(FUSIONS)}",
                                 param_hint="--fusion")
    with one_line_errors():
        from ..index import search as run_search

        settings = settings_of({"db": db, "collection": collection, "model": model,
                                "backend": choice(backend, BACKEND_CHOICES, "--backend")})
        hits = run_search(query, db=settings.value("db"), collection=settings.value("collection"),
                          k=k, mode=cast("SearchMode", mode),  # checked against its values above
                          path_prefix=path_prefix, model=settings.value("model"), token=token,
                          expand=expand, fusion=fusion,
                          backend=(None if settings.origin("backend") == DEFAULT
                                   else settings.value("backend")),
                          weights=_weights(weights))
        if as_json:
            write_hits(hits)
            return
        for rank, hit in enumerate(hits, 1):
            out.print(f"[bold]{rank}. {escape(hit.path)}:{hit.line_start}-{hit.line_end}[/]  "
                      f"level {hit.level}  [dim]{hit.score:.4f}[/]  {escape(hit.section_path)}",
                      highlight=False, soft_wrap=True)
            if hit.url:
                out.print(f"   {hit.url}", markup=False, highlight=False)
            out.print(f"   {preview(hit)}", markup=False, highlight=False)
        if not hits:
            out.print("no hits")


def _weights(value: str | None) -> tuple[float, float] | None:
    """``--weights 0.3,0.7`` as ``(0.3, 0.7)``."""
    if value is None:
        return None
    try:
        dense, bm25 = (float(part) for part in value.split(","))
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not two numbers DENSE,BM25",
                                 param_hint="--weights") from None
    return dense, bm25
