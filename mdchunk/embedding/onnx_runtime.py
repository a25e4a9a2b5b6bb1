"""An exported model run by onnxruntime, tokenized by the ``tokenizers`` library: no torch,
no transformers at run time (the export is :mod:`.onnx_export`)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .resolve import write_whole

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CHECKED", "FILES", "Export", "OnnxSession", "available_cores", "checksum",
           "onnx_session", "read_json"]

#: The export's model files: fp32 and int8.
FILES = {False: "model.onnx", True: "model.int8.onnx"}
#: The files' sizes, times and inodes when their checksums last matched (:meth:`Export.intact`).
CHECKED = "checked.json"


def checksum(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, lambda: hashlib.blake2b(digest_size=16)).hexdigest()


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity: a container's or ``taskset``'s
    share, not the machine's count, which would start threads that only wait their turn)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _stat_of(path: Path) -> list[str | int]:
    """What changes when a file is written to, truncated or replaced."""
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


class Export:
    """A cached export: its folder, inputs and settings (``export.json``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        record = read_json(folder / "export.json")
        self.inputs: tuple[str, ...] = tuple(record["inputs"])
        self.max_seq_length: int = int(record["max_seq_length"])
        self.lower: bool = bool(record["do_lower_case"])
        self.files: dict[str, str] = dict(record["files"])

    def model_file(self, quantized: bool) -> Path:
        return self.folder / FILES[quantized]

    @property
    def tokenizer_file(self) -> Path:
        return self.folder / "tokenizer.json"

    def intact(self) -> bool:
        """Whether every file is there with the checksum recorded when it was written. A check
        that passes keeps each file's checksum, size, times and inode (:data:`CHECKED`), and a
        later check that finds them unchanged trusts it rather than hash 150 MB again on every
        search."""
        try:
            seen = {name: [digest, *_stat_of(self.folder / name)]
                    for name, digest in self.files.items()}
        except OSError:
            return False
        checked = self.folder / CHECKED
        try:
            if read_json(checked) == seen:
                return True
        except (OSError, ValueError):
            pass
        try:
            if not all(checksum(self.folder / name) == digest
                       for name, digest in self.files.items()):
                return False
        except OSError:
            return False
        write_whole(checked, lambda handle: handle.write(json.dumps(seen).encode()))
        return True


class OnnxSession:
    """One exported model (fp32 or int8) in an onnxruntime session on the CPU. Texts are
    tokenized once (:meth:`encodings`), so that their lengths order the batches. Each forward
    pass runs on one thread, and ``workers`` passes (default: one per core this process may use)
    run at once on different batches: splitting each pass's tiny operators over the cores lost
    time waking threads, and a vector does not depend on its batch."""

    def __init__(self, export: Export, *, quantized: bool, threads: int = 1,
                 workers: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1  # the graph is one chain: nothing to run beside it
        options.log_severity_level = 3  # errors only
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Idle threads sleep instead of spinning: on shared cores a spinning pool burns the CPU
        # time other work needs, and the throughput per CPU second drops.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(export.model_file(quantized)), options,
                                            providers=["CPUExecutionProvider"])
        self.workers = workers or available_cores()
        self.inputs = export.inputs
        self.lower = export.lower
        self.tokenizer = Tokenizer.from_file(str(export.tokenizer_file))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(export.max_seq_length)
        padding = self.tokenizer.padding or {}
        self.pad_id = int(padding.get("pad_id", 0))

    def encodings(self, texts: Sequence[str]) -> list[Any]:
        """Each text's tokens (special tokens in, cut at the model's window)."""
        return list(self.tokenizer.encode_batch(
            [t.lower() for t in texts] if self.lower else list(texts)))

    def encode(self, encodings: Sequence[Any]) -> np.ndarray:
        """Unit-length float32 vectors of tokenized texts, in one forward pass."""
        import numpy as np

        width = max(len(e.ids) for e in encodings)
        arrays = {"input_ids": np.full((len(encodings), width), self.pad_id, dtype=np.int64),
                  "attention_mask": np.zeros((len(encodings), width), dtype=np.int64),
                  "token_type_ids": np.zeros((len(encodings), width), dtype=np.int64)}
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            arrays["input_ids"][row, :n] = encoding.ids
            arrays["attention_mask"][row, :n] = 1
            arrays["token_type_ids"][row, :n] = encoding.type_ids
        out = self.session.run(None, {name: arrays[name] for name in self.inputs})[0]
        vectors: np.ndarray = np.asarray(out, dtype=np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors

    def encode_batches(self, encodings: Sequence[Any], batches: Sequence[list[int]]
                       ) -> Iterator[tuple[list[int], np.ndarray]]:
        """Each batch (indices into ``encodings``) with its vectors, in order; up to
        :attr:`workers` batches run at once (onnxruntime releases the GIL while it runs)."""
        def run(batch: list[int]) -> np.ndarray:
            return self.encode([encodings[i] for i in batch])

        if self.workers == 1 or len(batches) == 1:
            yield from ((batch, run(batch)) for batch in batches)
            return
        with ThreadPoolExecutor(min(self.workers, len(batches))) as pool:
            yield from zip(batches, pool.map(run, batches), strict=True)


@functools.lru_cache(maxsize=4)
def onnx_session(folder: Path, quantized: bool) -> OnnxSession:
    """One session per export and process (a session takes memory and a second to load)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return OnnxSession(Export(folder), quantized=quantized)
