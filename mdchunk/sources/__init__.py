"""Sources: finding the documents under the paths a user names, and chunking many of them."""

from .discover import SUFFIXES, Selection, Source, discover

__all__ = ["SUFFIXES", "Selection", "Source", "discover"]
