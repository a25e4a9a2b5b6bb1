"""LlamaIndex adapter: a ``NodeParser`` that chunks with mdchunk into ``TextNode`` s, one per
chunk, with ``levels`` every level linked PARENT/CHILD as ``HierarchicalNodeParser`` links them
(its use with ``AutoMergingRetriever``, and the metadata: README.md, "LangChain and LlamaIndex").

>>> from llama_index.core import Document
>>> nodes = MdchunkNodeParser(max_tokens=64, overlap_tokens=0).get_nodes_from_documents(
...     [Document(text="# A\\n\\n## B\\n\\nHi.\\n")])
>>> [(n.metadata["section_path"], n.start_char_idx, n.end_char_idx) for n in nodes]
[('A > B', 0, 14)]"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..chunks import Chunk, Chunker
from ..config import ChunkerConfig, Site
from ..errors import DependencyError
from ..formats.registry import ReaderChoice
from .common import CONTRACT_KEYS, chunk_metadata, chunk_source, doc_id_of, reader_keyword

try:
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.schema import BaseNode, Document, NodeRelationship, TextNode
except ImportError as exc:  # pragma: no cover - exercised by the missing-extra test
    raise DependencyError("mdchunk.integrations.llama_index needs llama-index-core: "
                          "pip install 'mdchunk[llama-index]'") from exc

__all__ = ["EMBED_EXCLUDED", "LLM_EXCLUDED", "MdchunkNodeParser"]

#: Chunk metadata kept out of the embedding: all but the breadcrumb, which mdchunk embeds too.
EMBED_EXCLUDED = tuple(k for k in CONTRACT_KEYS if k != "section_path")
#: Chunk metadata kept from an LLM: bookkeeping that says nothing about the content.
LLM_EXCLUDED = ("chunk_id", "doc_id", "parent_id", "level", "index", "token_count", "kinds",
                "headings", "anchor")


class MdchunkNodeParser(NodeParser):
    """mdchunk's structure-aware chunking as a LlamaIndex ``NodeParser``.

    ``max_tokens``/``overlap_tokens`` are token budgets under ``tokenizer`` (a tiktoken
    encoding or Hugging Face tokenizer name); ``reader`` picks the reader (``auto``: from the
    document's ``source`` or ``file_path`` extension, Markdown without one; ``format``, its old
    name, is still taken, with a ``DeprecationWarning``), and that metadata value (else the
    document's ``id_``) is the document id chunk ids are made from.
    """

    max_tokens: int = Field(default=512, description="Token budget of a flat chunk.")
    overlap_tokens: int | None = Field(
        default=None, description="Tokens of sentence overlap; None: max_tokens // 8.")
    tokenizer: str = Field(default="cl100k_base", description="Tokenizer budgets count in.")
    reader: ReaderChoice = Field(default="auto", description="Reader: auto, markdown, text, qa.")
    levels: tuple[int, ...] | None = Field(
        default=None, description="Hierarchy budgets, coarsest first; None for flat chunks.")
    base_url: str | None = Field(default=None, description="Where the pages are published.")
    site: Site = Field(default="plain", description="Site generator naming URLs and anchors.")
    _chunker: Chunker = PrivateAttr()

    def __init__(self, **data: Any) -> None:
        if "format" in data:
            data["reader"] = reader_keyword(data.get("reader", "auto"), data.pop("format"),
                                            "MdchunkNodeParser")
        super().__init__(**data)
        self._chunker = Chunker(ChunkerConfig(
            max_tokens=self.max_tokens, overlap_tokens=self.overlap_tokens,
            tokenizer=self.tokenizer, base_url=self.base_url, site=self.site))

    @classmethod
    def class_name(cls) -> str:
        return "MdchunkNodeParser"

    def leaves(self, nodes: Sequence[BaseNode]) -> list[BaseNode]:
        """The nodes to embed and search: the finest level (all of them when flat)."""
        if self.levels is None:
            return list(nodes)
        leaf = len(self.levels)
        return [n for n in nodes if n.metadata.get("level") == leaf]

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False,
                     **kwargs: Any) -> list[BaseNode]:
        out: list[BaseNode] = []
        for document in nodes:
            text = document.get_content()
            chunks = chunk_source(self._chunker, text,
                                  doc_id=doc_id_of(document.metadata, document.id_),
                                  reader=self.reader, levels=self.levels)
            out.extend(self._nodes(chunks, document))
        return out

    def _nodes(self, chunks: Sequence[Chunk], document: BaseNode) -> list[BaseNode]:
        """One document's nodes, linked to it, to each other level by level, and up and down."""
        nodes = {c.id: self._node(c, document) for c in chunks}
        previous: dict[int, TextNode] = {}  # level -> its last node so far
        for chunk in chunks:
            node = nodes[chunk.id]
            before = previous.get(chunk.level)
            if before is not None and self.include_prev_next_rel:
                node.relationships[NodeRelationship.PREVIOUS] = before.as_related_node_info()
                before.relationships[NodeRelationship.NEXT] = node.as_related_node_info()
            previous[chunk.level] = node
            parent = nodes.get(chunk.parent_id) if chunk.parent_id else None
            if parent is not None:
                node.relationships[NodeRelationship.PARENT] = parent.as_related_node_info()
                children = parent.relationships.setdefault(NodeRelationship.CHILD, [])
                assert isinstance(children, list)
                children.append(node.as_related_node_info())
        return list(nodes.values())

    def _node(self, chunk: Chunk, document: BaseNode) -> TextNode:
        metadata = chunk_metadata(chunk)
        if self.include_metadata:
            metadata = {**document.metadata, **metadata}
        return TextNode(
            id_=chunk.id, text=chunk.text, start_char_idx=chunk.start, end_char_idx=chunk.end,
            metadata=metadata,
            excluded_embed_metadata_keys=_union(document.excluded_embed_metadata_keys,
                                                EMBED_EXCLUDED),
            excluded_llm_metadata_keys=_union(document.excluded_llm_metadata_keys, LLM_EXCLUDED),
            metadata_separator=document.metadata_separator,
            relationships={NodeRelationship.SOURCE: document.as_related_node_info()},
        )

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode],
                                  parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        """Nothing left to do: the base class would search each node's text in its document
        to guess its offsets (wrong for a repeated text, and for a hierarchy's interleaved
        levels) and link neighbours across levels; :meth:`_nodes` set both exactly."""
        return nodes


def _union(first: Sequence[str], second: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))
