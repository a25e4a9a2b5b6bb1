"""Chunk ids over every fixture and corpus, against the ids recorded before a change.

A refactoring must not move a single chunk: this compares a digest of each document's chunk
ids (which hash the span, the text, the embed text and the config) at several budgets with
``tests/data/chunk_ids.json``. A change that is *meant* to move chunks re-records the file,
after its snapshot diffs have been read, with::

    .venv/bin/python -m tests.test_chunk_ids --record
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

import mdchunk
from mdchunk import chunk_markdown

from .conftest import CHROMA, CORPORA, CORPUS_ABSENT, FIXTURES, corpus_files

RECORD = Path(__file__).parent / "data" / "chunk_ids.json"
BUDGETS = ((512, 64), (256, 32), (128, 16))


def documents() -> dict[str, Path]:
    """Every document by a name that does not depend on where the corpora live."""
    found = {f"fixtures/{p.name}": p for p in sorted(FIXTURES.iterdir()) if p.is_file()}
    found |= {f"corpora/{p.relative_to(CORPORA).as_posix()}": p for p in corpus_files()}
    if CHROMA.is_dir():
        found |= {f"chroma/{p.name}": p for p in sorted(CHROMA.glob("*.md"))}
    return found


def digest(path: Path, max_tokens: int, overlap: int) -> str:
    chunks = mdchunk.chunk_file(path, doc_id=path.name, max_tokens=max_tokens,
                                overlap_tokens=overlap)
    ids = "\n".join(c.id for c in chunks)
    return f"{len(chunks)}:{hashlib.blake2b(ids.encode(), digest_size=12).hexdigest()}"


def _recorded() -> dict[str, dict[str, str]]:
    return json.loads(RECORD.read_text(encoding="utf-8"))


#: Read once: each of the several hundred cases below looks up its document and its record.
RECORDED = _recorded()
DOCUMENTS = documents()
CASES = [pytest.param(name, budget, id=f"{name}@{budget[0]}",
                      marks=() if name.startswith("fixtures/") else pytest.mark.corpus)
         for name in sorted(RECORDED) for budget in BUDGETS]


@pytest.mark.parametrize("name,budget", CASES)
def test_chunk_ids_unchanged(name: str, budget: tuple[int, int]) -> None:
    path = DOCUMENTS.get(name)
    if path is None:
        if name.startswith("fixtures/"):
            pytest.fail(f"{name} was recorded but is gone; re-record on purpose")
        pytest.skip(f"{CORPUS_ABSENT}: {name}")
    assert digest(path, *budget) == RECORDED[name][f"{budget[0]}/{budget[1]}"]


def test_every_fixture_is_recorded() -> None:
    missing = [n for n in DOCUMENTS if n.startswith("fixtures/") and n not in RECORDED]
    assert missing == [], "record the new fixtures' ids: python -m tests.test_chunk_ids --record"


def record() -> None:
    old = _recorded() if RECORD.is_file() else {}
    new = {name: {f"{m}/{o}": digest(path, m, o) for m, o in BUDGETS}
           for name, path in documents().items()}
    old.update(new)  # corpora absent on this machine keep their recorded digests
    RECORD.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(new)} documents in {RECORD}")


if __name__ == "__main__" and "--record" in sys.argv:
    record()


def test_ids_are_stable_and_change_with_text_or_config() -> None:
    source = ("# A\n\nOne sentence of text here, long enough to fill a chunk.\n\n"
              "# B\n\nTwo sentences of text here, long enough to fill a chunk.\n")
    first = chunk_markdown(source, max_tokens=20, overlap_tokens=0, doc_id="a.md", min_tokens=0)
    again = chunk_markdown(source, max_tokens=20, overlap_tokens=0, doc_id="a.md", min_tokens=0)
    assert [c.id for c in first] == [c.id for c in again]
    edited = chunk_markdown(source.replace("Two", "Three"), max_tokens=20, overlap_tokens=0,
                            doc_id="a.md", min_tokens=0)
    assert first[0].id == edited[0].id and first[1].id != edited[1].id
    other = chunk_markdown(source, max_tokens=21, overlap_tokens=0, doc_id="a.md", min_tokens=0)
    assert {c.id for c in first}.isdisjoint(c.id for c in other)
