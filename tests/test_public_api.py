"""The public API's shapes: every field of a chunk's dict, and the Chunker object agreeing
with the function."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator

import mdchunk
from mdchunk import ChunkerConfig, chunk_markdown


def test_to_dict_has_every_contract_field() -> None:
    (chunk,) = chunk_markdown("# T\n\nText.\n", doc_id="t.md")
    assert set(chunk.to_dict()) == {
        "id", "doc_id", "index", "level", "parent_id", "text", "start", "end", "line_start",
        "line_end", "headings", "section_path", "embed_text", "token_count", "kinds", "metadata",
        "oversized", "anchor", "url", "title"}
    assert chunk.level == 3 and chunk.parent_id is None and chunk.doc_id == "t.md"


def test_chunker_object_matches_the_function() -> None:
    source = "# T\n\n" + "Words and more words. " * 50
    config = ChunkerConfig(max_tokens=64, overlap_tokens=8)
    assert mdchunk.Chunker(config).chunk(source) == chunk_markdown(source, max_tokens=64,
                                                                   overlap_tokens=8)


#: Above this many named parameters a call is a form to fill: take a config and typed
#: keyword options instead, as ``chunk_*``, ``index_paths`` and ``search`` do (issue 44).
MAX_NAMED = 8


def _public_callables() -> Iterator[tuple[str, Callable[..., object]]]:
    """Every function and public method that a module of the package lists in ``__all__``,
    but the command line's commands (their parameters are its flags) and dataclasses'
    constructors (a record's fields, made by the dataclass)."""
    modules = [mdchunk, *(importlib.import_module(m.name) for m in pkgutil.walk_packages(
        mdchunk.__path__, "mdchunk.") if not m.name.startswith(("mdchunk.cli", "mdchunk.__main__"))
        and not _optional_missing(m.name))]
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj
            elif inspect.isclass(obj) and obj.__module__.startswith("mdchunk"):
                if not dataclasses.is_dataclass(obj) and "__init__" in vars(obj):
                    yield f"{module.__name__}.{name}.__init__", obj.__init__
                for attr, member in vars(obj).items():
                    if inspect.isfunction(member) and not attr.startswith("_"):
                        yield f"{module.__name__}.{name}.{attr}", member


def _optional_missing(module: str) -> bool:
    try:
        importlib.import_module(module)
    except mdchunk.DependencyError:
        return True
    return False


def test_no_public_function_takes_more_than_eight_named_parameters() -> None:
    crowded = {}
    for label, function in _public_callables():
        named = [p for p in inspect.signature(function).parameters.values()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"]
        if len(named) > MAX_NAMED:
            crowded[label] = len(named)
    assert crowded == {}
    from mdchunk.index import index_paths, search  # the two that took 29 and 18
    assert len(inspect.signature(index_paths).parameters) <= MAX_NAMED
    assert len(inspect.signature(search).parameters) <= MAX_NAMED
