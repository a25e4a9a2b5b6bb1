"""The command line's settings: defaults, then a config file (``mdchunk.toml``, or
``[tool.mdchunk]`` of ``pyproject.toml``, the first found upwards), then flags, each value tagged
with where it came from. The keys are read from :class:`~mdchunk.ChunkerConfig` and
:class:`RunOptions` themselves, type-checked from their annotations."""

from __future__ import annotations

import dataclasses
import logging
import re
import tomllib  # Python >= 3.11, as pyproject's requires-python says
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from ..config import ChunkerConfig
from ..errors import ConfigError
from ..index.config import AnalyzerChoice, BackendChoice

__all__ = ["CONFIG_FILES", "DEFAULT", "FLAG", "RENAMED", "RunOptions", "Setting", "Settings",
           "find_config", "load_settings"]

log = logging.getLogger(__name__)

#: Origins of a value other than a file's path.
DEFAULT, FLAG = "default", "flag"
#: Looked for in each folder from the working folder upwards, in this order.
CONFIG_FILES = ("mdchunk.toml", "pyproject.toml")


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What a run needs beside the chunker's config: where the index is, which model embeds,
    which files are documents, how many processes chunk."""

    db: str = "./mdchunk.db"
    collection: str = "mdchunk"
    #: Each key means what its flag does (``--model``, ``--backend``…: ``mdchunk index --help``).
    model: str | None = "auto"
    backend: BackendChoice = "auto"
    analyzer: AnalyzerChoice = "auto"
    units: bool = False
    bigrams: bool = True
    query_prompt: str | None = None
    document_prompt: str | None = None
    #: ``include``, its old name, is read with a warning.
    glob: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    workers: int = 1


def _fields(cls: type) -> dict[str, tuple[Any, object]]:
    """Each field's resolved type and default (``None`` for a default computed later)."""
    hints = get_type_hints(cls)
    return {f.name: (hints[f.name], f.default if f.default is not dataclasses.MISSING
                     else f.default_factory() if f.default_factory is not dataclasses.MISSING
                     else None)
            for f in dataclasses.fields(cls)}


#: Every key a config file may set: its type and default.
KEYS: dict[str, tuple[Any, object]] = {**_fields(ChunkerConfig), **_fields(RunOptions)}
CHUNKER_KEYS = frozenset(f.name for f in dataclasses.fields(ChunkerConfig))
#: Keys that name a folder: a relative path in a config file is read from the file's folder.
_PATHS = frozenset({"includes"})
#: Keys renamed, by their old name: read for a release, with a warning.
RENAMED = {"include": "glob"}


@dataclass(frozen=True, slots=True)
class Setting:
    """A value and where it came from: ``default``, ``flag`` or a config file's path."""

    value: object
    origin: str = DEFAULT


@dataclass(frozen=True, slots=True)
class Settings:
    """Effective values of every key, each with its origin, and the config file read (if any).

    >>> s = Settings.defaults().with_flags({"max_tokens": 256, "db": None})
    >>> s.value("max_tokens"), s.origin("max_tokens"), s.origin("db")
    (256, 'flag', 'default')
    """

    values: Mapping[str, Setting]
    file: Path | None = None

    @classmethod
    def defaults(cls) -> Settings:
        return cls({key: Setting(default) for key, (_, default) in KEYS.items()})

    def value(self, key: str) -> Any:
        return self.values[key].value

    def origin(self, key: str) -> str:
        return self.values[key].origin

    def with_flags(self, flags: Mapping[str, object]) -> Settings:
        """These settings with every flag that was given (not ``None``) on top."""
        given = {key: Setting(value, FLAG) for key, value in flags.items() if value is not None}
        unknown = set(given) - set(KEYS)
        if unknown:  # a programming error: a flag mapped to no key
            raise KeyError(f"flags with no config key: {sorted(unknown)}")
        return Settings({**self.values, **given}, self.file)

    def chunker(self) -> ChunkerConfig:
        """The chunker's config; a bad value raises a :class:`ConfigError` that names the file
        when the value came from one."""
        try:
            return ChunkerConfig(**{key: self.value(key) for key in CHUNKER_KEYS})
        except ConfigError as exc:
            named = re.match(r"(\w+)=", str(exc))
            key = named.group(1) if named else ""
            if key in self.values and self.origin(key) not in (DEFAULT, FLAG):
                raise ConfigError(f"{self.origin(key)}: {exc}") from None
            raise

    def resolved(self) -> dict[str, Setting]:
        """Every key's effective value as a run uses it (``min_tokens`` computed, say)."""
        config = self.chunker()
        return {key: Setting(getattr(config, key) if key in CHUNKER_KEYS else setting.value,
                             setting.origin)
                for key, setting in self.values.items()}


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The first config file from ``start`` upwards, with its mdchunk table; a
    ``pyproject.toml`` without ``[tool.mdchunk]`` is passed over."""
    for folder in (start, *start.parents):
        for name in CONFIG_FILES:
            path = folder / name
            if not path.is_file():
                continue
            data = _parse(path)
            if name == "pyproject.toml":
                tool = data.get("tool", {})
                if not isinstance(tool, dict) or "mdchunk" not in tool:
                    continue
                table = tool["mdchunk"]
                if not isinstance(table, dict):
                    raise ConfigError(f"{path}: [tool.mdchunk] must be a table")
                return path, table
            return path, data
    return None


def load_settings(start: Path | None = None) -> Settings:
    """Defaults overlaid by the config file found from ``start`` (the working folder)."""
    found = find_config(Path.cwd() if start is None else start)
    settings = Settings.defaults()
    if found is None:
        return settings
    path, table = found
    where = "[tool.mdchunk] " if path.name == "pyproject.toml" else ""
    values = dict(settings.values)
    for raw_key, raw in table.items():
        key = raw_key.replace("-", "_")
        if key in RENAMED:
            log.warning("%s: %skey %r is deprecated: call it %r, as the flag", path, where,
                        raw_key, RENAMED[key])
            key = RENAMED[key]
        if key not in KEYS:
            raise ConfigError(f"{path}: unknown key {where}{raw_key!r} (known keys: "
                              f"{', '.join(sorted(KEYS))})")
        hint = KEYS[key][0]
        ok, value = _fits(raw, hint)
        if not ok:
            raise ConfigError(f"{path}: {where}{raw_key} = {raw!r} must be {_describe(hint)}")
        if key in _PATHS and isinstance(value, str):  # a folder named from the file's own
            value = str((path.parent / value).resolve())
        values[key] = Setting(value, str(path))
    return Settings(values, path)


def _parse(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {(exc.strerror or str(exc)).lower()}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def _fits(value: object, hint: Any) -> tuple[bool, object]:
    """Whether a TOML value fits a field's type, and the value as the field takes it (arrays
    become tuples). Types TOML cannot carry (callables) never fit; a type this does not know
    is passed through for the dataclass to check."""
    origin, args = get_origin(hint), get_args(hint)
    if _is_union(hint):
        for member in args:
            ok, converted = _fits(value, member)
            if ok:
                return True, converted
        return False, None
    if origin is Literal:
        return any(type(value) is type(a) and value == a for a in args), value
    if hint is type(None):
        return value is None, value
    if hint is bool:
        return isinstance(value, bool), value
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool), value
    if hint is str:
        return isinstance(value, str), value
    if origin in (tuple, list):
        if not isinstance(value, list):
            return False, None
        member = args[0] if args else Any
        items = [_fits(item, member) for item in value]
        return all(ok for ok, _ in items), tuple(v for _, v in items)
    if origin is Callable or hint is Callable:
        return False, None
    return True, value


_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _describe(hint: Any) -> str:
    """What a field takes, in words: ``an integer``, ``one of 'split', 'keep'``…"""
    origin, args = get_origin(hint), get_args(hint)
    if _is_union(hint):
        parts = [_describe(a) for a in args
                 if a is not type(None) and get_origin(a) is not Callable]
        return " or ".join(p for p in parts if p)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (tuple, list):
        member = _describe(args[0]) if args else "values"
        return "a list of " + re.sub(r"^an? ", "", member) + ("s" if args else "")
    return _NAMES.get(hint, getattr(hint, "__name__", str(hint)))
