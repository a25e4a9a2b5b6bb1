"""Small versions of the pathological documents (``tests/pathological.py``): every guarantee
holds, with every line ending. Their full sizes, and whether time stays linear, are in
``bench/bench_pathological.py`` (``make bench-pathological``)."""

from __future__ import annotations

import pytest

import mdchunk
from tests.audit import audit_markdown

from .pathological import KINDS, NEWLINES, document


@pytest.mark.parametrize("newline", NEWLINES, ids=list(NEWLINES))
@pytest.mark.parametrize("kind", KINDS, ids=[k.replace(" ", "-") for k in KINDS])
def test_pathological_documents_keep_every_guarantee(kind: str, newline: str, counter) -> None:
    source = document(kind, 6_000, NEWLINES[newline])
    for max_tokens, overlap in ((256, 32), (48, 8)):
        chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap)
        assert chunks
        spans = [(c.start, c.end) for c in chunks]
        assert all(c.text == source[c.start:c.end] for c in chunks)
        report = audit_markdown(source, spans, [c.token_count for c in chunks], counter,
                                max_tokens)
        assert report.over_budget == [] and report.uncovered == [] and report.cut == []
        assert report.shared_top == []
        hierarchy = mdchunk.chunk_hierarchy(source, levels=(1024, max_tokens),
                                            overlap_tokens=overlap)
        assert "".join(c.text for c in hierarchy if c.level == 1) == source
