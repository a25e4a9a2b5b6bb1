"""One writer per index: a second ``mdchunk index`` run waits for the first, or stops.

Two runs writing the same collection at once would each plan from a manifest the other is
changing (and Milvus Lite lets only one process open a file at all, with an obscure error).
For a Milvus Lite file the lock is an advisory ``fcntl`` lock on ``<db>.lock`` beside it: the
kernel releases it when the holder exits, even by SIGKILL, so a crashed run never leaves a stale
lock. The file stays (removing it would race with a run about to lock it); it holds the pid,
host and start time of the last run, which the refusal message quotes.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from ..errors import LockedError, StoreError
from .milvus import is_local

__all__ = ["index_lock", "lock_path"]

#: Seconds between two attempts while waiting for another run.
_POLL = 0.2


def lock_path(db: str) -> Path:
    """Where the lock of a Milvus Lite file lives: beside it, ``<db>.lock``."""
    return Path(f"{db}.lock")


def _owner() -> str:
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"pid {os.getpid()} on {socket.gethostname()}, since {started}"


@contextmanager
def index_lock(db: str, collection: str, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the index at ``db`` for one writing run; wait up to ``wait`` seconds for another
    run to finish, then raise :class:`~mdchunk.errors.LockedError` naming it.

    A server URI is not locked here (a server is shared by many machines).
    """
    if not is_local(db):
        yield
        return
    path = lock_path(db)
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
                    holder = _read(fd) or "another process"
                    waited = f" after waiting {wait:g}s" if wait > 0 else ""
                    raise LockedError(
                        f"{db}: another mdchunk index run is writing to this index ({holder})"
                        f"{waited}; let it finish, or pass --wait SECONDS") from None
                time.sleep(_POLL)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{_owner()}, collection {collection!r}".encode(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _read(fd: int) -> str:
    try:
        return os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
