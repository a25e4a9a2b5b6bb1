"""The command line's options: each flag declared once, the table that gives the shared ones to
every command that takes them (:func:`with_flags`), and the checks that turn flag values into
settings keys. A flag that sets a settings key defaults to ``None``, "not given", so that the
config file's value or the default shows through; a bad value is a usage error naming the flag."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..config import Oversized, Semantic, Site, checked_levels
from ..errors import ConfigError
from ..formats.sites import site_help
from ..index.config import (
    DEFAULT_DEPTH,
    AnalyzerChoice,
    BackendChoice,
    EmbedderConfig,
    StoreConfig,
)
from ..index.expand import MERGE_RATIO
from ..index.fusion import FusionName
from ..index.store import Expand, SearchMode
from .output import debug_log, err, running_command
from .settings import DEFAULT, KEYS, Settings, load_settings

if TYPE_CHECKING:
    from ..sources import Selection

__all__ = ["CHUNKER_PLACE", "CHUNKER_SHAPE", "FLAGS", "SEARCH_FIELDS", "SELECTION", "STORE",
           "Flag", "choice", "embedder_of", "selection_of", "settings_of", "store_of",
           "with_flags"]


def _option(kind: Any, *names: str, **declared: Any) -> Any:
    """A flag that defaults to ``None``, "not given" (the settings' value shows through):
    ``Optional[kind]`` declared by ``typer.Option(*names, **declared)``."""
    return Annotated[Optional[kind], typer.Option(*names, **declared)]


def _default(key: str) -> str:
    """`` [default: …]`` from the settings' defaults (flags default to None: "not given")."""
    value = KEYS[key][1]
    if isinstance(value, bool):  # a --x/--no-x switch is on or off
        value = "on" if value else "off"
    return "" if value is None else f" [default: {value}]"


#: Every command's ``--verbose``: what a run only counts on stderr (the includes it left out),
#: named one by one; mdchunk's debug log.
VerboseOption = Annotated[bool, typer.Option(
    "--verbose", "-v", help="Name each include left out, and whatever else mdchunk logs at "
                            "debug level, on stderr.")]


def _milvus_token(flags: Mapping[str, object]) -> str | None:
    """The Milvus credential from ``--milvus-token`` (or ``MILVUS_TOKEN``), or from the
    deprecated ``--token``, said so on stderr."""
    given, old = flags["milvus_token"], flags["token"]
    assert given is None or isinstance(given, str)
    assert old is None or isinstance(old, str)
    if old is None:
        return given
    err.print("mdchunk: --token is deprecated: use --milvus-token (or MILVUS_TOKEN)",
              markup=False, highlight=False)
    return old if given is None else given


def _levels(value: str | None) -> tuple[int, ...] | None:
    """``--levels`` as budgets, checked by the chunker's own rules; a usage error otherwise."""
    if value is None:
        return None
    try:
        budgets = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not comma-separated integers",
                                 param_hint="--levels") from None
    try:
        return checked_levels(budgets)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--levels") from None


def choice(value: str | None, choices: Sequence[str], flag: str) -> str | None:
    """A flag with a fixed set of values not typed by a literal: a usage error (exit 2) names
    the choices."""
    if value is not None and value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}",
                                 param_hint=flag)
    return value


def _patterns(value: list[str] | None) -> tuple[str, ...] | None:
    """A repeatable pattern flag as the tuple its key takes (``None``: not given)."""
    return tuple(value) if value else None


def _weights(value: str | None) -> tuple[float, float] | None:
    """``--weights 0.3,0.7`` as ``(0.3, 0.7)``."""
    if value is None:
        return None
    try:
        dense, bm25 = (float(part) for part in value.split(","))
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not two numbers DENSE,BM25",
                                 param_hint="--weights") from None
    return dense, bm25


def _where(values: list[str] | None) -> str | None:
    """Each ``--where`` parsed (a usage error naming the flag's position and the column),
    then all joined by ``and``."""
    from ..index.where import FilterError, join_filters, parse_where

    for number, value in enumerate(values or (), 1):
        try:
            parse_where(value)
        except FilterError as exc:
            which = f" #{number}" if len(values or ()) > 1 else ""
            raise typer.BadParameter(str(exc), param_hint=f"--where{which}") from None
    return join_filters(values or ())


def _meta(values: list[str] | None) -> dict[str, object]:
    """Each ``--meta KEY=VALUE`` as a key and its value: JSON when it parses, else the text
    (``--meta team=db`` is ``"db"``, ``--meta priority=2`` is ``2``); a usage error names one
    without a key."""
    import json

    metadata: dict[str, object] = {}
    for value in values or ():
        key, sep, raw = value.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{value!r} is not KEY=VALUE", param_hint="--meta")
        try:
            metadata[key.strip()] = json.loads(raw)
        except ValueError:
            metadata[key.strip()] = raw
    return metadata


def _given(value: object) -> object:
    return value


@dataclass(frozen=True, slots=True)
class Flag:
    """A flag: the key it sets (a settings key, else a field of the search's config or the
    Milvus token), its declaration, how its value becomes the key's (checked, a usage error
    otherwise), and its default (``None``: not given, the settings' value shows through)."""

    key: str
    option: Any  # an Annotated[..., typer.Option(...)]
    parse: Callable[[Any], object] = _given
    default: object = None


def _flag(key: str, kind: Any, *names: str, parse: Callable[[Any], object] = _given,
          **declared: Any) -> Flag:
    """A flag that sets ``key``, declared by :func:`_option`."""
    return Flag(key, _option(kind, *names, **declared), parse)


#: Every flag more than one command takes, or that sets a config's field, by its parameter
#: name.
FLAGS: dict[str, Flag] = {
    "max_tokens": _flag("max_tokens", int, "--max-tokens", help="Token budget of a chunk's "
                        "embed_text." + _default("max_tokens")),
    "overlap": _flag("overlap_tokens", int, "--overlap", help="Overlap between neighbours, in "
                     "tokens [default: max-tokens / 8, at most half the last of --levels]."),
    "min_tokens": _flag("min_tokens", int, "--min-tokens", help="Sections smaller than this "
                        "share a chunk with their siblings [default: max-tokens / 4]."),
    "tokenizer": _flag("tokenizer", str, "--tokenizer", help="tiktoken encoding, or HF "
                       "tokenizer name/path." + _default("tokenizer")),
    "oversized": _flag("oversized", Oversized, "--oversized", help="split, or keep: leave a "
                       "block larger than the budget whole and mark it oversized."
                       + _default("oversized")),
    "levels": _flag("levels", str, "--levels", parse=_levels, help="A hierarchy's token "
                    "budgets, coarsest first, e.g. 2048,512,128; the last is the leaves' budget "
                    "and replaces --max-tokens."),
    "base_url": _flag("base_url", str, "--base-url", help="Where the pages are published: each "
                      "chunk gets url = page URL + #anchor."),
    "site": _flag("site", Site, "--site", help=site_help() + _default("site")),
    "includes": _flag("includes", str, "--includes", metavar="DIR", help="Include root: "
                      "code_sample, include, --8<-- and MDX raw-loader references show the "
                      "file's text (read from here) as a code block in embed_text."),
    "semantic": _flag("semantic", Semantic, "--semantic", help="Choose cut points by meaning: "
                      "embedding (all-MiniLM-L6-v2, or --model for index) or lexical (word "
                      "overlap, no model). Default: greedy."),
    "db": _flag("db", str, "--db", help="Milvus Lite file, or http(s)://host:port of a server."
                + _default("db")),
    "collection": _flag("collection", str, "--collection", help="Collection name."
                        + _default("collection")),
    "model": _flag("model", str, "--model", help="Embedding model: auto (the collection's own; "
                   "for a new one all-MiniLM-L6-v2 for English, use-multilingual when the corpus "
                   "has Chinese in it), use-multilingual, or a sentence-transformers name or "
                   "path." + _default("model")),
    "backend": _flag("backend", BackendChoice, "--backend", help="How the model runs: auto "
                     "(onnx-int8 where onnxruntime is installed; torch on a GPU), torch, onnx "
                     "(fp32) or onnx-int8. The collection records it: another backend "
                     "re-embeds; search uses the collection's own. use-multilingual ignores it."
                     + _default("backend")),
    "analyzer": _flag("analyzer", AnalyzerChoice, "--analyzer",
                      help="auto, standard or jieba." + _default("analyzer")),
    "units": _flag("units", bool, "--units/--no-units",
                   help="Embed each leaf's sentences, list items, table rows and code lines "
                   "too; a dense search scores a leaf by its own vector and its best unit's. "
                   "Recorded with the index: switching rebuilds it." + _default("units")),
    "bigrams": _flag("bigrams", bool, "--bigrams/--no-bigrams", help="Add CJK character bigrams "
                     "to what BM25 reads (leaves and queries), beside the analyzer's words. "
                     "Recorded with the index: switching rebuilds it." + _default("bigrams")),
    "workers": _flag("workers", int, "--workers", min=1,
                     help="Parallel processes." + _default("workers")),
    "globs": _flag("glob", list[str], "--glob", parse=_patterns, help="Take the files of a "
                   "folder that match this gitignore-style pattern (repeatable; instead of the "
                   "known extensions)."),
    "excludes": _flag("exclude", list[str], "--exclude", parse=_patterns, help="Leave out files "
                      "and folders that match this gitignore-style pattern (repeatable)."),
    "gitignore": _flag("gitignore", bool, "--gitignore/--no-gitignore",
                       help="Honour .gitignore files [default: on]."),
    "token": _flag("milvus_token", str, "--milvus-token", envvar="MILVUS_TOKEN",
                   help="Milvus token."),
    #: ``--token``, ``--milvus-token`` 's old name: accepted for a release, with a warning.
    "old_token": _flag("token", str, "--token", hidden=True),
    "k": Flag("k", Annotated[int, typer.Option("-k", help="How many hits.")], default=5),
    "query_prompt": _flag("query_prompt", str, "--query-prompt", metavar="TEXT", help="Put "
                          "before every query embedded (\"\": nothing). Default: what the model "
                          "declares, or its family's (e5: 'query: '); an index records it and "
                          "search uses the recorded one."),
    "document_prompt": _flag("document_prompt", str, "--document-prompt", metavar="TEXT",
                             help="Put before every passage embedded (\"\": nothing). Default: "
                             "what the model declares, or its family's (e5: 'passage: ')."),
    "depth": Flag("depth", Annotated[int, typer.Option(
        "--depth", min=1, help="Candidates each side draws, fused, reranked and collapsed "
                               "before k are kept; k only cuts the result.")],
        default=DEFAULT_DEPTH),
    "mode": Flag("mode", Annotated[SearchMode, typer.Option(
        "--mode", help="hybrid, dense or bm25.")], default="hybrid"),
    "path_prefix": _flag("path_prefix", str, "--path-prefix", help="Only paths under this."),
    "fusion": _flag("fusion", FusionName, "--fusion", help="How hybrid search fuses dense and "
                    "BM25: peaked (min-max scores, each list weighted by how far its first hits "
                    "stand out), score (min-max scores, weighted) or rrf (reciprocal rank) "
                    "[default: peaked]."),
    "weights": _flag("weights", str, "--weights", parse=_weights, metavar="DENSE,BM25",
                     help="Hybrid weights of the dense and BM25 lists, e.g. 0.3,0.7 "
                     "[default: 1,1]."),
    "expand": Flag("expand", Annotated[Expand, typer.Option(
        "--expand", help="none (the matching chunks), parent (each one's parent), or auto "
                         f"(a parent where at least {MERGE_RATIO:.0%} of its children match, "
                         "level after level).")], default="none"),
    "rerank": _flag("rerank", str, "--rerank", metavar="MODEL", help="Rerank the candidates "
                    "with a local cross-encoder (a folder, or a name in the local Hugging Face "
                    "cache, e.g. BAAI/bge-reranker-base) before k are kept. Default: none."),
    "collapse": Flag("collapse", Annotated[bool, typer.Option(
        "--collapse/--no-collapse", show_default=False, help="Show a passage found on several "
                                                             "pages (the same text, or nearly) "
                                                             "once, listing where else it is "
                                                             "[default: on].")], default=True),
    "per_page": _flag("per_page", int, "--per-page", metavar="N", min=1, help="At most N hits "
                      "of one page, so that k different pages are shown. Default: any number."),
    "where": _flag("where", list[str], "--where", parse=_where, metavar="FILTER", help="Only "
                   "the chunks a filter keeps, e.g. 'tags contains \"db\" and lang == \"zh\"' "
                   "(README, \"Filters\"); repeated, all must keep a chunk."),
    "meta": _flag("metadata", list[str], "--meta", parse=_meta, metavar="KEY=VALUE",
                  help="Metadata every chunk of the run gets, for search --where (a page's "
                  "front matter overrides a key); VALUE is read as JSON when it parses (5, "
                  "true, [\"a\"]), else as text; repeatable."),
}
#: The search config's fields the flags set.
SEARCH_FIELDS = ("k", "mode", "path_prefix", "weights", "fusion", "expand", "rerank", "collapse",
                 "per_page", "where", "depth")
#: Groups of shared flags, in the order help lists them.
CHUNKER_SHAPE = ("max_tokens", "overlap", "min_tokens", "tokenizer", "oversized")
CHUNKER_PLACE = ("levels", "base_url", "site", "includes", "semantic")
STORE = ("db", "collection")
SELECTION = ("globs", "excludes", "gitignore")

Command = Callable[..., None]


def with_flags(*layout: str, table: Mapping[str, Flag] | None = None
               ) -> Callable[[Command], Command]:
    """A command with the shared flags (:data:`FLAGS`, and a command's own ``table``) that
    ``layout`` names among its own parameters, all in ``layout`` 's order (the order ``--help``
    lists them), then ``--verbose``. The command declares only its own parameters and
    ``flags``: the tables' flags' values, checked, under their keys (``None``: not given)."""
    tables = {**FLAGS, **(table or {})}

    def decorate(command: Command) -> Command:
        own = inspect.signature(command, eval_str=True).parameters
        unplaced = set(own) - set(layout) - {"flags"}
        if unplaced:  # a programming error: a parameter help would not show
            raise TypeError(f"{command.__name__}: {sorted(unplaced)} not in its layout")
        params = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                    default=tables[name].default,
                                    annotation=tables[name].option) if name in tables
                  else own[name].replace(kind=inspect.Parameter.KEYWORD_ONLY)
                  for name in layout]
        params.insert(0, inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY,
                                           annotation=typer.Context))
        params.append(inspect.Parameter("verbose", inspect.Parameter.KEYWORD_ONLY,
                                        default=False, annotation=VerboseOption))

        keys = {tables[name].key if name in tables else name: name for name in layout}

        @functools.wraps(command)
        def run(ctx: typer.Context, **values: Any) -> None:
            running = running_command.set((ctx, keys))  # a flag's bad value: flag_error
            try:
                with debug_log(values.pop("verbose")):
                    flags = {tables[name].key: tables[name].parse(values.pop(name))
                             for name in layout if name in tables}
                    command(flags=flags, **values)
            finally:
                running_command.reset(running)

        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return run

    return decorate


def store_of(settings: Settings, flags: Mapping[str, object]) -> StoreConfig:
    """The index the settings and the credential flags name."""
    return StoreConfig(settings.value("db"), settings.value("collection"), _milvus_token(flags))


def embedder_of(settings: Settings, *, search: bool = False) -> EmbedderConfig:
    """The embedder the settings name (model, backend, prompts); a search reads the backend
    from the collection unless one was given."""
    backend = settings.value("backend")
    return EmbedderConfig(settings.value("model"),
                          None if search and settings.origin("backend") == DEFAULT else backend,
                          query_prompt=settings.value("query_prompt"),
                          document_prompt=settings.value("document_prompt"))


def settings_of(flags: Mapping[str, object]) -> Settings:
    """Defaults, then the config file found from the working folder, then the flags (those
    that set settings keys)."""
    return load_settings().with_flags({key: value for key, value in flags.items()
                                       if key in KEYS})


def selection_of(settings: Settings) -> Selection:
    """The files the settings select within a folder."""
    from ..sources import Selection

    return Selection(glob=settings.value("glob"), exclude=settings.value("exclude"),
                     gitignore=settings.value("gitignore"))
