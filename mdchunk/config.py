"""The chunker's configuration: everything that shapes chunks, checked once, hashed for ids."""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Literal, TypedDict, get_args

from .errors import ConfigError
from .formats.sites import SITES, Site
from .tokens import TokenizerSpec, tokenizer_identity

__all__ = ["DEFAULT_LEVELS", "DEFAULT_SEMANTIC_THRESHOLD", "DEFAULT_TITLE_KEYS", "MAX_LEVELS",
           "MIN_MAX_TOKENS", "OVERLAP_SHARE", "OVERSIZED", "SEMANTIC_SCORERS", "ChunkerConfig",
           "ChunkerOptions", "HtmlComments", "Oversized", "Semantic", "Site", "TokenizerSpec",
           "checked_levels", "config_with", "default_overlap"]

#: Below this budget a breadcrumb plus one word no longer fits; smaller values are refused.
MIN_MAX_TOKENS = 16
#: An overlap nobody gave is the leaf budget divided by this: 64 tokens at the default 512.
OVERLAP_SHARE = 8
#: A hierarchy's budgets, coarsest first, when none are given.
DEFAULT_LEVELS = (2048, 512, 128)
#: More levels than this add parents nobody reads.
MAX_LEVELS = 4
#: Front matter keys that name a page's title, first present wins.
DEFAULT_TITLE_KEYS = ("title", "sidebar_label")
#: How boundaries are scored by meaning (``None``: greedy, the default).
Semantic = Literal["embedding", "lexical"]
SEMANTIC_SCORERS: tuple[str, ...] = get_args(Semantic)
#: What becomes of a block larger than the budget: cut between lines, or kept whole.
Oversized = Literal["split", "keep"]
OVERSIZED: tuple[str, ...] = get_args(Oversized)
#: Whether HTML comments stay in ``embed_text``.
HtmlComments = Literal["keep", "drop"]
#: The quantile of a run's own similarities below which two units are better in two chunks.
DEFAULT_SEMANTIC_THRESHOLD = 0.5


@dataclass(frozen=True, slots=True)
class ChunkerConfig:
    """Everything that shapes chunks. Two equal configs chunk any input identically.

    >>> ChunkerConfig(max_tokens=256, overlap_tokens=32).min_tokens
    64
    """

    max_tokens: int = 512
    #: Tokens of whole sentences a chunk repeats from the one before; ``None``: a share of
    #: the budget that fits any budget (:func:`default_overlap`).
    overlap_tokens: int | None = None
    #: Sections smaller than this share a chunk with their siblings; ``None`` means max_tokens // 4.
    min_tokens: int | None = None
    tokenizer: TokenizerSpec = "cl100k_base"
    oversized: Oversized = "split"
    #: A hierarchy's budgets, coarsest first (level 1) down to the leaves; ``None`` for flat
    #: chunking at ``max_tokens``. See :meth:`at_level`.
    levels: tuple[int, ...] | None = None
    #: ``"drop"`` leaves HTML comments (``<!-- -->``, shown by no site) out of ``embed_text``
    #: and its count; ``text`` keeps them verbatim either way.
    html_comments: HtmlComments = "drop"
    #: Where the pages are published: with it, every chunk gets a ``url`` (page URL plus
    #: ``#anchor``); ``None`` gives no URLs.
    base_url: str | None = None
    #: Whose conventions build page URLs and heading anchors: ``plain`` (a repository on
    #: GitHub), ``docusaurus``, ``mkdocs`` or ``hugo`` (see :mod:`mdchunk.formats.sites`).
    site: Site = "plain"
    #: Front matter keys whose value is the page title, first present wins; the title heads
    #: every chunk's ``headings`` of a page without a ``#`` heading. ``()`` turns it off.
    title_keys: tuple[str, ...] = DEFAULT_TITLE_KEYS
    #: Text hygiene (:mod:`mdchunk.text.clean`): headings, ``embed_text`` and token counts are
    #: those of clean text; ``text`` and offsets stay the caller's either way.
    clean: bool = True
    #: The include root the files of include references are read from, their text put in
    #: ``embed_text`` as a code block; ``None`` leaves each its short visible line.
    includes: str | None = None
    #: Choose cut points by meaning (:mod:`mdchunk.plan.strategies.semantic`); ``None`` packs
    #: greedily.
    semantic: Semantic | None = None
    #: The embedding scorer's model: ``None`` for the bundled all-MiniLM-L6-v2, a hub name in
    #: the local cache, or a folder.
    semantic_model: str | None = None
    #: Quantile in [0, 1): higher cuts more often, where the budget and min_tokens allow.
    semantic_threshold: float = DEFAULT_SEMANTIC_THRESHOLD
    #: Context from the document (the page's ``description``, the paragraph introducing a list
    #: the leaf starts inside) in each leaf's ``embed_text`` (:mod:`mdchunk.chunks.context`).
    doc_context: bool = False

    def __post_init__(self) -> None:
        _check_int("max_tokens", self.max_tokens)
        if self.max_tokens < MIN_MAX_TOKENS:
            raise ConfigError(f"max_tokens={self.max_tokens} is too small: it must be at least "
                              f"{MIN_MAX_TOKENS} so that a breadcrumb and some text fit")
        if self.overlap_tokens is None:
            object.__setattr__(self, "overlap_tokens", default_overlap(self.max_tokens,
                                                                       self.levels))
        _check_int("overlap_tokens", self.overlap_tokens)
        assert self.overlap_tokens is not None  # set just above
        if self.overlap_tokens < 0:
            raise ConfigError(f"overlap_tokens={self.overlap_tokens} must not be negative")
        if self.overlap_tokens >= self.max_tokens:
            raise ConfigError(f"overlap_tokens={self.overlap_tokens} must be smaller than "
                              f"max_tokens={self.max_tokens}: a chunk cannot be all overlap")
        if self.min_tokens is None:
            object.__setattr__(self, "min_tokens", self.max_tokens // 4)
        else:
            _check_int("min_tokens", self.min_tokens)
            if not 0 <= self.min_tokens <= self.max_tokens:
                raise ConfigError(f"min_tokens={self.min_tokens} must lie between 0 and "
                                  f"max_tokens={self.max_tokens}")
        if self.oversized not in OVERSIZED:
            raise ConfigError(f"oversized={self.oversized!r} must be 'split' or 'keep'")
        if self.levels is not None:
            object.__setattr__(self, "levels", checked_levels(self.levels, self.overlap_tokens))
        if self.html_comments not in ("keep", "drop"):
            raise ConfigError(f"html_comments={self.html_comments!r} must be 'keep' or 'drop'")
        if self.site not in SITES:
            raise ConfigError(f"site={self.site!r} must be one of {', '.join(SITES)}")
        if self.base_url is not None and not isinstance(self.base_url, str):
            raise ConfigError(f"base_url={self.base_url!r} must be a URL string or None")
        object.__setattr__(self, "title_keys", _checked_title_keys(self.title_keys))
        if not isinstance(self.clean, bool):
            raise ConfigError(f"clean={self.clean!r} must be True or False")
        if self.includes is not None:
            if not isinstance(self.includes, (str, os.PathLike)):
                raise ConfigError(f"includes={self.includes!r} must be a folder path or None")
            object.__setattr__(self, "includes", os.fspath(self.includes))
        if self.semantic is not None and self.semantic not in SEMANTIC_SCORERS:
            raise ConfigError(f"semantic={self.semantic!r} must be None, 'embedding' or 'lexical'")
        if self.semantic_model is not None and not isinstance(self.semantic_model, str):
            raise ConfigError(f"semantic_model={self.semantic_model!r} must be a model name or "
                              "path")
        if (isinstance(self.semantic_threshold, bool)
                or not isinstance(self.semantic_threshold, (int, float))
                or not 0 <= self.semantic_threshold < 1):
            raise ConfigError(f"semantic_threshold={self.semantic_threshold!r} must be a number "
                              "in [0, 1)")
        if not isinstance(self.doc_context, bool):
            raise ConfigError(f"doc_context={self.doc_context!r} must be True or False")
        if not (isinstance(self.tokenizer, str) or callable(self.tokenizer)):
            raise ConfigError(f"tokenizer={self.tokenizer!r} must be an encoding name, a "
                              "tokenizer name or path, or a callable str -> int")

    def at_level(self, level: int) -> ChunkerConfig:
        """The flat config that packs 1-based ``level`` of the hierarchy: its budget, a quarter
        of it as ``min_tokens``, and no overlap at level 1, whose chunks tile the source.

        >>> ChunkerConfig(levels=(1024, 256), overlap_tokens=32).at_level(1).overlap_tokens
        0
        """
        levels = self.levels or DEFAULT_LEVELS
        budget = levels[level - 1]
        return replace(self, max_tokens=budget, min_tokens=budget // 4, levels=None,
                       overlap_tokens=0 if level == 1 else self.overlap_tokens)

    @property
    def fingerprint(self) -> str:
        """A short hash of every field that shapes chunks, used in chunk ids and index manifests."""
        tokenizer = tokenizer_identity(self.tokenizer)
        shape: dict[str, object] = {
            "max_tokens": self.max_tokens,
            "overlap_tokens": self.overlap_tokens,
            "min_tokens": self.min_tokens,
            "tokenizer": tokenizer,
            "oversized": self.oversized,
        }
        if self.html_comments != "drop":
            shape["html_comments"] = self.html_comments
        if self.levels is not None:  # the levels' budgets replace the flat ones; flat configs
            del shape["max_tokens"], shape["min_tokens"]  # hash as they always have
            shape["levels"] = list(self.levels)
        # Site settings are hashed only when set, so ids made before they existed stay put.
        if self.base_url is not None:
            shape["base_url"] = self.base_url
        if self.site != "plain":
            shape["site"] = self.site
        if self.title_keys != DEFAULT_TITLE_KEYS:
            shape["title_keys"] = list(self.title_keys)
        if not self.clean:  # hashed only when off: ids made before hygiene existed stay put
            shape["clean"] = False
        if self.includes is not None:  # that a root is set, not where: ids stay portable
            shape["includes"] = True
        if self.semantic is not None:  # greedy configs hash as they always have
            shape["semantic"] = self.semantic
            shape["semantic_threshold"] = self.semantic_threshold
            if self.semantic == "embedding":
                shape["semantic_model"] = self.semantic_model
        if self.doc_context:  # hashed only when on: ids made before it existed stay put
            shape["doc_context"] = True
        data = json.dumps(shape, sort_keys=True).encode()
        return hashlib.blake2b(data, digest_size=8).hexdigest()


class ChunkerOptions(TypedDict, total=False):
    """:class:`ChunkerConfig`'s fields as keyword arguments (``chunk_markdown(text,
    max_tokens=256)``), kept in step with the dataclass by a test."""

    max_tokens: int
    overlap_tokens: int | None
    min_tokens: int | None
    tokenizer: TokenizerSpec
    oversized: Oversized
    levels: Sequence[int] | None
    html_comments: HtmlComments
    base_url: str | None
    site: Site
    title_keys: Sequence[str]
    clean: bool
    includes: str | os.PathLike[str] | None
    semantic: Semantic | None
    semantic_model: str | None
    semantic_threshold: float
    doc_context: bool


def config_with(config: ChunkerConfig | None, options: Mapping[str, object]) -> ChunkerConfig:
    """``config`` (default: :class:`ChunkerConfig`'s defaults) with ``options`` set on it, the
    options winning; an option that is no field is a :class:`ConfigError` naming it.

    A ``min_tokens`` or an overlap that was the default follows a new budget.

    >>> config_with(ChunkerConfig(overlap_tokens=0), {"max_tokens": 64}).min_tokens
    16
    >>> config_with(None, {"max_tokens": 64}).overlap_tokens
    8
    """
    unknown = sorted(set(options) - _FIELDS)
    if unknown:
        hints = [match for name in unknown for match in difflib.get_close_matches(name, _FIELDS, 1)]
        raise ConfigError(f"unknown chunker option {', '.join(map(repr, unknown))}"
                          + (f" (did you mean {', '.join(map(repr, hints))}?)" if hints else "")
                          + f"; the options are {', '.join(sorted(_FIELDS))}")
    if config is None:
        return ChunkerConfig(**options)  # type: ignore[arg-type]  # checked in __post_init__
    if "max_tokens" in options and "min_tokens" not in options \
            and config.min_tokens == config.max_tokens // 4:
        options = {**options, "min_tokens": None}
    if ("max_tokens" in options or "levels" in options) and "overlap_tokens" not in options \
            and config.overlap_tokens == default_overlap(config.max_tokens, config.levels):
        options = {**options, "overlap_tokens": None}
    return replace(config, **options)  # type: ignore[arg-type]  # checked in __post_init__


def default_overlap(max_tokens: int, levels: object = None) -> int:
    """The overlap of a config that was given none: ``max_tokens`` // :data:`OVERLAP_SHARE`,
    and with ``levels`` at most half the leaves' budget, so no budget refuses an overlap its
    caller did not ask for.

    >>> default_overlap(512), default_overlap(64), default_overlap(512, (256, 32))
    (64, 8, 16)
    """
    overlap = max(max_tokens, 0) // OVERLAP_SHARE
    if isinstance(levels, Sequence) and levels and isinstance(levels[-1], int):
        overlap = min(overlap, max(levels[-1], 0) // 2)  # malformed levels: checked_levels
    return overlap


def checked_levels(levels: object, overlap_tokens: int = 0) -> tuple[int, ...]:
    """``levels`` as a tuple: 1 to MAX_LEVELS budgets, strictly decreasing, each at least
    MIN_MAX_TOKENS and larger than the overlap; else a :class:`ConfigError` naming them.

    >>> checked_levels([2048, 512, 128])
    (2048, 512, 128)
    """
    if isinstance(levels, (str, bytes)) or not hasattr(levels, "__iter__"):
        raise ConfigError(f"levels={levels!r} must be a sequence of token budgets, coarsest first")
    budgets = tuple(levels)
    if not 1 <= len(budgets) <= MAX_LEVELS:
        raise ConfigError(f"levels={budgets!r} must have 1 to {MAX_LEVELS} budgets")
    for budget in budgets:
        _check_int("levels", budget)
        if budget < MIN_MAX_TOKENS:
            raise ConfigError(f"levels={budgets!r}: budget {budget} is too small: each must be "
                              f"at least {MIN_MAX_TOKENS}")
    for coarse, fine in zip(budgets, budgets[1:]):
        if fine >= coarse:
            raise ConfigError(f"levels={budgets!r} must decrease strictly, coarsest first: "
                              f"{fine} follows {coarse}")
    if overlap_tokens >= budgets[-1]:
        raise ConfigError(f"overlap_tokens={overlap_tokens} must be smaller than the smallest of "
                          f"levels={budgets!r}")
    return budgets


_FIELDS = frozenset(field.name for field in fields(ChunkerConfig))


def _checked_title_keys(keys: object) -> tuple[str, ...]:
    if isinstance(keys, str) or not hasattr(keys, "__iter__"):
        raise ConfigError(f"title_keys={keys!r} must be a sequence of front matter keys")
    checked = tuple(keys)
    if not all(isinstance(key, str) for key in checked):
        raise ConfigError(f"title_keys={checked!r} must be strings")
    return checked


def _check_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name}={value!r} must be an integer")
