"""Heading slugs as each generator makes them, and how each numbers a page's duplicates.

Three flavours (:data:`SLUGGERS`): **github** (``plain``, ``docusaurus``: github-slugger; a
repeat gets ``-1``, ``-2`` …), **mkdocs** (Python-Markdown's ``toc`` ``slugify``; ``_1``,
``_2`` …) and **hugo** (goldmark's ``github`` auto ids; an empty id is ``heading``; the first
free ``-1``, ``-2`` …). Explicit ids (``{#id}``, ``{/* #id */}``) win in every flavour; whether
they take part in duplicate numbering follows the generator (:data:`ExplicitIds`)."""

from __future__ import annotations

import re
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["GITHUB", "HUGO", "MKDOCS", "SLUGGERS", "ExplicitIds", "Numbering", "SlugFlavour",
           "Slugger", "github_slug", "hugo_slug", "mkdocs_slug", "number_headings"]

#: The slug rules; a site's is its record's :attr:`~.generators.SiteGenerator.slugger`.
SlugFlavour = Literal["github", "mkdocs", "hugo"]

#: How explicit ids take part in a page's duplicate numbering: ``"uncounted"`` not at all
#: (Docusaurus), ``"in_place"`` from where they stand (Hugo: goldmark registers them as it
#: meets them; GitHub has no explicit ids, and ``plain`` counts them so that anchors stay
#: unique), ``"page_first"`` all of them before any slug (MkDocs: ``toc`` collects every id of
#: the page first).
ExplicitIds = Literal["uncounted", "in_place", "page_first"]

# -- slugs ------------------------------------------------------------------------------------

#: General categories github-slugger removes (except alphabetic characters, ``-`` and space).
_GITHUB_REMOVED = frozenset({"No", "Pe", "Pf", "Pi", "Ps", "Po", "Pd", "Sc", "Sk", "Sm", "So",
                             "Cc", "Co", "Cf", "Cn", "Zs", "Zl", "Zp"})
#: Symbols Unicode calls alphabetic (Other_Alphabetic of category So): circled and squared
#: Latin letters, which github-slugger keeps.
_ALPHABETIC_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169),
                       (0x1F170, 0x1F189))


def _github_keeps(char: str) -> bool:
    if char in " -":
        return True
    if unicodedata.category(char) not in _GITHUB_REMOVED:
        return True
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _ALPHABETIC_SYMBOLS)


def github_slug(text: str) -> str:
    """GitHub's heading slug (github-slugger's ``slug``), before duplicates are numbered.

    >>> github_slug("Hello World")
    'hello-world'
    >>> github_slug("安装 步骤")
    '安装-步骤'
    >>> github_slug("😄 unicode emoji")
    '-unicode-emoji'
    """
    lowered = text.lower()
    if lowered.isascii():  # most headings: one pass in C instead of a category per character
        return _GITHUB_ASCII_DROPPED.sub("", lowered).replace(" ", "-")
    return "".join(c for c in lowered if _github_keeps(c)).replace(" ", "-")


#: The ASCII characters :func:`_github_keeps` drops (all but letters, digits, ``_`` (a
#: connector, which github-slugger keeps), ``-`` and space), lower-case text.
_GITHUB_ASCII_DROPPED = re.compile(r"[^a-z0-9_ -]")


_MKDOCS_DROP = re.compile(r"[^\w\s-]")
_MKDOCS_SEPARATORS = re.compile(r"[-\s]+")


def mkdocs_slug(text: str) -> str:
    """Python-Markdown's ``toc`` ``slugify(text, "-")`` (MkDocs' default), before duplicates.

    >>> mkdocs_slug("Hello World!")
    'hello-world'
    >>> mkdocs_slug("Žlutý kůň")
    'zluty-kun'
    >>> mkdocs_slug("安装 步骤")
    ''
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    cleaned = _MKDOCS_DROP.sub("", ascii_text).strip().lower()
    return _MKDOCS_SEPARATORS.sub("-", cleaned)


def hugo_slug(text: str) -> str:
    """Hugo's ``github`` auto heading id (goldmark), before duplicates; empty gives
    ``heading`` when numbered (:class:`HugoNumbering`).

    >>> hugo_slug("God is good: 神真美好")
    'god-is-good-神真美好'
    >>> hugo_slug("Special !\\"#$%&(parens)=?´* chars")
    'special-parens-chars'
    """
    if text.isascii():  # most headings: one pass in C instead of a category per character
        return _HUGO_ASCII_DROPPED.sub("", text).translate(_HUGO_ASCII_DASHES).lower()
    out = []
    for char in text:
        if char in "- \t":
            out.append("-")
        elif char == "_" or unicodedata.category(char) in _HUGO_KEPT:
            out.append(char.lower())
    return "".join(out)


#: Go's unicode.IsLetter and unicode.IsDigit.
_HUGO_KEPT = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
#: The ASCII characters :func:`hugo_slug` drops (all but letters, digits, ``_``, ``-`` and the
#: blanks it makes dashes), and those blanks.
_HUGO_ASCII_DROPPED = re.compile(r"[^A-Za-z0-9_ \t-]")
_HUGO_ASCII_DASHES = str.maketrans(" \t", "--")

# -- duplicate numbering ----------------------------------------------------------------------


class Numbering(ABC):
    """One page's duplicate numbering: the ids taken so far, and how a generator makes a
    taken slug unique (:meth:`free`)."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.taken: set[str] = set(reserved)

    def unique(self, slug: str) -> str:
        """``slug``, numbered if it is taken, and taken from now on."""
        slug = self.free(slug)
        self.taken.add(slug)
        return slug

    def reserve(self, explicit: str) -> None:
        """Take an explicit id, so that no slug after it gets it."""
        self.taken.add(explicit)

    @abstractmethod
    def free(self, slug: str) -> str:
        """``slug`` as this generator numbers it when it is taken (not taking it)."""


class GithubNumbering(Numbering):
    """github-slugger's: a counter per slug, so ``foo``, ``foo``, ``foo-1`` gives ``foo``,
    ``foo-1``, ``foo-1-1``."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        super().__init__(reserved)
        self.counts: dict[str, int] = {}  # github-slugger's occurrences

    def free(self, slug: str) -> str:
        base = slug
        while slug in self.taken:
            self.counts[base] = self.counts.get(base, 0) + 1
            slug = f"{base}-{self.counts[base]}"
        self.counts.setdefault(slug, 0)
        return slug

    def reserve(self, explicit: str) -> None:
        super().reserve(explicit)
        self.counts.setdefault(explicit, 0)


_MKDOCS_COUNT = re.compile(r"^(.*)_([0-9]+)$")


class MkdocsNumbering(Numbering):
    """Python-Markdown's ``toc.unique``: ``_1``, ``_2`` …, counting on from an id that ends
    in ``_N``; an empty id is numbered too."""

    def free(self, slug: str) -> str:
        while slug in self.taken or not slug:
            match = _MKDOCS_COUNT.match(slug)
            slug = (f"{match[1]}_{int(match[2]) + 1}" if match else f"{slug}_1")
        return slug


class HugoNumbering(Numbering):
    """goldmark's: an empty id is ``heading``; a taken one gets the first free ``-1``, ``-2`` …"""

    def free(self, slug: str) -> str:
        slug = slug or "heading"
        if slug in self.taken:
            number = 1
            while f"{slug}-{number}" in self.taken:
                number += 1
            slug = f"{slug}-{number}"
        return slug


@dataclass(frozen=True, slots=True)
class Slugger:
    """A slug flavour: the slug of a heading's text, and the numbering of a page's duplicates
    (made with the ids reserved before the first heading)."""

    flavour: SlugFlavour
    slug: Callable[[str], str]
    numbering: Callable[[Iterable[str]], Numbering]


GITHUB = Slugger("github", github_slug, GithubNumbering)
MKDOCS = Slugger("mkdocs", mkdocs_slug, MkdocsNumbering)
HUGO = Slugger("hugo", hugo_slug, HugoNumbering)
#: Every flavour by its name.
SLUGGERS: dict[SlugFlavour, Slugger] = {s.flavour: s for s in (GITHUB, MKDOCS, HUGO)}


def number_headings(titles: Sequence[str], slugger: Slugger, explicit: Sequence[str | None],
                    explicit_ids: ExplicitIds) -> list[str]:
    """The anchor of each heading of one page, in order: its explicit id when it has one,
    else its slug numbered by ``slugger``, explicit ids taking part as ``explicit_ids`` says.

    >>> number_headings(["Foo", "Bar"], MKDOCS, [None, "foo"], "page_first")
    ['foo_1', 'foo']
    >>> number_headings(["Foo", "Bar"], GITHUB, [None, "foo"], "page_first")
    ['foo-1', 'foo']
    """
    reserved = (i for i in explicit if i) if explicit_ids == "page_first" else ()
    numbering = slugger.numbering(reserved)
    out = []
    for title, given in zip(titles, explicit):
        if given:
            if explicit_ids == "in_place":
                numbering.reserve(given)
            out.append(given)
        else:
            out.append(numbering.unique(slugger.slug(title)))
    return out
