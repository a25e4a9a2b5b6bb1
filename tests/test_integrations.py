"""The LangChain and LlamaIndex adapters, run the way each framework runs its own splitters and
parsers, on the project's fixtures; every offset is checked against the source text."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from mdchunk import Chunker, ChunkerConfig
from mdchunk.text import document_text

from .conftest import FIXTURES, fixture_files

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("llama_index.core")

from langchain_core.documents import Document as LCDocument
from llama_index.core import Document as LIDocument
from llama_index.core.schema import MetadataMode, NodeRelationship

from mdchunk.integrations.langchain import (
    METADATA_KEYS,
    MdchunkDirectoryLoader,
    MdchunkTextSplitter,
)
from mdchunk.integrations.llama_index import EMBED_EXCLUDED, MdchunkNodeParser

FILES = fixture_files(".md", ".mdx", ".txt")
LEVELS = (1024, 256, 64)


def test_import_mdchunk_loads_no_framework() -> None:
    code = ("import sys, mdchunk, mdchunk.index, mdchunk.integrations\n"
            "heavy = ('langchain_core', 'langchain_text_splitters', 'llama_index', 'ray', "
            "'torch', 'pymilvus')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


# -- LangChain ---------------------------------------------------------------------------------


def test_loader_gives_each_file_with_the_indexers_document_id() -> None:
    docs = MdchunkDirectoryLoader(FIXTURES).load()
    assert len(FILES) >= 20  # the tests over every fixture below check something
    assert [d.metadata["source"] for d in docs] == [p.name for p in FILES]
    for doc, path in zip(docs, FILES):
        assert doc.page_content == document_text(path)
        assert doc.metadata["path"].endswith(path.name)


def test_split_documents_round_trip_on_every_fixture() -> None:
    """LangChain's own pattern: loader -> split_documents; offsets index the page content."""
    splitter = MdchunkTextSplitter(max_tokens=128, overlap_tokens=16)
    sources = MdchunkDirectoryLoader(FIXTURES).load()
    chunks = splitter.split_documents(sources)
    by_source = {d.metadata["source"]: d.page_content for d in sources}
    config = ChunkerConfig(max_tokens=128, overlap_tokens=16)
    expected = [c for p in FILES for c in Chunker(config).chunk_file(p, doc_id=p.name)]
    assert [d.id for d in chunks] == [c.id for c in expected]  # same chunks as chunk_file
    for doc, chunk in zip(chunks, expected):
        source = by_source[doc.metadata["source"]]
        start, end = doc.metadata["start_index"], doc.metadata["end_index"]
        assert source[start:end] == doc.page_content == chunk.text
        assert set(METADATA_KEYS) - {"anchor", "url"} <= set(doc.metadata)
        assert doc.metadata["chunk_id"] == chunk.id
        assert (doc.metadata["line_start"], doc.metadata["line_end"]) == (chunk.line_start,
                                                                          chunk.line_end)
        assert doc.metadata["section_path"] == chunk.section_path
        assert doc.metadata["headings"] == chunk.headings
        assert doc.metadata["path"] == str(FIXTURES / doc.metadata["source"]).replace("\\", "/") \
            or doc.metadata["path"].endswith(doc.metadata["source"])
    assert {d.metadata["level"] for d in chunks} == {3}


def test_create_documents_keeps_caller_metadata_and_split_text_agrees() -> None:
    text = (FIXTURES / "api-reference.md").read_text(encoding="utf-8")
    splitter = MdchunkTextSplitter(max_tokens=96, overlap_tokens=0)
    docs = splitter.create_documents([text, text], [{"source": "a.md", "team": "x"},
                                                    {"source": "b.md"}])
    texts = splitter.split_text(text)
    assert [d.page_content for d in docs] == texts + texts
    configured = MdchunkTextSplitter(config=ChunkerConfig(max_tokens=96, overlap_tokens=0))
    assert configured.split_text(text) == texts and configured._chunk_size == 96
    first = [d for d in docs if d.metadata["source"] == "a.md"]
    assert all(d.metadata["team"] == "x" for d in first)
    # The document id is part of the chunk id: the same text under two names, two sets of ids.
    assert {d.id for d in first}.isdisjoint({d.id for d in docs if d not in first})
    for doc in docs:
        assert text[doc.metadata["start_index"]:doc.metadata["end_index"]] == doc.page_content


def test_transform_documents_and_embed_text_content() -> None:
    text = (FIXTURES / "deep-nesting-disk-replacement.md").read_text(encoding="utf-8")
    splitter = MdchunkTextSplitter(max_tokens=96, overlap_tokens=0, page_content="embed_text")
    docs = splitter.transform_documents([LCDocument(page_content=text,
                                                    metadata={"source": "disk.md"})])
    chunks = Chunker(ChunkerConfig(max_tokens=96, overlap_tokens=0)).chunk(text, "disk.md")
    assert [d.page_content for d in docs] == [c.embed_text for c in chunks]
    for doc, chunk in zip(docs, chunks):
        assert text[doc.metadata["start_index"]:doc.metadata["end_index"]] == chunk.text


def test_hierarchy_with_parents_links_every_level() -> None:
    text = (FIXTURES / "capacity-planning-footnotes-admonitions.md").read_text(encoding="utf-8")
    leaves = MdchunkTextSplitter(levels=LEVELS, overlap_tokens=0).split_documents(
        [LCDocument(page_content=text, metadata={"source": "cap.md"})])
    every = MdchunkTextSplitter(levels=LEVELS, overlap_tokens=0, include_parents=True)\
        .split_documents([LCDocument(page_content=text, metadata={"source": "cap.md"})])
    assert {d.metadata["level"] for d in leaves} == {3}
    assert [d.id for d in every if d.metadata["level"] == 3] == [d.id for d in leaves]
    by_id = {d.id: d for d in every}
    for doc in every:
        parent = by_id.get(doc.metadata["parent_id"]) if doc.metadata["parent_id"] else None
        assert (parent is None) == (doc.metadata["level"] == 1)
        if parent is not None:
            assert parent.metadata["start_index"] <= doc.metadata["start_index"]
            assert doc.metadata["end_index"] <= parent.metadata["end_index"]
    assert "".join(d.page_content for d in every if d.metadata["level"] == 1) == text


def test_urls_and_anchors_where_known() -> None:
    text = (FIXTURES / "docusaurus-rolling-upgrades.md").read_text(encoding="utf-8")
    docs = MdchunkTextSplitter(max_tokens=128, overlap_tokens=0, base_url="https://d.example",
                               site="docusaurus").create_documents(
        [text], [{"source": "ops/rolling-upgrades.md"}])
    assert all(d.metadata["url"].startswith("https://d.example/") for d in docs)
    with_anchor = [d for d in docs if "anchor" in d.metadata]
    assert with_anchor and all(d.metadata["url"].endswith("#" + d.metadata["anchor"])
                               for d in with_anchor)
    plain = MdchunkTextSplitter(max_tokens=128, overlap_tokens=0).create_documents([text])
    assert not any("url" in d.metadata for d in plain)


def test_langchain_bad_arguments() -> None:
    from mdchunk import ConfigError

    with pytest.raises(ConfigError, match="page_content"):
        MdchunkTextSplitter(page_content="html")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="overlap_tokens"):
        MdchunkTextSplitter(max_tokens=64, overlap_tokens=64)
    with pytest.raises(ConfigError, match="metadatas"):
        MdchunkTextSplitter().create_documents(["a"], [{}, {}])


def test_reader_picks_the_reader_and_format_is_its_deprecated_name() -> None:
    from mdchunk import ConfigError, chunk_markdown, chunk_qa

    text = document_text(FIXTURES / "faq.qa.txt")
    pairs = [c.text for c in chunk_qa(text, max_tokens=128, overlap_tokens=0)]
    assert pairs != [c.text for c in chunk_markdown(text, max_tokens=128, overlap_tokens=0)]
    splitter = MdchunkTextSplitter(max_tokens=128, overlap_tokens=0, reader="qa")
    assert splitter.reader == "qa" and splitter.split_text(text) == pairs
    assert MdchunkTextSplitter(max_tokens=128, overlap_tokens=0).create_documents(
        [text], [{"source": "faq.txt"}])[0].page_content == pairs[0]  # auto: by the extension
    with pytest.warns(DeprecationWarning, match=r"MdchunkTextSplitter\(format=\.\.\.\).*reader='qa'"):
        old = MdchunkTextSplitter(max_tokens=128, overlap_tokens=0, format="qa")
    assert old.reader == "qa" and old.split_text(text) == pairs
    with pytest.raises(ConfigError, match="reader='xml' must be one of"):
        MdchunkTextSplitter(reader="xml").split_text(text)  # type: ignore[arg-type]

    parser = MdchunkNodeParser(max_tokens=128, overlap_tokens=0, reader="qa")
    assert [n.get_content() for n in parser.get_nodes_from_documents(
        [LIDocument(text=text)])] == pairs
    with pytest.warns(DeprecationWarning, match=r"MdchunkNodeParser\(format=\.\.\.\)"):
        old_parser = MdchunkNodeParser(max_tokens=128, overlap_tokens=0, format="qa")
    assert old_parser.reader == "qa"


def test_adapters_read_as_the_chunker_reads_site_and_includes() -> None:
    """The adapters take the one reading path: the site's markup and the include root's files
    reach their chunks exactly as they reach the chunker's."""
    path = FIXTURES / "hugo-code-samples.md"
    text = document_text(path)
    config = ChunkerConfig(max_tokens=128, overlap_tokens=0, site="hugo",
                           includes=str(FIXTURES / "includes" / "examples"))
    chunks = Chunker(config).chunk(text, path.name)
    assert any("includes" in c.metadata for c in chunks)  # an included file's text is in
    docs = MdchunkTextSplitter(config=config, page_content="embed_text").create_documents(
        [text], [{"source": path.name}])
    assert [d.page_content for d in docs] == [c.embed_text for c in chunks]
    assert [d.id for d in docs] == [c.id for c in chunks]


# -- LlamaIndex --------------------------------------------------------------------------------


def _li_documents() -> list[LIDocument]:
    return [LIDocument(text=document_text(p), metadata={"file_path": p.name}) for p in FILES]


def test_get_nodes_from_documents_on_every_fixture() -> None:
    docs = _li_documents()
    nodes = MdchunkNodeParser(max_tokens=128, overlap_tokens=16).get_nodes_from_documents(docs)
    config = ChunkerConfig(max_tokens=128, overlap_tokens=16)
    expected = [c for p in FILES for c in Chunker(config).chunk_file(p, doc_id=p.name)]
    assert [n.node_id for n in nodes] == [c.id for c in expected]
    texts = {d.doc_id: d.text for d in docs}
    for node in nodes:
        source = texts[node.ref_doc_id]
        assert source[node.start_char_idx:node.end_char_idx] == node.text
        assert node.metadata["file_path"] == node.metadata["doc_id"]
        assert node.metadata["chunk_id"] == node.node_id


def test_offsets_stay_exact_when_a_text_repeats() -> None:
    """LlamaIndex's base parser would find a repeated text's first occurrence."""
    para = "Restart the worker, then check the queue depth again.\n\n"
    text = "# A\n\n## One\n\n" + para * 3 + "## Two\n\n" + para * 3
    nodes = MdchunkNodeParser(max_tokens=32, overlap_tokens=0).get_nodes_from_documents(
        [LIDocument(text=text)])
    spans = [(n.start_char_idx, n.end_char_idx) for n in nodes]
    assert len(set(spans)) == len(spans) > 2
    assert all(text[n.start_char_idx:n.end_char_idx] == n.text for n in nodes)


def test_hierarchy_relationships_and_embed_exclusions() -> None:
    doc = LIDocument(text=document_text(FIXTURES / "capacity-planning-footnotes-admonitions.md"),
                     metadata={"file_path": "cap.md"}, excluded_embed_metadata_keys=["secret"])
    parser = MdchunkNodeParser(levels=LEVELS, overlap_tokens=0)
    nodes = parser.get_nodes_from_documents([doc])
    by_id = {n.node_id: n for n in nodes}
    assert {n.metadata["level"] for n in nodes} == {1, 2, 3}
    for node in nodes:
        parent_info = node.relationships.get(NodeRelationship.PARENT)
        assert (parent_info is None) == (node.metadata["level"] == 1)
        assert node.source_node is not None and node.source_node.node_id == doc.doc_id
        if parent_info is not None:
            parent = by_id[parent_info.node_id]
            assert node.node_id in [c.node_id for c in parent.child_nodes or []]
            assert parent.start_char_idx <= node.start_char_idx < node.end_char_idx \
                <= parent.end_char_idx
        for child in node.child_nodes or []:
            assert by_id[child.node_id].parent_node.node_id == node.node_id
        embedded = node.get_content(metadata_mode=MetadataMode.EMBED)
        assert "chunk_id" not in embedded and node.node_id not in embedded
        assert set(EMBED_EXCLUDED) | {"secret"} <= set(node.excluded_embed_metadata_keys)
        if node.metadata["section_path"]:
            assert node.metadata["section_path"] in embedded
    assert parser.leaves(nodes) == [n for n in nodes if n.metadata["level"] == 3]


class _BagOfWords:
    """A deterministic local embedding: hashed word counts, so similar text scores higher."""

    dim = 256

    @classmethod
    def vector(cls, text: str) -> list[float]:
        v = np.zeros(cls.dim)
        for word in text.lower().split():
            v[int(hashlib.blake2b(word.encode()).hexdigest()[:6], 16) % cls.dim] += 1
        n = np.linalg.norm(v)
        return list(v / n) if n else list(v)


def test_auto_merging_retriever_merges_into_mdchunk_parents() -> None:
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.retrievers import AutoMergingRetriever

    class Embedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return _BagOfWords.vector(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return _BagOfWords.vector(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return _BagOfWords.vector(text)

    section = ("## {name}\n\n" + "\n\n".join(
        f"The {{name}} step {i}: run the {{name}} check and record the {{name}} output."
        for i in range(4)) + "\n\n")
    text = "# Runbook\n\n" + "".join(section.format(name=n) for n in ("failover", "backup",
                                                                       "rotation"))
    parser = MdchunkNodeParser(levels=(1024, 128, 32), overlap_tokens=0)
    nodes = parser.get_nodes_from_documents([LIDocument(text=text, id_="runbook.md")])
    leaves = parser.leaves(nodes)
    storage = StorageContext.from_defaults()
    storage.docstore.add_documents(nodes)
    index = VectorStoreIndex(leaves, storage_context=storage, embed_model=Embedding())
    base = index.as_retriever(similarity_top_k=6)
    failover = [n for n in nodes if n.metadata["level"] == 2
                and n.metadata["section_path"].endswith("failover")]
    assert len(failover) == 1 and len(failover[0].child_nodes or []) >= 2
    retriever = AutoMergingRetriever(base, storage, simple_ratio_thresh=0.5)
    hits = retriever.retrieve("failover step check output failover failover")
    assert failover[0].node_id in [h.node.node_id for h in hits]
    merged = next(h.node for h in hits if h.node.node_id == failover[0].node_id)
    assert text[merged.start_char_idx:merged.end_char_idx] == merged.text


def test_ingestion_pipeline_runs_the_parser() -> None:
    from llama_index.core.ingestion import IngestionPipeline

    docs = _li_documents()[:3]
    parser = MdchunkNodeParser(max_tokens=128, overlap_tokens=0)
    piped = IngestionPipeline(transformations=[parser]).run(documents=docs)
    assert [n.node_id for n in piped] == [n.node_id for n in parser(docs)]


def test_missing_extra_is_a_one_line_dependency_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from mdchunk import DependencyError

    for name in ("mdchunk.integrations.langchain", "mdchunk.integrations.llama_index"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)
    monkeypatch.setitem(sys.modules, "llama_index.core.node_parser", None)
    with pytest.raises(DependencyError, match=r"mdchunk\[langchain\]"):
        import mdchunk.integrations.langchain
    with pytest.raises(DependencyError, match=r"mdchunk\[llama-index\]"):
        import mdchunk.integrations.llama_index  # noqa: F401
