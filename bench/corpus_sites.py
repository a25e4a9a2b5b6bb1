"""Which documentation site each shared corpus is a sample of, and which of its files are
Markdown: the benchmarks chunk a site's pages as that site renders them (``site=``), as a user
of it would (issue 32).

``hugo-docs`` is Hugo's own documentation (shortcodes, includes); ``ory-docs`` a Docusaurus site
(MDX pages, ``.mdx`` files among them); every other corpus is plain Markdown.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MARKDOWN_SUFFIXES", "SITE_OF", "markdown_files", "site_of"]

#: Corpus folder name -> the ``site`` its pages are read with (``plain`` for any other).
SITE_OF = {"hugo-docs": "hugo", "ory-docs": "docusaurus"}
#: What a Markdown file's name ends with, MDX included.
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


def site_of(folder: Path) -> str:
    """The ``site`` the corpus in ``folder`` is read with."""
    return SITE_OF.get(folder.name, "plain")


def markdown_files(folder: Path) -> list[Path]:
    """Every Markdown (and MDX) file under ``folder``, in path order."""
    return sorted(p for p in folder.rglob("*")
                  if p.suffix.lower() in MARKDOWN_SUFFIXES and p.is_file())
