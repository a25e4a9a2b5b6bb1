"""The ``mdchunk`` command: chunk, inspect, index, search.

Exit status (CONTRACT.md): 0 on success, 2 on a usage error (Click's own), 1 on bad input or a
failed dependency — always with one line that names the file or service, never a traceback.
"""

from __future__ import annotations

import dataclasses
import html
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..chunks import Chunk, Chunker
from ..config import ChunkerConfig, checked_levels
from ..errors import ConfigError, MdchunkError
from ..index.expand import MERGE_RATIO
from ..index.store import EXPAND_NAMES
from ..text.decode import read_document

if TYPE_CHECKING:
    from ..index import SearchHit, SearchMode
    from ..index.indexer import ProgressCallback

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Chunk Markdown and text knowledge bases, embed them, search them.")
err = Console(stderr=True)
out = Console()

MaxTokens = Annotated[int, typer.Option("--max-tokens",
                                         help="Token budget of a chunk's embed_text.")]
Overlap = Annotated[int, typer.Option("--overlap", help="Overlap between neighbours, in tokens.")]
Tokenizer = Annotated[str, typer.Option("--tokenizer",
                                        help="tiktoken encoding, or HF tokenizer name/path.")]
Db = Annotated[str, typer.Option("--db",
                                 help="Milvus Lite file, or http(s)://host:port of a server.")]
Collection = Annotated[str, typer.Option("--collection", help="Collection name.")]
Model = Annotated[Optional[str], typer.Option("--model", help="Embedding model name or path.")]
Token = Annotated[Optional[str], typer.Option("--token", envvar="MILVUS_TOKEN",
                                              help="Milvus token.")]
BaseUrl = Annotated[Optional[str], typer.Option(
    "--base-url", help="Where the pages are published: each chunk gets url = page URL + #anchor.")]
SiteOption = Annotated[str, typer.Option(
    "--site", help="Whose URLs and heading anchors: plain, docusaurus, mkdocs or hugo.")]
Levels = Annotated[Optional[str], typer.Option(
    "--levels", help="A hierarchy's token budgets, coarsest first, e.g. 2048,512,128; the last "
                     "is the leaves' budget and replaces --max-tokens.")]


def _error_line(message: object) -> None:
    err.print(f"mdchunk: error: {message}", markup=False, highlight=False, soft_wrap=True)


@contextmanager
def _one_line_errors() -> Iterator[None]:
    """Turn mdchunk's errors into one line on stderr and exit status 1."""
    try:
        yield
    except MdchunkError as exc:
        _error_line(exc)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        err.print("mdchunk: interrupted", markup=False)
        raise typer.Exit(130) from None


def _levels(value: str | None) -> tuple[int, ...] | None:
    """``--levels`` as budgets, checked by the chunker's own rules; a usage error otherwise."""
    if value is None:
        return None
    try:
        budgets = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not comma-separated integers",
                                 param_hint="--levels") from None
    try:
        return checked_levels(budgets)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--levels") from None


class _Failures:
    """Files that failed in a run that goes on: each is one error line as it happens; at the end,
    one line counts them and the exit status is 1 (the contract's "bad input")."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, path: object, error: object) -> None:
        self.count += 1
        _error_line(error)

    def finish(self, total: int, done: str) -> None:
        if self.count:
            rest = total - self.count
            _error_line(f"{self.count} of {total} file{'s' if total != 1 else ''} failed (each "
                        f"named above); the other {rest} {'was' if rest == 1 else 'were'} {done}")
            raise typer.Exit(1)


def _files(paths: list[Path]) -> list[tuple[str, Path]]:
    from ..sources import discover

    return [(s.doc_id, s.file) for s in discover(paths)]


SemanticOption = Annotated[Optional[str], typer.Option(
    "--semantic", help="Choose cut points by meaning: embedding (all-MiniLM-L6-v2, or --model "
                       "for index) or lexical (word overlap, no model). Default: greedy.")]


def _semantic(semantic: str | None) -> str | None:
    """``--semantic`` checked like ``--site``: a usage error (exit 2) names the choices."""
    from ..config import SEMANTIC_SCORERS

    if semantic is not None and semantic not in SEMANTIC_SCORERS:
        raise typer.BadParameter(f"{semantic!r} is not one of {', '.join(SEMANTIC_SCORERS)}",
                                 param_hint="--semantic")
    return semantic


@app.command()
def chunk(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.md, .markdown, .txt …).")],
    max_tokens: MaxTokens = 512,
    overlap: Overlap = 64,
    tokenizer: Tokenizer = "cl100k_base",
    output: Annotated[Optional[Path],
                      typer.Option("-o", "--output", help="Write here, not stdout.")] = None,
    workers: Annotated[int, typer.Option("--workers", help="Parallel processes.")] = 1,
    levels: Levels = None,
    base_url: BaseUrl = None,
    site: SiteOption = "plain",
    output_format: Annotated[str, typer.Option(
        "--format", help="jsonl (chunks as they are) or docsearch (doc-search records).")
    ] = "jsonl",
    semantic: SemanticOption = None,
) -> None:
    """Write chunks as JSON Lines, one chunk a line; with --levels, every level of a hierarchy
    (coarsest first; each chunk's level and parent_id link them). --format docsearch writes one
    DocSearch record a chunk (hierarchy.lvl0-lvl6, content, url, anchor, type, objectID), for
    Typesense, Meilisearch or Algolia doc search."""
    budgets = _levels(levels)
    site = _site(site)
    semantic = _semantic(semantic)
    if output_format not in ("jsonl", "docsearch"):
        raise typer.BadParameter(f"{output_format!r} is not one of jsonl, docsearch",
                                 param_hint="--format")
    with _one_line_errors():
        from ..chunks.docsearch import docsearch_record

        config = ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap, tokenizer=tokenizer,
                               levels=budgets, base_url=base_url, site=site,  # type: ignore[arg-type]
                               semantic=semantic)  # type: ignore[arg-type]  # checked above
        files = _files(paths)
        failures = _Failures()
        sink = output.open("w", encoding="utf-8") if output else sys.stdout
        try:
            for chunks in _chunk_all(files, config, workers, failures):
                for c in chunks:
                    row = docsearch_record(c) if output_format == "docsearch" else c.to_dict()
                    sink.write(json.dumps(row, ensure_ascii=False) + "\n")
        finally:
            if output:
                sink.close()
        failures.finish(len(files), "chunked")


def _site(site: str) -> str:
    """``--site`` checked like ``--mode``: a usage error (exit 2) names the choices."""
    from ..formats.sites import SITES

    if site not in SITES:
        raise typer.BadParameter(f"{site!r} is not one of {', '.join(SITES)}",
                                 param_hint="--site")
    return site


def _chunk_all(files: list[tuple[str, Path]], config: ChunkerConfig, workers: int,
               on_error: _Failures) -> Iterator[list[Chunk]]:
    """Each file's chunks in order; a file that cannot be chunked goes to ``on_error``."""
    from ..sources.batch import chunk_paths

    by_path = {path: doc_id for doc_id, path in files}
    for _, chunks in chunk_paths(list(by_path), config, workers=workers,
                                 doc_id=by_path.__getitem__, on_error=on_error):
        yield chunks


@app.command()
def inspect(
    file: Annotated[Path, typer.Argument(help="One Markdown or text file.")],
    max_tokens: MaxTokens = 512,
    overlap: Overlap = 64,
    tokenizer: Tokenizer = "cl100k_base",
    html_out: Annotated[Optional[Path],
                        typer.Option("--html", help="Write an HTML view here.")] = None,
    semantic: SemanticOption = None,
) -> None:
    """Show where the chunk boundaries fall."""
    semantic = _semantic(semantic)
    with _one_line_errors():
        config = ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap, tokenizer=tokenizer,
                               semantic=semantic)  # type: ignore[arg-type]  # checked above
        chunks = Chunker(config).chunk_file(file)
        table = Table(title=f"{file} — {len(chunks)} chunks, budget {max_tokens}")
        for name in ("#", "lines", "tokens", "kinds", "section", "starts with"):
            table.add_column(name, overflow="fold")
        for c in chunks:
            first = c.text.strip().splitlines()[0][:60] if c.text.strip() else ""
            table.add_row(str(c.index), f"{c.line_start}-{c.line_end}", str(c.token_count),
                          ",".join(c.kinds), c.section_path, first)
        out.print(table)
        if html_out:
            source = read_document(file)
            html_out.write_text(render_html(source, chunks, str(file)), encoding="utf-8")
            err.print(f"wrote {html_out}")


def render_html(source: str, chunks: list[Chunk], title: str) -> str:
    """The source with each chunk shaded in turn; overlaps striped; hover shows the chunk."""
    cuts = sorted({0, len(source), *(p for c in chunks for p in (c.start, c.end))})
    parts = []
    for a, b in zip(cuts, cuts[1:]):
        inside = [c for c in chunks if c.start <= a and b <= c.end]
        text = html.escape(source[a:b])
        if not inside:
            parts.append(text)
            continue
        css = "overlap" if len(inside) > 1 else f"c{inside[0].index % 2}"
        tip = html.escape(" | ".join(f"#{c.index} {c.token_count} tok {c.section_path}"
                                     for c in inside))
        parts.append(f'<span class="{css}" title="{tip}">{text}</span>')
    style = (".c0{background:#e8f0fe}.c1{background:#fef7e0}"
             ".overlap{background:repeating-linear-gradient("
             "45deg,#e8f0fe,#e8f0fe 4px,#fef7e0 4px,#fef7e0 8px)}"
             "pre{white-space:pre-wrap;font:13px/1.5 monospace}")
    return (f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title>"
            f"<style>{style}</style><h1>{html.escape(title)}</h1><pre>{''.join(parts)}</pre>")


@app.command()
def index(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to index.")],
    db: Db = "./mdchunk.db",
    collection: Collection = "mdchunk",
    model: Model = None,
    max_tokens: MaxTokens = 512,
    overlap: Overlap = 64,
    analyzer: Annotated[str, typer.Option("--analyzer", help="auto, standard or jieba.")] = "auto",
    token: Token = None,
    levels: Levels = None,
    base_url: BaseUrl = None,
    site: SiteOption = "plain",
    wait: Annotated[float, typer.Option(
        "--wait", help="Seconds to wait for another index run on the same index to finish "
                       "(default: stop at once with a message).")] = 0.0,
    semantic: SemanticOption = None,
) -> None:
    """Chunk, embed and write to Milvus; only what changed is re-embedded.

    Leaves are embedded and searched; the coarser levels are kept for search --expand. Without
    --levels: 16x, 4x and 1x the leaf budget (--max-tokens, capped at the model's window).

    A file that cannot be read is named on stderr and the others are indexed (exit status 1);
    a file indexed before keeps its last good version, one deleted during the run is removed."""
    budgets = _levels(levels)
    site = _site(site)
    semantic = _semantic(semantic)
    with _one_line_errors():
        from ..index import index_paths

        failures = _Failures()
        with _progress("indexing") as progress:
            report = index_paths(paths, db=db, collection=collection, model=model,
                                 max_tokens=max_tokens, overlap_tokens=overlap, analyzer=analyzer,
                                 token=token, progress=progress, levels=budgets,
                                 base_url=base_url, site=site,  # type: ignore[arg-type]
                                 on_error=lambda error: failures(None, error), wait=wait,
                                 semantic=semantic)  # type: ignore[arg-type]  # checked above
        out.print(f"added {report.added}, updated {report.updated}, deleted {report.deleted}, "
                  f"unchanged {report.unchanged} documents; embedded {report.embedded_chunks} "
                  f"chunks in {report.seconds:.1f}s; levels "
                  + "/".join(map(str, report.levels)) + (" (rebuilt)" if report.rebuilt else ""),
                  highlight=False, soft_wrap=True)
        failures.finish(report.total, "indexed")


@contextmanager
def _progress(label: str) -> Iterator[ProgressCallback | None]:
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


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    db: Db = "./mdchunk.db",
    collection: Collection = "mdchunk",
    k: Annotated[int, typer.Option("-k", help="How many hits.")] = 5,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, dense or bm25.")] = "hybrid",
    path_prefix: Annotated[Optional[str],
                           typer.Option("--path-prefix", help="Only paths under this.")] = None,
    model: Model = None,
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
    with _one_line_errors():
        from ..index import search as run_search

        hits = run_search(query, db=db, collection=collection, k=k,
                          mode=cast("SearchMode", mode),  # checked against its values above
                          path_prefix=path_prefix, model=model, token=token,
                          expand=expand)
        for rank, hit in enumerate(hits, 1):
            if as_json:
                out.print_json(json.dumps(dataclasses.asdict(hit), ensure_ascii=False))
                continue
            out.print(f"[bold]{rank}. {escape(hit.path)}:{hit.line_start}-{hit.line_end}[/]  "
                      f"level {hit.level}  [dim]{hit.score:.4f}[/]  {escape(hit.section_path)}",
                      highlight=False, soft_wrap=True)
            if hit.url:
                out.print(f"   {hit.url}", markup=False, highlight=False)
            out.print(f"   {_preview(hit)}", markup=False, highlight=False)
        if not hits:
            out.print("no hits")


def _preview(hit: SearchHit, width: int = 200) -> str:
    """The start of what matched: the first marked leaf, with an ellipsis when a parent's
    text comes before it."""
    start = hit.marks[0][0] if hit.marks else 0
    return ("… " if start else "") + " ".join(hit.text[start:].split())[:width]


def main() -> None:
    # Our own warnings as "mdchunk: …" lines; the model libraries' chatter (progress bars,
    # revision notes, jieba's dictionary messages) only when it is an error.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("mdchunk: %(message)s"))
    logging.getLogger("mdchunk").addHandler(handler)
    logging.getLogger("mdchunk").setLevel(logging.WARNING)
    logging.getLogger("mdchunk").propagate = False
    for noisy in ("sentence_transformers", "transformers", "huggingface_hub"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    # Milvus clients log a failure with its traceback before raising it; the error they raise
    # becomes our one line.
    for client in ("pymilvus", "milvus_lite"):
        logging.getLogger(client).setLevel(logging.CRITICAL)
    try:  # jieba (Milvus Lite's Chinese analyzer) sets its own DEBUG level when imported
        import jieba

        jieba.setLogLevel(logging.ERROR)
    except ImportError:
        pass
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    app()
