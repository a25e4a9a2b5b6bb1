"""The public entry points: text (or a file) in, :class:`~mdchunk.chunks.chunk.Chunk` s out.

Data flows one way: a reader of :mod:`mdchunk.formats` finds blocks, :mod:`mdchunk.plan` nests
them under headings and plans drafts under the budget, and :meth:`Chunker._to_chunks` turns
drafts into chunks with ids, line numbers and metadata. Nothing here does I/O except
:meth:`Chunker.chunk_file`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from ..config import ChunkerConfig, TokenizerSpec
from ..errors import InputError
from ..formats import Document, LineIndex, format_for, parse_markdown, read_plain_text, read_qa
from ..formats.registry import FormatName
from ..plan import (
    BoundaryStrategy,
    Draft,
    GreedyStrategy,
    PackingKit,
    Section,
    SectionPacker,
    build_sections,
)
from ..text import read_document
from ..tokens import get_counter
from .chunk import Chunk, chunk_id, json_ready

__all__ = ["Chunker", "chunk_file", "chunk_markdown", "chunk_qa", "chunk_text"]

#: Signature of the chunker's per-format methods.
_Read = Callable[[str, str, Mapping[str, Any] | None], list[Chunk]]


class Chunker:
    """Chunks documents under one :class:`ChunkerConfig`; reusable and thread-safe.

    >>> chunker = Chunker(ChunkerConfig(max_tokens=64, overlap_tokens=0))
    >>> [c.section_path for c in chunker.chunk("# Guide\\n\\n## Install\\n\\nRun it.\\n")]
    ['Guide > Install']
    """

    def __init__(self, config: ChunkerConfig | None = None,
                 strategy: BoundaryStrategy | None = None) -> None:
        self.config = config or ChunkerConfig()
        self.counter = get_counter(self.config.tokenizer)
        self.strategy: BoundaryStrategy = strategy or GreedyStrategy()
        self.fingerprint = self.config.fingerprint  # hashed once, not per document
        self._readers: dict[FormatName, _Read] = {
            "markdown": self.chunk, "qa": self.chunk_qa, "text": self.chunk_text}

    # -- formats ------------------------------------------------------------------------------

    def chunk(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
              ) -> list[Chunk]:
        """Chunk Markdown. Front matter goes to every chunk's ``metadata``, not into a chunk."""
        _check_text(text, doc_id)
        if not text.strip():
            return []
        doc = parse_markdown(text)
        meta = {**_front_matter(doc, doc_id), **(metadata or {})}
        drafts = self._packer(text).pack(build_sections(doc.blocks))
        return self._to_chunks(doc, drafts, doc_id, meta)

    def chunk_text(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
                   ) -> list[Chunk]:
        """Chunk plain text; headings come from the line classifier in
        :mod:`mdchunk.formats.plaintext`."""
        _check_text(text, doc_id)
        if not text.strip():
            return []
        doc = read_plain_text(text)
        drafts = self._packer(text).pack(build_sections(doc.blocks))
        return self._to_chunks(doc, drafts, doc_id, dict(metadata or {}))

    def chunk_qa(self, text: str, doc_id: str = "", metadata: Mapping[str, Any] | None = None
                 ) -> list[Chunk]:
        """One chunk per question/answer pair; a pair over budget is split inside its answer,
        each piece carrying the question as its breadcrumb."""
        _check_text(text, doc_id)
        if not text.strip():
            return []
        loose, pairs = read_qa(text)
        if not pairs:
            raise InputError(f"{doc_id or '<text>'}: no 'question:' / 'answer:' pairs found")
        packer = self._packer(text)
        sections = []
        if loose:
            sections.append(Section(heading=None, path=(), blocks=list(loose)))
        sections += [Section(heading=p.question, path=(p.question,), blocks=list(p.answer))
                     for p in pairs]
        drafts = [d for s in sections for d in packer.pack(s)]
        doc = Document(text, (), None, LineIndex.of(text))
        return self._to_chunks(doc, drafts, doc_id, dict(metadata or {}))

    def chunk_file(self, path: str | Path, doc_id: str | None = None,
                   metadata: Mapping[str, Any] | None = None) -> list[Chunk]:
        """Read ``path`` and chunk it with the reader its extension and content call for."""
        path = Path(path)
        text = read_document(path)
        doc_id = path.as_posix() if doc_id is None else doc_id
        read = self._readers[format_for(path.suffix, text)]
        try:
            return read(text, doc_id, metadata)
        except InputError:
            raise
        except RecursionError as exc:
            raise InputError(f"{path}: nesting too deep to chunk") from exc

    # -- assembly -----------------------------------------------------------------------------

    def _packer(self, source: str) -> SectionPacker:
        return SectionPacker(PackingKit.of(source, self.counter, self.config), self.strategy)

    def _to_chunks(self, doc: Document, drafts: Sequence[Draft], doc_id: str,
                   metadata: dict[str, Any]) -> list[Chunk]:
        fingerprint = self.fingerprint
        meta = json_ready(metadata)
        chunks = []
        for index, draft in enumerate(drafts):
            text = doc.source[draft.start:draft.end]
            headings = [h.title for h in draft.path]
            chunks.append(Chunk(
                id=chunk_id(doc_id, 3, draft.start, draft.end, text, draft.embed_text, fingerprint),
                doc_id=doc_id,
                index=index,
                level=3,
                parent_id=None,
                text=text,
                start=draft.start,
                end=draft.end,
                line_start=doc.lines.line_of(draft.start),
                line_end=doc.lines.line_of(max(draft.start, draft.end - 1)),
                headings=headings,
                section_path=" > ".join(headings),
                embed_text=draft.embed_text,
                token_count=draft.token_count,
                kinds=list(draft.kinds),
                metadata=dict(meta),
                oversized=draft.oversized,
            ))
        return chunks


def _check_text(text: object, doc_id: str) -> None:
    if not isinstance(text, str):
        raise InputError(f"{doc_id or '<text>'}: expected str, got {type(text).__name__}")


def _front_matter(doc: Document, doc_id: str) -> dict[str, Any]:
    if doc.front_matter is None:
        return {}
    try:
        data = yaml.safe_load(doc.front_matter)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (front matter line {mark.line + 2})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{doc_id or '<text>'}: front matter is not valid YAML{where}: {problem}"
                         ) from exc
    if data is None:
        return {}
    return data if isinstance(data, dict) else {"front_matter": data}


def _config(max_tokens: int, overlap_tokens: int, tokenizer: TokenizerSpec,
            oversized: str, min_tokens: int | None) -> ChunkerConfig:
    return ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap_tokens, tokenizer=tokenizer,
                         oversized=oversized, min_tokens=min_tokens)  # type: ignore[arg-type]


def chunk_markdown(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
                   tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
                   oversized: str = "split", metadata: Mapping[str, Any] | None = None,
                   min_tokens: int | None = None) -> list[Chunk]:
    """Chunk a Markdown string (see ``CONTRACT.md``).

    >>> [c.text for c in chunk_markdown("# T\\n\\nHello.\\n", max_tokens=32, overlap_tokens=0)]
    ['# T\\n\\nHello.']
    """
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens)
    return Chunker(config).chunk(text, doc_id=doc_id, metadata=metadata)


def chunk_text(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
               tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
               oversized: str = "split", metadata: Mapping[str, Any] | None = None,
               min_tokens: int | None = None) -> list[Chunk]:
    """Chunk plain text; headings are found by a line classifier."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens)
    return Chunker(config).chunk_text(text, doc_id=doc_id, metadata=metadata)


def chunk_qa(text: str, *, max_tokens: int = 512, overlap_tokens: int = 64,
             tokenizer: TokenizerSpec = "cl100k_base", doc_id: str = "",
             oversized: str = "split", metadata: Mapping[str, Any] | None = None,
             min_tokens: int | None = None) -> list[Chunk]:
    """Chunk a ``question:/answer:`` file, one chunk per pair."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens)
    return Chunker(config).chunk_qa(text, doc_id=doc_id, metadata=metadata)


def chunk_file(path: str | Path, *, max_tokens: int = 512, overlap_tokens: int = 64,
               tokenizer: TokenizerSpec = "cl100k_base", doc_id: str | None = None,
               oversized: str = "split", metadata: Mapping[str, Any] | None = None,
               min_tokens: int | None = None) -> list[Chunk]:
    """Chunk a file, picking the reader by extension and content."""
    config = _config(max_tokens, overlap_tokens, tokenizer, oversized, min_tokens)
    return Chunker(config).chunk_file(path, doc_id=doc_id, metadata=metadata)
