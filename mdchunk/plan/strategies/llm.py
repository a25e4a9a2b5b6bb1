"""The LLM strategy: a language model the user hands in (``prompt -> reply``) proposes the cuts
inside a run. The reply's first JSON array is read, of unit numbers or of the pieces' texts,
and validated (seams that may be cut, every chunk within its room). Anything else makes the run
fall back to the semantic strategy, counted in the kit's events (``llm_sections``,
``llm_fallbacks``, ``llm_fallback:<reason>``). The packer packs the units either way, so every
guarantee holds."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Sequence

from ..drafts import Draft
from ..kit import PackingKit
from ..piece_packer import PiecePacker
from . import Run
from .optimal import feasible
from .semantic import Layout, SemanticStrategy, lay_out

__all__ = ["LLM_TIMEOUT", "Llm", "LlmStrategy", "ProposalError", "build_prompt",
           "call_with_timeout", "check_proposal", "read_proposal"]

log = logging.getLogger(__name__)

#: ``prompt -> reply``: the user's model.
Llm = Callable[[str], str]
#: Seconds a reply may take before the run falls back.
LLM_TIMEOUT = 60.0

#: A JSON array with no array inside it (the innermost ones are tried first).
_ARRAY = re.compile(r"\[[^\[\]]*\]", re.DOTALL)
_BLANKS = re.compile(r"\s+")


class ProposalError(ValueError):
    """A reply that cannot be used; ``reason`` names why, for the fallback count."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def build_prompt(texts: Sequence[str], weights: Sequence[int], room: int) -> str:
    """The question put to the model: the numbered units, their tokens, the budget."""
    lines = [
        "Split the text below into chunks for retrieval, each about one topic.",
        f"A chunk may hold at most {room} tokens; each unit's tokens are given in brackets.",
        "Reply with a JSON array of the unit numbers at which a new chunk starts, e.g. [4, 9].",
        "",
    ]
    lines += [f"{k + 1} ({w}): {t}" for k, (t, w) in enumerate(zip(texts, weights))]
    return "\n".join(lines)


def call_with_timeout(llm: Llm, prompt: str, timeout: float) -> str:
    """``llm(prompt)``, or :class:`ProposalError` when it raises or has not answered after
    ``timeout`` seconds (the call is left to finish in a daemon thread: Python cannot stop
    it, but nothing waits for it)."""
    result: list[object] = []

    def run() -> None:
        try:
            result.append(llm(prompt))
        except BaseException as exc:  # the user's code: whatever it raises is a failed proposal
            result.append(exc)

    worker = threading.Thread(target=run, name="mdchunk-llm", daemon=True)
    worker.start()
    worker.join(timeout)
    if not result:
        raise ProposalError("timeout", f"no reply after {timeout:g} s")
    reply = result[0]
    if isinstance(reply, BaseException):
        raise ProposalError("exception", f"{type(reply).__name__}: {reply}")
    if not isinstance(reply, str):
        raise ProposalError("unparsable", f"the reply is a {type(reply).__name__}, not text")
    return reply


def _pieces_to_cuts(pieces: list[str], texts: Sequence[str]) -> list[int]:
    """Unit indices where the pieces start, if they reproduce the units' text (whitespace
    aside) and each ends where a unit ends."""
    units = [_BLANKS.sub("", t) for t in texts]
    ends: dict[int, int] = {}  # squeezed length of units[:k] -> k
    length = 0
    for k, unit in enumerate(units):
        length += len(unit)
        ends[length] = k + 1
    squeezed = [_BLANKS.sub("", p) for p in pieces]
    if "".join(squeezed) != "".join(units):
        raise ProposalError("invalid", "the pieces do not reproduce the section's text")
    cuts, at = [], 0
    for piece in squeezed[:-1]:
        at += len(piece)
        if at not in ends:
            raise ProposalError("invalid", "a piece ends inside a sentence or block")
        cuts.append(ends[at])
    return sorted({c for c in cuts if 0 < c < len(texts)})


def read_proposal(reply: str, texts: Sequence[str]) -> list[int]:
    """The cuts (unit indices, ascending) a reply proposes: the first JSON array in it of unit
    numbers (1-based, where chunks start) or of piece texts; :class:`ProposalError` else."""
    for match in _ARRAY.finditer(reply):
        try:
            value = json.loads(match.group())
        except ValueError:
            continue
        if not isinstance(value, list):
            continue
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):  # [] too
            if any(not 1 <= v <= len(texts) for v in value):
                raise ProposalError("invalid", f"unit numbers must lie in 1..{len(texts)}")
            if value != sorted(set(value)):
                raise ProposalError("invalid", "unit numbers must ascend without repeats")
            return [v - 1 for v in value if v > 1]
        if all(isinstance(v, str) for v in value):
            return _pieces_to_cuts(value, texts)
    raise ProposalError("unparsable", "no JSON array of unit numbers or pieces in the reply")


def check_proposal(cuts: Sequence[int], layout: Layout) -> None:
    """:class:`ProposalError` unless every cut is at a seam that may be cut and every chunk
    of more than one unit fits its room."""
    if any(not layout.allowed[k - 1] for k in cuts):
        raise ProposalError("invalid", "a cut right after a heading or before its tail")
    if not feasible(layout.weights, layout.rooms, layout.allowed, cuts):
        raise ProposalError("invalid", "a proposed chunk exceeds the token budget")


class LlmStrategy:
    """Cuts where ``llm`` proposes; a run whose proposal fails uses ``fallback``."""

    name = "llm"

    def __init__(self, llm: Llm, fallback: SemanticStrategy, timeout: float = LLM_TIMEOUT
                 ) -> None:
        self.llm = llm
        self.fallback = fallback
        self.timeout = timeout

    def pack(self, run: Run, kit: PackingKit) -> list[Draft]:
        layout = lay_out(PiecePacker(kit, run.path), run.pieces)
        if len(layout.units) < 2:
            return layout.pack([])
        kit.events["llm_sections"] += 1
        try:
            cuts = self.propose(layout)
        except ProposalError as exc:
            log.warning("llm proposal for a section at offset %d not used (%s); falling back "
                        "to %s", layout.units[0].start, exc, self.fallback.name)
            kit.events["llm_fallbacks"] += 1
            kit.events[f"llm_fallback:{exc.reason}"] += 1
            cuts = self.fallback.plan(layout)
        return layout.pack(cuts)

    def propose(self, layout: Layout) -> list[int]:
        texts = layout.texts()
        prompt = build_prompt(texts, layout.weights, min(layout.rooms))
        cuts = read_proposal(call_with_timeout(self.llm, prompt, self.timeout), texts)
        check_proposal(cuts, layout)
        return cuts
