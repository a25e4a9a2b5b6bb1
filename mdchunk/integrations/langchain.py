"""LangChain adapter (``pip install 'mdchunk[langchain]'``): a ``TextSplitter`` that chunks with
mdchunk, and a loader for a folder. Each ``Document`` is one chunk: ``page_content`` its verbatim
text (or ``embed_text`` with ``page_content="embed_text"``), ``id`` its chunk id, ``metadata`` the
input's, then the chunk's front matter and the contract's fields (:data:`METADATA_KEYS`), with an
exact ``start_index`` as LangChain's splitters name it.

>>> splitter = MdchunkTextSplitter(max_tokens=64, overlap_tokens=0)
>>> docs = splitter.create_documents(["# A\\n\\n## B\\n\\nHi.\\n"])
>>> [(d.metadata["section_path"], d.metadata["start_index"]) for d in docs]
[('A > B', 0)]"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, Unpack

from ..chunks import Chunk, Chunker
from ..config import ChunkerConfig, ChunkerOptions, config_with
from ..errors import ConfigError, DependencyError
from ..formats.registry import ReaderChoice
from ..sources import discover
from ..text import document_text
from .common import CONTRACT_KEYS, chunk_metadata, chunk_source, doc_id_of, reader_keyword

try:
    from langchain_core.document_loaders import BaseLoader
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as exc:  # pragma: no cover - exercised by the missing-extra test
    raise DependencyError("mdchunk.integrations.langchain needs langchain-text-splitters: "
                          "pip install 'mdchunk[langchain]'") from exc

__all__ = ["METADATA_KEYS", "MdchunkDirectoryLoader", "MdchunkTextSplitter"]

#: Metadata keys every Document from the splitter carries (``anchor``, ``url`` where known).
METADATA_KEYS = ("start_index", "end_index", *CONTRACT_KEYS)


class MdchunkTextSplitter(TextSplitter):
    """mdchunk's structure-aware chunking as a LangChain ``TextSplitter``.

    It takes the chunker's settings as the ``chunk_*`` functions do: ``config`` whole, or any
    field of it as a keyword, a keyword overriding the config's. ``max_tokens`` and
    ``overlap_tokens`` are token budgets (LangChain's ``chunk_size``/``chunk_overlap`` report
    them). ``reader`` picks the reader (``auto``: from the document's ``source`` extension;
    ``format``, its old name, is still taken, with a ``DeprecationWarning``). With ``levels`` the
    leaves are returned, and with ``include_parents`` every level, linked by ``parent_id``. The
    chunk ids are made from the input metadata's ``source`` (or ``file_path``)."""

    def __init__(self, *, reader: ReaderChoice = "auto", include_parents: bool = False,
                 page_content: Literal["text", "embed_text"] = "text",
                 config: ChunkerConfig | None = None, format: ReaderChoice | None = None,
                 **options: Unpack[ChunkerOptions]) -> None:
        if page_content not in ("text", "embed_text"):
            raise ConfigError(f"page_content={page_content!r} must be 'text' or 'embed_text'")
        self.config = config_with(config, options)
        super().__init__(chunk_size=self.config.max_tokens,
                         chunk_overlap=self.config.overlap_tokens or 0, add_start_index=True,
                         strip_whitespace=False)
        self.chunker = Chunker(self.config)
        self.reader: ReaderChoice = reader_keyword(reader, format, "MdchunkTextSplitter")
        self.levels = self.config.levels
        self.include_parents = include_parents
        self.page_content = page_content

    def chunks(self, text: str, doc_id: str = "") -> list[Chunk]:
        """The mdchunk chunks behind :meth:`split_text` and :meth:`create_documents`."""
        chunks = chunk_source(self.chunker, text, doc_id=doc_id, reader=self.reader,
                              levels=self.levels)
        if self.levels is not None and not self.include_parents:
            leaf = len(self.levels)
            chunks = [c for c in chunks if c.level == leaf]
        return chunks

    def split_text(self, text: str) -> list[str]:
        """The chunks' page contents, in document order."""
        return [getattr(c, self.page_content) for c in self.chunks(text)]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
                         ) -> list[Document]:
        """One Document per chunk of each text, with the contract's metadata."""
        if metadatas is not None and len(metadatas) != len(texts):
            raise ConfigError(f"{len(metadatas)} metadatas for {len(texts)} texts")
        documents: list[Document] = []
        for i, text in enumerate(texts):
            given: Mapping[str, Any] = metadatas[i] if metadatas is not None else {}
            for chunk in self.chunks(text, doc_id_of(given)):
                metadata = {**copy.deepcopy(dict(given)), **chunk_metadata(chunk),
                            "start_index": chunk.start, "end_index": chunk.end}
                documents.append(Document(page_content=getattr(chunk, self.page_content),
                                          metadata=metadata, id=chunk.id))
        return documents


class MdchunkDirectoryLoader(BaseLoader):
    """Every Markdown and text file under ``paths``, one Document each, decoded as
    ``mdchunk chunk`` reads them (a file that cannot be decoded raises
    :class:`~mdchunk.InputError` naming it).

    ``metadata["source"]`` is the document id the indexer would give the file (its path
    relative to the folder it was found under), so chunk ids match an ``mdchunk index`` of the
    same folder; ``metadata["path"]`` is the file as found.
    """

    def __init__(self, *paths: str | Path) -> None:
        if not paths:
            raise ConfigError("MdchunkDirectoryLoader needs at least one path")
        self.paths = paths

    def lazy_load(self) -> Iterator[Document]:
        for source in discover(self.paths):
            yield Document(page_content=document_text(source.file),
                           metadata={"source": source.doc_id, "path": source.path})
