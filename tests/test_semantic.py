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
from mdchunk.audit import headings_only
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
    feasible,
    plan_cost,
    plan_cuts,
    seam_costs,
)
from mdchunk.plan.strategies.scorers import EmbeddingScorer, LexicalScorer, word_set
from mdchunk.plan.strategies.semantic import SemanticStrategy
from mdchunk.text import read_document

from .conftest import FIXTURES, fixture_files
from .test_grammar import budgets, markdown_documents
from .test_guarantees import _document, assert_generated_guarantees, assert_markdown_guarantees
from .test_hierarchy import assert_hierarchy


class HashEncoder:
    """A deterministic stand-in for a sentence model: hashed bags of words, unit length.
    Records its calls, to prove each unit is embedded once, in one batch."""

    def __init__(self, dim: int = 64) -> None:
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


def test_lexical_similarity_is_jaccard_of_the_sides() -> None:
    scorer = LexicalScorer(window=1)
    sims = scorer.similarities(["a b c", "a b d", "x y z", ""])
    assert sims[0] == pytest.approx(2 / 4)
    assert sims[1] == 0.0
    assert sims[2] == 0.0  # nothing in common with a blank
    wide = LexicalScorer(window=2).similarities(["a", "b", "a b", "c"])
    assert wide[1] == pytest.approx(2 / 3)  # two units a side: {a, b} against {a, b, c}
    assert LexicalScorer().similarities(["only one"]) == []


def test_embedding_similarity_is_cosine_and_embeds_each_unit_once_in_one_batch() -> None:
    encoder = HashEncoder()
    units = ["cats purr", "cats sleep", "rust compiles", "rust borrows"]
    sims = EmbeddingScorer(encoder, window=1).similarities(units)
    vectors = encoder.embed(units)
    assert encoder.calls[0] == units and len(encoder.calls) == 2  # one batch (plus ours)
    expected = [float(vectors[i] @ vectors[i + 1]) for i in range(3)]
    assert sims == pytest.approx(expected)
    assert sims[1] < min(sims[0], sims[2])


def test_seam_costs_rank_the_documents_own_similarities() -> None:
    """Chinese prose scores uniformly high; ranks still find its valleys (adaptive threshold)."""
    high = [0.97, 0.95, 0.99, 0.96, 0.98]
    costs = seam_costs(high, threshold=0.5, drop_bonus=0.0)
    assert min(costs) == costs[1] < 0 < costs[2] == max(costs)
    assert seam_costs([None, 0.5, 0.1], threshold=0.3, drop_bonus=0.0)[0] == pytest.approx(0.7)
    dropped = seam_costs([0.9, 0.1, 0.9, 0.5], threshold=0.5, drop_bonus=0.5)
    flat = seam_costs([0.9, 0.1, 0.9, 0.5], threshold=0.5, drop_bonus=0.0)
    assert dropped[1] < flat[1] and dropped[0] == flat[0]  # a drop below both neighbours gains


# -- the optimal plan -------------------------------------------------------------------------


def _brute_force(weights, rooms, costs, allowed, min_tokens) -> float:
    seams = [k for k in range(1, len(weights)) if allowed[k - 1]]
    return min(plan_cost(weights, costs, cuts, min_tokens)
               for r in range(len(seams) + 1) for cuts in itertools.combinations(seams, r)
               if feasible(weights, rooms, allowed, cuts))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), n=st.integers(1, 9))
def test_the_plan_is_the_optimum_brute_force_finds(data, n: int) -> None:
    weights = data.draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    rooms = data.draw(st.lists(st.integers(20, 90), min_size=n, max_size=n))
    costs = data.draw(st.lists(st.floats(-1, 1), min_size=n - 1, max_size=n - 1))
    allowed = data.draw(st.lists(st.booleans(), min_size=n - 1, max_size=n - 1))
    min_tokens = data.draw(st.integers(0, 60))
    cuts = plan_cuts(weights, rooms, costs, allowed, min_tokens)
    assert cuts == sorted(set(cuts)) and all(allowed[k - 1] for k in cuts)
    assert feasible(weights, rooms, allowed, cuts)
    assert plan_cost(weights, costs, cuts, min_tokens) == pytest.approx(
        _brute_force(weights, rooms, costs, allowed, min_tokens))


def test_the_plan_keeps_chunks_in_their_room_and_above_min_tokens_where_it_can() -> None:
    weights = [30] * 10
    costs = [0.5, 0.5, -0.9, 0.5, 0.5, -0.9, 0.5, 0.5, 0.5]
    cuts = plan_cuts(weights, [100] * 10, costs, [True] * 9, min_tokens=50)
    assert cuts[:2] == [3, 6] and feasible(weights, [100] * 10, [True] * 9, cuts)
    assert plan_cost(weights, costs, cuts, 50) < SHORT_PENALTY
    # a seam that may not be cut (after a heading) is never chosen, even when cheapest
    assert 3 not in plan_cuts(weights, [100] * 10, costs, [True, True, False, *[True] * 6], 0)


# -- the strategies keep every guarantee ------------------------------------------------------

BUDGETS = [(512, 64), (256, 32), (128, 16), (48, 8)]
MARKDOWN = fixture_files(".md")


@pytest.mark.parametrize("semantic", ["lexical", "embedding"])
@pytest.mark.parametrize("max_tokens,overlap", BUDGETS)
@pytest.mark.parametrize("path", MARKDOWN, ids=[p.name for p in MARKDOWN])
def test_semantic_guarantees_on_the_fixtures(path: Path, max_tokens: int, overlap: int,
                                             semantic: str, counter) -> None:
    source = read_document(path)
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

    source = read_document(path)
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
    source = read_document(path)
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
    """The default embedding scorer: all-MiniLM-L6-v2, loaded lazily, no network. Seams between
    topics score far below every seam inside one; the plan keeps every guarantee."""
    from mdchunk.chunks.models import LazyEncoder

    units, topics = [], []
    for topic, text in TOPICS.items():
        for sentence in text.strip().split(". "):
            units.append(sentence.rstrip(".") + ".")
            topics.append(topic)
    sims = EmbeddingScorer(LazyEncoder()).similarities(units)
    across = [s for i, s in enumerate(sims) if topics[i] != topics[i + 1]]
    within = [s for i, s in enumerate(sims) if topics[i] == topics[i + 1]]
    assert len(across) == 2 and max(across) < min(within)
    text, starts = _topics_text(("cats", "rust", "tea"))
    chunks = mdchunk.chunk_text(text, max_tokens=64, overlap_tokens=0, semantic="embedding")
    assert starts[0] in [c.start for c in chunks]
    source = read_document(FIXTURES / "cpu-high-load-runbook.zh.md")
    chunks = mdchunk.chunk_markdown(source, max_tokens=128, overlap_tokens=16,
                                    semantic="embedding")
    assert_markdown_guarantees(source, chunks, counter, 128, 16)
