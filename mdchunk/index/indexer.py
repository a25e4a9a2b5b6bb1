"""Incremental indexing of Markdown trees into a store: a run compares each file's hash with the
manifest and touches only what changed; only chunks whose embedded text the collection does
not hold yet are embedded (:mod:`mdchunk.index.cache`). Planning is :mod:`.planning`, applying
the plan :mod:`.applying`, the config :mod:`.build_config`; this module runs them in order
under the index's lock (:mod:`.lock`).

Crash safety comes from the order of writes, per document: its manifest entry is marked
*pending* (empty hash) first; its parents are upserted, then its leaves, then the stale leaves
deleted, then the stale parents; the entry gets the real hash last. An interrupted run leaves
only pending documents or whole ones, and the next run redoes the pending ones. A document is
deleted leaves first, manifest entry last.

A file that cannot be read or decoded (an :class:`~mdchunk.InputError`) does not stop the run:
it is reported, and its entry is never left pending. A new file is not indexed; a file the
index had keeps the version indexed before (it does not vanish from search while unreadable);
a file deleted during the run is removed (with ``prune``); a file still pending from an
interrupted run has no good version to keep, and its rows are removed."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Unpack

from ..chunks.includes import IncludeRoot, include_run
from ..embedding import backend_of, export_of, load_embedder, model_prompts, with_prompt
from ..sources import discover
from .applying import ErrorCallback, IndexingRun, IndexReport, ProgressCallback, apply_plan
from .build_config import (
    LEVEL_FACTOR,
    chosen_model,
    chunker_config,
    config_fingerprint,
    detect_analyzer,
    index_config,
    leveled_config,
    run_fingerprint,
)
from .config import IndexConfig
from .engine import LocalEngine, Preparer, window_of
from .language import AUTO, survey
from .lock import writing_store
from .options import IndexOptions, index_options
from .planning import IndexPlan, plan_index
from .store import IndexMeta

__all__ = ["LEVEL_FACTOR", "ErrorCallback", "IndexPlan", "IndexReport",
           "ProgressCallback", "chunker_config", "config_fingerprint", "detect_analyzer",
           "index_config", "index_paths", "leveled_config", "plan_index", "run_index"]

log = logging.getLogger(__name__)


def index_paths(paths: Iterable[str | Path], *, config: IndexConfig | None = None,
                progress: ProgressCallback | None = None, on_error: ErrorCallback | None = None,
                **options: Unpack[IndexOptions]) -> IndexReport:
    """Bring the index (``db``, ``collection``) in line with the files under ``paths``:
    incremental, crash-safe (this module's docstring), a file that cannot be read reported and
    the others indexed. ``config`` (an :class:`~mdchunk.index.config.IndexConfig`) says it all at
    once; a keyword sets one field of it or of a config it holds
    (:class:`~mdchunk.index.options.IndexOptions`), overriding the config's. Every keyword and
    what it does: docs/contract.md, "Indexing and search"."""
    return run_index(paths, index_options(config, options), progress, on_error)


def run_index(paths: Iterable[str | Path], config: IndexConfig,
              progress: ProgressCallback | None = None,
              on_error: ErrorCallback | None = None) -> IndexReport:
    """:func:`index_paths` with its configuration whole (checked when it was made)."""
    started = time.perf_counter()
    where = config.store
    wait = config.wait
    includes = config.chunker.includes
    sources = discover(paths, config.selection)
    # Connect before loading the model: an unreachable server should fail in milliseconds.
    # What pages' includes left out is said once, when the run ends.
    with include_run(), writing_store(where, wait=wait) as (store, lock):
        recorded = store.meta()
        model, analyzer = config.embedder.model, config.analyzer
        # One survey of the corpus serves both choices a new collection makes by its language.
        language = (survey(sources) if recorded is None and AUTO in (model, analyzer)
                    else None)
        embedder = load_embedder(chosen_model(model, recorded, language),
                                 config.embedder.backend)
        prompts = model_prompts(embedder, config.embedder.query_prompt,
                                config.embedder.document_prompt)
        # the document prompt takes room in the model's window: chunks are sized without it
        chunker = leveled_config(with_prompt(embedder, prompts.document), config.chunker,
                                 config.model_tokens)
        fingerprint = config_fingerprint(chunker, embedder)
        report = IndexReport(max_tokens=chunker.max_tokens, tokenizer=str(chunker.tokenizer),
                             levels=chunker.levels or ())
        if analyzer == AUTO:
            chooser = recorded if recorded is not None else language
            assert chooser is not None  # a new collection's language was surveyed above
            analyzer = chooser.analyzer  # type: ignore[assignment]  # a store's analyzer name
        report.analyzer, report.model = analyzer, embedder.name
        report.backend = backend_of(embedder)  # an ONNX export, if any, is made here
        meta = IndexMeta(embedder.name, embedder.dim, fingerprint, analyzer,
                         backend=report.backend, export=export_of(embedder), units=config.units,
                         bigrams=config.bigrams, document_prompt=prompts.document,
                         query_prompt=prompts.query)
        report.rebuilt = store.open(meta, rebuild=config.rebuild) and recorded is not None
        entries = store.manifest.entries()
        # the manifest records the run's metadata too: changing it rewrites every document
        fingerprint = run_fingerprint(fingerprint, config.metadata)
        plan = plan_index(sources, entries, fingerprint, prune=config.prune,
                          includes=IncludeRoot(includes) if includes is not None else None)
        # a semantic index scores seams with its own model, loaded once for both
        preparer = Preparer(chunker, window_of(embedder)
                            if chunker.tokenizer != embedder.tokenizer else None,
                            embedder if chunker.semantic == "embedding" else None,
                            units=config.units, bigrams=config.bigrams,
                            metadata=dict(config.metadata))
        engine = config.engine or LocalEngine()
        with engine.start(embedder) as run_embedder:
            run = IndexingRun(store, with_prompt(run_embedder, prompts.document), preparer,
                              fingerprint, report, progress,
                              on_error=on_error, prune=config.prune)
            run.total = report.total = len(sources)
            run.guard = lock.check
            apply_plan(plan, store, run, config.batch_chunks, entries, engine)
        report.stored_leaves = store.count()

    report.seconds = time.perf_counter() - started
    log.info("indexed %d documents into %s/%s: %d added, %d updated, %d deleted, %d unchanged; "
             "%d chunks embedded, %d reused, %d from the cache", len(sources), where.db,
             where.collection, report.added, report.updated, report.deleted, report.unchanged,
             report.embedded_chunks, report.reused_chunks, report.cached_chunks)
    return report

