"""The arithmetic of ``bench/bench_chroma.py`` (issue 14): scores on character ranges as
``chunking_evaluation`` computes them, and the bootstrap intervals that say how far apart two
modes (or a mode and a target) must be before 472 questions can tell them apart.

No model and no corpus: the chunks, evidence and per-question scores are written out here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench_chroma", ROOT / "bench" / "bench_chroma.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


def test_scores_count_evidence_characters_once() -> None:
    # evidence 100..200; retrieved chunks 50..150 and 120..170 (overlapping) and one from another
    # corpus: 70 evidence characters covered (100..170), counted once though two chunks hold them
    scores = BENCH.question_scores(
        [(100, 200)], "a", [("a", (50, 150)), ("a", (120, 170)), ("b", (0, 40))],
        touching=[(50, 150), (120, 170), (150, 250)])
    retrieved = 100 + 50 + 40
    assert scores.recall == pytest.approx(70 / 100)
    assert scores.precision == pytest.approx(70 / retrieved)
    assert scores.iou == pytest.approx(70 / (retrieved + 30))
    # precision-Ω: every chunk touching the evidence covers all of it, within 50..250
    assert scores.omega == pytest.approx(100 / 200)


def test_a_question_nothing_retrieved_for_scores_zero() -> None:
    scores = BENCH.question_scores([(10, 20)], "a", [("a", (30, 40))], touching=[(5, 25)])
    assert (scores.recall, scores.precision, scores.iou) == (0.0, 0.0, 0.0)
    assert scores.omega == pytest.approx(10 / 20)


def test_interval_holds_the_mean_and_narrows_with_more_questions() -> None:
    rng = np.random.default_rng(0)
    few, many = rng.random(50), rng.random(5000)
    low, high = BENCH.interval(few)
    assert low < few.mean() < high
    many_low, many_high = BENCH.interval(many)
    assert many_high - many_low < (high - low) / 5


def test_paired_differences_share_resamples() -> None:
    """A mode against itself differs by exactly zero; against a mode one point better on every
    question, by exactly one: the two columns are resampled on the same questions."""
    base = BENCH.Scores(0.5, 0.1, 0.1, 0.2)
    better = BENCH.Scores(0.51, 0.1, 0.1, 0.2)
    lines = BENCH.spread_table("200/0", {"langchain": [base] * 40, "mdchunk": [better] * 40})
    assert lines[0].startswith("| config | mode | recall [95%]")
    assert "| 200/0 | langchain | 50.0 [50.0, 50.0] |" in lines[2]
    assert "| +0.0 [+0.0, +0.0] | +0.0 [+0.0, +0.0] |" in lines[2]
    assert "| 200/0 | mdchunk | 51.0 [51.0, 51.0] |" in lines[3]
    assert "| +1.0 [+1.0, +1.0] | +0.0 [+0.0, +0.0] |" in lines[3]
