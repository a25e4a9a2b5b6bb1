"""Throughput, structure quality, scale and parallel speed-up of mdchunk against its peers.

    python bench/bench_speed.py            # full run (~15 min on 2 cores)
    python bench/bench_speed.py --quick    # a few minutes: fewer repetitions, smaller corpora

What it measures (see BENCHMARKS.md for the method and the last results):

1. Throughput on each real corpus (``--corpus``: every folder of Markdown under it; plus
   ``--extra-corpus``), every chunker and the *floor* (markdown-it-py parse + one tiktoken
   pass) run A/B interleaved in one process: each repetition runs every chunker once over the
   whole corpus, in a rotated order, after an untimed warm-up; we report medians and ratios.
2. Structure quality from the warm-up outputs, judged by ``tests/audit.py`` (the same code
   for every chunker): atomic blocks that fit yet were cut, heading-only chunks, chunks over
   budget, tiny chunks, uncovered text.
3. A synthetic large corpus: the real corpora copied as *files* into a temporary folder until
   it holds ``--large-mb`` MB. mdchunk with 1 and 2 workers and the floor run interleaved, each
   in a fresh subprocess (time and peak memory); peers run in-process on it under a time cap.
4. Scale: time and peak memory at 1x, 4x and 16x the real corpora, and for one file made 4x
   and 16x larger than the largest file, to show that memory follows the largest file.

Results go to ``bench/results/`` (JSON and Markdown tables; not tracked). ``--update-doc``
also rewrites the results section of BENCHMARKS.md and the chart bench/throughput.png.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from corpus_sites import markdown_files, site_of  # noqa: E402

MAX_TOKENS = 256
OVERLAP = 32
TINY = 16
ORDER = ("mdchunk", "floor", "floor_cm", "langchain", "llamaindex", "semantic", "chonkie")
CHECKED_KINDS = ("code", "table", "list")
MB = 1_000_000
#: mdchunk's time over the floor's, at most, on every corpus (issue 25; 1.4 before it).
FLOOR_TARGET = 1.15


# --------------------------------------------------------------------------------------------
# Corpora


@dataclass(slots=True)
class Corpus:
    name: str
    root: Path
    paths: list[Path]
    texts: list[str] = field(default_factory=list)
    #: The documentation site its pages are read as (``corpus_sites.py``).
    site: str = "plain"

    @property
    def chars(self) -> int:
        return sum(len(t) for t in self.texts)

    @property
    def bytes(self) -> int:
        return sum(p.stat().st_size for p in self.paths)


def md_files(root: Path) -> list[Path]:
    return markdown_files(root)


def load_corpora(corpus: Path, extra: list[Path]) -> list[Corpus]:
    from mdchunk.text import document_text

    found: list[Corpus] = []
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        paths = md_files(folder)
        if paths:
            found.append(Corpus(folder.name, folder, paths, site=site_of(folder)))
    for folder in extra:
        if folder.is_dir() and md_files(folder):
            found.append(Corpus(folder.parent.name + "-" + folder.name if folder.name == "corpora"
                                else folder.name, folder, md_files(folder)))
    for c in found:
        c.texts = [document_text(p) for p in c.paths]
    return found


def build_large(corpora: list[Corpus], target_mb: float, where: Path, name: str = "large"
                ) -> Path:
    """Copy every corpus file into ``where/name/copyNNN/<corpus>/<path>`` until ``target_mb``."""
    out = where / name
    if out.exists():
        shutil.rmtree(out)
    total, copy = 0, 0
    while total < target_mb * MB:
        for c in corpora:
            for p, text in zip(c.paths, c.texts):
                dest = out / f"copy{copy:03d}" / c.name / p.relative_to(c.root)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8")
                total += dest.stat().st_size
        copy += 1
    return out


def build_scaled(corpora: list[Corpus], factor: int, where: Path) -> Path:
    out = where / f"scale{factor}x"
    if out.exists():
        shutil.rmtree(out)
    for copy in range(factor):
        for c in corpora:
            for p, text in zip(c.paths, c.texts):
                dest = out / f"copy{copy:03d}" / c.name / p.relative_to(c.root)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8")
    return out


def build_bigfile(corpora: list[Corpus], factor: int, where: Path) -> tuple[Path, int]:
    """One file made of the largest file repeated ``factor`` times (separated by a blank line)."""
    _, text = max(((p, t) for c in corpora for p, t in zip(c.paths, c.texts)), key=lambda x: len(x[1]))
    out = where / f"bigfile{factor}x"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    body = "\n\n".join([text] * factor)
    (out / "big.md").write_text(body, encoding="utf-8")
    return out, len(body.encode())


# --------------------------------------------------------------------------------------------
# Child processes: one measurement of mdchunk (N workers) or the floor over a folder of files


def child_main(mode: str, folder: Path) -> None:
    """Run one measurement and print one JSON line (time, peak RSS of self and of workers)."""
    from mdchunk import ChunkerConfig
    from mdchunk.formats.markdown_it_parser import full_parser
    from mdchunk.sources.batch import chunk_paths
    from mdchunk.text import document_text
    from mdchunk.tokens import get_counter

    paths = md_files(folder)
    config = ChunkerConfig(max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP)
    counter = get_counter(config.tokenizer)
    parser = full_parser()
    base = _rss_kb("VmRSS")
    _reset_peak()  # loading the tokenizer peaks higher than chunking a small file: start afresh
    chunks = 0
    t0 = time.perf_counter()
    if mode == "floor":
        for p in paths:
            text = document_text(p)
            parser.parse(text)
            counter.count(text)
    else:
        workers = int(mode.removeprefix("w"))
        for _, result in chunk_paths(paths, config, workers=workers, root=folder):
            chunks += len(result)
    elapsed = time.perf_counter() - t0
    print(json.dumps({
        "mode": mode, "seconds": elapsed, "files": len(paths), "chunks": chunks,
        "bytes": sum(p.stat().st_size for p in paths),
        "largest_file": max(p.stat().st_size for p in paths),
        "rss_base_kb": base,
        "rss_peak_kb": _rss_kb("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rss_workers_peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }))


def _rss_kb(field: str) -> int:
    """VmRSS (now) or VmHWM (peak since the last reset) of this process, in kB (Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _reset_peak() -> None:
    """Reset VmHWM to the current RSS (Linux >= 4.0); elsewhere the peak includes set-up."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def run_child(mode: str, folder: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(folder)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"child {mode} on {folder} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------------------------
# Throughput and quality on the real corpora


def rotated(names: list[str], rep: int) -> list[str]:
    k = rep % len(names)
    order = names[k:] + names[:k]
    return order if rep % 2 == 0 else order[::-1]


def time_corpus(run, texts: list[str]) -> float:
    """CPU seconds this process spends on ``texts`` (every chunker here is single-threaded):
    on a shared VM, wall time also counts the moments other jobs hold the core."""
    gc.collect()
    t0 = time.process_time()
    for text in texts:
        run(text)
    return time.process_time() - t0


def fit_denominators(texts: list[str], counter) -> list[tuple]:
    """Per document: parsed blocks and how many atomic blocks of each kind fit the budget."""
    from mdchunk.formats import parse_markdown
    from tests.audit import _atomic_blocks, cut_blocks

    out = []
    for text in texts:
        doc = parse_markdown(text)
        atomic = [b for b in _atomic_blocks(doc.blocks) if b.end - b.start >= 2]
        probes = [(b.end - 1, b.end - 1) for b in atomic]  # a boundary strictly inside each
        eligible = Counter(kind for kind, _ in cut_blocks(text, doc.blocks, probes, counter,
                                                          MAX_TOKENS))
        out.append((doc, eligible))
    return out


def audit_outputs(name: str, adapter, texts: list[str], outputs: list, docs: list[tuple],
                  counter) -> dict:
    from peers import locate

    from tests.audit import cut_blocks, headings_only, uncovered

    agg: dict = defaultdict(int)
    cut: Counter = Counter()
    eligible: Counter = Counter()
    for text, out, (doc, fits) in zip(texts, outputs, docs):
        if adapter.spans:
            spans = [(c.start, c.end) for c in out]
            counts = [c.token_count for c in out]
        else:
            located = locate(text, out)
            spans = located.spans
            counts = [counter.count(c) for c in out if c.strip()]
            agg["unlocated"] += len(located.unlocated)
            agg["fuzzy"] += located.fuzzy
        body_start = doc.blocks[0].start if doc.blocks else len(text)
        agg["chunks"] += len(counts)
        agg["tokens"] += sum(counts)
        agg["over_budget"] += sum(n > MAX_TOKENS for n in counts)
        agg["tiny"] += sum(n < TINY for n in counts)
        agg["headings_only"] += len(headings_only(doc.blocks, spans))
        agg["uncovered_chars"] += sum(len(text[a:b].strip()) for a, b in uncovered(text, spans,
                                                                                   body_start))
        agg["body_chars"] += len(text) - body_start
        cut.update(kind for kind, _ in cut_blocks(text, doc.blocks, spans, counter, MAX_TOKENS))
        eligible.update(fits)
    agg["cut"] = {k: cut.get(k, 0) for k in sorted(set(cut) | set(eligible))}
    agg["fit"] = dict(eligible)
    return dict(agg)


def bench_corpora(corpora: list[Corpus], adapters: dict, reps: int, counter) -> dict:
    from peers import mdchunk_adapter

    results: dict = {}
    names = [n for n in ORDER if n in adapters]
    every_site = adapters
    for corpus in corpora:
        print(f"\n== {corpus.name}: {len(corpus.texts)} files, {corpus.bytes / MB:.2f} MB"
              + (f", site={corpus.site}" if corpus.site != "plain" else ""))
        adapters = dict(every_site)
        if corpus.site != "plain" and "mdchunk" in adapters:  # its pages as its site shows them
            adapters["mdchunk"] = mdchunk_adapter(MAX_TOKENS, OVERLAP, corpus.site)
        docs = fit_denominators(corpus.texts, counter)
        times: dict[str, list[float]] = {n: [] for n in names}
        quality: dict[str, dict] = {}
        for name in names:  # warm-up, and the outputs that the audit judges
            adapter = adapters[name]
            outputs = [adapter.run(t) for t in corpus.texts]
            if adapter.spans is not None:
                quality[name] = audit_outputs(name, adapter, corpus.texts, outputs, docs, counter)
            del outputs
        for rep in range(reps):
            for name in rotated(names, rep):
                times[name].append(time_corpus(adapters[name].run, corpus.texts))
            print(f"  rep {rep + 1}/{reps}: " + ", ".join(f"{n} {times[n][-1] * 1000:.0f}"
                                                        for n in names))
        results[corpus.name] = {
            "files": len(corpus.texts), "bytes": corpus.bytes, "chars": corpus.chars,
            "site": corpus.site,
            "times": times, "quality": quality,
        }
    return results


def bench_peers_large(folder: Path, adapters: dict, cap_s: float) -> dict:
    """Each peer over the large corpus, in file order, until the time cap (one repetition)."""
    from mdchunk.text import document_text

    paths = md_files(folder)
    out = {}
    for name in ("langchain", "llamaindex", "semantic", "chonkie"):
        if name not in adapters:
            continue
        run = adapters[name].run
        gc.collect()
        done_bytes, files = 0, 0
        t0 = time.perf_counter()
        for p in paths:
            run(document_text(p))
            done_bytes += p.stat().st_size
            files += 1
            if time.perf_counter() - t0 > cap_s:
                break
        elapsed = time.perf_counter() - t0
        out[name] = {"seconds": elapsed, "bytes": done_bytes, "files": files,
                     "complete": files == len(paths)}
        print(f"  {name}: {done_bytes / MB:.1f} MB in {elapsed:.1f} s"
              + ("" if files == len(paths) else " (time cap)"))
    return out


def bench_large(folder: Path, reps: int) -> dict:
    modes = ["floor", "w1", "w2"]
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    for rep in range(reps):
        for mode in rotated(modes, rep):
            runs[mode].append(run_child(mode, folder))
        print(f"  rep {rep + 1}/{reps}: " + ", ".join(f"{m} {runs[m][-1]['seconds']:.1f} s"
                                                    for m in modes))
    return runs


def bench_scale(corpora: list[Corpus], factors: list[int], big_factors: list[int], where: Path
                ) -> dict:
    rows = []
    for factor in factors:
        folder = build_scaled(corpora, factor, where)
        for mode in ("w1", "w2") if factor == factors[-1] else ("w1",):
            r = run_child(mode, folder)
            r["label"] = f"{factor}x corpus"
            r["factor"] = factor
            rows.append(r)
            print(f"  {factor}x {mode}: {r['bytes'] / MB:.1f} MB {r['seconds']:.1f} s, peak "
                  f"{r['rss_peak_kb'] / 1024:.0f} MB (workers {r['rss_workers_peak_kb'] / 1024:.0f})")
        shutil.rmtree(folder)
    for factor in big_factors:
        folder, size = build_bigfile(corpora, factor, where)
        r = run_child("w1", folder)
        r["label"] = f"largest file x{factor}"
        r["factor"] = factor
        rows.append(r)
        print(f"  one file x{factor}: {size / MB:.1f} MB {r['seconds']:.1f} s, peak "
              f"{r['rss_peak_kb'] / 1024:.0f} MB")
        shutil.rmtree(folder)
    return {"rows": rows}


# --------------------------------------------------------------------------------------------
# Reporting


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def machine_info() -> dict:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for pkg in ("mdchunk", "markdown-it-py", "tiktoken", "langchain-text-splitters",
                "llama-index-core", "semantic-text-splitter", "chonkie"):
        try:
            versions[pkg] = version(pkg)
        except PackageNotFoundError:
            versions[pkg] = "not installed"
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": mem, "python": platform.python_version(),
            "platform": platform.platform(), "versions": versions,
            "loadavg_start": os.getloadavg()}


LABELS = {
    "mdchunk": "mdchunk", "floor": "floor (parse + 1 token pass)",
    "floor_cm": "floor, CommonMark-only parser", "langchain": "LangChain MDHeader + Recursive",
    "llamaindex": "LlamaIndex MDNode + Sentence", "semantic": "semantic-text-splitter Markdown",
    "chonkie": "Chonkie Recursive (default rules)",
}


def fmt_cut(q: dict, kind: str) -> str:
    fit = q["fit"].get(kind, 0)
    cut = q["cut"].get(kind, 0)
    return f"{cut}/{fit}" + (f" ({100 * cut / fit:.0f}%)" if fit and cut else "")


def tables(report: dict) -> str:
    lines: list[str] = []
    add = lines.append
    for corpus, r in report["corpora"].items():
        floor = med(r["times"].get("floor", []))
        mine = med(r["times"].get("mdchunk", []))
        add(f"\n#### {corpus} — {r['files']} files, {r['bytes'] / MB:.2f} MB, "
            f"{len(next(iter(r['times'].values())))} interleaved repetitions\n")
        add("| chunker | median ms | MB/s | × floor | mdchunk speed-up | chunks | mean tokens "
            "| code cut/fit | table cut/fit | list cut/fit | heading-only | over budget | tiny "
            "| uncovered chars | unlocated |")
        add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | ---: "
            "| ---: | ---: | ---: |")
        for name in ORDER:
            if name not in r["times"]:
                continue
            t = med(r["times"][name])
            row = [LABELS[name], f"{t * 1000:.0f}", f"{r['bytes'] / MB / t:.2f}", f"{t / floor:.2f}",
                   "—" if name in ("mdchunk", "floor", "floor_cm") else f"{t / mine:.2f}×"]
            q = r["quality"].get(name)
            if q:
                row += [str(q["chunks"]), f"{q['tokens'] / max(q['chunks'], 1):.0f}",
                        *(fmt_cut(q, k) for k in CHECKED_KINDS), str(q["headings_only"]),
                        str(q["over_budget"]), str(q["tiny"]), str(q["uncovered_chars"]),
                        str(q.get("unlocated", 0))]
            else:
                row += ["—"] * 10
            add("| " + " | ".join(row) + " |")
    large = report.get("large")
    if large:
        runs = large["runs"]
        floor = med([x["seconds"] for x in runs["floor"]])
        w1 = med([x["seconds"] for x in runs["w1"]])
        w2 = med([x["seconds"] for x in runs["w2"]])
        size = runs["w1"][0]["bytes"]
        add(f"\n#### synthetic large corpus — {runs['w1'][0]['files']} files, {size / MB:.1f} MB "
            f"(real corpora copied), {len(runs['w1'])} interleaved repetitions, each in a fresh "
            "process, reading files\n")
        add("| run | median s | MB/s | × floor | peak RSS parent | peak RSS per worker |")
        add("| --- | ---: | ---: | ---: | ---: | ---: |")
        for mode, label in (("floor", "floor (read + parse + 1 token pass)"),
                            ("w1", "mdchunk, 1 process"), ("w2", "mdchunk, --workers 2")):
            t = med([x["seconds"] for x in runs[mode]])
            peak = max(x["rss_peak_kb"] for x in runs[mode]) / 1024
            wpeak = max(x["rss_workers_peak_kb"] for x in runs[mode]) / 1024
            add(f"| {label} | {t:.1f} | {size / MB / t:.2f} | {t / floor:.2f} | {peak:.0f} MB | "
                + (f"{wpeak:.0f} MB |" if mode == "w2" else "— |"))
        add(f"\nSpeed-up with 2 workers: **{w1 / w2:.2f}×** the single-process throughput.")
        peers = large.get("peers", {})
        if peers:
            add("\nPeers on the same files, in file order, one repetition, under a time cap "
                "(the corpus is the real corpora repeated, so a prefix of whole copies is "
                "representative):\n")
            add("| chunker | MB chunked | seconds | MB/s | mdchunk (1 process) speed-up |")
            add("| --- | ---: | ---: | ---: | ---: |")
            mine = size / MB / w1
            for name, p in peers.items():
                rate = p["bytes"] / MB / p["seconds"]
                add(f"| {LABELS[name]} | {p['bytes'] / MB:.1f}{'' if p['complete'] else ' (cap)'} "
                    f"| {p['seconds']:.1f} | {rate:.2f} | {mine / rate:.2f}× |")
    scale = report.get("scale")
    if scale:
        add("\n#### scale — time and peak memory against corpus size and against the largest file\n")
        add("| input | files | MB | largest file MB | workers | seconds | MB/s | peak RSS "
            "parent | peak RSS per worker | RSS before run |")
        add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for x in scale["rows"]:
            add(f"| {x['label']} | {x['files']} | {x['bytes'] / MB:.1f} | "
                f"{x['largest_file'] / MB:.2f} | {x['mode'][1:]} | {x['seconds']:.1f} | "
                f"{x['bytes'] / MB / x['seconds']:.2f} | {x['rss_peak_kb'] / 1024:.0f} MB | "
                + (f"{x['rss_workers_peak_kb'] / 1024:.0f} MB" if x["mode"] != "w1" else "—")
                + f" | {x['rss_base_kb'] / 1024:.0f} MB |")
    return "\n".join(lines) + "\n"


def targets(report: dict) -> str:
    lines = ["\n#### targets\n", "| target | measured | met |", "| --- | --- | --- |"]
    worst = 0.0
    for r in report["corpora"].values():
        worst = max(worst, med(r["times"]["mdchunk"]) / med(r["times"]["floor"]))
    large = report.get("large")
    if large:
        runs = large["runs"]
        worst = max(worst, med([x["seconds"] for x in runs["w1"]])
                    / med([x["seconds"] for x in runs["floor"]]))
    lines.append(f"| mdchunk ≤ {FLOOR_TARGET}× the floor (worst corpus) | {worst:.2f}× | "
                 f"{'yes' if worst <= FLOOR_TARGET else 'no'} |")
    for peer in ("langchain", "llamaindex", "semantic"):
        ratios = [med(r["times"][peer]) / med(r["times"]["mdchunk"])
                  for r in report["corpora"].values() if peer in r["times"]]
        if large and peer in large.get("peers", {}):
            p = large["peers"][peer]
            w1 = med([x["seconds"] for x in large["runs"]["w1"]])
            ratios.append((p["seconds"] / p["bytes"]) / (w1 / large["runs"]["w1"][0]["bytes"]))
        if ratios:
            lines.append(f"| faster than {LABELS[peer]} on every corpus | slowest margin "
                         f"{min(ratios):.2f}× | {'yes' if min(ratios) > 1 else 'no'} |")
    if large:
        runs = large["runs"]
        sp = med([x["seconds"] for x in runs["w1"]]) / med([x["seconds"] for x in runs["w2"]])
        lines.append(f"| --workers 2 ≥ 1.7× single-process on the large corpus | {sp:.2f}× | "
                     f"{'yes' if sp >= 1.7 else 'no'} |")
    scale = report.get("scale")
    if scale:
        corp = [x for x in scale["rows"] if x["label"].endswith("corpus") and x["mode"] == "w1"]
        big = [x for x in scale["rows"] if x["label"].startswith("largest")]
        if corp:
            grow = (corp[-1]["rss_peak_kb"] - corp[0]["rss_peak_kb"]) / 1024
            lines.append(f"| peak memory follows the largest file, not the corpus | "
                         f"{corp[0]['factor']}x→{corp[-1]['factor']}x corpus: {grow:+.0f} MB; "
                         + ", ".join(f"one {x['largest_file'] / MB:.1f} MB file: "
                                     f"{x['rss_peak_kb'] / 1024:.0f} MB" for x in big)
                         + f" | {'yes' if grow < 50 else 'no'} |")
    return "\n".join(lines) + "\n"


def chart(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    corpora = list(report["corpora"])
    names = [n for n in ORDER if any(n in r["times"] for r in report["corpora"].values())]
    fig, ax = plt.subplots(figsize=(10, 0.9 + 0.45 * len(names) * len(corpora) / 1.6))
    height = 0.8 / len(corpora)
    colors = plt.get_cmap("tab10")
    for i, corpus in enumerate(corpora):
        r = report["corpora"][corpus]
        ys, xs = [], []
        for j, name in enumerate(names):
            if name in r["times"]:
                ys.append(j + i * height)
                xs.append(r["bytes"] / MB / med(r["times"][name]))
        ax.barh(ys, xs, height=height, color=colors(i), label=corpus)
    ax.set_yticks([j + height * (len(corpora) - 1) / 2 for j in range(len(names))])
    ax.set_yticklabels([LABELS[n] for n in names])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("throughput, MB/s, log scale (higher is better)")
    m = report["machine"]
    ax.set_title(f"Markdown chunking at {MAX_TOKENS} tokens / overlap {OVERLAP}, cl100k_base — "
                 f"{m['cores']} cores, median of interleaved runs", fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def update_doc(text: str, doc: Path) -> None:
    start, end = "<!-- results:start -->", "<!-- results:end -->"
    current = doc.read_text(encoding="utf-8") if doc.exists() else f"{start}\n{end}\n"
    if start not in current:
        current += f"\n{start}\n{end}\n"
    head, rest = current.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")


# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, smaller corpora")
    ap.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora",
                    help="folder whose sub-folders are corpora (default ../shared/corpora)")
    ap.add_argument("--extra-corpus", type=Path, action="append",
                    default=None, help="another folder of Markdown files (repeatable; default "
                    "../shared/chroma/corpora)")
    ap.add_argument("--reps", type=int, help="interleaved repetitions on the real corpora")
    ap.add_argument("--large-mb", type=float, help="size of the synthetic corpus (default 50)")
    ap.add_argument("--large-reps", type=int, help="repetitions on the synthetic corpus")
    ap.add_argument("--peer-cap", type=float, help="seconds per peer on the synthetic corpus")
    ap.add_argument("--chunkers", default=",".join(ORDER),
                    help="comma-separated subset of " + ",".join(ORDER))
    ap.add_argument("--skip", default="", help="comma-separated: large, scale, peers-large")
    ap.add_argument("--workdir", type=Path, help="where synthetic corpora are written "
                    "(default: a temporary folder, removed afterwards)")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument("--update-doc", action="store_true",
                    help="rewrite the results in BENCHMARKS.md and bench/throughput.png")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "FOLDER"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child_main(args.child[0], Path(args.child[1]))
        return 0

    quick = args.quick
    reps = args.reps or (2 if quick else 9)  # this VM's noise needs many
    large_mb = args.large_mb or (6 if quick else 50)
    large_reps = args.large_reps or (1 if quick else 2)
    cap = args.peer_cap or (8 if quick else 30)
    factors = [1, 2, 4] if quick else [1, 4, 16]
    big_factors = [4] if quick else [4, 16]
    skip = set(filter(None, args.skip.split(",")))
    extra = args.extra_corpus or [REPO.parent / "shared" / "chroma" / "corpora"]
    wanted = [n for n in args.chunkers.split(",") if n]
    if "floor" not in wanted:
        wanted.insert(0, "floor")
    if "mdchunk" not in wanted:
        wanted.insert(0, "mdchunk")

    if not args.corpus.is_dir():
        print(f"corpus folder not found: {args.corpus} (use --corpus)", file=sys.stderr)
        return 2
    from peers import load_encoding, make_adapters

    from mdchunk.tokens import get_counter

    started = time.time()
    report: dict = {"machine": machine_info(), "config": {
        "max_tokens": MAX_TOKENS, "overlap_tokens": OVERLAP, "tokenizer": "cl100k_base",
        "quick": quick, "reps": reps, "large_mb": large_mb, "large_reps": large_reps,
        "peer_cap_s": cap}}
    m = report["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, {m['memory']}, Python {m['python']}, "
          f"load {m['loadavg_start']}")
    corpora = load_corpora(args.corpus, extra)
    print("corpora: " + ", ".join(f"{c.name} ({len(c.paths)} files, {c.bytes / MB:.2f} MB)"
                                  for c in corpora))
    encoding = load_encoding("cl100k_base")
    counter = get_counter("cl100k_base")
    adapters = make_adapters(wanted, MAX_TOKENS, OVERLAP, encoding)
    report["chunkers"] = list(adapters)

    report["corpora"] = bench_corpora(corpora, adapters, reps, counter)

    own_tmp = args.workdir is None
    work = Path(tempfile.mkdtemp(prefix="mdchunk-bench-")) if own_tmp else args.workdir
    work.mkdir(parents=True, exist_ok=True)
    try:
        if "large" not in skip:
            folder = build_large(corpora, large_mb, work)
            files = md_files(folder)
            print(f"\n== synthetic large corpus: {len(files)} files, "
                  f"{sum(p.stat().st_size for p in files) / MB:.1f} MB in {folder}")
            report["large"] = {"runs": bench_large(folder, large_reps)}
            if "peers-large" not in skip:
                report["large"]["peers"] = bench_peers_large(folder, adapters, cap)
            shutil.rmtree(folder)
        if "scale" not in skip:
            print("\n== scale")
            report["scale"] = bench_scale(corpora, factors, big_factors, work)
    finally:
        if own_tmp:
            shutil.rmtree(work, ignore_errors=True)

    report["machine"]["loadavg_end"] = os.getloadavg()
    report["wall_seconds"] = time.time() - started
    text = tables(report) + targets(report)
    m = report["machine"]
    text = (f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} RAM, Python {m['python']}; "
            f"load average {m['loadavg_start'][0]:.1f} at start, {m['loadavg_end'][0]:.1f} at end; "
            f"run took {report['wall_seconds'] / 60:.1f} min"
            f"{' (--quick)' if quick else ''}. Versions: "
            + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + ".\n" + text)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (args.out / f"speed-{stamp}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    (args.out / "speed.md").write_text(text, encoding="utf-8")
    chart(report, args.out / "throughput.png")
    if args.update_doc:
        update_doc(text, REPO / "BENCHMARKS.md")
        shutil.copy(args.out / "throughput.png", HERE / "throughput.png")
    print("\n" + text)
    print(f"results: {args.out / 'speed.md'}, {args.out / f'speed-{stamp}.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
