"""Bytes of a file → the text every reader takes, or a clear error naming the file."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, MissingFileError

__all__ = ["read_document"]

_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def read_document(path: Path) -> str:
    """Decode a file as UTF-8 (a BOM is dropped); refuse binary or undecodable files clearly.

    Every failure is an :class:`~mdchunk.InputError` that starts with the path:
    ``cannot read: <reason>`` (a :class:`~mdchunk.errors.MissingFileError` when the file is
    not there, e.g. deleted while a run was under way), ``looks binary``, ``UTF-16`` or
    ``not valid UTF-8`` with the line and byte. An empty file is ``""``, not an error.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise MissingFileError(f"{path}: cannot read: no such file or directory") from exc
    except OSError as exc:
        reason = (exc.strerror or str(exc) or type(exc).__name__).lower()
        raise InputError(f"{path}: cannot read: {reason}") from exc
    if raw.startswith(_UTF16_BOMS):
        raise InputError(f"{path}: UTF-16 text, not UTF-8; convert it, "
                         "e.g. iconv -f UTF-16 -t UTF-8")
    if b"\x00" in raw[:8192]:
        raise InputError(f"{path}: looks binary (NUL bytes), not Markdown or text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{path}: not valid UTF-8 (line {line}, byte {exc.start}: "
            f"{raw[exc.start:exc.start + 1]!r}); convert it, e.g. iconv -f GB18030 -t UTF-8"
        ) from exc
