"""A sentence-transformers model as ONNX, fp32 and int8, exported once and cached (the cache,
its key and the fallback to torch: README.md, "Models, languages and fusion" and below).

Traced by ``torch.onnx.export`` (no ``optimum``, so no pin on ``transformers``) with plain
("eager") attention: the fused kernel's trace carries NaN guards that cost a sixth of the int8
run time. Only the matrix products' weights become int8, per channel and held to seven bits
(``reduce_range``) so that the vectors are the same on every x86 CPU (without VNNI, onnxruntime
sums pairs of products into 16 bits, which full-range weights overflow); :mod:`.int8_rows`
scales the activations row by row. ``export.json``, written last, records each file's
checksum; an export is checked against torch before it is kept."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ..errors import DependencyError
from .int8_rows import RowQuantizationError, quantize_rows
from .onnx_runtime import FILES, Export, OnnxSession, checksum, read_json
from .resolve import cache_home, model_folder
from .torch_runtime import load_model

__all__ = ["EXPORTER_VERSION", "ONNX_HINT", "QUANTIZED_OPS", "Export", "Unexportable",
           "cache_key", "cache_root", "export_of_model", "exported", "rebuild", "unsupported"]

log = logging.getLogger(__name__)

#: Bumped whenever what is exported changes (graph, opset, quantization): old caches are left,
#: and a collection records the version its vectors came from (``IndexMeta.export``), so that
#: it is rebuilt rather than mixed. 2: the word embeddings are no longer quantized. 3: eager
#: attention traced, int8 activations scaled per row (:mod:`.int8_rows`). 4: seven-bit weights.
EXPORTER_VERSION = "4"
#: The operators whose weights become int8 (matrix products: nearly all of the arithmetic).
QUANTIZED_OPS = ("MatMul",)
ONNX_HINT = "pip install 'mdchunk[onnx]'"
#: The sentence-transformers modules the exported graph is known to reproduce.
_MODULES = ("Transformer", "Pooling", "Dense", "Normalize")
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_OPSET = 17
#: Texts an export is checked on: short and long, so that padding is exercised.
_PROBES = ("disk full", "Restart the worker when the queue backs up, then watch the lag.",
           "When a streaming replica falls behind the primary, pg_stat_replication shows a "
           "growing replay_lag, WAL piles up on the primary and the disk fills; check the "
           "network between them and any long transaction holding back the xmin horizon.")
#: Texts an export is checked on: another batch, of other lengths, than the one traced, so that
#: a shape the tracer froze would show.
_CHECKS = ("Promote the standby with pg_ctl promote when the primary is lost.", "ok",
           "Eviction starts when used_memory reaches maxmemory; allkeys-lru drops the least "
           "recently used keys first.", "Rotate the TLS certificate and reload nginx " * 12)
#: The quantizer's int8 file, before :mod:`.int8_rows` rewrites it into the export's.
_DYNAMIC = "model.int8.dynamic.onnx"
_AGREEMENT = 0.999  # least cosine of the fp32 export to torch on the probes
_SAMPLE = 1 << 20  # bytes read from each end of a large model file for the cache key


class Unexportable(Exception):
    """The model cannot be run as ONNX here; the message says why, in a few words."""


def cache_root() -> Path:
    """Where exports are cached: ``onnx`` in :func:`~.resolve.cache_home`."""
    return cache_home() / "onnx"


def _model_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and not p.relative_to(folder).parts[0].startswith(("onnx", "."))
                  and "openvino" not in p.relative_to(folder).parts[0])


def cache_key(folder: Path) -> str:
    """A hash of the model's files (names, sizes, and the content of small files, both ends of
    large ones: cheap on a 2 GB model) and of the exporter's version."""
    digest = hashlib.blake2b(f"mdchunk-onnx {EXPORTER_VERSION}".encode(), digest_size=12)
    for path in _model_files(folder):
        size = path.stat().st_size
        digest.update(f"{path.relative_to(folder).as_posix()}\0{size}\0".encode())
        with path.open("rb") as handle:
            digest.update(handle.read(_SAMPLE))
            if size > 2 * _SAMPLE:
                handle.seek(-_SAMPLE, os.SEEK_END)
                digest.update(handle.read(_SAMPLE))
    return digest.hexdigest()


def unsupported(folder: Path) -> str | None:
    """Why a model folder cannot be exported, read from its config files alone; None when its
    layout is one the exporter handles."""
    try:
        modules = read_json(folder / "modules.json")
        kinds = [module["type"].rsplit(".", 1)[-1] for module in modules]
    except (OSError, ValueError, KeyError, TypeError):
        return "it has no readable modules.json (not a sentence-transformers folder)"
    odd = [kind for kind in kinds if kind not in _MODULES]
    if odd:
        return f"its {', '.join(odd)} module{'s' if len(odd) > 1 else ''} cannot be exported"
    if not kinds or kinds[0] != "Transformer":
        return "its first module is not a Transformer"
    if not (folder / "tokenizer.json").is_file():
        return "it has no tokenizer.json (a fast tokenizer) to run it without transformers"
    return None


def _valid(folder: Path) -> Export | None:
    try:
        export = Export(folder)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return export if export.intact() else None


def exported(folder: Path, name: str, *, quantized: bool) -> Export:
    """The cached export of the model in ``folder`` (``name``: how to call it in messages),
    made now when there is none and rebuilt, with one warning, when the cache is broken.
    Raises :class:`Unexportable` when the model cannot be exported (nothing is cached then)."""
    reason = unsupported(folder)
    if reason:
        raise Unexportable(reason)
    target = cache_root() / cache_key(folder)
    if target.exists():
        export = _valid(target)
        if export is not None:
            return export
        log.warning("the ONNX cache of %s at %s is broken (a file is missing or does not match "
                    "its checksum): exporting it again", name, target)
    else:
        log.info("exporting %s to ONNX %s (once) into %s", name,
                 "int8" if quantized else "fp32", target)
    return rebuild(folder, target)


@functools.lru_cache(maxsize=16)
def _say_fallback(name: str, reason: str) -> None:
    log.warning("%s cannot run on ONNX (%s): embedding with torch", name, reason)


@functools.lru_cache(maxsize=8)
def export_of_model(source: str, name: str, quantized: bool) -> Export | None:
    """The ONNX export of the model at ``source`` (a folder, or a hub name in the local cache),
    made and cached on first use, or None when it cannot be exported: said once, with why.
    Once per process and model."""
    if find_spec("onnxruntime") is None or find_spec("onnx") is None:
        raise DependencyError(f"the ONNX backends need onnxruntime and onnx: {ONNX_HINT}")
    folder = model_folder(source)
    try:
        if folder is None:
            raise Unexportable("its files are not in the local model cache")
        return exported(folder, name, quantized=quantized)
    except Unexportable as exc:
        _say_fallback(name, str(exc))
        return None


def rebuild(folder: Path, target: Path) -> Export:
    """Export into a fresh folder beside ``target``, then move it into place (a reader never
    sees half an export; of two processes exporting at once, one's result is kept)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        _export(folder, work)
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(work, target)
        except OSError:  # another process put its export there first
            if _valid(target) is None:
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    export = _valid(target)
    if export is None:
        raise Unexportable(f"its export in {target} could not be read back")
    return export


def _export(folder: Path, work: Path) -> None:
    """Trace, quantize, check and record the model of ``folder`` into ``work``."""
    try:
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise DependencyError(f"exporting to ONNX needs torch, onnx and onnxruntime: "
                              f"{ONNX_HINT}") from exc
    model: Any = load_model(str(folder), "cpu")
    names = _input_names(model)
    features = model.tokenizer(list(_PROBES), padding=True, truncation=True,
                               max_length=model.max_seq_length, return_tensors="pt")
    wrapper = _graph_class()(model, names)
    try:
        # The tracer warns of every Python branch it freezes (checked below: the export must
        # reproduce torch on padded batches), the quantizer logs each tensor it leaves alone.
        with torch.no_grad(), warnings.catch_warnings(), _quiet_root(), _eager_attention(model):
            warnings.simplefilter("ignore")
            torch.onnx.export(
                wrapper, tuple(features[k] for k in names), str(work / FILES[False]),
                dynamo=False, input_names=list(names), output_names=["sentence_embedding"],
                opset_version=_OPSET,
                dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in names},
                              "sentence_embedding": {0: "batch"}})
            quantize_dynamic(str(work / FILES[False]), str(work / _DYNAMIC),
                             weight_type=QuantType.QInt8, per_channel=True,
                             reduce_range=True, op_types_to_quantize=list(QUANTIZED_OPS),
                             use_external_data_format=_large(work / FILES[False]))
    except Exception as exc:  # the tracer and quantizer raise many types
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise Unexportable(f"torch.onnx.export failed: {first[:200]}") from exc
    _quantize_rows(work)
    shutil.copyfile(folder / "tokenizer.json", work / "tokenizer.json")
    record = {"exporter": EXPORTER_VERSION, "inputs": list(names),
              "max_seq_length": int(model.max_seq_length),
              "do_lower_case": bool(getattr(model[0], "do_lower_case", False)), "files": {}}
    (work / "export.json").write_text(json.dumps(record), encoding="utf-8")
    record["int8_min_cosine"] = _check(model, Export(work))
    record["files"] = {p.name: checksum(p) for p in sorted(work.iterdir())
                       if p.name != "export.json"}
    (work / "export.json").write_text(json.dumps(record, indent=1), encoding="utf-8")


@contextlib.contextmanager
def _eager_attention(model: Any) -> Iterator[None]:
    """Trace attention as plain matrix products and a softmax (see the module's docstring),
    then give the model back its own attention: the loaded model is shared with the torch
    backend of the process."""
    config = model[0].auto_model.config
    before = getattr(config, "_attn_implementation", None)
    _set_attention(model, "eager")
    try:
        yield
    finally:
        if before is not None:
            _set_attention(model, before)


def _set_attention(model: Any, kind: str) -> None:
    transformer = model[0].auto_model
    if hasattr(transformer, "set_attn_implementation"):
        with contextlib.suppress(ValueError, ImportError):
            transformer.set_attn_implementation(kind)
            return
    with contextlib.suppress(AttributeError):
        transformer.config._attn_implementation = kind


def _quantize_rows(work: Path) -> None:
    """The quantizer's int8 graph, its activations scaled per row (:mod:`.int8_rows`), as the
    export's int8 file; the quantizer's own file goes."""
    import onnx

    source = work / _DYNAMIC
    model = onnx.load(str(source))
    try:
        quantize_rows(model)
    except RowQuantizationError as exc:
        raise Unexportable(f"its int8 graph cannot be scaled per row: {exc}") from exc
    large = _large(source)
    onnx.save(model, str(work / FILES[True]), save_as_external_data=large,
              all_tensors_to_one_file=True, location=f"{FILES[True]}.data")
    for leftover in work.glob(f"{_DYNAMIC}*"):
        leftover.unlink()


@contextlib.contextmanager
def _quiet_root() -> Iterator[None]:
    """onnxruntime's quantizer logs to the root logger: nothing under an error while it runs."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def _large(path: Path) -> bool:
    """Over protobuf's 2 GB limit once quantized copies are made: weights go to side files."""
    return sum(p.stat().st_size for p in path.parent.iterdir()) > 1_800_000_000


def _input_names(model: Any) -> tuple[str, ...]:
    """The model's inputs, in the order its tokenizer returns them."""
    import inspect

    given = model.tokenizer(["probe"], return_tensors="pt")
    taken = inspect.signature(model[0].auto_model.forward).parameters
    names = tuple(k for k in _INPUTS if k in given and k in taken)
    if "input_ids" not in names or "attention_mask" not in names:
        raise Unexportable("its tokenizer does not give input_ids and attention_mask")
    return names


def _check(model: Any, export: Export) -> float:
    """The int8 export's least cosine to torch on the checks, after checking that the fp32
    one reproduces torch (tokenized as it will be run: :mod:`.onnx_runtime`)."""
    import numpy as np

    reference = model.encode(list(_CHECKS), normalize_embeddings=True, convert_to_numpy=True,
                             show_progress_bar=False)
    least = []
    for quantized in (False, True):
        session = OnnxSession(export, quantized=quantized)
        vectors = session.encode(session.encodings(list(_CHECKS)))
        least.append(float(np.min(np.sum(vectors * reference, axis=1))))
    if least[0] < _AGREEMENT:
        raise Unexportable(f"its ONNX export disagrees with torch (cosine {least[0]:.4f})")
    return round(least[1], 6)


def _graph_class() -> type:
    import torch

    class Graph(torch.nn.Module):
        """Token ids in, the model's sentence embedding out: what is traced."""

        def __init__(self, model: Any, names: tuple[str, ...]) -> None:
            super().__init__()
            self.model, self.names = model, names

        def forward(self, *tensors: Any) -> Any:
            return self.model(dict(zip(self.names, tensors, strict=True)))["sentence_embedding"]

    return Graph
