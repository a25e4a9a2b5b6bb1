"""Page URLs as each generator routes them, from a file's path and front matter (every rule:
``docs/sites.md``); and a URL from a base, a path and an anchor."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Router", "docusaurus_route", "front_text", "hugo_route", "join_url",
           "mkdocs_route", "plain_route"]

#: A document id (its path relative to the indexed root) and its front matter → the path of
#: its page from the site's root.
Router = Callable[[str, Mapping[str, Any]], str]


def front_text(front: Mapping[str, Any], key: str) -> str | None:
    """Front matter's ``key`` as text: a string or number, stripped; else ``None``."""
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


def plain_route(doc_id: str, front: Mapping[str, Any]) -> str:
    """A repository's file: its path as it is.

    >>> plain_route("./docs\\\\README.md", {})
    '/docs/README.md'
    """
    folders, stem, suffix = _split(doc_id)
    return "/" + "/".join([*folders, stem + suffix]) if stem or suffix else "/"


# -- Docusaurus -------------------------------------------------------------------------------

_DATE_OR_VERSION = re.compile(r"^(?:\d{2}|\d{4})[-_.]\d{2}(?:[-_.](?:\d{2}|\d{4}))?|^v?\d+[-_.]\d+")
_NUMBER_PREFIX = re.compile(r"^\d+\s*[-_.]+\s*(?P<rest>[^-_.\s].*)$")


def _strip_number_prefix(name: str) -> str:
    """Docusaurus' default number prefix parser: ``01-intro`` → ``intro``; dates and versions
    (``2021-01-intro``, ``1.2-notes``) keep theirs."""
    if _DATE_OR_VERSION.match(name):
        return name
    match = _NUMBER_PREFIX.match(name)
    return match["rest"] if match else name


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


def docusaurus_route(doc_id: str, front: Mapping[str, Any]) -> str:
    """The docs plugin with its default options: number prefixes dropped, ``slug`` and ``id``.

    >>> docusaurus_route("docs/guides/01-setup.md", {})
    '/docs/guides/setup'
    """
    folders, stem, _ = _split(doc_id)
    route = ""
    if folders and folders[0] == "docs":  # the docs plugin's folder, served at /docs/
        route, folders = "/docs", folders[1:]
    slug = front_text(front, "slug")
    if slug is not None and slug.startswith("/"):
        return route + slug
    folder_url = "/" + "".join(f"{_strip_number_prefix(f)}/" for f in folders)
    index_names = {"index", "readme", *([folders[-1].lower()] if folders else [])}
    if slug is None and stem.lower() in index_names:
        return route + folder_url
    return route + _resolve(slug or front_text(front, "id") or _strip_number_prefix(stem),
                            folder_url)


# -- MkDocs -----------------------------------------------------------------------------------


def mkdocs_route(doc_id: str, front: Mapping[str, Any]) -> str:
    """``use_directory_urls`` (the default); front matter does not change MkDocs URLs.

    >>> mkdocs_route("docs/guides/index.md", {})
    '/guides/'
    """
    folders, stem, _ = _split(doc_id)
    if folders and folders[0] == "docs":  # MkDocs' docs_dir is not part of the URL
        folders = folders[1:]
    parts = folders if stem in ("index", "README") else [*folders, stem]
    return "/" + "".join(f"{p}/" for p in parts)


# -- Hugo -------------------------------------------------------------------------------------

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


def hugo_route(doc_id: str, front: Mapping[str, Any]) -> str:
    """Pretty URLs: sections and bundles at their folder, ``slug`` and ``url``.

    >>> hugo_route("content/posts/My Post.md", {"slug": "first"})
    '/posts/first/'
    """
    folders, stem, _ = _split(doc_id)
    if folders and folders[0] == "content":  # Hugo's contentDir is not part of the URL
        folders = folders[1:]
    home = stem == "_index" and not folders
    url = front_text(front, "url")
    if url is not None and not home:  # the whole path, as written
        path = "/" + url.lstrip("/")
        last = path.rstrip("/").rsplit("/", 1)[-1]
        return path if path.endswith("/") or "." in last else path + "/"
    if stem in ("_index", "index"):  # a section, or a bundle's page: the folder
        parts = list(folders)
        slug = front_text(front, "slug")
        if stem == "index" and slug is not None and parts:
            parts[-1] = slug
    else:
        parts = [*folders, front_text(front, "slug") or stem]
    return _hugo_path("/" + "".join(f"{p}/" for p in parts))


# -- URLs -------------------------------------------------------------------------------------

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
