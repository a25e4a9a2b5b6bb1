"""The second half of an indexing run: carry an :class:`~.planning.IndexPlan` out in the
crash-safe order of :mod:`.indexer`'s docstring, embedding only what no stored chunk holds yet,
and count what was done in an :class:`IndexReport`. Every write of a run happens here, in the
calling process, whatever engine chunks and embeds."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..chunks import Chunk
from ..embedding import Embedder
from ..errors import InputError, MissingFileError
from ..formats.registry import MARKDOWN_SUFFIXES
from ..sources import Source
from .cache import VectorCache
from .collapse import DuplicateCounter
from .engine import Engine, PreparedDoc, Preparer
from .language import document_language
from .planning import IndexPlan
from .rows import (
    PARENT_FIELDS,
    SCALAR_FIELDS,
    chunk_row,
    document_version,
    embed_hash,
    parent_row,
    unit_row,
)
from .store import ChunkStore, ManifestEntry
from .units import unit_id

if TYPE_CHECKING:
    import numpy as np

__all__ = ["ErrorCallback", "IndexReport", "IndexingRun", "ProgressCallback", "apply_plan"]

log = logging.getLogger("mdchunk.index.indexer")  # the indexer's records, under its name

#: ``progress(done, total, doc_id, embedded)`` after each document is committed (or found
#: unchanged, or failed): documents done of total, and chunks embedded so far.
ProgressCallback = Callable[[int, int, str, int], None]
#: ``on_error(error)`` for each file that could not be indexed; the run goes on.
ErrorCallback = Callable[[InputError], None]


@dataclass(slots=True)
class IndexReport:
    """What a run did: documents added, updated, deleted and unchanged; leaves embedded (new
    embed texts), reused (from the document's stored chunk), cached (from another chunk of the
    collection), written, kept (stored row identical) and removed; the same for parents."""

    added: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    embedded_chunks: int = 0
    reused_chunks: int = 0
    cached_chunks: int = 0
    written_chunks: int = 0
    kept_chunks: int = 0
    removed_chunks: int = 0
    written_parents: int = 0
    kept_parents: int = 0
    removed_parents: int = 0
    embedded_units: int = 0
    written_units: int = 0
    removed_units: int = 0
    #: Leaves whose passage (:func:`~mdchunk.index.collapse.passage_key`) another leaf of the
    #: run has; a search collapses them into one hit.
    duplicate_leaves: int = 0
    rebuilt: bool = False
    max_tokens: int = 0
    levels: tuple[int, ...] = ()
    tokenizer: str = ""
    analyzer: str = ""
    #: The model the leaves are embedded with, and how it ran (``torch``, ``onnx``…).
    model: str = ""
    backend: str = ""
    seconds: float = 0.0
    #: Leaves the collection holds when the run ends (leaves sharing an embed text share one
    #: embedding, so more than ``embedded_chunks`` even on a first run).
    stored_leaves: int = 0
    #: Documents found under the paths (each is added, updated, unchanged or failed).
    total: int = 0
    changed_docs: list[str] = field(default_factory=list)
    #: One line per file that could not be indexed, naming it, the problem and what is kept.
    failed: list[str] = field(default_factory=list)


def _title(chunks: Sequence[Chunk], source: Source) -> str:
    """Front matter ``title``, else the document's first heading (parsed from the first
    chunk's text when no chunk's heading stack names one), else its file name."""
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


class IndexingRun:
    """One indexing run: the state shared by its steps (kept off the public signature)."""

    def __init__(self, store: ChunkStore, embedder: Embedder, preparer: Preparer,
                 fingerprint: str, report: IndexReport, progress: ProgressCallback | None,
                 on_error: ErrorCallback | None = None, prune: bool = True) -> None:
        self.store, self.embedder, self.preparer = store, embedder, preparer
        self.fingerprint, self.report, self.progress = fingerprint, report, progress
        self.on_error, self.prune = on_error, prune
        self.cache = VectorCache(store)
        self.duplicates = DuplicateCounter()
        #: The metadata keys the index records (read when the first document is written).
        self.keys: set[str] | None = None
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
        (the rules are in :mod:`.indexer`'s docstring). Nothing of it was written in this run."""
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
        """Embed what is new in ``group`` in one call (texts no stored chunk of the document,
        the collection or the run has), then write and commit each document."""
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
        old_units = self.embed_units(group, reusable) if self.preparer.units else {}
        for doc in group:
            self.commit(doc, stored.get(doc.source.doc_id, {}), reusable,
                        old_units.get(doc.source.doc_id, {}))
            self.report.reused_chunks += sum(1 for key in doc.keys if key in own)
            self.report.cached_chunks += sum(1 for key in doc.keys if key in shared)
            self.duplicates.add(leaf.text for leaf in doc.leaves)
            self.report.duplicate_leaves = self.duplicates.duplicates
            self.tick(doc.source.doc_id)

    def embed_units(self, group: list[PreparedDoc], vectors: dict[str, Any]
                    ) -> dict[str, dict[str, Any]]:
        """Embed the group's units that no stored unit of their document has the text of,
        adding their vectors to ``vectors`` (by text hash, as the leaves'); the stored unit
        rows, by document and unit id."""
        stored: dict[str, dict[str, Any]] = {}
        for doc in group:
            if doc.known:
                rows = self.store.doc_units(doc.source.doc_id)
                stored[doc.source.doc_id] = {r["id"]: r for r in rows}
                for row in rows:
                    vectors.setdefault(row["content_hash"], row["dense"])
        todo: dict[str, str] = {}
        for doc in group:
            for texts in doc.units.values():
                for text in texts:
                    key = embed_hash(text)
                    if key not in vectors:
                        todo.setdefault(key, text)
        if todo:
            vectors.update(zip(todo, self.embedder.embed(list(todo.values()))))
        self.report.embedded_units += len(todo)
        return stored

    def record_keys(self, doc: PreparedDoc) -> None:
        """Record the metadata keys of ``doc`` 's chunks with the index before any row holding
        them is written, so that a filter naming one is never refused."""
        if self.keys is None:
            self.keys = set(self.store.metadata_keys())
        keys = {str(key) for chunk in (*doc.leaves, *doc.parents) for key in chunk.metadata}
        if not keys <= self.keys:
            self.store.add_metadata_keys(keys)
            self.keys |= keys

    def commit(self, doc: PreparedDoc, old: dict[str, dict[str, Any]], vectors: Mapping[str, Any],
               old_units: Mapping[str, Any] | None = None) -> None:
        """Write one document in the order of :mod:`.indexer`'s docstring, manifest entry last;
        a leaf's units are written before it and removed after it (``old_units``: the stored
        ones by id)."""
        self.guard()
        store, report, source = self.store, self.report, doc.source
        self.record_keys(doc)
        title = _title(doc.leaves, source)
        file_type = source.file.suffix.lstrip(".").lower()
        metadata = next((c.metadata for c in (*doc.leaves, *doc.parents)), {})
        page = {"path": source.path, "file_type": file_type, "title": title,
                "lang": document_language(source),
                "version": document_version(metadata, source.doc_id, source.path)}
        old_parents = ({r["id"]: r for r in store.doc_parents(source.doc_id)} if doc.known
                       else {})
        parents = [parent_row(c, child_count=doc.child_counts.get(c.id, 0), **page)
                   for c in doc.parents]
        leaves = [chunk_row(c, vector=vectors[key], bigrams=self.preparer.bigrams, **page)
                  for key, c in zip(doc.keys, doc.leaves)]
        units = [unit_row(unit_id(leaf["id"], text), leaf, text, vectors[embed_hash(text)])
                 for leaf in leaves for text in doc.units.get(leaf["id"], ())]
        new_parents = _changed(parents, old_parents, PARENT_FIELDS)
        store.upsert_parents(new_parents)
        new_units = [u for u in units if u["id"] not in (old_units or {})]
        store.upsert_units(new_units)
        new_leaves = _changed(leaves, old, SCALAR_FIELDS)
        store.upsert_chunks(new_leaves)
        stale_leaves = _stale(old, leaves)
        store.delete_chunks(stale_leaves)
        stale_units = _stale(old_units or {}, units)
        store.delete_units(stale_units)
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
        report.written_units += len(new_units)
        report.removed_units += len(stale_units)


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


def apply_plan(plan: IndexPlan, store: ChunkStore, run: IndexingRun, batch_chunks: int,
               entries: Mapping[str, ManifestEntry], engine: Engine) -> None:
    """Carry ``plan`` out in the crash-safe order of :mod:`.indexer`'s docstring; ``entries``
    is the manifest the plan was made from. ``engine`` chunks the documents (in plan order, however
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
        group.append(doc)
        pending_chunks += len(doc.leaves)
        report.changed_docs.append(source.doc_id)
        if doc.known:
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
