"""The one table of block kinds and seams: every reader maps its syntax onto these kinds, and the
packer knows a block by its kind's row alone. A block is cut only at its seam; when a seam finds
nothing to cut, the next finer one on the ladder is tried."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["ATOMIC_KINDS", "HEADING_KINDS", "KINDS", "KIND_OF_TOKEN", "SEAMS", "UNSEEN_KINDS",
           "Kind", "Seam", "SeamName", "kind", "merge_kinds"]

#: How a span is cut: between its child blocks, lines, sentences, words, or tokens (last resort).
SeamName = Literal["children", "lines", "sentences", "words", "tokens"]


@dataclass(frozen=True, slots=True)
class Kind:
    """One row of the table."""

    name: str
    #: Never cut when it fits the budget (guarantee 2); kept whole by ``oversized="keep"``.
    atomic: bool = False
    #: How a block of this kind without children is cut.
    seam: SeamName = "sentences"
    #: Exists only as a seam of a larger block (a list's item, a table's row): a chunk reports
    #: the larger block's kind instead.
    structural: bool = False
    #: Heads a section: a chunk made of these alone is a heading without its body (guarantee 3).
    heads: bool = False
    #: Its markdown-it children are inline text, never blocks to cut between.
    inline: bool = False
    #: No site shows it (an HTML comment, MDX imports): not content a section holds, and left
    #: out of ``embed_text`` (comments unless ``html_comments="keep"``).
    unseen: bool = False


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("heading", heads=True, inline=True),
    Kind("question", heads=True),   # a Q&A file's question: the heading of its answer
    Kind("paragraph", inline=True),
    Kind("answer"),
    Kind("list", atomic=True),
    Kind("item", structural=True),
    Kind("table", atomic=True),
    Kind("row", structural=True, inline=True),
    Kind("blockquote", atomic=True),
    Kind("code", atomic=True, seam="lines"),
    Kind("html", atomic=True, seam="lines"),
    Kind("comment", atomic=True, seam="lines", unseen=True),  # an HTML block of comments only
    Kind("esm", atomic=True, seam="lines", unseen=True),  # MDX import/export statements
    Kind("target", atomic=True, seam="lines", unseen=True),  # a MyST target, ``(label)=``
    # link reference definitions (``[label]: /url``): the page's metadata, never its text
    Kind("link_definitions", atomic=True, seam="lines", unseen=True),
    Kind("math", atomic=True, seam="lines"),
    Kind("hr"),
    Kind("deflist", atomic=True),
    Kind("term", structural=True, inline=True),
    Kind("definition", structural=True),
    Kind("footnote", atomic=True),
    Kind("admonition", atomic=True),
    Kind("container", atomic=True),
    # A tab group (Docusaurus <Tabs>, Hugo {{< tabs >}}, MkDocs === "Label"): cut between its
    # tabs; a tab that fits is never cut, and a chunk inside a cut one repeats its label
    # (mdchunk.formats.tabs, mdchunk.formats.content_tabs)
    Kind("tabs", atomic=True),
    Kind("tab", atomic=True, structural=True),
    Kind("front_matter", seam="lines"),
    # A page title from front matter: only ever the root of a heading path, never in the text.
    Kind("title"),
)}

_PLAIN = Kind("")  # any kind a plugin brings that the table does not name: prose


def kind(name: str) -> Kind:
    """The table's row for ``name`` (a kind it does not know is cut like prose)."""
    return KINDS.get(name, _PLAIN)


#: markdown-it token type (without ``_open``) → the kind mdchunk reports in ``Chunk.kinds``.
KIND_OF_TOKEN: dict[str, str] = {
    "heading": "heading",
    "paragraph": "paragraph",
    "bullet_list": "list",
    "ordered_list": "list",
    "list_item": "item",
    "table": "table",
    "tr": "row",
    "blockquote": "blockquote",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "math_block": "math",
    "math_block_label": "math",
    "hr": "hr",
    "dl": "deflist",
    "dt": "term",
    "dd": "definition",
    "footnote": "footnote",
    "admonition": "admonition",
    "content_tabs": "tabs",  # MkDocs content tabs (mdchunk.formats.content_tabs)
    "content_tab": "tab",
    "front_matter": "front_matter",
}

ATOMIC_KINDS = frozenset(k.name for k in KINDS.values() if k.atomic)
HEADING_KINDS = frozenset(k.name for k in KINDS.values() if k.heads)
UNSEEN_KINDS = frozenset(k.name for k in KINDS.values() if k.unseen)


@dataclass(frozen=True, slots=True)
class Seam:
    """A rung of the ladder: where a span is cut, and what comes after it."""

    name: SeamName
    #: Tried when this seam finds nothing to cut (a one-line code block, a one-sentence text).
    finer: SeamName | None
    #: How the parts this seam makes are cut in turn, should one of them still not fit.
    parts: SeamName


#: The seam ladder: items and rows → lines → sentences → words → tokens. A block with children
#: (a list's items, a table's rows, a quote's blocks) is cut between them first; each child is
#: then cut by its own kind's seam.
SEAMS: dict[SeamName, Seam] = {s.name: s for s in (
    Seam("lines", finer="sentences", parts="words"),
    Seam("sentences", finer="words", parts="words"),
    Seam("words", finer="tokens", parts="tokens"),
    Seam("tokens", finer=None, parts="tokens"),
)}


def merge_kinds(groups: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """Kinds of several blocks, in order of first appearance.

    >>> merge_kinds([("heading",), ("paragraph", "code"), ("code",)])
    ('heading', 'paragraph', 'code')
    """
    return tuple(dict.fromkeys(name for group in groups for name in group))
