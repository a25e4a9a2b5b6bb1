"""Semantic boundaries (issue 14): scorers, the optimal plan, the LLM's proposals, and every
guarantee of the contract under the semantic strategies, as under greedy."""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mdchunk
from mdchunk.chunks.chunk import ChunkList
from mdchunk.cli.app import app
from mdchunk.formats import parse_markdown
from mdchunk.plan import GreedyStrategy
from mdchunk.plan.strategies.llm import (
    LlmStrategy,
    ProposalError,
    call_with_timeout,
    read_proposal,
)
from mdchunk.plan.strategies.optimal import (
    SHORT_PENALTY,
    baseline,
    feasible,
    plan_chunks,
    plan_cost,
    reach,
)
from mdchunk.plan.strategies.scorers import EmbeddingScorer, LexicalScorer, word_set
from mdchunk.plan.strategies.semantic import MAX_REACH, MIN_UNIT_TOKENS, SemanticStrategy
from mdchunk.text import document_text
from tests.audit import headings_only

from .conftest import FIXTURES, fixture_files
from .test_grammar import budgets, markdown_documents
from .test_guarantees import _document, assert_generated_guarantees, assert_markdown_guarantees
from .test_hierarchy import assert_hierarchy


class HashEncoder:
    """A deterministic stand-in for a sentence model: hashed bags of words, unit length.
    Records its calls, to prove each unit is embedded once, in one batch."""

    def __init__(self, dim: int = 1024) -> None:
        self.dim = dim
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            for word in word_set(text):
                out[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)


def _semantic_chunker(semantic: str, max_tokens: int, overlap: int, **kwargs) -> mdchunk.Chunker:
    config = mdchunk.ChunkerConfig(max_tokens=max_tokens, overlap_tokens=overlap,
                                   semantic=semantic)  # type: ignore[arg-type]
    encoder = HashEncoder() if semantic == "embedding" else None
    return mdchunk.Chunker(config, encoder=encoder, **kwargs)


TOPICS = {  # every sentence names its topic: the seams between topics share no word
    "cats": "Cats purr when cats are content. Cats sleep most of the day. Young cats play with "
            "yarn. Cats groom their fur. Cats hunt mice at night. ",
    "rust": "Rust compiles to native code. Rust checks borrows when compiling. Cargo builds "
            "Rust crates. Rust traits define shared behaviour. Rust enums carry data. ",
    "tea": "Green tea is steamed after picking. Black tea is oxidised fully. Oolong tea sits "
           "between green and black tea. Tea brews best below boiling. ",
}


def _topics_text(order: tuple[str, ...]) -> tuple[str, list[int]]:
    """One paragraph running through the topics; where each topic after the first starts."""
    text, starts = "", []
    for i, topic in enumerate(order):
        if i:
            starts.append(len(text))
        text += TOPICS[topic]
    return text.strip() + "\n", starts


# -- scorers ----------------------------------------------------------------------------------


def test_word_sets_lower_case_latin_and_pair_cjk_characters() -> None:
    assert word_set("The CAT, the cat!") == {"the", "cat"}
    assert word_set("重启服务") == {"重启", "启服", "服务"}
    assert word_set("好") == {"好"}
    assert word_set("v1.2 重启 Pod") == {"v", "1", "2", "重启", "pod"}


def test_lexical_similarity_is_jaccard_of_each_pair_within_reach() -> None:
    band = LexicalScorer().band(["a b c", "a b d", "x y z", ""], reach=2)
    assert band[0] == pytest.approx([2 / 4, 0.0])  # {a,b,c} against {a,b,d}, then {x,y,z}
    assert band[1] == [0.0, 0.0]  # nothing in common, nor with a blank
    assert band[2] == [0.0] and band[3] == []  # fewer near the end
    assert LexicalScorer().band(["", ""], reach=1)[0] == [1.0]  # two blanks: nothing tells them apart
    assert LexicalScorer().band(["only one"], reach=3) == [[]]


def test_embedding_similarity_is_cosine_and_embeds_each_unit_once_in_one_batch() -> None:
    encoder = HashEncoder()
    units = ["cats purr", "cats sleep", "rust compiles", "rust borrows"]
    band = EmbeddingScorer(encoder).band(units, reach=2)
    vectors = encoder.embed(units)
    assert encoder.calls[0] == units and len(encoder.calls) == 2  # one batch (plus ours)
    for i, row in enumerate(band):
        assert row == pytest.approx([float(vectors[i] @ vectors[i + d])
                                     for d in range(1, min(3, 4 - i))])
    assert band[1][0] < min(band[0][0], band[2][0])  # cats against rust: the valley
    assert EmbeddingScorer(encoder).band([], reach=2) == []


def test_the_baseline_is_the_runs_own_quantile() -> None:
    """Chinese prose scores uniformly high; a quantile of the run's own similarities still
    finds its valleys (an adaptive threshold), where a fixed cut-off would find none."""
    high = [[0.97, 0.95], [0.99, 0.96], [0.98], []]
    assert baseline(high, 0.5) == pytest.approx(0.975)  # 0.97, halfway up to 0.98
    assert baseline(high, 0.0) == pytest.approx(0.955) and baseline(high, 0.99) == 0.99
    assert baseline([[], []], 0.5) == 0.0
    assert baseline([[0.0, 0.0, 0.0], [0.0, 0.2], [0.4]], 0.5) == pytest.approx(0.1)  # ties
    # two topics of two units, all uniformly alike (0.99 within, 0.96 across); a chunk holds three
    two = [[0.99, 0.96, 0.96], [0.96, 0.96], [0.99], []]
    assert baseline(two, 0.5) == pytest.approx(0.975)
    assert plan_chunks([10] * 4, [30] * 4, two, baseline(two, 0.5), 0) == [2]
    # a fixed cut-off finds everything alike and keeps three units together across the change
    assert plan_chunks([10] * 4, [30] * 4, two, 0.5, 0) != [2]


def test_reach_is_the_most_units_a_chunk_can_hold() -> None:
    assert reach([10, 10, 10, 30, 5, 5], [30] * 6) == 3  # 10+10+10, or 30 alone, or 5+5
    assert reach([50], [20]) == 1  # a unit alone always goes
    assert reach([1] * 10, [4] * 10) == 4


def test_pairs_are_scored_only_as_far_apart_as_a_chunk_holds_and_never_past_max_reach() -> None:
    asked: list[int] = []

    class Recording(LexicalScorer):
        def band(self, units, reach):
            asked.append(reach)
            return super().band(units, reach)

    text = " ".join(f"Sentence {i} says one thing about topic {i % 7}." for i in range(400))
    for max_tokens, most in [(64, 64 // MIN_UNIT_TOKENS), (8192, MAX_REACH)]:
        asked.clear()
        config = mdchunk.ChunkerConfig(max_tokens=max_tokens, overlap_tokens=0, semantic="lexical")
        chunker = mdchunk.Chunker(config, SemanticStrategy(Recording()))
        chunks = chunker.chunk_text(text * (1 if max_tokens < 1000 else 8))
        assert asked and 1 < max(asked) <= most
        assert all(c.token_count <= max_tokens for c in chunks)


# -- the optimal plan -------------------------------------------------------------------------


def _brute_force(weights, rooms, band, base, min_tokens) -> float:
    allowed = [True] * (len(weights) - 1)
    return min(plan_cost(weights, band, base, cuts, min_tokens)
               for r in range(len(weights)) for cuts in itertools.combinations(range(1, len(weights)), r)
               if feasible(weights, rooms, allowed, cuts))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), n=st.integers(1, 9))
def test_the_plan_is_the_optimum_brute_force_finds(data, n: int) -> None:
    weights = data.draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    rooms = data.draw(st.lists(st.integers(20, 90), min_size=n, max_size=n))
    width = data.draw(st.integers(1, 4))
    band = [data.draw(st.lists(st.floats(-1, 1), min_size=min(width, n - 1 - u),
                               max_size=min(width, n - 1 - u))) for u in range(n)]
    base = data.draw(st.floats(-0.5, 0.5))
    min_tokens = data.draw(st.integers(0, 60))
    cuts = plan_chunks(weights, rooms, band, base, min_tokens)
    assert cuts == sorted(set(cuts)) and all(0 < k < n for k in cuts)
    assert feasible(weights, rooms, [True] * (n - 1), cuts)
    assert plan_cost(weights, band, base, cuts, min_tokens) == pytest.approx(
        _brute_force(weights, rooms, band, base, min_tokens))


def _two_topic_band(n: int, turns: dict[int, float]) -> list[list[float]]:
    """Similarities of ``n`` units: 0.8 within a topic; across the turn before unit ``k``,
    ``turns[k]`` (how alike the two sides are: lower is a deeper change)."""
    band = []
    for u in range(n):
        row = []
        for v in range(u + 1, n):
            crossed = [turns[k] for k in turns if u < k <= v]
            row.append(min(crossed, default=0.8))
        band.append(row)
    return band


def test_one_deep_topic_change_wins_over_two_moderate_dips() -> None:
    """Six units of 10 tokens, at most five to a chunk, so at least one cut. A deep change
    (nothing alike across it) before unit 3, two moderate dips (0.5 across) before units 2 and
    4: the plan cuts once, at the deep change, not at the two dips (which a sum of seam costs
    below a median would prefer: two cuts that each save something), nor at all three."""
    band = _two_topic_band(6, {2: 0.5, 3: 0.0, 4: 0.5})
    weights, rooms = [10] * 6, [50] * 6
    base = baseline(band, 0.5)
    assert plan_chunks(weights, rooms, band, base, 0) == [3]
    assert plan_cost(weights, band, base, [3], 0) < plan_cost(weights, band, base, [2, 4], 0)


def test_the_plan_keeps_chunks_in_their_room_and_above_min_tokens_where_it_can() -> None:
    weights = [30] * 10
    band = _two_topic_band(10, {3: 0.0, 6: 0.0})
    cuts = plan_chunks(weights, [100] * 10, band, 0.5, min_tokens=0)
    assert cuts[:2] == [3, 6] and feasible(weights, [100] * 10, [True] * 9, cuts)
    assert all(sum(weights[a:b]) <= 100 for a, b in zip([0, *cuts], [*cuts, 10]))
    # the topic turns after one unit, but a chunk of it alone would be under min_tokens: the
    # plan makes two chunks of 60 instead (120 tokens do not fit one chunk of 100)
    turned = _two_topic_band(4, {1: 0.0})
    assert plan_chunks([30] * 4, [100] * 4, turned, 0.5, min_tokens=0) == [1]
    assert plan_chunks([30] * 4, [100] * 4, turned, 0.5, min_tokens=50) == [2]
    assert plan_cost([30] * 4, turned, 0.5, [2], 50) < SHORT_PENALTY


# -- the strategies keep every guarantee ------------------------------------------------------

BUDGETS = [(512, 64), (256, 32), (128, 16), (48, 8)]
MARKDOWN = fixture_files(".md")


@pytest.mark.parametrize("semantic", ["lexical", "embedding"])
@pytest.mark.parametrize("max_tokens,overlap", BUDGETS)
@pytest.mark.parametrize("path", MARKDOWN, ids=[p.name for p in MARKDOWN])
def test_semantic_guarantees_on_the_fixtures(path: Path, max_tokens: int, overlap: int,
                                             semantic: str, counter) -> None:
    source = document_text(path)
    chunker = _semantic_chunker(semantic, max_tokens, overlap)
    chunks = chunker.chunk(source, doc_id=path.name)
    assert chunks
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap)
    again = _semantic_chunker(semantic, max_tokens, overlap).chunk(source, doc_id=path.name)
    assert [c.to_dict() for c in again] == [c.to_dict() for c in chunks], "guarantee 7"


@pytest.mark.parametrize("semantic", ["lexical", "embedding"])
@pytest.mark.parametrize("path", fixture_files(".txt"), ids=[p.name for p in fixture_files(".txt")])
def test_semantic_guarantees_on_text_and_qa(path: Path, semantic: str, counter) -> None:
    from .test_guarantees import assert_file_body_covered

    source = document_text(path)
    for max_tokens, overlap in [(256, 32), (64, 8)]:
        chunks = _semantic_chunker(semantic, max_tokens, overlap).chunk_file(path)
        assert all(c.text == source[c.start:c.end] for c in chunks)
        assert all(c.token_count == counter.count(c.embed_text) <= max_tokens for c in chunks)
        assert_file_body_covered(path, source, [(c.start, c.end) for c in chunks])


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=_document, max_tokens=st.sampled_from([32, 64, 160]),
       semantic=st.sampled_from(["lexical", "embedding"]))
def test_semantic_guarantees_on_generated_documents(source: str, max_tokens: int, semantic: str,
                                                    counter) -> None:
    overlap = max_tokens // 8
    chunks = _semantic_chunker(semantic, max_tokens, overlap).chunk(source)
    assert_generated_guarantees(source, chunks, counter, max_tokens, overlap)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=markdown_documents(), budget=budgets(),
       semantic=st.sampled_from(["lexical", "embedding"]))
def test_semantic_guarantees_on_grammar_documents(source: str, budget: tuple[int, int],
                                                  semantic: str, counter) -> None:
    max_tokens, overlap = budget
    try:
        chunks = _semantic_chunker(semantic, max_tokens, overlap).chunk(source, "g.md")
    except (mdchunk.InputError, mdchunk.ConfigError):
        return
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap,
                               headings=max_tokens >= 48)


@pytest.mark.parametrize("path", [FIXTURES / "cpu-high-load-runbook.zh.md",
                                  FIXTURES / "api-reference.md"], ids=["zh", "api"])
def test_semantic_hierarchy_keeps_its_guarantees(path: Path, counter) -> None:
    source = document_text(path)
    levels = (512, 128, 48)
    config = mdchunk.ChunkerConfig(overlap_tokens=8, semantic="lexical", levels=levels)
    chunks = mdchunk.Chunker(config).chunk_hierarchy(source, doc_id=path.name)
    assert_hierarchy(source, chunks, levels, counter)


# -- what it does -----------------------------------------------------------------------------


@pytest.mark.parametrize("semantic", ["lexical", "embedding"])
def test_semantic_cuts_fall_where_the_topic_changes(semantic: str) -> None:
    text, starts = _topics_text(("cats", "rust", "tea"))
    chunker = _semantic_chunker(semantic, 64, 0)
    chunks = chunker.chunk_text(text)
    cuts = [c.start for c in chunks[1:]]
    assert cuts == starts, [c.text for c in chunks]
    greedy = mdchunk.chunk_text(text, max_tokens=64, overlap_tokens=0)
    assert [c.start for c in greedy[1:]] != starts  # greedy fills to the budget instead


def test_greedy_stays_the_default_and_its_fingerprint_unchanged() -> None:
    assert isinstance(mdchunk.Chunker().strategy, GreedyStrategy)
    plain = mdchunk.ChunkerConfig()
    assert mdchunk.ChunkerConfig(semantic_model="x").fingerprint == plain.fingerprint
    assert mdchunk.ChunkerConfig(semantic="lexical").fingerprint != plain.fingerprint
    assert isinstance(_semantic_chunker("lexical", 128, 0).strategy, SemanticStrategy)


@pytest.mark.parametrize("bad,needle", [({"semantic": "llm"}, "semantic='llm'"),
                                        ({"semantic_threshold": 1.5}, "semantic_threshold"),
                                        ({"semantic_model": 3}, "semantic_model")])
def test_bad_semantic_settings_are_refused(bad: dict, needle: str) -> None:
    with pytest.raises(mdchunk.ConfigError, match=needle):
        mdchunk.ChunkerConfig(**bad)


def test_importing_and_lexical_chunking_never_import_torch() -> None:
    code = ("import sys, mdchunk; mdchunk.chunk_markdown('# A\\n\\nOne. Two.\\n', semantic='lexical'); "
            "mdchunk.Chunker(mdchunk.ChunkerConfig(semantic='embedding')); "
            "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)


def test_cli_semantic_option(tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "topics.txt"
    text, starts = _topics_text(("cats", "rust", "tea"))
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["chunk", str(path), "--max-tokens", "64", "--overlap", "0",
                                 "--semantic", "lexical"])
    assert result.exit_code == 0, result.output
    import json

    assert [json.loads(line)["start"] for line in result.output.splitlines()][1:] == starts
    assert runner.invoke(app, ["chunk", str(path), "--semantic", "magic"]).exit_code == 2
    shown = runner.invoke(app, ["inspect", str(path), "--max-tokens", "64", "--overlap", "0", "--semantic",
                                "lexical"])
    assert shown.exit_code == 0 and "3 chunks" in shown.output


# -- the LLM's proposals ----------------------------------------------------------------------


def test_replies_are_read_defensively() -> None:
    texts = ["a.", "b.", "c.", "d."]
    assert read_proposal("Sure! Cut at [3]. Thanks", texts) == [2]
    assert read_proposal('```json\n{"cuts": [2, 4]}\n```', texts) == [1, 3]
    assert read_proposal("[1, 3]", texts) == [2]  # 1 is where the first chunk starts anyway
    assert read_proposal('["a. b.", "c. d."]', texts) == [2]
    assert read_proposal('noise [oops] then ["a.  b. c.", "d."]', texts) == [3]
    for reply, reason in [("no array here", "unparsable"), ("[true, false]", "unparsable"),
                          ("[9]", "invalid"), ("[3, 2]", "invalid"),
                          ('["a. b", ". c. d."]', "invalid"), ('["a. b.", "x"]', "invalid")]:
        with pytest.raises(ProposalError) as caught:
            read_proposal(reply, texts)
        assert caught.value.reason == reason, reply


def test_a_hanging_or_failing_model_is_cut_short() -> None:
    release = threading.Event()
    with pytest.raises(ProposalError, match="timeout"):
        call_with_timeout(lambda prompt: str(release.wait(30)), "p", 0.2)
    release.set()
    with pytest.raises(ProposalError, match="exception"):
        call_with_timeout(lambda prompt: 1 / 0, "p", 5)  # type: ignore[arg-type,return-value]
    with pytest.raises(ProposalError, match="unparsable"):
        call_with_timeout(lambda prompt: 42, "p", 5)  # type: ignore[arg-type,return-value]


def _topic_unit_numbers(text: str, starts: list[int]) -> list[int]:
    """1-based numbers of the sentences that open each topic after the first."""
    sentence_starts = [0] + [i + 2 for i, ch in enumerate(text) if ch == "." and text[i + 1:i + 2] == " "]
    return [sentence_starts.index(s) + 1 for s in starts]


def test_a_valid_proposal_is_followed() -> None:
    text, starts = _topics_text(("cats", "rust", "tea"))
    numbers = _topic_unit_numbers(text, starts)
    prompts: list[str] = []

    def llm(prompt: str) -> str:
        prompts.append(prompt)
        return f"Here you go: {numbers}"

    chunks = mdchunk.chunk_text(text, max_tokens=64, overlap_tokens=0, llm=llm)
    assert isinstance(chunks, ChunkList)
    assert [c.start for c in chunks[1:]] == starts
    assert (chunks.llm_sections, chunks.llm_fallbacks) == (1, 0)
    assert "JSON array" in prompts[0] and "Cats purr when cats are content." in prompts[0]


def _garbage(prompt: str) -> str:
    return "I would rather not."


def _raises(prompt: str) -> str:
    raise RuntimeError("rate limited")


def _over_budget(prompt: str) -> str:
    return "[]"  # one chunk for the whole section: over the budget


@pytest.mark.parametrize("llm,reason", [(_garbage, "unparsable"), (_raises, "exception"),
                                        (_over_budget, "invalid")])
def test_a_failed_proposal_falls_back_and_is_counted(llm, reason: str) -> None:
    text, starts = _topics_text(("cats", "rust", "tea"))
    chunks = mdchunk.chunk_text(text, max_tokens=64, overlap_tokens=0, llm=llm)
    assert (chunks.llm_sections, chunks.llm_fallbacks) == (1, 1)
    assert chunks.events[f"llm_fallback:{reason}"] == 1
    lexical = mdchunk.chunk_text(text, max_tokens=64, overlap_tokens=0, semantic="lexical")
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in lexical]
    assert [c.start for c in chunks[1:]] == starts


def test_a_hanging_model_falls_back_without_hanging_the_run(counter) -> None:
    release = threading.Event()
    text, starts = _topics_text(("cats", "rust", "tea"))
    config = mdchunk.ChunkerConfig(max_tokens=64, overlap_tokens=0, semantic="embedding")
    chunker = mdchunk.Chunker(config, encoder=HashEncoder(), llm=lambda p: str(release.wait(60)),
                              llm_timeout=0.2)
    try:
        chunks = chunker.chunk_text(text)
    finally:
        release.set()
    assert chunks.events == {"llm_sections": 1, "llm_fallbacks": 1, "llm_fallback:timeout": 1}
    assert [c.start for c in chunks[1:]] == starts  # the embedding fallback found the topics
    assert all(c.token_count <= 64 for c in chunks)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=_document, max_tokens=st.sampled_from([32, 64, 160]),
       reply=st.sampled_from(["[2, 5, 9]", "[1]", "garbage", "[3, 4, 5, 6, 7, 8]", "[]"]))
def test_llm_guarantees_whatever_the_model_says(source: str, max_tokens: int, reply: str,
                                                counter) -> None:
    overlap = max_tokens // 8
    chunks = mdchunk.chunk_markdown(source, max_tokens=max_tokens, overlap_tokens=overlap,
                                    llm=lambda prompt: reply)
    assert chunks.llm_fallbacks <= chunks.llm_sections
    assert_markdown_guarantees(source, chunks, counter, max_tokens, overlap, headings=False)
    assert headings_only(parse_markdown(source).blocks, [(c.start, c.end) for c in chunks]) == []


def test_the_llm_strategy_is_built_from_the_chunker_arguments() -> None:
    chunker = mdchunk.Chunker(mdchunk.ChunkerConfig(semantic="lexical"), llm=_garbage)
    assert isinstance(chunker.strategy, LlmStrategy)
    assert isinstance(chunker.strategy.fallback.scorer, LexicalScorer)
    assert isinstance(mdchunk.Chunker(llm=_garbage).strategy.fallback.scorer, LexicalScorer)


@pytest.mark.slow
def test_the_bundled_model_scores_seams_offline(counter) -> None:
    """The default embedding scorer: all-MiniLM-L6-v2, loaded lazily, no network. Every pair of
    sentences on two topics scores below every pair on one; the plan cuts exactly where the
    topics change, and keeps every guarantee."""
    from mdchunk.embedding import seam_embedder

    units, topics = [], []
    for topic, text in TOPICS.items():
        for sentence in text.strip().split(". "):
            units.append(sentence.rstrip(".") + ".")
            topics.append(topic)
    band = EmbeddingScorer(seam_embedder(None)).band(units, len(units))
    pairs = [(topics[u] == topics[u + d], s) for u, row in enumerate(band)
             for d, s in enumerate(row, start=1)]
    across = [s for same, s in pairs if not same]
    within = [s for same, s in pairs if same]
    assert len(pairs) == len(units) * (len(units) - 1) // 2 and max(across) < min(within)
    text, starts = _topics_text(("cats", "rust", "tea"))
    chunks = mdchunk.chunk_text(text, max_tokens=64, overlap_tokens=0, semantic="embedding")
    assert [c.start for c in chunks[1:]] == starts
    source = document_text(FIXTURES / "cpu-high-load-runbook.zh.md")
    chunks = mdchunk.chunk_markdown(source, max_tokens=128, overlap_tokens=16,
                                    semantic="embedding")
    assert_markdown_guarantees(source, chunks, counter, 128, 16)
