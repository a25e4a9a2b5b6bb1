"""One writer per index: a second ``mdchunk index`` run waits for the first, or stops (two would
each plan from a manifest the other is changing).

A Milvus Lite file is locked by an advisory ``fcntl`` lock on ``<db>.lock`` beside it: the
kernel releases it when the holder exits, even by SIGKILL. The file stays (removing it would
race with a run about to lock it) and holds the last run's pid, host and start time, for the
refusal message.

A server's lock lives in the server (a :class:`LockTable`): one row per collection, with the
holder and a heartbeat a thread renews. With no compare-and-swap, a run takes the lock by
writing its row, waiting ``settle`` seconds and reading it back: of two runs that both found
it free, the last writer holds it. A heartbeat older than ``stale_after`` belongs to a run that
died and is taken over, with a warning (the machines' clocks must agree to well within that);
a holder whose row was taken over stops before its next write."""

from __future__ import annotations

import fcntl
import logging
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import LockedError, StoreError
from .config import StoreConfig
from .store import ChunkStore, LockTable
from .stores import open_store, store_package

__all__ = ["LockTable", "ServerLock", "index_lock", "lock_path", "server_lock", "writing_store"]

log = logging.getLogger(__name__)

#: Seconds between two attempts while waiting for another run.
_POLL = 0.2


def lock_path(db: str) -> Path:
    """Where the lock of a Milvus Lite file lives: beside it, ``<db>.lock``."""
    return Path(f"{db}.lock")


#: The pid and host at the start of a line :func:`_owner` wrote.
_OWNER_LINE = re.compile(r"pid (\d+) on (\S+?),")


def _owner() -> str:
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"pid {os.getpid()} on {socket.gethostname()}, since {started}"


@contextmanager
def index_lock(db: str, collection: str, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the index at ``db`` for one writing run; wait up to ``wait`` seconds for another
    run to finish, then raise :class:`~mdchunk.errors.LockedError` naming it. Only a store's local
    file is locked here; a server keeps its locks itself (:func:`server_lock`)."""
    local = store_package(db).local_file(db)
    if local is None:
        yield
        return
    path = lock_path(local)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(f"{path}: cannot create the index's lock file: "
                         f"{(exc.strerror or str(exc)).lower()}") from exc
    try:
        deadline = time.monotonic() + max(wait, 0.0)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _holder(fd)
                    waited = f" after waiting {wait:g}s" if wait > 0 else ""
                    raise LockedError(
                        f"{db}: another mdchunk index run is writing to this index ({holder})"
                        f"{waited}; let it finish, or pass --wait SECONDS") from None
                time.sleep(_POLL)
        line = f"{_owner()}, collection {collection!r}\n".encode()
        os.pwrite(fd, line, 0)  # then cut the last run's longer line: never an empty file
        os.ftruncate(fd, len(line))
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _holder(fd: int, patience: float = 1.0) -> str:
    """Who holds the lock, as its line says. The holder writes that line just after taking the
    lock; until then the file names the run before it, which has exited. So a line naming a
    process of this host that is gone is read again, for up to ``patience`` seconds."""
    deadline = time.monotonic() + patience
    while True:
        line = _read(fd)
        if line and _may_be_running(line):
            return line
        if time.monotonic() >= deadline:
            return "another process"
        time.sleep(0.02)


def _may_be_running(line: str) -> bool:
    """False only for a line naming a pid of this host that no process has."""
    match = _OWNER_LINE.match(line)
    if match is None or match.group(2) != socket.gethostname():
        return True  # another machine sharing the folder: nothing to check here
    try:
        os.kill(int(match.group(1)), 0)
    except ProcessLookupError:
        return False
    except OSError:  # a process of another user: it exists
        return True
    return True


def _read(fd: int) -> str:
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
    except OSError:
        return ""
    return text.splitlines()[0].strip() if text.strip() else ""


class ServerLock:
    """The write lock of one collection on a server (see the module docstring)."""

    def __init__(self, table: LockTable, name: str, *, heartbeat: float = 10.0,
                 stale_after: float = 60.0, settle: float = 1.0) -> None:
        self.table, self.name = table, name
        self.heartbeat, self.stale_after, self.settle = heartbeat, stale_after, settle
        self.owner = f"pid {os.getpid()} on {socket.gethostname()} [{uuid.uuid4().hex[:8]}]"
        self.lost = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _read(self) -> dict[str, Any] | None:
        return self.table.read(self.name)

    def _write(self) -> None:
        self.table.write(self.name, self.owner, _now_ms())

    # -- taking, keeping, giving back -------------------------------------------------------

    def acquire(self, wait: float = 0.0) -> None:
        self.table.prepare()
        deadline = time.monotonic() + max(wait, 0.0)
        while True:
            row = self._read()
            age = (_now_ms() - row["heartbeat"]) / 1000 if row else 0.0
            if row is None or row["owner"] == self.owner or age > self.stale_after:
                if row is not None and row["owner"] != self.owner:
                    log.warning("%s: taking over the lock of collection %r from %s, "
                                "silent for %.0fs (a run that died)", self.table.where, self.name,
                                row["owner"], age)
                self._write()
                time.sleep(self.settle)
                row = self._read()
                if row is not None and row["owner"] == self.owner:
                    break
                continue  # another run wrote after us: it holds the lock
            if time.monotonic() >= deadline:
                waited = f" after waiting {wait:g}s" if wait > 0 else ""
                raise LockedError(
                    f"{self.table.where}: collection {self.name!r} is being indexed by "
                    f"another run ({row['owner']}, last heard from {age:.0f}s ago){waited}; let it "
                    "finish, or pass --wait SECONDS")
            time.sleep(min(self.settle, max(deadline - time.monotonic(), 0.05)))
        self._thread = threading.Thread(target=self._beat, name="mdchunk-lock", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat):
            try:
                row = self._read()
                if row is None or row["owner"] != self.owner:
                    self.lost = row["owner"] if row else "nobody (the lock was removed)"
                    return
                self._write()
            except StoreError as exc:  # the run's own calls will fail and say why
                log.debug("lock heartbeat failed: %s", exc)

    def check(self) -> None:
        """Raise :class:`~mdchunk.errors.LockedError` if another run took the lock over."""
        if self.lost:
            raise LockedError(f"{self.table.where}: collection {self.name!r}: this run's "
                              f"lock was taken over by {self.lost} (this run was silent for "
                              f"over {self.stale_after:g}s); stopped before writing more")

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        try:
            row = self._read()
            if row is not None and row["owner"] == self.owner:
                self.table.delete(self.name)
        except StoreError as exc:  # it goes stale and is taken over
            log.warning("%s", exc)


class _NoLock:
    def check(self) -> None:
        pass


@contextmanager
def server_lock(store: ChunkStore, *, wait: float = 0.0) -> Iterator[ServerLock | _NoLock]:
    """Hold ``store``'s collection on a server for one writing run (a Lite file is locked by
    :func:`index_lock` before it is opened); yields an object whose ``check()`` raises once the
    lock was lost."""
    table = store.lock_table()
    if table is None:
        yield _NoLock()
        return
    lock = ServerLock(table, store.collection)
    lock.acquire(wait)
    try:
        yield lock
    finally:
        lock.release()


@contextmanager
def writing_store(config: StoreConfig, *, wait: float = 0.0
                  ) -> Iterator[tuple[ChunkStore, ServerLock | _NoLock]]:
    """The store of ``config`` (:func:`~mdchunk.index.stores.open_store`), opened and held for
    one writing run: its local file locked before it is opened (:func:`index_lock`), its
    server's lock taken after (:func:`server_lock`), each waiting up to ``wait`` seconds.
    Yields the store and the server lock, whose ``check()`` says when it was lost."""
    with index_lock(config.db, config.collection, wait=wait), \
            closing(open_store(config)) as store, server_lock(store, wait=wait) as lock:
        yield store, lock


def _now_ms() -> int:
    return int(time.time() * 1000)
