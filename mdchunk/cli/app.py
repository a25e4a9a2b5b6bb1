"""The ``mdchunk`` command: chunk, inspect, index, search.

Exit status (CONTRACT.md): 0 on success, 2 on a usage error (Click's own), 1 on bad input or a
failed dependency — always with one line that names the file or service, never a traceback.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer
from rich.console import Console
from rich.markup import escape

from ..chunks import Chunk, Chunker
from ..config import ChunkerConfig, checked_levels
from ..errors import ConfigError, InputError, MdchunkError
from ..index.expand import MERGE_RATIO
from ..index.store import EXPAND_NAMES
from ..text.decode import read_document
from .help import PlainHelp
from .settings import DEFAULT, KEYS, Settings, load_settings
from .stats import RunStats

if TYPE_CHECKING:
    from ..index import SearchHit, SearchMode
    from ..index.indexer import ProgressCallback
    from ..sources import Selection, Source

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Chunk Markdown and text knowledge bases, embed them, search them.")
err = Console(stderr=True)
out = Console()
command = app.command  # every command shows plain metavars (INTEGER, PATH) in its help


def _default(key: str) -> str:
    """`` [default: …]`` from the settings' defaults (flags default to None: "not given")."""
    value = KEYS[key][1]
    return "" if value is None else f" [default: {value}]"


MaxTokens = Annotated[Optional[int], typer.Option(
    "--max-tokens", help="Token budget of a chunk's embed_text." + _default("max_tokens"))]
Overlap = Annotated[Optional[int], typer.Option(
    "--overlap", help="Overlap between neighbours, in tokens." + _default("overlap_tokens"))]
MinTokens = Annotated[Optional[int], typer.Option(
    "--min-tokens", help="Sections smaller than this share a chunk with their siblings "
                         "[default: max-tokens / 4].")]
Tokenizer = Annotated[Optional[str], typer.Option(
    "--tokenizer", help="tiktoken encoding, or HF tokenizer name/path." + _default("tokenizer"))]
Oversized = Annotated[Optional[str], typer.Option(
    "--oversized", help="split, or keep: leave a block larger than the budget whole and mark "
                        "it oversized." + _default("oversized"))]
Db = Annotated[Optional[str], typer.Option(
    "--db", help="Milvus Lite file, or http(s)://host:port of a server." + _default("db"))]
Collection = Annotated[Optional[str], typer.Option(
    "--collection", help="Collection name." + _default("collection"))]
Model = Annotated[Optional[str], typer.Option("--model", help="Embedding model name or path.")]
Analyzer = Annotated[Optional[str], typer.Option(
    "--analyzer", help="auto, standard or jieba." + _default("analyzer"))]
Token = Annotated[Optional[str], typer.Option("--token", envvar="MILVUS_TOKEN",
                                              help="Milvus token.")]
BaseUrl = Annotated[Optional[str], typer.Option(
    "--base-url", help="Where the pages are published: each chunk gets url = page URL + #anchor.")]
SiteOption = Annotated[Optional[str], typer.Option(
    "--site", help="Whose URLs and heading anchors: plain, docusaurus, mkdocs or hugo."
                   + _default("site"))]
SemanticOption = Annotated[Optional[str], typer.Option(
    "--semantic", help="Choose cut points by meaning: embedding (all-MiniLM-L6-v2, or --model "
                       "for index) or lexical (word overlap, no model). Default: greedy.")]
Levels = Annotated[Optional[str], typer.Option(
    "--levels", help="A hierarchy's token budgets, coarsest first, e.g. 2048,512,128; the last "
                     "is the leaves' budget and replaces --max-tokens.")]
Workers = Annotated[Optional[int], typer.Option(
    "--workers", help="Parallel processes." + _default("workers"))]
Globs = Annotated[Optional[list[str]], typer.Option(
    "--glob", help="Take the files of a folder that match this gitignore-style pattern "
                   "(repeatable; instead of the known extensions).")]
Excludes = Annotated[Optional[list[str]], typer.Option(
    "--exclude", help="Leave out files and folders that match this gitignore-style pattern "
                      "(repeatable).")]
Gitignore = Annotated[Optional[bool], typer.Option(
    "--gitignore/--no-gitignore", help="Honour .gitignore files [default: on].")]


def _error_line(message: object) -> None:
    """One line, whatever the message holds (a library's exception text may span several)."""
    text = " ".join(line.strip() for line in str(message).splitlines() if line.strip())
    err.print(f"mdchunk: error: {text}", markup=False, highlight=False, soft_wrap=True)


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


def _choice(value: str | None, choices: Sequence[str], flag: str) -> str | None:
    """A flag with a fixed set of values: a usage error (exit 2) names the choices."""
    if value is not None and value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}",
                                 param_hint=flag)
    return value


def _chunker_flags(*, max_tokens: int | None = None, overlap: int | None = None,
                   min_tokens: int | None = None, tokenizer: str | None = None,
                   oversized: str | None = None, levels: str | None = None,
                   base_url: str | None = None, site: str | None = None,
                   semantic: str | None = None) -> dict[str, object]:
    """The chunker's flags under their config keys (``None``: not given), usage-checked."""
    from ..config import SEMANTIC_SCORERS
    from ..formats.sites import SITES

    return {"max_tokens": max_tokens, "overlap_tokens": overlap, "min_tokens": min_tokens,
            "tokenizer": tokenizer, "oversized": _choice(oversized, ("split", "keep"),
                                                         "--oversized"),
            "levels": _levels(levels), "base_url": base_url,
            "site": _choice(site, SITES, "--site"),
            "semantic": _choice(semantic, SEMANTIC_SCORERS, "--semantic")}


def _selection_flags(globs: list[str] | None, excludes: list[str] | None,
                     gitignore: bool | None) -> dict[str, object]:
    return {"include": tuple(globs) if globs else None,
            "exclude": tuple(excludes) if excludes else None, "gitignore": gitignore}


def _settings(flags: dict[str, object]) -> Settings:
    """Defaults, then the config file found from the working folder, then the flags."""
    return load_settings().with_flags(flags)


def _selection(settings: Settings) -> Selection:
    from ..sources import Selection

    return Selection(include=settings.value("include"), exclude=settings.value("exclude"),
                     gitignore=settings.value("gitignore"))


class _Failures:
    """Files that failed in a run that goes on: each is one error line as it happens; at the end,
    one line counts them and the exit status is 1 (the contract's "bad input")."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __call__(self, path: object, error: object) -> None:
        self.messages.append(str(error))
        _error_line(error)

    def finish(self, total: int, done: str) -> None:
        count = len(self.messages)
        if count:
            rest = total - count
            _error_line(f"{count} of {total} file{'s' if total != 1 else ''} failed (each "
                        f"named above); the other {rest} {'was' if rest == 1 else 'were'} {done}")
            raise typer.Exit(1)


@command(cls=PlainHelp)
def chunk(
    paths: Annotated[list[Path], typer.Argument(
        metavar="PATH", help="Files or folders (.md, .markdown, .mdx, .txt …); folders are "
                             "walked.")],
    max_tokens: MaxTokens = None,
    overlap: Overlap = None,
    min_tokens: MinTokens = None,
    tokenizer: Tokenizer = None,
    oversized: Oversized = None,
    output: Annotated[Optional[Path],
                      typer.Option("-o", "--output", help="Write here, not stdout.")] = None,
    workers: Workers = None,
    levels: Levels = None,
    base_url: BaseUrl = None,
    site: SiteOption = None,
    semantic: SemanticOption = None,
    output_format: Annotated[str, typer.Option(
        "--format", help="jsonl (chunks as they are, plus path) or docsearch (doc-search "
                         "records).")] = "jsonl",
    globs: Globs = None,
    excludes: Excludes = None,
    gitignore: Gitignore = None,
    stats: Annotated[bool, typer.Option(
        "--stats", help="Print a summary at the end (on stderr when chunks go to stdout): "
                        "counts, token distribution against the budget, blocks split and "
                        "why, files that failed.")] = False,
) -> None:
    """Write chunks as JSON Lines, one chunk a line, each with its file's path; with --levels,
    every level of a hierarchy (coarsest first; each chunk's level and parent_id link them).
    --format docsearch writes one DocSearch record a chunk (hierarchy.lvl0-lvl6, content, url,
    anchor, type, objectID), for Typesense, Meilisearch or Algolia doc search.

    Options not given come from [tool.mdchunk] in pyproject.toml or from mdchunk.toml (see
    mdchunk config)."""
    flags = _chunker_flags(max_tokens=max_tokens, overlap=overlap, min_tokens=min_tokens,
                           tokenizer=tokenizer, oversized=oversized, levels=levels,
                           base_url=base_url, site=site, semantic=semantic)
    _choice(output_format, ("jsonl", "docsearch"), "--format")
    with _one_line_errors():
        from ..chunks.docsearch import docsearch_record

        settings = _settings({**flags, "workers": workers,
                              **_selection_flags(globs, excludes, gitignore)})
        config = settings.chunker()
        sources = _sources(paths, _selection(settings))
        failures = _Failures()
        tally = RunStats(config) if stats else None
        sink = output.open("w", encoding="utf-8") if output else sys.stdout
        try:
            for source, chunks in _chunk_all(sources, config, settings.value("workers"),
                                             failures):
                _note_preamble(chunks)
                for c in chunks:
                    row = (docsearch_record(c) if output_format == "docsearch"
                           else {**c.to_dict(), "path": source.path})
                    sink.write(json_line(row))
                if tally is not None:
                    _tally(tally, source.file, chunks)
        finally:
            if output:
                sink.close()
        if tally is not None:
            tally.failed = failures.messages
            report = out if output else err
            for line in tally.lines():
                report.print(line, markup=False, highlight=False, soft_wrap=True)
        failures.finish(len(sources), "chunked")


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


def _note_preamble(chunks: list[Chunk]) -> None:
    """Say on stderr that a Q&A file's text before its first question is in the metadata, not
    in a chunk (issue 15), so that nobody looks for it among the chunks."""
    from ..formats.qa import PREAMBLE_KEY

    preamble = chunks[0].metadata.get(PREAMBLE_KEY) if chunks else None
    if isinstance(preamble, str):
        shown = " ".join(preamble.split())
        shown = shown if len(shown) <= 80 else shown[:79] + "…"
        err.print(f"mdchunk: {chunks[0].doc_id}: text before the first question is in metadata "
                  f"{PREAMBLE_KEY!r}, not in a chunk: {shown}", markup=False, highlight=False,
                  soft_wrap=True)


def _sources(paths: list[Path], selection: Selection) -> list[Source]:
    from ..sources import discover

    return discover(paths, selection)


def _tally(stats: RunStats, path: Path, chunks: list[Chunk]) -> None:
    """Count one file's chunks; its text is read again (workers do not send it back), and a
    file gone since it was chunked is counted without its split blocks."""
    try:
        source: str | None = read_document(path) if chunks else ""
    except InputError:
        source = None
    stats.add(path, source, chunks)


def _chunk_all(sources: list[Source], config: ChunkerConfig, workers: int,
               on_error: _Failures) -> Iterator[tuple[Source, list[Chunk]]]:
    """Each file's chunks in order; a file that cannot be chunked goes to ``on_error``."""
    from ..sources.batch import chunk_paths

    by_file = {source.file: source for source in sources}
    for path, chunks in chunk_paths(list(by_file), config, workers=workers,
                                    doc_id=lambda p: by_file[p].doc_id, on_error=on_error):
        yield by_file[path], chunks


@command(cls=PlainHelp)
def inspect(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="One Markdown or text file.")],
    max_tokens: MaxTokens = None,
    overlap: Overlap = None,
    min_tokens: MinTokens = None,
    tokenizer: Tokenizer = None,
    oversized: Oversized = None,
    levels: Levels = None,
    level: Annotated[Optional[int], typer.Option(
        "--level", help="With --levels: which level to show, 1 (coarsest) to the leaves "
                        "[default: the leaves].")] = None,
    base_url: BaseUrl = None,
    site: SiteOption = None,
    semantic: SemanticOption = None,
    chunk_no: Annotated[Optional[int], typer.Option(
        "--chunk", help="Show only chunk N (its index): its header and embed_text.")] = None,
    html_out: Annotated[Optional[Path], typer.Option(
        "--html", help="Write one self-contained HTML page here: the document with its chunks, "
                       "their embed_text and a size histogram.")] = None,
) -> None:
    """Show where the chunk boundaries fall: the document itself, a rule and a header at each
    chunk (index, section, line range, tokens against the budget, kinds, flags: split
    table/code/list/prose, oversized), chunks in alternating colours, overlap shaded."""
    flags = _chunker_flags(max_tokens=max_tokens, overlap=overlap, min_tokens=min_tokens,
                           tokenizer=tokenizer, oversized=oversized, levels=levels,
                           base_url=base_url, site=site, semantic=semantic)
    with _one_line_errors():
        from .render import print_chunk, print_inspection, render_html
        from .views import inspect_chunks

        config = _settings(flags).chunker()
        depth = len(config.levels) if config.levels else None
        if level is not None and (depth is None or not 1 <= level <= depth):
            among = f"1 to {depth}" if depth else "none without --levels"
            raise typer.BadParameter(f"{level} is not a level ({among})", param_hint="--level")
        source = read_document(file)
        chunks = Chunker(config).chunk_file(file, doc_id=file.name)
        _note_preamble(chunks)
        if depth is not None:
            shown = level or depth
            chunks = [c for c in chunks if c.level == shown]
            budget = config.at_level(shown).max_tokens
        else:
            budget = config.max_tokens
        view = inspect_chunks(file, source, chunks, budget)
        if chunk_no is not None:
            if not 0 <= chunk_no < len(chunks):
                raise typer.BadParameter(f"{chunk_no} is not a chunk of {file} (0 to "
                                         f"{len(chunks) - 1})", param_hint="--chunk")
            print_chunk(out, view, chunk_no)
        elif html_out is not None:
            out.print(view.title, markup=False, highlight=False, soft_wrap=True)
            html_out.write_text(render_html(view), encoding="utf-8")
            err.print(f"wrote {html_out}", markup=False, highlight=False)
        else:
            print_inspection(out, view)


@command(cls=PlainHelp, name="config")
def show_config(
    max_tokens: MaxTokens = None,
    overlap: Overlap = None,
    min_tokens: MinTokens = None,
    tokenizer: Tokenizer = None,
    oversized: Oversized = None,
    levels: Levels = None,
    base_url: BaseUrl = None,
    site: SiteOption = None,
    semantic: SemanticOption = None,
    db: Db = None,
    collection: Collection = None,
    model: Model = None,
    analyzer: Analyzer = None,
    workers: Workers = None,
    globs: Globs = None,
    excludes: Excludes = None,
    gitignore: Gitignore = None,
) -> None:
    """Print the effective settings, one "key = value" line each, and where each came from:
    default, the config file's path, or flag. The config file is [tool.mdchunk] in
    pyproject.toml or mdchunk.toml, the first found from the working folder upwards."""
    flags = {**_chunker_flags(max_tokens=max_tokens, overlap=overlap, min_tokens=min_tokens,
                              tokenizer=tokenizer, oversized=oversized, levels=levels,
                              base_url=base_url, site=site, semantic=semantic),
             "db": db, "collection": collection, "model": model, "analyzer": analyzer,
             "workers": workers, **_selection_flags(globs, excludes, gitignore)}
    with _one_line_errors():
        settings = _settings(flags)
        out.print(f"# config file: {settings.file or 'none found'}", markup=False,
                  highlight=False, soft_wrap=True)
        for key, setting in settings.resolved().items():
            out.print(f"{key} = {_toml(setting.value)}  # {setting.origin}", markup=False,
                      highlight=False, soft_wrap=True)


def _toml(value: object) -> str:
    """A value as TOML writes it (``None``, which TOML lacks, as a bare word)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


@command(cls=PlainHelp)
def index(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH",
                                                help="Files or folders to index.")],
    db: Db = None,
    collection: Collection = None,
    model: Model = None,
    max_tokens: MaxTokens = None,
    overlap: Overlap = None,
    tokenizer: Tokenizer = None,
    analyzer: Analyzer = None,
    token: Token = None,
    levels: Levels = None,
    base_url: BaseUrl = None,
    site: SiteOption = None,
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
    flags = {**_chunker_flags(max_tokens=max_tokens, overlap=overlap, tokenizer=tokenizer,
                              levels=levels, base_url=base_url, site=site, semantic=semantic),
             "db": db, "collection": collection, "model": model, "analyzer": analyzer,
             **_selection_flags(globs, excludes, gitignore)}
    if engine not in ("local", "ray"):
        raise typer.BadParameter(f"{engine!r} is not local or ray", param_hint="--engine")
    if address is not None and engine != "ray":
        raise typer.BadParameter("only with --engine ray", param_hint="--address")
    with _one_line_errors():
        from ..index import index_paths
        from ..index.indexer import SHAPING_KEYS

        run_engine = None
        if engine == "ray":
            from ..index.distributed import RayEngine

            run_engine = RayEngine(address)
        settings = _settings(flags)
        config = settings.chunker()
        failures = _Failures()
        with _progress("indexing") as progress:
            report = index_paths(paths, db=settings.value("db"),
                                 collection=settings.value("collection"),
                                 model=settings.value("model"), max_tokens=config.max_tokens,
                                 overlap_tokens=config.overlap_tokens,
                                 tokenizer=(None if settings.origin("tokenizer") == DEFAULT
                                            else config.tokenizer),
                                 analyzer=settings.value("analyzer"), token=token,
                                 progress=progress, levels=config.levels,
                                 base_url=config.base_url, site=config.site,
                                 semantic=config.semantic,
                                 shaping={key: getattr(config, key) for key in SHAPING_KEYS
                                          if settings.origin(key) != DEFAULT},
                                 on_error=lambda error: failures(None, error), wait=wait,
                                 selection=_selection(settings), engine=run_engine)
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


@command(cls=PlainHelp)
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.")],
    db: Db = None,
    collection: Collection = None,
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

        settings = _settings({"db": db, "collection": collection, "model": model})
        hits = run_search(query, db=settings.value("db"), collection=settings.value("collection"),
                          k=k, mode=cast("SearchMode", mode),  # checked against its values above
                          path_prefix=path_prefix, model=settings.value("model"), token=token,
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
