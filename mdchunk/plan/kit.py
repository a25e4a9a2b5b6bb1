"""What every packer is handed: one document's counts, breadcrumbs, sentences and drafter, built
once per document so a stretch of text is encoded once however many packers weigh it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..config import ChunkerConfig
from ..formats.blocks import Rewrite
from ..text import SentenceIndex
from ..tokens import SpanCounts, TokenCounter
from .breadcrumbs import Breadcrumbs
from .drafts import Drafter, Tiling

__all__ = ["PackingKit"]


@dataclass(frozen=True, slots=True)
class PackingKit:
    """One document's packing tools under one config."""

    source: str
    config: ChunkerConfig
    counts: SpanCounts
    crumbs: Breadcrumbs
    sentences: SentenceIndex
    drafter: Drafter
    #: What strategies report about this document (``llm_sections``, ``llm_fallbacks``): the
    #: chunker copies it onto the result (:class:`~mdchunk.chunks.chunk.ChunkList`).
    events: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, source: str, counter: TokenCounter, config: ChunkerConfig,
           tiling: Tiling | None = None, hidden: Sequence[Rewrite] = ()
           ) -> PackingKit:
        """``tiling`` makes drafts tile the source (a hierarchy's first level); ``hidden``
        spans (markup no site shows: :meth:`Document.hidden`) are left out of ``embed_text``."""
        counts = SpanCounts(source, counter, long_block=3 * config.max_tokens)
        crumbs = Breadcrumbs(counts, config.max_tokens)
        return cls(source, config, counts, crumbs, SentenceIndex(source),
                   Drafter(counts, crumbs, config.max_tokens, tiling, hidden))

    @property
    def max_tokens(self) -> int:
        return self.config.max_tokens
