"""A package's exports imported on first use (PEP 562), so that a command imports only the
modules it runs: ``mdchunk search`` never imports the chunker, markdown-it or the indexer.

A package lists what it exports and the submodule each comes from; type checkers read the
same names from imports under ``TYPE_CHECKING``. A name that is also a submodule's (``search``
in :mod:`mdchunk.index`) must stay an eager import, as importing the submodule would bind
the package's attribute to the module.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, sources: Mapping[str, str]
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: each name of ``sources`` imported
    from its submodule (``".chunker"``, relative to ``package``) the first time it is asked
    for, then kept on the package."""

    def __getattr__(name: str) -> object:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *sources})

    return __getattr__, __dir__
