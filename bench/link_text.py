"""The ``--links text`` variant of the styles study (issue 46): what retrieval gains when a
leaf's ``embed_text`` shows a link as the page reads it, ``[text](url)`` as ``text`` and
``![alt](path)`` as ``alt``, so that URLs neither reach the model nor BM25.

Imported by the ``mdchunk index`` child process the study runs (:data:`search_styles.CLI`),
it wraps the indexer's chunker so that every chunk's ``embed_text`` is rewritten after chunking:
an approximation of doing it in the reader, kept to the bench until it proves itself. Chunks
are still sized with the URLs in (the rewrite only shortens them), and fenced code and code
spans are left alone (a Markdown example in a fence keeps its links).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

#: ``![alt](dest "title")`` and ``[text](dest "title")`` (no nested brackets in the label).
_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\(\s*<?[^()\s>]*>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def link_text(text: str) -> str:
    """``text`` with each inline link and image outside code shown as its text or alt.

    >>> link_text("See [the guide](https://x.org/g \\"G\\") and ![a chart](img/c.png), `[a](b)`.")
    'See the guide and a chart, `[a](b)`.'
    """
    out, fence = [], ""
    for line in text.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        pieces, last = [], 0
        for span in _CODE_SPAN.finditer(line):
            pieces += [_LINK.sub(r"\2", line[last:span.start()]), span.group(0)]
            last = span.end()
        out.append("".join(pieces) + _LINK.sub(r"\2", line[last:]))
    return "".join(out)


def install() -> None:
    """Wrap the indexer's chunker (:func:`mdchunk.index.engine._chunker`)."""
    from mdchunk.index import engine

    original = engine._chunker

    class Shown:
        def __init__(self, chunker: Any) -> None:
            self.chunker = chunker

        def chunk_file(self, *args: Any, **kwargs: Any) -> list[Any]:
            return [dataclasses.replace(c, embed_text=link_text(c.embed_text))
                    for c in self.chunker.chunk_file(*args, **kwargs)]

    engine._chunker = lambda *args, **kwargs: Shown(original(*args, **kwargs))  # type: ignore[assignment]
