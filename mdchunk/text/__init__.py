"""Text: decoding files, and the seams inside prose (sentences, lines, words; CJK and Latin)."""

from .clean import Cleaned, clean_text
from .decode import ENCODING_KEY, Decoded, decode_document, document_text
from .sentences import SentenceIndex, code_spans, line_spans, sentence_spans, word_spans

__all__ = ["ENCODING_KEY", "Cleaned", "Decoded", "SentenceIndex", "clean_text", "code_spans",
           "decode_document", "document_text", "line_spans", "sentence_spans", "word_spans"]


def __getattr__(name: str) -> object:
    """``read_document``, :func:`document_text` 's old name: still there for a release, with a
    :class:`DeprecationWarning`."""
    if name == "read_document":
        import warnings

        warnings.warn("mdchunk.text.read_document is deprecated: it is document_text now",
                      DeprecationWarning, stacklevel=2)
        return document_text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
