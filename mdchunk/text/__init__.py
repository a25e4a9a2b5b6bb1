"""Text: decoding files, and the seams inside prose (sentences, lines, words; CJK and Latin)."""

from .clean import Cleaned, clean_text
from .decode import ENCODING_KEY, Decoded, decode_document, read_document
from .sentences import SentenceIndex, code_spans, line_spans, sentence_spans, word_spans

__all__ = ["ENCODING_KEY", "Cleaned", "Decoded", "SentenceIndex", "clean_text", "code_spans",
           "decode_document",
           "line_spans", "read_document",
           "sentence_spans", "word_spans"]
