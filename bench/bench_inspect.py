"""How long ``mdchunk inspect --html`` takes on a 1 MB Markdown file, beside the chunking it
needs anyway: the page (splits, runs, template) should cost a fraction of the chunking.

Run: ``.venv/bin/python bench/bench_inspect.py`` (CPU seconds, time.process_time).
"""

from __future__ import annotations

import time
from pathlib import Path
from tempfile import TemporaryDirectory

from mdchunk import Chunker, ChunkerConfig
from mdchunk.cli.render import render_html
from mdchunk.cli.views import inspect_chunks

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def one_megabyte() -> str:
    """The Markdown fixtures, each under its own top-level heading, repeated up to 1 MB."""
    parts = [f"# Part {i}: {p.stem}\n\n" + p.read_text(encoding="utf-8").replace("\r", "")
             for i, p in enumerate(sorted(FIXTURES.glob("*.md")))]
    text, n = "", 0
    while len(text.encode()) < 1 << 20:
        text += parts[n % len(parts)].replace("# ", f"# {n} ", 1) + "\n"
        n += 1
    return text


def main() -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "big.md"
        path.write_text(one_megabyte(), encoding="utf-8")
        source = path.read_text(encoding="utf-8")
        chunker = Chunker(ChunkerConfig())
        chunker.chunk_file(path)  # warm: tokenizer loaded
        t0 = time.process_time()
        reading, chunks = chunker.read_and_chunk_file(path)
        t1 = time.process_time()
        assert reading is not None
        view = inspect_chunks(path, source, reading.source_blocks(), chunks, 512)
        t2 = time.process_time()
        page = render_html(view)
        t3 = time.process_time()
    print(f"{len(source.encode()) / 1e6:.2f} MB, {len(chunks)} chunks: chunking {t1 - t0:.2f} s, "
          f"flags {t2 - t1:.2f} s, page {t3 - t2:.2f} s ({len(page) / 1e6:.1f} MB of HTML); "
          f"inspect's own work is {(t3 - t1) / (t1 - t0):.0%} of the chunking")


if __name__ == "__main__":
    main()
