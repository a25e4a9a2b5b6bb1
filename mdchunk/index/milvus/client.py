"""A connection to Milvus (a Lite file or a server) and the one-line errors its failures become.

:class:`~.store.MilvusStore` holds one client from :func:`connect` and runs every call inside
:func:`errors`, so a user sees ``Milvus at URI: what failed: why`` and never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...errors import DependencyError, StoreError
from .collections import is_local

__all__ = ["connect", "errors", "race_expected"]

_EXTRA_HINT = "pip install 'mdchunk[milvus]'"
# A channel of our own, closed with the store, that does not ping while idle. pymilvus shares one
# channel per address for the whole process and pings it every 10 s even with no call under way;
# a gRPC server with default settings (the ``milvus-lite server``) answers a quiet client's
# pings with GOAWAY "too_many_pings", and the next call on the shared channel then fails.
_GRPC_OPTIONS = {"grpc.keepalive_permit_without_calls": False, "grpc.keepalive_time_ms": 60_000}


def connect(uri: str, token: str | None, timeout: float) -> Any:
    """A dedicated :class:`pymilvus.MilvusClient` for ``uri``; raises
    :class:`~mdchunk.errors.DependencyError` naming the extra to install when pymilvus (or,
    for a local file, milvus-lite) is missing, and :class:`StoreError` when it cannot connect."""
    try:
        import pymilvus
    except ImportError as exc:
        raise DependencyError(f"writing to Milvus needs pymilvus: {_EXTRA_HINT}") from exc
    if is_local(uri):
        try:
            import milvus_lite  # noqa: F401  (pymilvus needs it for a .db path)
        except ImportError as exc:
            raise DependencyError(f"{uri}: a local Milvus Lite file needs milvus-lite: "
                                  f"{_EXTRA_HINT}") from exc
    try:
        with errors(uri, "cannot connect"):
            return pymilvus.MilvusClient(uri=uri, token=token or "", timeout=timeout,
                                         dedicated=True, grpc_options=_GRPC_OPTIONS)
    except StoreError as exc:
        if is_local(uri) and _lite_in_use(uri):
            raise StoreError(f"{uri}: the Milvus Lite file is open in another process (Milvus "
                             "Lite opens a file in one process at a time); try again when "
                             "it is done, or use a Milvus server") from exc
        raise


@contextmanager
def errors(uri: str, action: str) -> Iterator[None]:
    """Turn any client failure into a one-line :class:`StoreError` naming the URI."""
    try:
        yield
    except StoreError:
        raise
    except Exception as exc:  # pymilvus raises MilvusException, grpc errors, OSError, ...
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        first = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
        raise StoreError(f"Milvus at {uri}: {action}: {first}") from exc


def _lite_in_use(uri: str) -> bool:
    """Whether another process holds Milvus Lite's own lock on the file (``<uri>/LOCK``)."""
    import fcntl
    import os

    try:
        fd = os.open(os.path.join(uri, "LOCK"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


@contextmanager
def race_expected() -> Iterator[None]:
    """pymilvus's own error log silenced inside: for a call that another run may have made
    first (creating a shared collection or index), whose failure the caller checks and
    accepts. pymilvus logs every failed call with a traceback before raising, which would
    put a traceback above the user's one-line message for a race that was no error."""
    logger = logging.getLogger("pymilvus.decorators")
    was = logger.disabled
    logger.disabled = True
    try:
        yield
    finally:
        logger.disabled = was
