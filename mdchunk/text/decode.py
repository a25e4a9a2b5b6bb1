"""Bytes of a file → the text every reader takes and the encoding it was in, or a clear error
naming the file: a BOM names the encoding; NUL bytes without one mean binary; then UTF-8; then
GB18030, only when it decodes, the text is mostly CJK and charset-normalizer finds it coherent.
See ``docs/encodings.md``."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, MissingFileError

__all__ = ["ENCODING_KEY", "Decoded", "decode_bytes", "decode_document", "document_text"]

log = logging.getLogger(__name__)

#: The metadata key under which ``chunk_file`` records the encoding a file was read in.
ENCODING_KEY = "source_encoding"

#: BOMs, longest first (a UTF-32 LE BOM begins with the UTF-16 LE one), and their codecs.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
#: Han ideographs (and extensions), CJK punctuation, kana, Hangul, full-width forms.
_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
                  "\U00020000-\U0003134f]")
#: Share of CJK among the non-ASCII characters from which GB18030 text is "mostly CJK".
MIN_CJK_SHARE = 0.8
#: Share of CJK characters among all letters from which GB18030 text is "mostly CJK": a Chinese
#: manual full of commands and English terms is at 0.6 or more, an English file whose few
#: Latin-1 accents happen to decode as GB18030 far below.
MIN_CJK_LETTERS = 0.3
#: charset-normalizer's confidence (1 - chaos) in the GB18030 reading needed to accept it.
MIN_CONFIDENCE = 0.8


@dataclass(frozen=True, slots=True)
class Decoded:
    """A file's text and the encoding it was read in (a Python codec name: ``utf-8``,
    ``utf-8-sig``, ``utf-16-le``, ``utf-16-be``, ``utf-32-le``, ``utf-32-be`` or
    ``gb18030``); ``confidence`` is charset-normalizer's for GB18030, 1.0 otherwise."""

    text: str
    encoding: str
    confidence: float = 1.0


def document_text(path: Path) -> str:
    """The text of ``path``, decoded as every reader decodes documents (see
    :func:`decode_document`). It was ``read_document``: "read" now means the whole reading
    path (:mod:`mdchunk.chunks.read`), and this only decodes."""
    return decode_document(path).text


def decode_document(path: Path) -> Decoded:
    """Read and decode ``path``; refuse binary or undecodable files clearly: every failure is an
    :class:`~mdchunk.InputError` that starts with the path (a
    :class:`~mdchunk.errors.MissingFileError` when the file is not there). An empty file is
    ``""``, not an error."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise MissingFileError(f"{path}: cannot read: no such file or directory") from exc
    except OSError as exc:
        reason = (exc.strerror or str(exc) or type(exc).__name__).lower()
        raise InputError(f"{path}: cannot read: {reason}") from exc
    return decode_bytes(raw, str(path))


def decode_bytes(raw: bytes, name: str) -> Decoded:
    """Decode a file's bytes (``name`` heads any error).

    >>> decode_bytes("问题：为什么？".encode("gb18030"), "faq.txt")
    Decoded(text='问题：为什么？', encoding='gb18030', confidence=1.0)
    >>> decode_bytes(b"\\xff\\xfeh\\x00i\\x00", "a.txt").encoding
    'utf-16-le'
    """
    for bom, codec in _BOMS:
        if raw.startswith(bom) and not (codec == "utf-32-le" and len(raw) % 4):
            return _with_bom(raw, len(bom), codec, name)
    if b"\x00" in raw[:8192]:
        raise InputError(f"{name}: looks binary (NUL bytes), not Markdown or text")
    try:
        return Decoded(raw.decode("utf-8"), "utf-8")
    except UnicodeDecodeError as exc:
        error = exc
    chinese = _gb18030(raw)
    if chinese is not None:
        log.info("%s: read as GB18030 (confidence %.2f)", name, chinese.confidence)
        return chinese
    raise InputError(f"{name}: not valid UTF-8 ({_where_in(raw, error.start)}: "
                     f"{raw[error.start:error.start + 1]!r}) nor GB18030 Chinese; convert it, "
                     "e.g. iconv -f <its encoding> -t UTF-8") from error


def _where_in(raw: bytes, at: int) -> str:
    """Where byte ``at`` of ``raw`` lies, as an editor shows it: its line, its column (the
    characters before it on that line, which decode, as the first bad byte ends them, plus
    one), and its offset from the file's start (0-based, as hex editors show it).

    >>> _where_in(b"# A\\n\\nd\\xc3\\xa9j\\xe0 vu\\n", 9)
    'line 3, column 4, byte offset 9'
    """
    line = raw.count(b"\n", 0, at) + 1
    column = len(raw[raw.rfind(b"\n", 0, at) + 1:at].decode("utf-8", "replace")) + 1
    return f"line {line}, column {column}, byte offset {at}"


def _with_bom(raw: bytes, skip: int, codec: str, name: str) -> Decoded:
    try:
        text = raw[skip:].decode(codec)
    except UnicodeDecodeError as exc:
        label = codec.upper().replace("-LE", "LE").replace("-BE", "BE")
        raise InputError(f"{name}: not valid {label} after its byte order mark (byte "
                         f"{exc.start + skip}: {exc.reason}); convert it, "
                         f"e.g. iconv -f {label} -t UTF-8") from exc
    if "\x00" in text[:8192]:
        raise InputError(f"{name}: looks binary (NUL characters), not Markdown or text")
    return Decoded(text, codec)


def _gb18030(raw: bytes) -> Decoded | None:
    """GB18030 text, when the bytes decode cleanly, mostly as CJK, and coherently."""
    try:
        text = raw.decode("gb18030")
    except UnicodeDecodeError:
        return None
    wide = [ch for ch in text if ord(ch) > 0x7F]
    cjk = sum(1 for ch in wide if _CJK.match(ch))
    if not wide or cjk < MIN_CJK_SHARE * len(wide):
        return None
    if cjk < MIN_CJK_LETTERS * sum(1 for ch in text if ch.isalpha()):
        return None  # English with one 'mé' in Latin-1 decodes as one Han character
    best = _detector(raw, ["gb18030"])
    if best is None:
        return None
    confidence = round(1.0 - best[1], 3)
    return Decoded(text, "gb18030", confidence) if confidence >= MIN_CONFIDENCE else None


def _detector(raw: bytes, isolate: list[str]) -> tuple[str, float] | None:
    """charset-normalizer's best reading among ``isolate``: its encoding and chaos (0 is
    clean text). Its guesses among all encodings are not given as advice: on short text they
    are often wrong (Big5 Chinese is "CP932")."""
    from charset_normalizer import from_bytes

    best = from_bytes(raw, cp_isolation=isolate).best()
    return None if best is None else (best.encoding, best.chaos)
