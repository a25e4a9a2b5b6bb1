"""Sources: finding the documents under the paths a user names, and chunking many of them."""

from .discover import SUFFIXES, Source, discover

__all__ = ["SUFFIXES", "Source", "discover"]
