"""The breadcrumb of headings in embed_text: at most a sixteenth of the budget, shortened from
the middle, and yielding to a block that fits only without it."""

from __future__ import annotations

from mdchunk import chunk_markdown
from mdchunk.tokens import get_counter


def test_a_block_that_fits_only_without_its_breadcrumb_shortens_it_and_stays_whole() -> None:
    heads = "\n\n".join("#" * (i + 1) + f" Heading number {i} of a deep manual" for i in range(4))
    code = "```bash\n" + "\n".join(f"kubectl rollout restart deploy/app-{i}" for i in range(5)) + "\n```"
    source = f"{heads}\n\nIntro text.\n\n{code}\n"
    counter = get_counter("cl100k_base")
    budget = counter.count(code) + 3  # room for the code, not for a quarter-budget breadcrumb
    chunks = chunk_markdown(source, max_tokens=budget, overlap_tokens=0)
    holder = [c for c in chunks if "kubectl" in c.text]
    assert len(holder) == 1 and code in holder[0].text, "the block is not cut"
    assert holder[0].token_count <= budget
    assert "Heading number 3" not in holder[0].embed_text, "its breadcrumb gave way"


def test_breadcrumb_never_takes_more_than_a_sixteenth_of_the_budget() -> None:
    heads = "\n\n".join("#" * (i + 1) + f" A rather long heading number {i} with words" for i in range(6))
    source = heads + "\n\n" + "Body text sentence. " * 40
    counter = get_counter("cl100k_base")
    crumbs = []
    for chunk in chunk_markdown(source, max_tokens=192, overlap_tokens=0):
        crumb = chunk.embed_text[: len(chunk.embed_text) - len(chunk.text)]
        assert counter.count(crumb) <= 192 // 16
        crumbs.append(crumb)
    assert any(c.startswith("…") or " > … > " in c for c in crumbs if c), "it was shortened"


def test_breadcrumb_keeps_the_outermost_heading_and_drops_the_middle_first() -> None:
    from mdchunk.plan.breadcrumbs import breadcrumb

    counter = get_counter("cl100k_base")
    titles = ["Rate limiting", "Configuration", "Advanced options", "Attributes"]
    assert breadcrumb(titles, counter, 10) == "Rate limiting > Configuration > Advanced options > Attributes\n\n"
    assert breadcrumb(titles, counter, 8) == "Rate limiting > … > Attributes\n\n"
    assert breadcrumb(titles, counter, 5) == "… > Attributes\n\n"


def test_headings_cut_apart_from_the_section_they_lead_are_not_placed_under_it() -> None:
    """Empty sections' headings lead the next section; when the budget cuts them apart from
    it, their chunk lies before that section's heading, so its path stops above it (it named
    the next heading, which the chunk neither holds nor lies under)."""
    long = " ".join(["word"] * 40)
    text = (f"# Guide\n\n## Steps\n\n### 1) Open the console and {long}\n"
            f"### 2) Choose the cluster and {long}\n### 3) Drain the node and {long}\n\n"
            "Run `kubectl drain node-1` and wait for the pods to move.\n")
    third = text.index("### 3)")
    for max_tokens in (64, 96, 128):
        chunks = chunk_markdown(text, max_tokens=max_tokens, overlap_tokens=0)
        before = [c for c in chunks if c.end <= third]
        assert before, max_tokens  # the budget cut the lead headings apart
        assert all(c.headings == ["Guide", "Steps"] for c in before), max_tokens
        assert all(c.headings[-1].startswith("3) Drain") for c in chunks if c.end > third)
