"""How much generator markup reaches ``embed_text`` (issue 26), before and after.

For each site-generator fixture, chunked for its site at 128, 256 and 512 tokens:

- *leaking chunks*: the share of chunks whose ``embed_text`` matches :data:`MARKUP` (a list of
  generator markup patterns), for this checkout and for a base checkout (``--base``, default
  ``/work/main``; run in a subprocess with that checkout on ``PYTHONPATH``);
- *markup tokens*: the share of embedded tokens that were markup before this change: for each
  chunk of this checkout, its embed text as the reader without generator markup rewrites made
  it (only comments and heading ids hidden) against what it is now, summed.

    PYTHONPATH=. .venv/bin/python bench/bench_sites.py [--base /work/main]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the guarantee checks are tests/audit.py

#: Generator markup that must never reach ``embed_text`` (the fixtures' code holds none).
MARKUP = re.compile(
    r"\{\{[<%]|[>%]\}\}|\{/\*|\*/\}|^import\s.*\sfrom\s|^export\s|</?(?:Tabs|TabItem|Admonition|"
    r"VersionBadge)\b|values=\{|\{(?:ref|doc|term|command)\}`|^\s*(?:>\s*)?\[!(?:NOTE|TIP|"
    r"IMPORTANT|WARNING|CAUTION)\]|^\s*:{3,}|^\s*(?:!!!|\?\?\?)|-8<-|^`{3,}\{|^\([\w-]+\)=|"
    r"^[\s>]*={3}[!+]{0,2}[ ]+\"",
    re.MULTILINE)

#: Each generator's fixture and the site it is chunked for.
CASES = [("docusaurus-tabs-install.mdx", "docusaurus"), ("hugo-shortcodes-pods.md", "hugo"),
         ("mkdocs-material-restore.md", "mkdocs"), ("myst-directives-upgrade.md", "plain"),
         ("vitepress-containers-config.md", "plain"), ("github-alerts-readme.md", "plain"),
         ("mkdocs-content-tabs.md", "mkdocs"), ("hugo-callouts-drain.md", "hugo")]
BUDGETS = (128, 256, 512)


def _chunks(name: str, site: str, budget: int) -> list:
    import mdchunk

    return mdchunk.chunk_file(ROOT / "fixtures" / name, doc_id=name, max_tokens=budget,
                              overlap_tokens=budget // 8, site=site)


def leaks() -> dict[str, list[int]]:
    """``fixture@budget`` → [chunks, chunks with markup in embed_text], this checkout."""
    out = {}
    for name, site in CASES:
        for budget in BUDGETS:
            chunks = _chunks(name, site, budget)
            out[f"{name}@{budget}"] = [len(chunks),
                                       sum(bool(MARKUP.search(c.embed_text)) for c in chunks)]
    return out


def markup_tokens() -> dict[str, list[int]]:
    """``fixture@budget`` → [tokens embedded now, tokens the same spans embedded before]."""
    from mdchunk.formats import parse_markdown
    from mdchunk.formats.site_markup import render_markup
    from mdchunk.plan.visible import clipped, visible_text
    from mdchunk.text import document_text
    from mdchunk.tokens import get_counter
    from tests.audit import as_read

    count = get_counter("cl100k_base").count
    out = {}
    for name, site in CASES:
        raw = document_text(ROOT / "fixtures" / name)
        for budget in BUDGETS:
            now = before = 0
            for c in _chunks(name, site, budget):
                source, [(start, end)] = as_read(raw, [(c.start, c.end)])
                doc = parse_markdown(source, site)
                new = clipped(render_markup(doc, site).hidden(True), start, end)
                old = clipped(doc.hidden(True), start, end)
                body = visible_text(source, start, end, new) if new else source[start:end]
                head = c.embed_text[:len(c.embed_text) - len(body)]
                was = visible_text(source, start, end, old) if old else source[start:end]
                now += c.token_count
                before += count(head + was)
            out[f"{name}@{budget}"] = [now, before]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, default=Path("/work/main"))
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.base), "HF_HUB_OFFLINE": "1"}
    bench = str(Path(__file__).resolve())
    code = f"import json, runpy; print(json.dumps(runpy.run_path({bench!r})['leaks']()))"
    base = json.loads(subprocess.run([sys.executable, "-c", code], env=env, cwd=args.base,
                                     capture_output=True, text=True, check=True).stdout)
    after, tokens = leaks(), markup_tokens()
    print(f"{'fixture@budget':44} {'leaking before':>15} {'leaking after':>14} "
          f"{'markup tokens before':>21}")
    totals = [0, 0, 0, 0, 0, 0]
    for key in after:
        (n0, l0), (n1, l1), (now, was) = base[key], after[key], tokens[key]
        totals = [a + b for a, b in zip(totals, (n0, l0, n1, l1, now, was))]
        print(f"{key:44} {l0:>6}/{n0:<3} {l0 / n0:5.0%} {l1:>5}/{n1:<3} {l1 / n1:5.0%} "
              f"{(was - now) / was:>20.1%}")
    n0, l0, n1, l1, now, was = totals
    print(f"{'all':44} {l0:>6}/{n0:<3} {l0 / n0:5.0%} {l1:>5}/{n1:<3} {l1 / n1:5.0%} "
          f"{(was - now) / was:>20.1%}")


if __name__ == "__main__":
    main()
