"""Bytes of a file → the text every reader takes, or a clear error naming the file."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError

__all__ = ["read_document"]


def read_document(path: Path) -> str:
    """Decode a file as UTF-8 (a BOM is dropped); refuse binary or undecodable files clearly."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if b"\x00" in raw[:8192]:
        raise InputError(f"{path}: looks binary (NUL bytes), not Markdown or text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 1]!r}); "
            "convert it, e.g. iconv -f GB18030 -t UTF-8"
        ) from exc
