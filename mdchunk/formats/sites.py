"""Documentation-site conventions: the anchor each generator gives a heading, and the URL it
gives a page.

Four flavours (``SITES``): ``plain`` (a repository on GitHub), ``docusaurus``, ``mkdocs`` and
``hugo``. Each has its own heading slugs and duplicate numbering, and its own routing from a
file's path (and front matter) to a page URL. ``docs/sites.md`` gives every rule with the
differences from the real generators that mdchunk accepts; the rules here follow the
generators' own code:

- **github** (``plain`` and ``docusaurus``): github-slugger, which reproduces GitHub. Lower
  case; every character removed but letters, marks, decimal and letter numbers, connector
  punctuation (``_``), ``-`` and spaces (and the few symbols Unicode calls alphabetic, such as
  ``Ⓐ``); each space becomes ``-``. A repeated slug gets ``-1``, ``-2`` …
- **mkdocs**: Python-Markdown's ``toc`` ``slugify``: NFKD, non-ASCII dropped, then every
  character but word characters, blanks and ``-``; stripped, lower case, runs of blanks and
  hyphens become one ``-``. A repeated (or empty) id gets ``_1``, ``_2`` …
- **hugo**: goldmark's ``github`` auto ids as Hugo implements them: letters, decimal digits and
  ``_`` kept (lower case), each ``-``, space or tab becomes ``-``, all else dropped; an empty
  id is ``heading``; a repeated one gets the first free ``-1``, ``-2`` …

Explicit ids (``{#id}``, ``{/* #id */}``) win in every flavour; whether they take part in
duplicate numbering follows the generator: not in Docusaurus, from where they stand in Hugo
(goldmark registers them as it meets them), everywhere in MkDocs (``toc`` collects every id of
the page first). GitHub has no explicit ids: ``plain`` registers them as they come, so that
anchors stay unique on the page.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, get_args

from ..errors import ConfigError
from .blocks import Block

__all__ = [
    "SITES",
    "Site",
    "SlugFlavour",
    "anchors",
    "github_slug",
    "hugo_slug",
    "join_url",
    "mkdocs_slug",
    "page_path",
    "page_title",
    "page_url",
    "slug_flavour",
    "slugs",
]

#: The documentation sites whose conventions mdchunk knows.
Site = Literal["plain", "docusaurus", "mkdocs", "hugo"]
SITES: tuple[str, ...] = get_args(Site)
#: The slug rules; a site's flavour is :func:`slug_flavour`.
SlugFlavour = Literal["github", "mkdocs", "hugo"]

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
    return "".join(c for c in text.lower() if _github_keeps(c)).replace(" ", "-")


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
    ``heading`` when numbered (:func:`slugs`).

    >>> hugo_slug("God is good: 神真美好")
    'god-is-good-神真美好'
    >>> hugo_slug("Special !\\"#$%&(parens)=?´* chars")
    'special-parens-chars'
    """
    out = []
    for char in text:
        if char in "- \t":
            out.append("-")
        elif char == "_" or unicodedata.category(char) in _HUGO_KEPT:
            out.append(char.lower())
    return "".join(out)


#: Go's unicode.IsLetter and unicode.IsDigit.
_HUGO_KEPT = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})

_MKDOCS_COUNT = re.compile(r"^(.*)_([0-9]+)$")


class _Numbering:
    """One page's duplicate numbering, as one generator does it."""

    def __init__(self, flavour: SlugFlavour, reserved: Iterable[str] = ()) -> None:
        self.flavour = flavour
        self.taken: set[str] = set(reserved)
        self.counts: dict[str, int] = {}  # github-slugger's occurrences

    def unique(self, slug: str) -> str:
        if self.flavour == "github":
            base = slug
            while slug in self.taken:
                self.counts[base] = self.counts.get(base, 0) + 1
                slug = f"{base}-{self.counts[base]}"
            self.counts.setdefault(slug, 0)
        elif self.flavour == "mkdocs":
            while slug in self.taken or not slug:  # Python-Markdown's toc.unique
                match = _MKDOCS_COUNT.match(slug)
                slug = (f"{match[1]}_{int(match[2]) + 1}" if match else f"{slug}_1")
        else:
            slug = slug or "heading"
            if slug in self.taken:
                number = 1
                while f"{slug}-{number}" in self.taken:
                    number += 1
                slug = f"{slug}-{number}"
        self.taken.add(slug)
        return slug

    def reserve(self, explicit: str) -> None:
        self.taken.add(explicit)
        if self.flavour == "github":
            self.counts.setdefault(explicit, 0)


_SLUGGERS: dict[SlugFlavour, Callable[[str], str]] = {
    "github": github_slug, "mkdocs": mkdocs_slug, "hugo": hugo_slug}
_OWN_SITE: dict[SlugFlavour, Site] = {"github": "plain", "mkdocs": "mkdocs", "hugo": "hugo"}


def slugs(titles: Sequence[str], flavour: SlugFlavour = "github",
          explicit: Sequence[str | None] | None = None, site: Site | None = None) -> list[str]:
    """The anchor of each heading of one page, in order: its explicit id when it has one
    (``explicit[i]``), else its slug with duplicates numbered as ``flavour`` numbers them.

    ``site`` decides whether explicit ids take part in the numbering (see the module
    docstring); by default, as the flavour's own site does.

    >>> slugs(["Foo", "Foo", "Foo"])
    ['foo', 'foo-1', 'foo-2']
    >>> slugs(["Foo", "Foo"], "mkdocs")
    ['foo', 'foo_1']
    >>> slugs(["Foo", "Bar"], "mkdocs", [None, "foo"])
    ['foo_1', 'foo']
    """
    ids = list(explicit) if explicit is not None else [None] * len(titles)
    site = site or _OWN_SITE[flavour]
    numbering = _Numbering(flavour, (i for i in ids if i) if site == "mkdocs" else ())
    slug = _SLUGGERS[flavour]
    out = []
    for title, given in zip(titles, ids):
        if given:
            if site in ("plain", "hugo"):
                numbering.reserve(given)
            out.append(given)
        else:
            out.append(numbering.unique(slug(title)))
    return out


def slug_flavour(site: Site) -> SlugFlavour:
    """The slug rules ``site`` follows: Docusaurus and GitHub share github-slugger."""
    return "mkdocs" if site == "mkdocs" else "hugo" if site == "hugo" else "github"


def _headings(blocks: Iterable[Block]) -> Iterator[Block]:
    """Every heading in document order, those inside quotes, lists and admonitions too: the
    generators number them all."""
    for block in blocks:
        if block.kind == "heading":
            yield block
        else:
            yield from _headings(block.children)


def anchors(blocks: Sequence[Block], site: Site = "plain") -> dict[int, str]:
    """The anchor of every heading of a page, by its start; an empty slug (GitHub's for a
    heading of emoji alone) is left out.

    >>> from mdchunk.formats import parse_markdown
    >>> doc = parse_markdown("## Setup\\n\\nx\\n\\n## Setup {#again}\\n\\ny\\n\\n## Setup\\n")
    >>> list(anchors(doc.blocks, "docusaurus").values())
    ['setup', 'again', 'setup-1']
    """
    headings = list(_headings(blocks))
    found = slugs([h.title for h in headings], slug_flavour(site),
                  [h.heading_id or None for h in headings], site)
    return {h.start: anchor for h, anchor in zip(headings, found) if anchor}


# -- page titles ------------------------------------------------------------------------------


def page_title(front: Mapping[str, Any], blocks: Sequence[Block],
               keys: Sequence[str] = ("title", "sidebar_label")) -> Block | None:
    """The page title as the root of every heading path: the first of ``keys`` that front
    matter gives (a string or number), unless a top-level ``#`` heading already says it.

    It is a ``title`` block at ``-1``: before every chunk, so always in the breadcrumb, and
    never a block of the text.

    >>> from mdchunk.formats import parse_markdown
    >>> page_title({"title": "Install"}, parse_markdown("## Linux\\n\\nRun it.\\n").blocks).title
    'Install'
    >>> page_title({"title": "Install"}, parse_markdown("# Install\\n\\nRun it.\\n").blocks)
    """
    if any(b.kind == "heading" and b.level == 1 for b in blocks):
        return None
    for key in keys:
        title = _text(front, key)
        if title is not None:
            return Block("title", -1, -1, title=" ".join(title.split()))
    return None


# -- page URLs --------------------------------------------------------------------------------

_DATE_OR_VERSION = re.compile(r"^(?:\d{2}|\d{4})[-_.]\d{2}(?:[-_.](?:\d{2}|\d{4}))?|^v?\d+[-_.]\d+")
_NUMBER_PREFIX = re.compile(r"^\d+\s*[-_.]+\s*(?P<rest>[^-_.\s].*)$")


def _strip_number_prefix(name: str) -> str:
    """Docusaurus' default number prefix parser: ``01-intro`` → ``intro``; dates and versions
    (``2021-01-intro``, ``1.2-notes``) keep theirs."""
    if _DATE_OR_VERSION.match(name):
        return name
    match = _NUMBER_PREFIX.match(name)
    return match["rest"] if match else name


def _text(front: Mapping[str, Any], key: str) -> str | None:
    value = front.get(key)
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


def _split(doc_id: str) -> tuple[list[str], str, str]:
    """Folders, file stem and suffix of a document id (``\\`` read as ``/``)."""
    path = doc_id.replace("\\", "/").lstrip("/")
    while path.startswith("./"):
        path = path[2:]
    folders = [p for p in path.split("/")[:-1] if p and p != "."]
    stem, suffix = posixpath.splitext(path.rsplit("/", 1)[-1])
    return folders, stem, suffix


def _resolve(relative: str, folder: str) -> str:
    """``relative`` resolved against the folder URL ``folder`` (``/a/b/``), as a browser does."""
    segments = folder.strip("/").split("/") if folder.strip("/") else []
    parts = relative.split("/")
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if segments:
                segments.pop()
        else:
            segments.append(part)
    trailing = "/" if relative.endswith("/") or parts[-1] in (".", "..") else ""
    return "/" + "/".join(segments) + (trailing if segments else "")


def _docusaurus(doc_id: str, front: Mapping[str, Any]) -> str:
    folders, stem, _ = _split(doc_id)
    route = ""
    if folders and folders[0] == "docs":  # the docs plugin's folder, served at /docs/
        route, folders = "/docs", folders[1:]
    slug = _text(front, "slug")
    if slug is not None and slug.startswith("/"):
        return route + slug
    folder_url = "/" + "".join(f"{_strip_number_prefix(f)}/" for f in folders)
    index_names = {"index", "readme", *([folders[-1].lower()] if folders else [])}
    if slug is None and stem.lower() in index_names:
        return route + folder_url
    return route + _resolve(slug or _text(front, "id") or _strip_number_prefix(stem), folder_url)


def _mkdocs(doc_id: str) -> str:
    folders, stem, _ = _split(doc_id)
    if folders and folders[0] == "docs":  # MkDocs' docs_dir is not part of the URL
        folders = folders[1:]
    parts = folders if stem in ("index", "README") else [*folders, stem]
    return "/" + "".join(f"{p}/" for p in parts)


#: Characters Hugo keeps in a path besides letters, digits and marks.
_HUGO_PATH_CHARS = frozenset("./\\_-#+~@%")


def _hugo_path(path: str) -> str:
    """Hugo's path sanitising (``UnicodeSanitize``, then lower case): a run of blanks becomes
    one ``-`` (none after a ``-``), characters other than letters, digits, marks and
    ``. / _ - # + ~ @ %`` are dropped."""
    out: list[str] = []
    blank = False
    for char in path:
        if char in _HUGO_PATH_CHARS or unicodedata.category(char)[0] in "LM" \
                or unicodedata.category(char) == "Nd":
            if blank and char != "-" and out and out[-1] != "-":
                out.append("-")
            blank = False
            out.append(char)
        elif char.isspace() and out:
            blank = True
    return "".join(out).lower()


def _hugo(doc_id: str, front: Mapping[str, Any]) -> str:
    folders, stem, _ = _split(doc_id)
    if folders and folders[0] == "content":  # Hugo's contentDir is not part of the URL
        folders = folders[1:]
    home = stem == "_index" and not folders
    url = _text(front, "url")
    if url is not None and not home:  # the whole path, as written
        path = "/" + url.lstrip("/")
        last = path.rstrip("/").rsplit("/", 1)[-1]
        return path if path.endswith("/") or "." in last else path + "/"
    if stem in ("_index", "index"):  # a section, or a bundle's page: the folder
        parts = list(folders)
        slug = _text(front, "slug")
        if stem == "index" and slug is not None and parts:
            parts[-1] = slug
    else:
        parts = [*folders, _text(front, "slug") or stem]
    return _hugo_path("/" + "".join(f"{p}/" for p in parts))


def page_path(doc_id: str, site: Site, front: Mapping[str, Any] | None = None) -> str:
    """The path, from the site's root, of the page ``site`` builds from the document
    ``doc_id`` (relative to the indexed root) and its front matter.

    >>> page_path("docs/guides/01-setup.md", "docusaurus")
    '/docs/guides/setup'
    >>> page_path("docs/guides/index.md", "mkdocs")
    '/guides/'
    >>> page_path("content/posts/My Post.md", "hugo", {"slug": "first"})
    '/posts/first/'
    >>> page_path("docs/a.md", "plain")
    '/docs/a.md'
    """
    front = front or {}
    if site == "docusaurus":
        return _docusaurus(doc_id, front)
    if site == "mkdocs":
        return _mkdocs(doc_id)
    if site == "hugo":
        return _hugo(doc_id, front)
    if site == "plain":
        folders, stem, suffix = _split(doc_id)
        return "/" + "/".join([*folders, stem + suffix]) if stem or suffix else "/"
    raise ConfigError(f"site={site!r} must be one of {', '.join(SITES)}")


#: ASCII characters a URL may carry as they are; others (and ``%`` itself) are escaped.
#: Non-ASCII text stays readable (an IRI), as browsers show it.
_URL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                      "-._~!$&'()*+,;=:@/")


def _escape(text: str, safe: frozenset[str] = _URL_SAFE) -> str:
    return "".join(c if c in safe or ord(c) > 127 else
                   "".join(f"%{b:02X}" for b in c.encode("utf-8")) for c in text)


def join_url(base_url: str, path: str, anchor: str | None = None) -> str:
    """``base_url`` followed by the page ``path`` (relative to it) and ``#anchor``.

    >>> join_url("https://example.com/docs/", "/a b/", "x?")
    'https://example.com/docs/a%20b/#x?'
    """
    url = base_url.rstrip("/") + _escape("/" + path.lstrip("/"))
    return f"{url}#{_escape(anchor, _URL_SAFE | {'?'})}" if anchor else url


def page_url(base_url: str, doc_id: str, site: Site,
             front: Mapping[str, Any] | None = None) -> str:
    """The URL of the page built from ``doc_id`` (:func:`page_path`) under ``base_url``.

    >>> page_url("https://example.com", "docs/index.md", "docusaurus")
    'https://example.com/docs/'
    """
    return join_url(base_url, page_path(doc_id, site, front))
