"""The commands that chunk files and show the result: ``chunk``, ``inspect`` and ``config``. Each
declares its own flags; :func:`.options.with_flags` adds the shared ones."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..config import ChunkerConfig
from ..errors import InputError
from ..text.decode import document_text
from .options import (
    CHUNKER_PLACE,
    CHUNKER_SHAPE,
    SELECTION,
    STORE,
    choice,
    selection_of,
    settings_of,
    store_of,
    with_flags,
)
from .output import Failures, err, json_line, note_preamble, one_line_errors, out, toml_value
from .stats import RunStats

if TYPE_CHECKING:
    from ..chunks import Chunk
    from ..sources import Selection, Source
    from .settings import Settings

__all__ = ["chunk", "inspect", "show_config"]


@with_flags("paths", *CHUNKER_SHAPE, "output", "workers", *CHUNKER_PLACE, "output_format",
            *SELECTION, "stats")
def chunk(
    paths: Annotated[list[Path], typer.Argument(
        metavar="PATH", help="Files or folders (.md, .markdown, .mdx, .txt …); folders are "
                             "walked.")],
    flags: dict[str, object],
    output: Annotated[Optional[Path],
                      typer.Option("-o", "--output", help="Write here, not stdout.")] = None,
    output_format: Annotated[str, typer.Option(
        "--format", help="jsonl (chunks as they are, plus path) or docsearch (doc-search "
                         "records).")] = "jsonl",
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
    choice(output_format, ("jsonl", "docsearch"), "--format")
    with one_line_errors():
        from ..chunks.docsearch import docsearch_record

        settings = settings_of(flags)
        config = settings.chunker()
        sources = _sources(paths, selection_of(settings))
        failures = Failures()
        tally = RunStats(config) if stats else None
        sink = output.open("w", encoding="utf-8") if output else sys.stdout
        try:
            for source, chunks in _chunk_all(sources, config, settings.value("workers"),
                                             failures):
                note_preamble(chunks)
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


def _sources(paths: list[Path], selection: Selection) -> list[Source]:
    from ..sources import discover

    return discover(paths, selection)


def _tally(stats: RunStats, path: Path, chunks: list[Chunk]) -> None:
    """Count one file's chunks; the file is read again the one way the chunker read it
    (workers do not send their readings back), and a file gone since it was chunked is counted
    without its split blocks."""
    from ..chunks.read import read_file

    try:
        with _includes_said():
            reading = read_file(path, stats.config) if chunks else None
    except InputError:
        reading = None
    stats.add(chunks, reading)


@contextmanager
def _includes_said() -> Iterator[None]:
    """Quiet, while a file is read again: the run said once each include it could not read."""
    from ..chunks.includes import log

    def silent(record: logging.LogRecord) -> bool:
        return False

    log.addFilter(silent)
    try:
        yield
    finally:
        log.removeFilter(silent)


def _chunk_all(sources: list[Source], config: ChunkerConfig, workers: int,
               on_error: Failures) -> Iterator[tuple[Source, list[Chunk]]]:
    """Each file's chunks in order; a file that cannot be chunked goes to ``on_error``."""
    from ..sources.batch import chunk_paths

    by_file = {source.file: source for source in sources}
    for path, chunks in chunk_paths(list(by_file), config, workers=workers,
                                    doc_id=lambda p: by_file[p].doc_id, on_error=on_error):
        yield by_file[path], chunks


@with_flags("file", *CHUNKER_SHAPE, "levels", "level", *CHUNKER_PLACE[1:], "chunk_no",
            "html_out")
def inspect(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="One Markdown or text file.")],
    flags: dict[str, object],
    level: Annotated[Optional[int], typer.Option(
        "--level", help="With --levels: which level to show, 1 (coarsest) to the leaves "
                        "[default: the leaves].")] = None,
    chunk_no: Annotated[Optional[int], typer.Option(
        "--chunk", help="Show only chunk N (its index): its header and embed_text.")] = None,
    html_out: Annotated[Optional[Path], typer.Option(
        "--html", help="Write one self-contained HTML page here: the document with its chunks, "
                       "their embed_text and a size histogram.")] = None,
) -> None:
    """Show where the chunk boundaries fall: the document itself, a rule and a header at each
    chunk (index, section, line range, tokens against the budget, kinds, flags: split
    table/code/list/prose, oversized), chunks in alternating colours, overlap shaded."""
    with one_line_errors():
        from .render import print_chunk, print_inspection, render_html
        from .views import inspect_chunks

        config = settings_of(flags).chunker()
        depth = len(config.levels) if config.levels else None
        if level is not None and (depth is None or not 1 <= level <= depth):
            among = f"1 to {depth}" if depth else "none without --levels"
            raise typer.BadParameter(f"{level} is not a level ({among})", param_hint="--level")
        from ..chunks import Chunker

        reading, chunks = Chunker(config).read_and_chunk_file(file, doc_id=file.name)
        note_preamble(chunks)
        if depth is not None:
            shown = level or depth
            chunks = [c for c in chunks if c.level == shown]
            budget = config.at_level(shown).max_tokens
        else:
            budget = config.max_tokens
        if reading is None:  # blank: no chunk, no block
            view = inspect_chunks(file, document_text(file), (), chunks, budget)
        else:
            view = inspect_chunks(file, reading.source, reading.source_blocks(), chunks, budget)
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


@with_flags(*CHUNKER_SHAPE, *CHUNKER_PLACE, *STORE, "token", "old_token", "model", "analyzer",
            "workers", *SELECTION)
def show_config(flags: dict[str, object]) -> None:
    """Print the effective settings, one "key = value" line each, and where each came from:
    default, the config file's path, or flag; then what the index they name holds. The config
    file is [tool.mdchunk] in pyproject.toml or mdchunk.toml, the first found from the working
    folder upwards."""
    with one_line_errors():
        settings = settings_of(flags)
        out.print(f"# config file: {settings.file or 'none found'}", markup=False,
                  highlight=False, soft_wrap=True)
        for key, setting in settings.resolved().items():
            out.print(f"{key} = {toml_value(setting.value)}  # {setting.origin}", markup=False,
                      highlight=False, soft_wrap=True)
        out.print(f"# index: {_index_summary(settings, flags)}", markup=False, highlight=False,
                  soft_wrap=True)


def _index_summary(settings: Settings, flags: dict[str, object]) -> str:
    """What the index at the settings' ``db`` and ``collection`` holds, counted as ``index``
    and ``/v1/collections`` count it; opened read-only, so that no store is made."""
    from contextlib import closing

    from ..errors import StoreError
    from ..index.stores import open_store, stored_counts

    config = store_of(settings, flags)
    try:
        with closing(open_store(config, create=False)) as store:
            meta = store.check()
            chunks, documents = stored_counts(store)
    except StoreError as exc:
        return f"none read: {exc}"
    return (f"{config.collection!r} at {config.db}: {chunks} chunks of {documents} documents, "
            f"model {meta.model} ({meta.backend})")
