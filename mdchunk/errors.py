"""One small exception hierarchy; the CLI turns each into a one-line message."""

from __future__ import annotations

__all__ = ["ConfigError", "DependencyError", "InputError", "LockedError", "MdchunkError",
           "MissingFileError", "StoreError"]


class MdchunkError(Exception):
    """Base of every error mdchunk raises on purpose."""


class InputError(MdchunkError):
    """A document cannot be read or understood (names the file and the problem)."""


class MissingFileError(InputError):
    """A file found or named is not there (any more): deleted between discovery and reading."""


class ConfigError(MdchunkError, ValueError):
    """A configuration value is out of range or inconsistent (names the value and why)."""


class StoreError(MdchunkError):
    """The vector store is unreachable or holds an incompatible collection."""


class LockedError(StoreError):
    """Another run is writing to the same index (names the index and who holds it)."""


class DependencyError(MdchunkError):
    """An optional dependency (an extra) is missing or a model cannot be loaded."""
