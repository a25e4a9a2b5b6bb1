"""Chunk many files, optionally in parallel processes, streaming results in input order.

Each worker builds one :class:`~mdchunk.Chunker` and is sent *paths*, never texts. Files are
grouped into tasks of about ``_TASK_BYTES``; at most ``workers * _WINDOW`` tasks are in flight,
so memory grows with the largest files in the window, not with the corpus.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.md").write_text("# A\\n\\nHello.\\n")
>>> [(p.name, [c.doc_id for c in chunks])
...  for p, chunks in chunk_paths([folder / "a.md"], root=folder)]
[('a.md', ['a.md'])]"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from ..chunks import Chunk, Chunker
from ..chunks.includes import include_run, note_all
from ..config import ChunkerConfig
from ..errors import InputError, MdchunkError

__all__ = ["chunk_paths"]

log = logging.getLogger(__name__)

#: Bytes of input per task sent to a worker: large enough to amortise pickling and queueing,
#: small enough to balance two workers on a small corpus.
_TASK_BYTES = 256 * 1024
#: Most files per task (many tiny files still make several tasks).
_TASK_FILES = 64
#: Tasks in flight per worker: keeps every worker busy while bounding memory.
_WINDOW = 3

_worker_chunker: Chunker | None = None

#: What a worker sends back for a task: per file (as a string), its chunks or the error; and
#: the includes it could not read (:class:`mdchunk.chunks.includes.LeftOut`' notes), for the
#: run of the call to say once.
_TaskResult = tuple[list[tuple[str, list[Chunk] | InputError]], list[tuple[str, tuple[str, str]]]]


def chunk_paths(paths: Iterable[str | Path], config: ChunkerConfig | None = None, *,
                workers: int = 1, root: Path | None = None,
                doc_id: Callable[[Path], str] | None = None,
                on_error: Callable[[Path, InputError], None] | None = None,
                ) -> Iterator[tuple[Path, list[Chunk]]]:
    """Chunk each file in ``paths``; yield ``(path, chunks)`` in input order.

    ``workers > 1`` chunks in that many processes (results are identical to ``workers=1``; a
    callable tokenizer must then be picklable). Each file's ``doc_id`` is ``doc_id(path)`` when
    given, else the path relative to ``root`` when given, else the path as given (chunk ids hash
    it). A file that cannot be chunked raises :class:`~mdchunk.InputError` naming it, after every
    earlier file has been yielded, or with ``on_error`` is passed to ``on_error(path, error)`` in
    its place and the run goes on."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r} must be a positive integer")
    config = config or ChunkerConfig()
    naming = doc_id or (lambda path: _doc_id(path, root))
    items = ((Path(p), naming(Path(p))) for p in paths)
    with include_run():  # what the files' includes left out, said once when the run ends
        yield from _chunk_all(items, config, workers, on_error)


def _chunk_all(items: Iterator[tuple[Path, str]], config: ChunkerConfig, workers: int,
               on_error: Callable[[Path, InputError], None] | None
               ) -> Iterator[tuple[Path, list[Chunk]]]:
    if workers == 1:
        chunker = Chunker(config)
        for path, name in items:
            try:
                chunks = _chunk_one(chunker, path, name)
            except InputError as exc:
                if on_error is None:
                    raise
                on_error(path, exc)
                continue
            yield path, chunks
        return
    yield from _parallel(items, config, workers, on_error)


def _doc_id(path: Path, root: Path | None) -> str:
    if root is None:
        return path.as_posix()
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _chunk_one(chunker: Chunker, path: Path, doc_id: str) -> list[Chunk]:
    """Chunk one file; any mdchunk error comes back as an InputError that names the file."""
    try:
        return chunker.chunk_file(path, doc_id=doc_id)
    except MdchunkError as exc:
        message = str(exc)
        kind = type(exc) if isinstance(exc, InputError) else InputError
        if str(path) in message or doc_id in message.split(":", 1)[0]:
            raise kind(message) from exc
        raise kind(f"{path}: {message}") from exc


def _init_worker(config: ChunkerConfig) -> None:
    global _worker_chunker  # noqa: PLW0603  (set once per worker process by the pool initializer)
    _worker_chunker = Chunker(config)


def _work(task: list[tuple[str, str]]) -> _TaskResult:
    """Chunk a task's files in a worker; errors are returned per file, not raised."""
    assert _worker_chunker is not None, "worker not initialised"
    out: list[tuple[str, list[Chunk] | InputError]] = []
    with include_run(say=False) as left_out:  # sent to the parent's run, said there
        for path, name in task:
            try:
                out.append((path, _chunk_one(_worker_chunker, Path(path), name)))
            except InputError as exc:
                out.append((path, type(exc)(str(exc))))  # a plain copy pickles without a chain
            except Exception as exc:  # an unexpected bug: report it with the file, keep its type
                out.append((path, InputError(f"{path}: {type(exc).__name__}: {exc}")))
    return out, list(left_out.notes.items())


def _tasks(items: Iterator[tuple[Path, str]]) -> Iterator[list[tuple[str, str]]]:
    """Group files into tasks of about ``_TASK_BYTES`` (sizes from ``stat``, nothing is read)."""
    task: list[tuple[str, str]] = []
    size = 0
    for path, name in items:
        try:
            size += path.stat().st_size
        except OSError:
            pass  # the worker reports the unreadable file by name
        task.append((str(path), name))
        if size >= _TASK_BYTES or len(task) >= _TASK_FILES:
            yield task
            task, size = [], 0
    if task:
        yield task


def _parallel(items: Iterator[tuple[Path, str]], config: ChunkerConfig, workers: int,
              on_error: Callable[[Path, InputError], None] | None
              ) -> Iterator[tuple[Path, list[Chunk]]]:
    Chunker(config)  # fail fast on a bad config, and load the tokenizer before workers fork
    tasks = _tasks(items)
    pending: deque[Future[_TaskResult]] = deque()
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                             initargs=(config,)) as pool:
        try:
            for task in tasks:
                pending.append(pool.submit(_work, task))
                if len(pending) >= workers * _WINDOW:
                    yield from _results(pending.popleft(), on_error)
            while pending:
                yield from _results(pending.popleft(), on_error)
        finally:
            for future in pending:
                future.cancel()


def _results(future: Future[_TaskResult], on_error: Callable[[Path, InputError], None] | None
             ) -> Iterator[tuple[Path, list[Chunk]]]:
    results, notes = future.result()
    note_all(notes)
    for path, result in results:
        if isinstance(result, InputError):
            if on_error is None:
                raise result
            on_error(Path(path), result)
            continue
        yield Path(path), result
