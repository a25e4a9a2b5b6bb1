"""Incremental indexing of Markdown trees into Milvus, and search over the result.

A run reads every file, compares its hash with the manifest kept in Milvus and touches only
what changed: new and changed documents are re-chunked and only chunks whose embedded text the
collection does not hold yet are embedded (each distinct text once per collection:
:mod:`mdchunk.index.cache`); chunks and documents that disappeared are deleted.

The index is hierarchical (:func:`index_config`): every document is chunked at each level, the
leaves are embedded and searched, and the coarser levels are stored as *parents*, for a search
to widen a hit to its context.

Crash safety comes from the order of writes, per document:

1. its manifest entry is marked *pending* (empty hash) before any of its rows is written;
2. its parents are upserted, then its leaves; then the stored leaves not in the new set are
   deleted, then such parents (a reader never meets a leaf whose parent is missing);
3. its manifest entry gets the real hash last.

A run interrupted anywhere leaves only pending documents or whole ones; the next run redoes the
pending ones (steps 1-3 are idempotent), so it ends with exactly the rows of an uninterrupted
run. A document is deleted leaves first, then parents, manifest entry last, for the same reason.

A file that cannot be read or decoded (binary, not UTF-8, unreadable, bad front matter: an
:class:`~mdchunk.InputError`) does not stop the run: it is reported (``on_error``, else a
warning; and in :attr:`IndexReport.failed`), the other documents are indexed, and its manifest
entry is never left pending:

- a file the index did not have is not indexed (its pending entry is removed);
- a file the index had keeps the version indexed before, rows and manifest entry as they were
  (a file that is unreadable for a while, or saved in another encoding by mistake, does not
  vanish from search; the run's error says the old version is kept, and the next run that can
  read it replaces it);
- a file that vanished while the run was under way (deleted between discovery and reading) is
  removed from the index like any deleted file (with ``prune``; without it, it is kept);
- a file whose entry was still pending from an interrupted run has no good version to keep: its
  rows are removed.

Only one run writes to an index at a time (:mod:`mdchunk.index.lock`).

Planning is :mod:`.planning`, applying the plan :mod:`.applying`, the config an index is built
with :mod:`.build_config`; this module runs them in order under the index's lock.
"""

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
    """Bring the index (``db``, ``collection``) in line with the files under ``paths``.

    ``config`` (an :class:`~mdchunk.index.config.IndexConfig`) says it all at once; a keyword
    sets one field of it, or of the chunker, embedder or store config it holds, overriding the
    config's (:class:`~mdchunk.index.options.IndexOptions`; a keyword that is no field is a
    :class:`~mdchunk.ConfigError` naming it). ``progress`` and ``on_error`` are callbacks of
    this call.

    ``model`` is ``"auto"`` (the default: the collection's own model, and for a new collection
    the one the corpus's language chooses, all-MiniLM-L6-v2 for English and USE multilingual,
    ``"use-multilingual"``, for a corpus with Chinese in it; see
    :mod:`mdchunk.index.language`), a model name or path (``None``: the bundled
    all-MiniLM-L6-v2) or any :class:`~mdchunk.embedding.Embedder`. ``backend`` runs a
    sentence-transformers model on ``torch``, ``onnx`` or ``onnx-int8`` (``None`` or ``auto``:
    int8 ONNX where onnxruntime is installed, torch on a GPU or without it; see
    :mod:`mdchunk.embedding`); the collection records it, so a collection built on another
    backend (one built before backends were recorded counts as torch) is rebuilt rather than
    holding vectors of two. USE and an :class:`~mdchunk.embedding.Embedder` passed in ignore
    it. ``analyzer`` is ``standard``, ``jieba`` or ``auto`` (chosen by the same survey of the
    corpus when the collection is created, kept afterwards). With ``prune``, documents no
    longer found are removed. A collection built with another model or chunker config is
    rebuilt when ``rebuild`` is true and refused otherwise. ``batch_chunks`` chunks are
    embedded per round; each round commits its documents. ``credential`` (``milvus_token`` on
    Milvus; ``token``, its old name, is deprecated) is a server's credential. With ``units``,
    each leaf's units (sentences, list items, table rows, code lines) are embedded too, and a
    dense search scores a leaf by its own vector and its best unit's
    (:mod:`mdchunk.index.units`). With ``bigrams`` (the default), BM25 reads CJK character
    bigrams beside the words (leaves and queries alike; nothing changes for text without Han
    characters). ``metadata`` is given to every chunk of the run beside its page's front
    matter, which overrides a key of it; it is stored for ``where=`` to filter by.

    Every chunker setting (``max_tokens``, ``overlap_tokens``, ``levels``, ``min_tokens``,
    ``doc_context``, ``oversized``, ``site``…) shapes every level. The index is hierarchical:
    ``levels`` are the token budgets, coarsest first, the last one the leaves' (embedded and
    searched; the others are stored as their parents, in ``<collection>_parents``). Without
    ``levels``, three levels grow from the leaf budget that ``max_tokens`` and the model's
    window give: see :func:`index_config`. Chunks are sized in the model's own tokens unless a
    ``tokenizer`` is named (``model_tokens``).

    ``base_url`` and ``site`` (see :mod:`mdchunk.formats.sites`) give every chunk its ``url``
    and ``anchor``, stored with it and returned by search. ``semantic`` (``"embedding"`` or
    ``"lexical"``) chooses every level's cut points by meaning
    (:mod:`mdchunk.plan.strategies.semantic`); ``"embedding"`` scores seams with the index's
    own model. ``includes`` is the include root (:mod:`mdchunk.formats.includes`): the files
    pages include are read from it, and a page is re-embedded when a file it includes changes.

    A file that cannot be read or decoded is passed to ``on_error`` (else logged as a warning)
    and listed in :attr:`IndexReport.failed`; the others are indexed (what the index keeps of
    a failed file: see the module docstring). A folder with no documents raises
    :class:`~mdchunk.InputError` before anything is written. ``selection`` says which files of
    a folder are documents (globs, excludes, ``.gitignore``; see
    :class:`~mdchunk.sources.Selection`).

    Only one run writes to an index at a time: a run that finds another under way waits up to
    ``wait`` seconds for it, then raises :class:`~mdchunk.errors.LockedError` naming the
    holder (see :mod:`mdchunk.index.lock`).

    ``engine`` is where documents are chunked and embedded: this process by default
    (:class:`~mdchunk.index.engine.LocalEngine`), or a Ray cluster
    (:class:`mdchunk.index.distributed.RayEngine`). Planning and every write stay here, so
    the manifest, incremental and crash-safe semantics are the same on either.
    """
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

