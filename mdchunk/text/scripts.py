"""The scripts written without spaces between words, as regular-expression character ranges:
what the index reads as CJK (the corpus survey, BM25's character bigrams, near-duplicate
shingles, matching lines). One table, so that every reader means the same characters."""

from __future__ import annotations

__all__ = ["CJK", "HAN", "HANGUL", "KANA"]

#: Han ideographs: the unified block, extension A and the compatibility ideographs.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: Hiragana and katakana.
KANA = "\u3040-\u30ff"
#: Hangul syllables.
HANGUL = "\uac00-\ud7af"
#: Han, kana and hangul together.
CJK = HAN + KANA + HANGUL
