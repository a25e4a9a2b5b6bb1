"""Which boundary strategy a config asks for, built with the objects it needs: greedy unless the
config sets ``semantic`` or the caller hands in an ``llm``. The embedding scorer's model is the
caller's :class:`~mdchunk.embedding.Embedder`, else a lazy one that loads nothing until a seam is
first scored."""

from __future__ import annotations

from ..config import ChunkerConfig
from ..embedding import Embedder, seam_embedder
from ..plan import BoundaryStrategy, GreedyStrategy
from ..plan.strategies.llm import LLM_TIMEOUT, Llm, LlmStrategy
from ..plan.strategies.scorers import EmbeddingScorer, LexicalScorer, SeamScorer
from ..plan.strategies.semantic import SemanticStrategy

__all__ = ["boundary_strategy"]


def boundary_strategy(config: ChunkerConfig, embedder: Embedder | None = None,
                      llm: Llm | None = None, llm_timeout: float = LLM_TIMEOUT
                      ) -> BoundaryStrategy:
    """The strategy for ``config``: greedy, semantic (``config.semantic``), or the LLM's
    proposals falling back to semantic (lexical when the config names no scorer)."""
    if config.semantic is None and llm is None:
        return GreedyStrategy()
    scorer: SeamScorer
    if config.semantic == "embedding":
        scorer = EmbeddingScorer(embedder or seam_embedder(config.semantic_model))
    else:
        scorer = LexicalScorer()
    semantic = SemanticStrategy(scorer, config.semantic_threshold)
    return semantic if llm is None else LlmStrategy(llm, semantic, llm_timeout)
