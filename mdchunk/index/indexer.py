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
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..chunks import Chunk
from ..config import ChunkerConfig, Semantic, Site, TokenizerSpec, checked_levels
from ..errors import ConfigError, InputError, MissingFileError
from ..formats.registry import MARKDOWN_SUFFIXES
from ..sources import Selection, Source, discover
from .cache import VectorCache
from .embed import Embedder, load_embedder
from .engine import Engine, LocalEngine, PreparedDoc, Preparer, window_of
from .lock import index_lock, server_lock
from .milvus import MilvusStore
from .store import (
    ANALYZER_NAMES,
    PARENT_FIELDS,
    SCALAR_FIELDS,
    ChunkStore,
    IndexMeta,
    ManifestEntry,
    chunk_row,
    parent_row,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["LEVEL_FACTOR", "ErrorCallback", "IndexPlan", "IndexReport", "ProgressCallback",
           "chunker_config", "config_fingerprint", "detect_analyzer", "index_config",
           "index_paths", "plan_index"]

log = logging.getLogger(__name__)

#: ``progress(done, total, doc_id, embedded)`` after each document is committed (or found
#: unchanged, or failed): documents done of total, and chunks embedded so far.
ProgressCallback = Callable[[int, int, str, int], None]
#: ``on_error(error)`` for each file that could not be indexed; the run goes on.
ErrorCallback = Callable[[InputError], None]

#: Share of CJK characters (among non-blank ones) from which BM25 uses the jieba analyzer. Low on
#: purpose: the standard analyzer makes a whole CJK run one token, so Chinese documents would be
#: unreachable by BM25, while jieba still splits Latin words as the standard analyzer does.
CJK_SHARE_FOR_JIEBA = 0.02
#: Budget of each default level over the next finer one (see :func:`index_config`).
LEVEL_FACTOR = 4
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_SAMPLE_BYTES = 64 * 1024


@dataclass(slots=True)
class IndexReport:
    """What a run did: documents added, updated, deleted and unchanged; then chunks (leaves)
    embedded (new embed texts), reused (vector taken from the document's stored chunk with the
    same embed text), cached (taken from another chunk of the collection), written (rows
    upserted), kept (stored row already identical) and removed; the same for parents, which
    are never embedded. ``levels`` are the hierarchy's budgets, coarsest
    first; ``max_tokens`` is the leaves' budget."""

    added: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    embedded_chunks: int = 0
    reused_chunks: int = 0
    #: Leaves whose vector came from the collection-wide cache: another document's stored
    #: chunk, or one written earlier in the run, with the same embed text (:mod:`.cache`).
    cached_chunks: int = 0
    written_chunks: int = 0
    kept_chunks: int = 0
    removed_chunks: int = 0
    written_parents: int = 0
    kept_parents: int = 0
    removed_parents: int = 0
    rebuilt: bool = False
    max_tokens: int = 0
    levels: tuple[int, ...] = ()
    tokenizer: str = ""
    analyzer: str = ""
    seconds: float = 0.0
    #: Documents found under the paths (each is added, updated, unchanged or failed).
    total: int = 0
    changed_docs: list[str] = field(default_factory=list)
    #: One line per file that could not be indexed, naming it, the problem and what the index
    #: keeps of it (see the module docstring).
    failed: list[str] = field(default_factory=list)


def detect_analyzer(sources: Sequence[Source]) -> str:
    """``jieba`` when CJK characters make up a real share of the corpus, else ``standard``."""
    cjk = total = 0
    for source in sources:
        try:
            with source.file.open("rb") as fh:
                sample = fh.read(_SAMPLE_BYTES).decode("utf-8", "ignore")
        except OSError:
            continue  # reported by name when the run reads it

        cjk += len(_CJK.findall(sample))
        total += sum(1 for ch in sample if not ch.isspace())
    share = cjk / total if total else 0.0
    analyzer = "jieba" if share >= CJK_SHARE_FOR_JIEBA else "standard"
    log.info("BM25 analyzer %s (CJK share of the corpus %.1f%%)", analyzer, 100 * share)
    return analyzer


def chunker_config(embedder: Embedder, *, max_tokens: int, overlap_tokens: int,
                   tokenizer: TokenizerSpec | None) -> ChunkerConfig:
    """The chunker config that never makes a chunk longer than the model reads.

    With no tokenizer named, chunks are sized in the model's own tokens and the budget is capped
    at its window; a tokenizer named explicitly is kept and its chunks are checked instead
    (see :meth:`~mdchunk.index.engine.Preparer.check`).
    """
    if tokenizer is None or tokenizer == embedder.tokenizer:
        budget = min(max_tokens, embedder.max_tokens)
        if budget < max_tokens:
            log.info("%s reads %d tokens: chunking to %d of its own tokens instead of %d",
                     embedder.name, embedder.max_tokens, budget, max_tokens)
        return ChunkerConfig(max_tokens=budget, overlap_tokens=min(overlap_tokens, budget // 2),
                             tokenizer=embedder.tokenizer)
    return ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap_tokens, tokenizer=tokenizer)


def index_config(embedder: Embedder, *, max_tokens: int, overlap_tokens: int,
                 tokenizer: TokenizerSpec | None, levels: Sequence[int] | None = None
                 ) -> ChunkerConfig:
    """The hierarchical chunker config an index is built with.

    Leaves are what is embedded and searched, so their budget is the flat one: with no
    ``levels``, :func:`chunker_config`'s (``max_tokens``, capped at the model's window when
    chunks are sized in its own tokens), under two coarser levels of :data:`LEVEL_FACTOR` and
    ``LEVEL_FACTOR**2`` times it (all-MiniLM-L6-v2 reads 254 tokens: 4064, 1016, 254). A
    parent of four leaves is about a section, a grandparent of sixteen about a page: enough
    context for an answer, small enough to show. The default is hierarchical because parents
    cost no embedding, only storage, and a flat index could not be widened without re-indexing.

    With ``levels`` (coarsest first), the last is the leaves' budget and ``max_tokens`` is not
    used; a leaf budget over the model's window is refused when chunks are sized in the
    model's tokens (a named tokenizer's leaves are checked one by one, as flat chunks are).
    One level, ``(budget,)``, makes leaves without parents.
    """
    if levels is None:
        leaf = chunker_config(embedder, max_tokens=max_tokens, overlap_tokens=overlap_tokens,
                              tokenizer=tokenizer).max_tokens
        budgets = tuple(leaf * LEVEL_FACTOR ** n for n in (2, 1, 0))
    else:
        budgets = checked_levels(levels)
        own_tokens = tokenizer is None or tokenizer == embedder.tokenizer
        if own_tokens and budgets[-1] > embedder.max_tokens:
            raise ConfigError(f"levels={','.join(map(str, budgets))}: the leaf budget "
                              f"{budgets[-1]} exceeds the {embedder.max_tokens}-token window of "
                              f"{embedder.name}; make the last level at most "
                              f"{embedder.max_tokens}")
    config = chunker_config(embedder, max_tokens=budgets[-1], overlap_tokens=overlap_tokens,
                            tokenizer=tokenizer)
    return dataclasses.replace(config, levels=budgets)


def config_fingerprint(config: ChunkerConfig, embedder: Embedder) -> str:
    """The config's fingerprint with the model's tokenizer named portably.

    The model's tokenizer is a local path, which differs between machines; naming it by the
    model keeps two machines that index into one server from rebuilding each other's index.
    """
    if config.tokenizer == embedder.tokenizer:
        config = dataclasses.replace(config, tokenizer=f"model:{embedder.name}")
    return config.fingerprint


def _file_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _title(chunks: Sequence[Chunk], source: Source) -> str:
    """Front matter ``title``, else the document's first heading, else its file name.

    A chunk that contains its document's top heading has an empty heading stack, so the first
    chunk's own text is parsed for a heading when no chunk names one.
    """
    if chunks and chunks[0].metadata.get("title"):
        return str(chunks[0].metadata["title"])
    for chunk in chunks:
        if chunk.headings:
            return chunk.headings[0]
    if chunks and source.file.suffix.lower() in MARKDOWN_SUFFIXES:
        from ..formats import parse_markdown

        for block in parse_markdown(chunks[0].text).blocks:
            if block.kind == "heading" and block.title:
                return block.title
    return source.file.stem


class _Run:
    """One indexing run: the state shared by its steps (kept off the public signature)."""

    def __init__(self, store: ChunkStore, embedder: Embedder, preparer: Preparer,
                 fingerprint: str, report: IndexReport, progress: ProgressCallback | None,
                 on_error: ErrorCallback | None = None, prune: bool = True) -> None:
        self.store, self.embedder, self.preparer = store, embedder, preparer
        self.fingerprint, self.report, self.progress = fingerprint, report, progress
        self.on_error, self.prune = on_error, prune
        self.cache = VectorCache(store)
        self.done = 0
        self.total = 0
        #: Called before each group is written: raises when this run no longer holds the index.
        self.guard: Callable[[], None] = lambda: None

    def tick(self, doc_id: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, doc_id, self.report.embedded_chunks)

    def fail(self, source: Source, error: InputError, action: str) -> None:
        """Report a file that could not be indexed, with what the index keeps of it."""
        message = f"{error}; {action}"
        self.report.failed.append(message)
        if self.on_error is not None:
            self.on_error(InputError(message))
        else:
            log.warning("%s", message)
        self.tick(source.doc_id)

    def skip(self, source: Source, error: InputError, old: ManifestEntry | None) -> None:
        """A file that failed after its entry was marked pending: never leave it pending
        (the rules are in the module docstring). Nothing of it was written in this run."""
        store, doc_id = self.store, source.doc_id
        if old is None:
            store.manifest.delete([doc_id])
            action = "not indexed"
        elif isinstance(error, MissingFileError) and self.prune:
            store.delete_doc(doc_id)
            store.manifest.delete([doc_id])
            self.report.deleted += 1
            action = "removed from the index, as a deleted file is"
        elif old.pending:
            store.delete_doc(doc_id)
            store.manifest.delete([doc_id])
            action = "its rows, left half-written by an interrupted run, were removed"
        else:
            store.manifest.put([old])
            action = "the version indexed before is kept"
        self.fail(source, error, action)

    def write(self, group: list[PreparedDoc]) -> None:
        """Embed what is new in ``group`` in one call, then write and commit each document.

        A vector comes from the document's own stored chunk with the same embed text, else
        from any chunk of the collection (or of this run) with it (:mod:`.cache`); only texts
        found in neither are embedded, each once however many chunks share it.
        """
        self.guard()
        own: dict[str, Any] = {}  # embed hash -> vector of the group's own stored chunks
        stored: dict[str, dict[str, dict[str, Any]]] = {}  # doc id -> chunk id -> stored row
        for doc in group:
            if doc.known:  # only a document with a manifest entry can have stored chunks
                rows = self.store.doc_chunks(doc.source.doc_id)
                stored[doc.source.doc_id] = {r["id"]: r for r in rows}
                own.update((r["content_hash"], r["dense"]) for r in rows)
        needed: dict[str, str] = {}  # embed hash -> embed text, deduplicated across the group
        for doc in group:
            for key, chunk in zip(doc.keys, doc.leaves):
                if key not in own:
                    needed.setdefault(key, chunk.embed_text)
        shared = self.cache.lookup(needed) if needed else {}
        todo = {key: text for key, text in needed.items() if key not in shared}
        vectors: np.ndarray | list[Any] = self.embedder.embed(list(todo.values())) if todo else []
        fresh = dict(zip(todo, vectors))
        self.cache.remember(fresh)
        reusable = {**own, **shared, **fresh}
        self.report.embedded_chunks += len(todo)
        for doc in group:
            self.commit(doc, stored.get(doc.source.doc_id, {}), reusable)
            self.report.reused_chunks += sum(1 for key in doc.keys if key in own)
            self.report.cached_chunks += sum(1 for key in doc.keys if key in shared)
            self.tick(doc.source.doc_id)

    def commit(self, doc: PreparedDoc, old: dict[str, dict[str, Any]], vectors: Mapping[str, Any]
               ) -> None:
        """Write one document in the order of the module docstring, its manifest entry last."""
        self.guard()
        store, report, source = self.store, self.report, doc.source
        title = _title(doc.leaves, source)
        file_type = source.file.suffix.lstrip(".").lower()
        old_parents = ({r["id"]: r for r in store.doc_parents(source.doc_id)} if doc.known
                       else {})
        parents = [parent_row(c, path=source.path, file_type=file_type, title=title,
                              child_count=doc.child_counts.get(c.id, 0)) for c in doc.parents]
        leaves = [chunk_row(c, path=source.path, file_type=file_type, title=title,
                            vector=vectors[key]) for key, c in zip(doc.keys, doc.leaves)]
        new_parents = _changed(parents, old_parents, PARENT_FIELDS)
        store.upsert_parents(new_parents)
        new_leaves = _changed(leaves, old, SCALAR_FIELDS)
        store.upsert_chunks(new_leaves)
        stale_leaves = _stale(old, leaves)
        store.delete_chunks(stale_leaves)
        stale_parents = _stale(old_parents, parents)
        store.delete_parents(stale_parents)
        store.manifest.put([ManifestEntry(source.doc_id, doc.digest, self.fingerprint,
                                          len(leaves), source.path)])
        report.written_chunks += len(new_leaves)
        report.kept_chunks += len(leaves) - len(new_leaves)
        report.removed_chunks += len(stale_leaves)
        report.written_parents += len(new_parents)
        report.kept_parents += len(parents) - len(new_parents)
        report.removed_parents += len(stale_parents)


def _changed(rows: list[dict[str, Any]], old: Mapping[str, Mapping[str, Any]],
             fields: Sequence[str]) -> list[dict[str, Any]]:
    """The rows to write: a row stored with the same ``fields`` (vectors aside) is left alone,
    not rewritten."""
    def scalars(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
        return None if row is None else {f: row[f] for f in fields}

    return [r for r in rows if scalars(old.get(r["id"])) != scalars(r)]


def _stale(old: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Ids of stored rows that are not in the new set, in stored order."""
    new_ids = {r["id"] for r in rows}
    return [i for i in old if i not in new_ids]


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """What a run will do, decided before anything is written: the documents to (re)write with
    their file hashes and whether the index knows them, the unchanged ones, the gone ones."""

    write: list[tuple[Source, str, bool]]
    unchanged: list[str]
    gone: list[str]
    #: Files that could not even be read to hash them, with the error and what the index keeps
    #: of them (nothing is written for them; a vanished one is among ``gone`` with ``prune``).
    failed: list[tuple[Source, InputError, str]] = field(default_factory=list)


def plan_index(sources: Sequence[Source], manifest: dict[str, ManifestEntry], fingerprint: str,
               *, prune: bool) -> IndexPlan:
    """Compare every file's hash and the chunker config with the manifest."""
    write: list[tuple[Source, str, bool]] = []
    unchanged: list[str] = []
    failed: list[tuple[Source, InputError, str]] = []
    present: set[str] = set()
    for source in sources:
        entry = manifest.get(source.doc_id)
        try:
            data = source.file.read_bytes()
        except OSError as exc:
            vanished = isinstance(exc, FileNotFoundError)
            reason = ("no such file or directory" if vanished
                      else (exc.strerror or str(exc) or type(exc).__name__).lower())
            error_type = MissingFileError if vanished else InputError
            error = error_type(f"{source.file}: cannot read: {reason}")
            if entry is None:
                action = "not indexed"
            elif vanished and prune:
                action = "removed from the index, as a deleted file is"
            else:
                action = "the version indexed before is kept"
                present.add(source.doc_id)
            failed.append((source, error, action))
            continue
        present.add(source.doc_id)
        digest = _file_hash(data)
        if entry and not entry.pending and entry.content_hash == digest \
                and entry.config == fingerprint:
            unchanged.append(source.doc_id)
        else:
            write.append((source, digest, entry is not None))
    gone = sorted(set(manifest) - present) if prune else []
    return IndexPlan(write, unchanged, gone, failed)


def _apply(plan: IndexPlan, store: ChunkStore, run: _Run, batch_chunks: int,
           entries: Mapping[str, ManifestEntry], engine: Engine) -> None:
    """Carry ``plan`` out in the crash-safe order of the module docstring; ``entries`` is the
    manifest the plan was made from. ``engine`` chunks the documents (in plan order, however
    many at a time); every write happens here, in this process."""
    report = run.report
    for doc_id in plan.unchanged:
        run.tick(doc_id)
    for source, error, action in plan.failed:
        run.fail(source, error, action)
    report.unchanged = len(plan.unchanged)
    for doc_id in plan.gone:  # leaves, then parents, manifest entry last
        store.delete_doc(doc_id)
        store.manifest.delete([doc_id])
    report.deleted = len(plan.gone)
    # Mark every document about to be written as pending before any of its chunks is.
    store.manifest.put(ManifestEntry(s.doc_id, "", run.fingerprint, 0, s.path)
                       for s, _, _ in plan.write)
    group: list[PreparedDoc] = []
    pending_chunks = 0
    for source, doc in engine.prepare(run.preparer, plan.write):
        if isinstance(doc, InputError):
            run.skip(source, doc, entries.get(source.doc_id))
            continue
        known = doc.known
        group.append(doc)
        pending_chunks += len(doc.leaves)
        report.changed_docs.append(source.doc_id)
        if known:
            report.updated += 1
        else:
            report.added += 1
        if pending_chunks >= batch_chunks:
            run.write(group)
            group, pending_chunks = [], 0
    if group:
        run.write(group)
    if plan.write or plan.gone or report.rebuilt:  # (failed files are among plan.write)
        store.flush()


#: Chunker options an index takes as given (``index_paths(shaping=...)``); the budgets come from
#: :func:`index_config`, and each level's ``min_tokens`` from its budget.
SHAPING_KEYS = frozenset({"oversized", "html_comments", "title_keys", "clean", "semantic_model",
                          "semantic_threshold"})


def index_paths(
    paths: Iterable[str | Path],
    *,
    db: str = "./mdchunk.db",
    collection: str = "mdchunk",
    model: str | Embedder | None = None,
    max_tokens: int = 512,
    overlap_tokens: int = 64,
    tokenizer: TokenizerSpec | None = None,
    analyzer: str = "auto",
    token: str | None = None,
    progress: ProgressCallback | None = None,
    prune: bool = True,
    rebuild: bool = True,
    batch_chunks: int = 256,
    levels: Sequence[int] | None = None,
    base_url: str | None = None,
    site: Site = "plain",
    on_error: ErrorCallback | None = None,
    wait: float = 0.0,
    selection: Selection | None = None,
    engine: Engine | None = None,
    semantic: Semantic | None = None,
    shaping: Mapping[str, Any] | None = None,
) -> IndexReport:
    """Bring collection ``collection`` at ``db`` in line with the files under ``paths``.

    ``model`` is a model name or path (default: the bundled all-MiniLM-L6-v2) or any
    :class:`~mdchunk.index.embed.Embedder`. ``analyzer`` is ``standard``, ``jieba`` or ``auto``
    (detected from the corpus when the collection is created, kept afterwards). With ``prune``,
    documents no longer found are removed. A collection built with another model or chunker
    config is rebuilt when ``rebuild`` is true and refused otherwise. ``batch_chunks`` chunks
    are embedded per round; each round commits its documents.

    The index is hierarchical: ``levels`` are the token budgets, coarsest first, the last one
    the leaves' (embedded and searched; the others are stored as their parents, in
    ``<collection>_parents``). Without ``levels``, three levels grow from the leaf budget that
    ``max_tokens`` and the model's window give: see :func:`index_config`.

    ``base_url`` and ``site`` (see :mod:`mdchunk.formats.sites`) give every chunk its ``url``
    and ``anchor``, stored with it and returned by search.

    ``semantic`` (``"embedding"`` or ``"lexical"``) chooses every level's cut points by meaning
    (:mod:`mdchunk.plan.strategies.semantic`); ``"embedding"`` scores seams with the index's
    own model.

    ``shaping`` sets other chunker options (:data:`SHAPING_KEYS`: ``oversized``,
    ``html_comments``, ``title_keys``, ``clean``, the semantic model and threshold) on every
    level.

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
    started = time.perf_counter()
    if analyzer != "auto" and analyzer not in ANALYZER_NAMES:
        raise ConfigError(f"analyzer={analyzer!r} must be 'auto' or one of "
                          f"{', '.join(ANALYZER_NAMES)}")
    if batch_chunks < 1:
        raise ConfigError(f"batch_chunks={batch_chunks} must be at least 1")
    if levels is not None:
        levels = checked_levels(levels)  # before connecting or loading a model
    if shaping and not set(shaping) <= SHAPING_KEYS:
        raise ConfigError(f"shaping takes {', '.join(sorted(SHAPING_KEYS))}, not "
                          f"{', '.join(sorted(set(shaping) - SHAPING_KEYS))}")
    ChunkerConfig(base_url=base_url, site=site, semantic=semantic,
                  **(shaping or {}))  # checked as early
    sources = discover(paths, selection)
    # Connect before loading the model: an unreachable server should fail in milliseconds.
    with index_lock(db, collection, wait=wait), MilvusStore(db, collection, token=token) as store, \
            server_lock(store, wait=wait) as lock:
        recorded = store.meta()
        embedder = load_embedder(model)
        config = dataclasses.replace(
            index_config(embedder, max_tokens=max_tokens, overlap_tokens=overlap_tokens,
                         tokenizer=tokenizer, levels=levels), base_url=base_url, site=site,
            semantic=semantic, **(shaping or {}))
        fingerprint = config_fingerprint(config, embedder)
        report = IndexReport(max_tokens=config.max_tokens, tokenizer=str(config.tokenizer),
                             levels=config.levels or ())
        if analyzer == "auto":
            analyzer = recorded.analyzer if recorded is not None else detect_analyzer(sources)
        report.analyzer = analyzer
        meta = IndexMeta(embedder.name, embedder.dim, fingerprint, analyzer)
        report.rebuilt = store.open(meta, rebuild=rebuild) and recorded is not None
        entries = store.manifest.entries()
        plan = plan_index(sources, entries, fingerprint, prune=prune)
        # a semantic index scores seams with its own model, loaded once for both
        preparer = Preparer(config, window_of(embedder)
                            if config.tokenizer != embedder.tokenizer else None,
                            embedder if config.semantic == "embedding" else None)
        engine = engine or LocalEngine()
        with engine.start(embedder) as run_embedder:
            run = _Run(store, run_embedder, preparer, fingerprint, report, progress,
                       on_error=on_error, prune=prune)
            run.total = report.total = len(sources)
            run.guard = lock.check
            _apply(plan, store, run, batch_chunks, entries, engine)

    report.seconds = time.perf_counter() - started
    log.info("indexed %d documents into %s/%s: %d added, %d updated, %d deleted, %d unchanged; "
             "%d chunks embedded, %d reused, %d from the cache", len(sources), db, collection,
             report.added, report.updated, report.deleted, report.unchanged,
             report.embedded_chunks, report.reused_chunks, report.cached_chunks)
    return report
