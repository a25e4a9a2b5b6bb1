"""``POST /v1/index`` and ``GET /v1/jobs/{id}``: indexing as a job, off unless the server was
started with ``allow_index``, reading only under the roots it was given (a path with ``..``,
outside every root, or a file that is a symlink leading out is refused), one job at a time (a
second one, or a run holding the index's lock, is answered 409)."""

from __future__ import annotations

import dataclasses
import threading
import uuid
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request

from ..errors import InputError, LockedError
from ..index.config import IndexConfig
from ..index.lock import index_lock
from ..sources import discover
from .api import ERRORS, state_of
from .models import IndexRequest, JobResponse
from .service import NotFound

if TYPE_CHECKING:
    from .state import ServerState

__all__ = ["Jobs", "add_index_routes", "checked_paths"]


class Forbidden(PermissionError):
    """Indexing is off on this server: answered 403."""


def checked_paths(paths: list[str], roots: tuple[Path, ...]) -> list[Path]:
    """``paths`` (relative ones are read from the first root) when each, and every file under
    it, lies inside one of ``roots`` once symlinks are followed; :class:`InputError` naming
    the first that does not."""
    checked = []
    for given in paths:
        if ".." in PurePath(given).parts:
            raise InputError(f"{given}: '..' is not allowed in a path to index")
        path = Path(given) if Path(given).is_absolute() else roots[0] / given
        if not _inside(path.resolve(), roots):
            raise InputError(f"{given}: outside the folders this server may index")
        if not path.exists():
            raise InputError(f"{given}: no such file or folder")
        for source in discover([path]):
            if not _inside(source.file.resolve(), roots):
                raise InputError(f"{source.path}: leads outside the folders this server may "
                                 "index")
        checked.append(path)
    return checked


def _inside(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


class Jobs:
    """The indexing jobs of one server, run one at a time on a thread of their own."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mdchunk-index")
        self._jobs: dict[str, Future[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def start(self, paths: list[str], metadata: Mapping[str, Any] | None = None) -> str:
        """Start indexing ``paths`` with ``metadata`` (as ``index --meta`` gives it); the
        job's id."""
        config = self.state.config
        if not config.allow_index:
            raise Forbidden("indexing is off on this server (start it with --allow-index)")
        checked = checked_paths(paths, config.index_roots)
        run = IndexConfig(config.chunker, embedder=config.embedder, store=config.store,
                          prune=False, rebuild=False, metadata=metadata or {})
        with self._lock:
            if any(not job.done() for job in self._jobs.values()):
                raise LockedError("an indexing job of this server is running; wait for it")
            with index_lock(config.store.db, config.store.collection):
                pass  # another process's run holds it: refused now, not later in the job
            job_id = uuid.uuid4().hex
            self._jobs[job_id] = self._pool.submit(self._run, checked, run)
        return job_id

    def _run(self, paths: list[Path], run: IndexConfig) -> dict[str, Any]:
        from ..index import index_paths

        report = index_paths(paths, config=run)
        self.state.service.refresh()
        return dataclasses.asdict(report)

    def status(self, job_id: str) -> JobResponse:
        job = self._jobs.get(job_id)
        if job is None:
            raise NotFound(f"no job {job_id!r}")
        if not job.done():
            return JobResponse(id=job_id, state="running")
        error = job.exception()
        if error is not None:
            return JobResponse(id=job_id, state="failed", error=str(error).splitlines()[0])
        return JobResponse(id=job_id, state="done", report=job.result())

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)


def add_index_routes(app: FastAPI, state: ServerState) -> Jobs:
    """The two routes, over a new :class:`Jobs` (returned, for the app to shut down)."""
    jobs = Jobs(state)
    responses: dict[int | str, dict[str, Any]] = {
        **ERRORS, 403: ERRORS[401] | {"description": "Indexing is off"},
        409: ERRORS[401] | {"description": "Another run is indexing"}}

    @app.post("/v1/index", status_code=202, responses=responses)
    def index(body: IndexRequest, request: Request) -> JobResponse:
        """Index ``paths`` (under the server's roots) as a job, each chunk given
        ``metadata`` as ``mdchunk index --meta`` gives it; its report at ``/v1/jobs/{id}``."""
        state_of(request).service  # noqa: B018  (503 while the index opens)
        return JobResponse(id=jobs.start(body.paths, body.metadata), state="running")

    @app.get("/v1/jobs/{job_id}", responses=ERRORS)
    def job(job_id: str) -> JobResponse:
        """An indexing job: running, done (with its ``IndexReport``) or failed."""
        return jobs.status(job_id)

    return jobs
