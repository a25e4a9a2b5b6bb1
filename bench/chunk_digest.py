"""One digest of every chunk mdchunk makes of the shared corpora and the fixtures: a change
meant to be a speed-up only (issue 32) must leave it as it was.

Each corpus is chunked with its site (``corpus_sites.py``), every Markdown file under
``fixtures/`` as a plain, Hugo, Docusaurus and MkDocs page, at 256/32 and 64/8 tokens; each
chunk's id, span, token count, ``embed_text`` and metadata go into one sha256.

    .venv/bin/python bench/chunk_digest.py          # prints the chunk count and the digest

The corpora are ``$MDCHUNK_CORPORA`` when it is set, else ``../shared/corpora`` beside the
repository; a run that finds neither says so and stops (a digest of the fixtures alone would
pass for a different one: a worktree elsewhere has no ``shared`` beside it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from corpus_sites import markdown_files, site_of  # noqa: E402

import mdchunk  # noqa: E402

_BUDGETS = ((256, 32), (64, 8))
_FIXTURE_SITES = ("plain", "hugo", "docusaurus", "mkdocs")


def _corpora() -> Path:
    """The shared corpora: ``$MDCHUNK_CORPORA``, else ``../shared/corpora``; exits when they are
    missing."""
    corpora = Path(os.environ.get("MDCHUNK_CORPORA") or REPO.parent / "shared" / "corpora")
    if not corpora.is_dir():
        sys.exit(f"chunk_digest: {corpora} is missing: set MDCHUNK_CORPORA to the shared corpora")
    return corpora


def _pages(corpora: Path) -> list[tuple[Path, str]]:
    """Every page and the site it is read with."""
    pages: list[tuple[Path, str]] = []
    for folder in sorted(p for p in corpora.iterdir() if p.is_dir()):
        pages += [(page, site_of(folder)) for page in markdown_files(folder)]
    fixtures = markdown_files(REPO / "fixtures")
    pages += [(page, site) for site in _FIXTURE_SITES for page in fixtures]
    return pages


def main() -> None:
    logging.disable(logging.WARNING)  # includes a page names but the run does not set
    digest, count = hashlib.sha256(), 0
    for page, site in _pages(_corpora()):
        text = page.read_text(encoding="utf-8-sig")
        for max_tokens, overlap in _BUDGETS:
            config = mdchunk.ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap,
                                           site=site)  # type: ignore[arg-type]
            for chunk in mdchunk.Chunker(config).chunk(text, page.name):
                record = [chunk.id, chunk.start, chunk.end, chunk.token_count,
                          chunk.embed_text, chunk.metadata]
                digest.update(json.dumps(record, sort_keys=True, default=str).encode())
                count += 1
    print(f"{count} chunks, sha256 {digest.hexdigest()}")


if __name__ == "__main__":
    main()
