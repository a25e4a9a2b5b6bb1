"""Text hygiene: what an embedder and a reader should not see, taken out before structure is read
(the characters: ``docs/encodings.md``). What remains is put in Unicode NFC.

The chunker reads the cleaned text, while every chunk's ``text`` and offsets still refer to
the caller's string: :class:`Cleaned` maps each position of the cleaned text back to it (a
removed character goes with the text that follows it)."""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Cleaned", "clean_text"]

#: Controls that separate words: replaced by a space (one character for one, offsets kept).
_SEPARATORS = {0x0B: " ", 0x0C: " ", 0x85: " "}
_REMOVED = re.compile(
    "[\ufeff\u200b\u2060\u00ad\u200c"
    "\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f"
    "\ud800-\udfff"
    "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]+"
)
#: Scripts whose spelling uses ZWNJ: a ZWNJ beside one of their letters is kept.
_ZWNJ_SCRIPTS = re.compile(
    "[\u0600-\u08ff\u0900-\u0dff\u0f00-\u0fff\u1000-\u109f\u1780-\u18af\ua8e0-\ua8ff"
    "\ufb50-\ufdff\ufe70-\ufefc]"
)
_ZWNJ = "\u200c"


@dataclass(frozen=True, slots=True)
class _Pieces:
    """How one string became another: ``(start in new, start in old, new length, old length)``
    for every stretch that kept some text, in order. Stretches that kept none (removed
    characters) are the gaps between them."""

    new_starts: tuple[int, ...]
    old_starts: tuple[int, ...]
    new_lengths: tuple[int, ...]
    old_lengths: tuple[int, ...]
    new_length: int
    old_length: int

    def to_old(self, i: int) -> int:
        """Position ``i`` of the new string in the old one; a position between stretches lies
        right after the earlier one, so removed characters go with what follows them."""
        if i >= self.new_length:
            return self.old_length
        k, into = _stretch_at(self.new_starts, i)
        if k < 0:
            return 0
        if into == 0:  # between stretches: right after the earlier one
            return self.old_starts[k - 1] + self.old_lengths[k - 1] if k > 0 else 0
        return self.old_starts[k] + min(into, self.old_lengths[k])

    def to_new(self, j: int) -> int:
        """Position ``j`` of the old string in the new one (the inverse of :meth:`to_old` at
        the positions it gives)."""
        if j >= self.old_length:
            return self.new_length
        k, into = _stretch_at(self.old_starts, j)
        if k < 0:
            return 0
        if into >= self.old_lengths[k]:  # in the removed text after stretch k
            return self.new_starts[k] + self.new_lengths[k]
        return self.new_starts[k] + min(into, self.new_lengths[k])


class _Rebuilt:
    """A new string built stretch by stretch from an old one, and the :class:`_Pieces` that
    map it back."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.stretches: list[tuple[int, int, int, int]] = []  # new, old start; new, old length
        self.length = 0

    def add(self, old_start: int, old: str, normalize: bool = False) -> None:
        """Append ``old`` (the stretch of the old string at ``old_start``), in NFC with
        ``normalize``."""
        new = unicodedata.normalize("NFC", old) if normalize else old
        self.parts.append(new)
        if new:
            self.stretches.append((self.length, old_start, len(new), len(old)))
        self.length += len(new)

    def done(self, old_length: int) -> tuple[str, _Pieces]:
        new, old, new_lengths, old_lengths = [tuple(column) for column in zip(*self.stretches)
                                              ] or [(), (), (), ()]
        return "".join(self.parts), _Pieces(new, old, new_lengths, old_lengths, self.length,
                                            old_length)


def _stretch_at(starts: tuple[int, ...], position: int) -> tuple[int, int]:
    """The stretch ``position`` lies in (the last that starts at or before it; -1 before the
    first) and how far into it, the lookup both directions of :class:`_Pieces` start with."""
    k = bisect.bisect_right(starts, position) - 1
    return k, position - starts[k] if k >= 0 else 0


@dataclass(frozen=True, slots=True)
class Cleaned:
    """The cleaned text and the way back to the original's positions.

    >>> c = clean_text("\\ufeffso\\u200bft\\x07 ware")
    >>> c.text, c.changed
    ('soft ware', True)
    >>> c.to_source(2), c.to_source(4), c.to_source(len(c.text))
    (3, 6, 12)
    """

    text: str
    source: str
    _steps: tuple[_Pieces, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether hygiene changed anything: characters removed or composed (steps that move
        positions), or separators made spaces (in place, so no step)."""
        return bool(self._steps) or self.text != self.source

    def to_source(self, i: int) -> int:
        """Position ``i`` of :attr:`text` as a position of :attr:`source`."""
        for step in reversed(self._steps):
            i = step.to_old(i)
        return i

    def from_source(self, j: int) -> int:
        """Position ``j`` of :attr:`source` as a position of :attr:`text`."""
        for step in self._steps:
            j = step.to_new(j)
        return j


def clean_text(source: str) -> Cleaned:
    """``source`` without invisible and control characters, in NFC (see the module's notes).

    Clean text comes back as it is, with no mapping to keep.

    >>> clean_text("e\\u0301t\\u00e9").text == "\\u00e9t\\u00e9"
    True
    >>> clean_text("\\u0645\\u06cc\\u200c\\u062e\\u0648\\u0627\\u0647\\u0645").text.count("\\u200c")
    1
    """
    steps: list[_Pieces] = []
    text = source
    removed = _remove(text)
    if removed is not None:
        text, pieces = removed
        steps.append(pieces)
    if "\x0b" in text or "\x0c" in text or "\x85" in text:
        text = text.translate(_SEPARATORS)
    if not unicodedata.is_normalized("NFC", text):
        text, pieces = _nfc(text)
        steps.append(pieces)
    return Cleaned(text, source, tuple(steps))


def _keeps_zwnj(source: str, at: int) -> bool:
    before = source[at - 1] if at > 0 else ""
    after = source[at + 1] if at + 1 < len(source) else ""
    return bool(_ZWNJ_SCRIPTS.match(before) or _ZWNJ_SCRIPTS.match(after))


#: The bytes of printable ASCII, tab and the line and page breaks: none is, or is part of, a
#: character :data:`_REMOVED` matches (an ASCII byte is never part of a longer character).
_KEPT_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r\x0b\x0c"


def _may_remove(source: str) -> bool:
    """Whether ``source`` holds a character hygiene removes, searched among its other characters
    only (its UTF-8 with those bytes deleted): on mostly-ASCII text a few percent of it."""
    rest = source.encode("utf-8", "surrogatepass").translate(None, _KEPT_ASCII)
    return bool(rest) and _REMOVED.search(rest.decode("utf-8", "surrogatepass")) is not None


def _remove(source: str) -> tuple[str, _Pieces] | None:
    """``source`` without the removed characters, and its pieces; ``None`` when none is there."""
    if not _may_remove(source):
        return None
    cuts: list[tuple[int, int]] = []
    for m in _REMOVED.finditer(source):
        start = m.start()
        for pos in range(m.start(), m.end()):
            if source[pos] == _ZWNJ and _keeps_zwnj(source, pos):
                if pos > start:
                    cuts.append((start, pos))
                start = pos + 1
        if m.end() > start:
            cuts.append((start, m.end()))
    if not cuts:
        return None
    out = _Rebuilt()
    pos = 0
    for a, b in cuts:
        out.add(pos, source[pos:a])
        pos = b
    out.add(pos, source[pos:])
    return out.done(len(source))


@functools.cache
def _composing_seconds() -> frozenset[str]:
    """Starters (combining class 0) that compose with the character before them (Hangul
    vowels and trailing consonants, some Indic vowel signs): NFC may not split before them."""
    seconds = {chr(c) for c in (*range(0x1161, 0x1176), *range(0x11A8, 0x11C3))}
    for code in range(0x80, 0x30000):
        decomposition = unicodedata.decomposition(chr(code))
        if not decomposition or decomposition.startswith("<"):
            continue
        parts = decomposition.split()
        if len(parts) == 2 and unicodedata.combining(chr(int(parts[1], 16))) == 0:
            seconds.add(chr(int(parts[1], 16)))
    return frozenset(seconds)


def _boundary(ch: str, seconds: frozenset[str]) -> bool:
    """Can NFC of a string be taken in two parts split just before ``ch``?"""
    first = unicodedata.normalize("NFD", ch)[0]
    return unicodedata.combining(first) == 0 and first not in seconds and ch not in seconds


def _nfc(text: str) -> tuple[str, _Pieces]:
    """``text`` in NFC, and pieces that map each normalised cluster to where it came from: a line
    already in NFC is one piece, one that is not is split into clusters that normalise alone."""
    seconds = _composing_seconds()
    out = _Rebuilt()
    pos = 0
    for line in text.splitlines(keepends=True) if "\n" in text else [text]:
        if unicodedata.is_normalized("NFC", line):
            out.add(pos, line)
        else:
            start = 0
            for i in range(1, len(line) + 1):
                if i == len(line) or _boundary(line[i], seconds):
                    out.add(pos + start, line[start:i], normalize=True)
                    start = i
        pos += len(line)
    return out.done(len(text))
