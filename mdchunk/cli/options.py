"""The command line's options: each flag declared once (type, help, default shown from the
settings' defaults), and the checks that turn flag values into settings keys.

Every flag defaults to ``None``, "not given", so that the config file's value or the default
shows through (:mod:`.settings`); a bad value is a usage error (exit status 2) naming the flag.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..config import checked_levels
from ..errors import ConfigError
from ..formats.sites import site_help
from .settings import KEYS, Settings, load_settings

if TYPE_CHECKING:
    from ..sources import Selection


def _default(key: str) -> str:
    """`` [default: …]`` from the settings' defaults (flags default to None: "not given")."""
    value = KEYS[key][1]
    return "" if value is None else f" [default: {value}]"


MaxTokens = Annotated[Optional[int], typer.Option(
    "--max-tokens", help="Token budget of a chunk's embed_text." + _default("max_tokens"))]
Overlap = Annotated[Optional[int], typer.Option(
    "--overlap", help="Overlap between neighbours, in tokens." + _default("overlap_tokens"))]
MinTokens = Annotated[Optional[int], typer.Option(
    "--min-tokens", help="Sections smaller than this share a chunk with their siblings "
                         "[default: max-tokens / 4].")]
Tokenizer = Annotated[Optional[str], typer.Option(
    "--tokenizer", help="tiktoken encoding, or HF tokenizer name/path." + _default("tokenizer"))]
Oversized = Annotated[Optional[str], typer.Option(
    "--oversized", help="split, or keep: leave a block larger than the budget whole and mark "
                        "it oversized." + _default("oversized"))]
Db = Annotated[Optional[str], typer.Option(
    "--db", help="Milvus Lite file, or http(s)://host:port of a server." + _default("db"))]
Collection = Annotated[Optional[str], typer.Option(
    "--collection", help="Collection name." + _default("collection"))]
Model = Annotated[Optional[str], typer.Option(
    "--model", help="Embedding model: auto (the collection's own; for a new one "
                    "all-MiniLM-L6-v2 for English, use-multilingual when the corpus has "
                    "Chinese in it), use-multilingual, or a sentence-transformers name or "
                    "path." + _default("model"))]
#: ``--backend``'s values (the embedder's backends and ``auto``).
BACKEND_CHOICES = ("auto", "torch", "onnx", "onnx-int8")
BackendOption = Annotated[Optional[str], typer.Option(
    "--backend", help="How the model runs: auto (onnx-int8 where onnxruntime is installed; "
                      "torch on a GPU), torch, onnx (fp32) or onnx-int8. The collection records "
                      "it: another backend re-embeds; search uses the collection's own. "
                      "use-multilingual ignores it." + _default("backend"))]
FusionOption = Annotated[Optional[str], typer.Option(
    "--fusion", help="How hybrid search fuses dense and BM25: score (min-max scores, "
                     "weighted) or rrf (reciprocal rank) [default: score].")]
WeightsOption = Annotated[Optional[str], typer.Option(
    "--weights", metavar="DENSE,BM25",
    help="Hybrid weights of the dense and BM25 lists, e.g. 0.5,0.5 [default: 0.3,0.7].")]
Analyzer = Annotated[Optional[str], typer.Option(
    "--analyzer", help="auto, standard or jieba." + _default("analyzer"))]
Token = Annotated[Optional[str], typer.Option("--token", envvar="MILVUS_TOKEN",
                                              help="Milvus token.")]
BaseUrl = Annotated[Optional[str], typer.Option(
    "--base-url", help="Where the pages are published: each chunk gets url = page URL + #anchor.")]
SiteOption = Annotated[Optional[str], typer.Option(
    "--site", help=site_help() + _default("site"))]
IncludesOption = Annotated[Optional[str], typer.Option(
    "--includes", metavar="DIR",
    help="Include root: code_sample, include, --8<-- and MDX raw-loader references show the "
         "file's text (read from here) as a code block in embed_text.")]
SemanticOption = Annotated[Optional[str], typer.Option(
    "--semantic", help="Choose cut points by meaning: embedding (all-MiniLM-L6-v2, or --model "
                       "for index) or lexical (word overlap, no model). Default: greedy.")]
Levels = Annotated[Optional[str], typer.Option(
    "--levels", help="A hierarchy's token budgets, coarsest first, e.g. 2048,512,128; the last "
                     "is the leaves' budget and replaces --max-tokens.")]
Workers = Annotated[Optional[int], typer.Option(
    "--workers", help="Parallel processes." + _default("workers"))]
Globs = Annotated[Optional[list[str]], typer.Option(
    "--glob", help="Take the files of a folder that match this gitignore-style pattern "
                   "(repeatable; instead of the known extensions).")]
Excludes = Annotated[Optional[list[str]], typer.Option(
    "--exclude", help="Leave out files and folders that match this gitignore-style pattern "
                      "(repeatable).")]
Gitignore = Annotated[Optional[bool], typer.Option(
    "--gitignore/--no-gitignore", help="Honour .gitignore files [default: on].")]


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
    """A flag with a fixed set of values: a usage error (exit 2) names the choices."""
    if value is not None and value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}",
                                 param_hint=flag)
    return value


def chunker_flags(*, max_tokens: int | None = None, overlap: int | None = None,
                  min_tokens: int | None = None, tokenizer: str | None = None,
                  oversized: str | None = None, levels: str | None = None,
                  base_url: str | None = None, site: str | None = None,
                  semantic: str | None = None, includes: str | None = None
                  ) -> dict[str, object]:
    """The chunker's flags under their config keys (``None``: not given), usage-checked."""
    from ..config import SEMANTIC_SCORERS
    from ..formats.sites import SITES

    return {"max_tokens": max_tokens, "overlap_tokens": overlap, "min_tokens": min_tokens,
            "tokenizer": tokenizer, "oversized": choice(oversized, ("split", "keep"),
                                                        "--oversized"),
            "levels": _levels(levels), "base_url": base_url,
            "site": choice(site, SITES, "--site"),
            "semantic": choice(semantic, SEMANTIC_SCORERS, "--semantic"),
            "includes": includes}


def selection_flags(globs: list[str] | None, excludes: list[str] | None,
                    gitignore: bool | None) -> dict[str, object]:
    """The file selection's flags under their config keys (``None``: not given)."""
    return {"include": tuple(globs) if globs else None,
            "exclude": tuple(excludes) if excludes else None, "gitignore": gitignore}


def settings_of(flags: dict[str, object]) -> Settings:
    """Defaults, then the config file found from the working folder, then the flags."""
    return load_settings().with_flags(flags)


def selection_of(settings: Settings) -> Selection:
    """The files the settings select within a folder."""
    from ..sources import Selection

    return Selection(include=settings.value("include"), exclude=settings.value("exclude"),
                     gitignore=settings.value("gitignore"))
