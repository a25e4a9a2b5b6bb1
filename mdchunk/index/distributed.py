"""Indexing on a Ray cluster (``pip install 'mdchunk[ray]'``): :class:`RayEngine` is an
:class:`~mdchunk.index.engine.Engine` that chunks in Ray Data tasks and embeds on a pool of
actors; planning and every write stay with the driver. How, and how to deploy it: docs/ray.md."""

from __future__ import annotations

import logging
import math
import pickle
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..chunks.includes import include_run, note_all
from ..embedding import Embedder, backend_of, export_of
from ..errors import ConfigError, DependencyError
from ..sources import Source
from .engine import Prepared, Preparer

if TYPE_CHECKING:
    import numpy as np

    from .applying import IndexReport

__all__ = ["RayEngine", "index_paths_ray"]

log = logging.getLogger(__name__)

_EXTRA_HINT = "pip install 'mdchunk[ray]'"
#: CPUs a chunking task asks for. Embedding actors ask for the rest (at most one each): actors
#: holding every CPU would leave the tasks that feed them unscheduled for ever.
_TASK_CPUS = 0.5


def _ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise DependencyError(f"--engine ray needs Ray: {_EXTRA_HINT}") from exc
    return ray


class _EmbedActor:
    """One model, loaded on first use in the actor's process."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed(texts)


class _PoolEmbedder:
    """The run's embedder on the driver: the model's identity, the actors' work."""

    def __init__(self, embedder: Embedder, actors: list[Any]) -> None:
        self.name, self.dim = embedder.name, embedder.dim
        self.max_tokens, self.tokenizer = embedder.max_tokens, embedder.tokenizer
        self.backend, self.export = backend_of(embedder), export_of(embedder)
        self.actors = actors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np
        from ray.util import ActorPool

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        order = sorted(range(len(texts)), key=lambda i: (-len(texts[i]), i))
        size = max(1, math.ceil(len(texts) / (2 * len(self.actors))))
        shards = [order[i:i + size] for i in range(0, len(order), size)]
        pool = ActorPool(self.actors)
        results = pool.map(lambda actor, shard: actor.embed.remote([texts[i] for i in shard]),
                           shards)
        for shard, vectors in zip(shards, results):
            out[shard] = vectors
        return out


def _prepare_batch(batch: dict[str, Any], preparer: Preparer) -> dict[str, Any]:
    """A Ray Data task: prepare each file of ``batch``; results pickled (chunks are objects),
    each with the includes its page left out, for the run to say (:func:`_unpacked`)."""
    import numpy as np

    out = []
    for doc_id, path, file, digest, known in zip(batch["doc_id"], batch["path"], batch["file"],
                                                 batch["digest"], batch["known"]):
        source = Source(str(doc_id), str(path), Path(str(file)))
        with include_run(say=False) as left_out:
            prepared = preparer.prepared(source, str(digest), bool(known))
        out.append(pickle.dumps((prepared, list(left_out.notes.items()))))
    return {"i": batch["i"], "prepared": np.array(out, dtype=object)}


def _unpacked(row: Any) -> Prepared:
    """A prepared file back from a task, what its page left out noted in the run here."""
    prepared, notes = pickle.loads(row)
    note_all(notes)
    return prepared  # type: ignore[no-any-return]


class RayEngine:
    """Chunk and embed on a Ray cluster. ``address`` is the cluster's (``ray://host:10001``,
    ``auto``, or ``None``: the one connected to, else a new local one); ``workers`` the
    embedding actors (default: one per GPU, else one per CPU but one); ``gpus=False`` keeps the
    model on CPUs."""

    def __init__(self, address: str | None = None, *, workers: int | None = None,
                 gpus: bool = True, files_per_task: int = 16) -> None:
        if workers is not None and workers < 1:
            raise ConfigError(f"workers={workers} must be at least 1")
        self.address = address
        self.workers = workers
        self.gpus = gpus
        self.files_per_task = max(1, files_per_task)

    def _connect(self) -> bool:
        """Connect to the cluster unless already connected; whether this call connected."""
        ray = _ray()
        if ray.is_initialized():
            return False
        try:
            ray.init(address=self.address, logging_level=logging.WARNING, log_to_driver=False)
        except Exception as exc:  # connection refused, bad address: many exception types
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise DependencyError(f"Ray cluster at {self.address or 'a new local cluster'}: "
                                  f"cannot connect: {first}") from exc
        return True

    @contextmanager
    def start(self, embedder: Embedder) -> Iterator[Embedder]:
        ray = _ray()
        connected = self._connect()
        actors: list[Any] = []
        try:
            resources = ray.cluster_resources()
            gpus = int(resources.get("GPU", 0)) if self.gpus else 0
            cpus = int(resources.get("CPU", 1))
            workers = self.workers or (gpus if gpus else max(1, cpus - 1))
            # Leave the chunking tasks their share (_TASK_CPUS) or they would never be scheduled.
            share = min(1.0, max(cpus - _TASK_CPUS, _TASK_CPUS) / workers)
            options = {"num_gpus": 1, "num_cpus": 0} if gpus else {"num_cpus": share}
            actor_class = ray.remote(**options)(_EmbedActor)
            actors = [actor_class.remote(embedder) for _ in range(workers)]
            log.info("embedding on %d Ray actors (%s)", workers, "GPU" if gpus else "CPU")
            yield _PoolEmbedder(embedder, actors)
        finally:
            for actor in actors:
                ray.kill(actor)
            if connected:
                ray.shutdown()

    def prepare(self, preparer: Preparer, todo: Sequence[tuple[Source, str, bool]]
                ) -> Iterator[Prepared]:
        if not todo:
            return
        ray = _ray()
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True  # the plan's order, as a local run
        context.enable_progress_bars = False
        items = [{"i": i, "doc_id": s.doc_id, "path": s.path, "file": str(s.file),
                  "digest": digest, "known": known} for i, (s, digest, known) in enumerate(todo)]
        blocks = max(1, math.ceil(len(items) / self.files_per_task))
        dataset = ray.data.from_items(items, override_num_blocks=blocks).map_batches(
            _prepare_batch, fn_args=(preparer,), batch_size=None, num_cpus=_TASK_CPUS)
        for expected, row in enumerate(dataset.iter_rows()):
            assert row["i"] == expected, "Ray Data returned the documents out of order"
            yield _unpacked(row["prepared"])


def index_paths_ray(paths: Iterable[str | Path], *, address: str | None = None,
                    workers: int | None = None, **kwargs: Any) -> IndexReport:
    """:func:`~mdchunk.index.index_paths` on a Ray cluster at ``address`` with ``workers``
    embedding actors (see :class:`RayEngine`); every other argument is index_paths' own."""
    from .indexer import index_paths

    return index_paths(paths, engine=RayEngine(address, workers=workers), **kwargs)
