"""Embeddings the collection-wide cache saves: each corpus indexed from scratch twice into a
temporary Milvus Lite file, with the cache and with it turned off (what indexing did before:
a text was shared only inside one write group), counting the texts sent to the model.

    .venv/bin/python bench/bench_cache.py [--corpus fixtures ../shared/corpora/...]

Each corpus is also indexed as a versioned documentation site keeps it: the same pages under
``v1/`` and ``v2/`` (identical pages in two places, the case the cache is for).

The vectors come from a stand-in with the bundled model's name, window and tokenizer, so the
chunks (and the counts) are exactly those of a real run, in seconds instead of minutes.
Prints a Markdown table; writes JSON to bench/results/cache.json.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from unittest import mock

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tables import save_and_print  # noqa: E402  (bench/, this script's folder)

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class StandIn:
    """The bundled model's identity and tokenizer, with hashed vectors; counts what it embeds."""

    def __init__(self) -> None:
        from mdchunk.embedding import SentenceTransformerEmbedder

        real = SentenceTransformerEmbedder()
        self.name, self.dim = real.name, real.dim
        self.max_tokens, self.tokenizer = real.max_tokens, real.tokenizer
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        rows = [np.random.default_rng(int(hashlib.blake2b(t.encode()).hexdigest()[:8], 16))
                .standard_normal(self.dim) for t in texts]
        out = np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(1e-9)


def run(corpus: Path, cache: bool) -> tuple[int, int, int]:
    """``(leaves, texts embedded, distinct embed texts)`` of one fresh index of ``corpus``."""
    from mdchunk.index import index_paths
    from mdchunk.index.cache import VectorCache
    from mdchunk.index.milvus import MilvusStore

    model = StandIn()
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "c.db")
        off = mock.patch.object(VectorCache, "lookup", lambda self, keys: {})
        with off if not cache else mock.patch.dict({}):
            report = index_paths([corpus], db=db, collection="c", model=model)
        with MilvusStore(db, "c") as store:
            store._load()
            hashes = [r["content_hash"] for r in store.rows(("id", "content_hash"))]
    assert report.embedded_chunks == model.embedded
    return len(hashes), model.embedded, len(set(hashes))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    corpora = sorted(p for p in (REPO.parent / "shared" / "corpora").glob("*") if p.is_dir())
    default = [REPO / "fixtures", *corpora]
    parser.add_argument("--corpus", type=Path, nargs="+", default=default)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in args.corpus:
            # Also the corpus as a versioned doc site keeps it: the same pages under v1/ and v2/.
            versioned = Path(tmp) / f"{corpus.name}-versioned"
            for version in ("v1", "v2"):
                shutil.copytree(corpus, versioned / version)
            for tree, name in ((corpus, corpus.name), (versioned, f"{corpus.name} as v1/ + v2/")):
                leaves, before, distinct = run(tree, cache=False)
                leaves_after, after, _ = run(tree, cache=True)
                assert leaves == leaves_after and after == distinct
                rows.append({"corpus": name, "leaves": leaves, "distinct_texts": distinct,
                             "embedded_without_cache": before, "embedded_with_cache": after,
                             "saved": before - after})
    save_and_print(args.out, "cache.json", rows,
                   ["corpus", "leaves", "distinct embed texts", "embedded before",
                    "embedded with the cache", "saved"],
                   [[r["corpus"], r["leaves"], r["distinct_texts"], r["embedded_without_cache"],
                     r["embedded_with_cache"], r["saved"]] for r in rows])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
