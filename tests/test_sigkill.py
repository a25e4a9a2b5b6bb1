"""SIGKILL (issue 13): an indexer killed at random points (fixed seed) and re-run ends with
exactly the index of an uninterrupted run: same chunk and parent ids and rows, as many vectors,
no orphans, a manifest with no pending entry that counts every document's leaves.

The indexer runs in a subprocess over a copy of a real corpus (``openshift-runbooks`` from
``MDCHUNK_CORPORA``; skipped, and counted as a corpus test, when it is absent: the small test
corpus indexes before a kill can land), with a small embedding batch so
that kills land between and inside the writes of a run, not only before or after it. It prints
its progress; each kill comes a random time after a randomly chosen document was committed.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from .conftest import CORPORA, CORPUS_ABSENT

pytestmark = pytest.mark.slow

SEED = 13
_SCRIPT = """
import sys
from mdchunk.index import index_paths

def progress(done, total, doc_id, embedded):
    print(done, total, flush=True)

if sys.argv[3:] == ["units"]:  # units, with a hash model: many more rows written, quickly
    from tests.conftest_milvus import HashEmbedder
    index_paths([sys.argv[1]], db=sys.argv[2], collection="kb", progress=progress,
                batch_chunks=8, model=HashEmbedder(dim=32), units=True)
else:
    index_paths([sys.argv[1]], db=sys.argv[2], collection="kb", progress=progress,
                batch_chunks=8)
print("finished", flush=True)
"""


def _corpus(root: Path) -> Path:
    real = CORPORA / "openshift-runbooks"
    if not real.is_dir():
        pytest.skip(f"{CORPUS_ABSENT}: {CORPORA}")
    return Path(shutil.copytree(real, root, ignore=shutil.ignore_patterns(".*")))


def _start(kb: Path, db: str, *extra: str) -> subprocess.Popen[str]:
    with open(f"{db}.stderr", "a", encoding="utf-8") as log:  # the child keeps its own handle
        log.write("--- run\n")
        log.flush()
        return subprocess.Popen([sys.executable, "-c", _SCRIPT, str(kb), db, *extra], text=True,
                                stdout=subprocess.PIPE, stderr=log,
                                env={**os.environ, "HF_HUB_OFFLINE": "1"},
                                start_new_session=True)


def _kill(proc: subprocess.Popen[str]) -> None:
    os.killpg(proc.pid, signal.SIGKILL)  # the run and anything it started
    assert proc.wait(timeout=60) == -signal.SIGKILL, "the run ended before it was killed"
    assert proc.stdout is not None
    proc.stdout.close()


def _killed_run(kb: Path, db: str, rng: random.Random, *, first_doc: int, last_doc: int,
                extra: tuple[str, ...] = ()) -> int:
    """Run the indexer and SIGKILL it a random time after it has committed a randomly chosen
    document of this run (``first_doc`` to ``last_doc`` in its progress count), or during its
    start when ``first_doc`` is 0; returns the last progress count seen."""
    proc = _start(kb, db, *extra)
    assert proc.stdout is not None
    seen = 0
    if first_doc == 0:
        time.sleep(rng.uniform(1.0, 6.0))
    else:
        target = rng.randint(first_doc, last_doc)
        for line in proc.stdout:
            if line.startswith("finished"):
                break
            seen = int(line.split()[0])
            if seen >= target:
                time.sleep(rng.uniform(0.0, 0.4))
                break
    _kill(proc)
    return seen


def _manifest_state(db: str) -> tuple[int, int]:
    """Documents pending and committed in the manifest a killed run left (0, 0 before any)."""
    from milvus_lite.server_manager import server_manager_instance

    from mdchunk.index.milvus import MilvusStore

    try:
        with MilvusStore(db, "kb") as store:
            store._load()
            entries = store.manifest.entries() if store.meta() is not None else {}
    except Exception:  # killed before the collections were all created
        entries = {}
    finally:
        server_manager_instance.release_server(db)  # let the next run open the file
    pending = sum(1 for e in entries.values() if e.pending)
    return pending, len(entries) - pending


def _complete_run(kb: Path, db: str, *extra: str) -> None:
    proc = _start(kb, db, *extra)
    out, _ = proc.communicate(timeout=900)
    log = Path(f"{db}.stderr").read_text(encoding="utf-8")
    assert proc.returncode == 0 and out.rstrip().endswith("finished"), log[-3000:]


def _edit(kb: Path, rng: random.Random) -> None:
    """Change three documents, delete two, add one."""
    files = sorted(kb.rglob("*.md"))
    picked = rng.sample(files, 5)
    for path in picked[:3]:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("the", "a", 3) + "\n\n## Added by the test\n\nMore words "
                        "about alerts and what the on-call engineer does next.\n",
                        encoding="utf-8")
    for path in picked[3:]:
        path.unlink()
    (kb / "added-by-test.md").write_text("# Added\n\nA page that did not exist before.\n",
                                         encoding="utf-8")


def _comparable(snap: tuple[dict, dict, dict], root: Path) -> tuple[dict, dict, dict]:
    rows, manifest, parents = snap
    return ({i: {**r, "path": r["path"].replace(root.as_posix(), "<kb>"), "dense": None}
             for i, r in rows.items()}, manifest,
            {i: {**r, "path": r["path"].replace(root.as_posix(), "<kb>")}
             for i, r in parents.items()})


def _assert_same_index(killed: dict[str, str], kb: Path, clean: dict[str, str],
                       clean_kb: Path) -> None:
    from .test_index import snapshot

    got, want = snapshot(killed), snapshot(clean)  # each checks its rows, parents and manifest
    # Milvus Lite keeps a file open in this process until it exits; let the next runs open it.
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(killed["db"])
    assert all(p["child_count"] > 0 for p in got[2].values()), "a parent without children"
    assert _comparable(got, kb) == _comparable(want, clean_kb)
    assert len(got[0]) == len(want[0])  # as many vectors: one per leaf row
    for i, row in got[0].items():
        assert np.allclose(row["dense"], want[0][i]["dense"], atol=1e-3)


def test_sigkilled_indexer_then_rerun_equals_an_uninterrupted_run(tmp_path: Path, model) -> None:
    from mdchunk.index import index_paths

    rng = random.Random(SEED)
    kb, clean_kb = _corpus(tmp_path / "kb"), _corpus(tmp_path / "clean")
    total = len(list(kb.rglob("*.md"))) + len(list(kb.rglob("*.txt")))
    db = str(tmp_path / "killed.db")
    clean = {"db": str(tmp_path / "clean.db"), "collection": "kb"}

    # first run: killed during its start, then three times between or inside writes
    _killed_run(kb, db, rng, first_doc=0, last_doc=0)
    states = [_manifest_state(db)]
    done = 0
    for _ in range(3):
        done = max(done, _killed_run(kb, db, rng, first_doc=min(done + 1, total - 1),
                                     last_doc=total - 1))
        states.append(_manifest_state(db))
    _complete_run(kb, db)
    index_paths([clean_kb], model=model, **clean)
    _assert_same_index({"db": db, "collection": "kb"}, kb, clean, clean_kb)

    # an update (changed, deleted, added documents) killed twice
    _edit(kb, random.Random(SEED + 1))
    _edit(clean_kb, random.Random(SEED + 1))
    for _ in range(2):
        _killed_run(kb, db, rng, first_doc=1, last_doc=total - 1)
        states.append(_manifest_state(db))
    # the kills landed inside runs: with documents pending, some committed and some not yet
    assert sum(1 for pending, _ in states if pending) >= 3, states
    print("(pending, committed) after each kill:", states)
    _complete_run(kb, db)
    index_paths([clean_kb], model=model, **clean)
    _assert_same_index({"db": db, "collection": "kb"}, kb, clean, clean_kb)


def _units(db: str) -> dict[str, tuple[str, str]]:
    """Every stored unit: its leaf and text hash, by id (after checking each has its leaf)."""
    from milvus_lite.server_manager import server_manager_instance

    from mdchunk.index.milvus import MilvusStore
    from mdchunk.index.milvus.collections import select_rows

    with MilvusStore(db, "kb") as store:
        store._load()
        leaves = {r["id"] for r in store.rows(("id",))}
        rows = select_rows(store._client, store.units_collection, 'id != ""',
                           ["id", "leaf_id", "content_hash"])
    server_manager_instance.release_server(db)
    assert {r["leaf_id"] for r in rows} <= leaves, "a unit outlives its leaf"
    return {r["id"]: (r["leaf_id"], r["content_hash"]) for r in rows}


def test_sigkilled_units_index_converges_too(tmp_path: Path) -> None:
    """Units (issue 31) are written before their leaf and removed after it: kills in between
    leave nothing a rerun does not put right."""
    from mdchunk.index import index_paths

    from .conftest_milvus import HashEmbedder

    rng = random.Random(SEED + 31)
    kb, clean_kb = _corpus(tmp_path / "kb"), _corpus(tmp_path / "clean")
    total = len(list(kb.rglob("*.md"))) + len(list(kb.rglob("*.txt")))
    db = str(tmp_path / "killed.db")
    clean = {"db": str(tmp_path / "clean.db"), "collection": "kb"}
    units = ("units",)
    for first in (1, total // 2):
        _killed_run(kb, db, rng, first_doc=first, last_doc=total - 1, extra=units)
    _complete_run(kb, db, *units)
    index_paths([clean_kb], model=HashEmbedder(dim=32), units=True, **clean)
    _assert_same_index({"db": db, "collection": "kb"}, kb, clean, clean_kb)
    assert _units(db) == _units(clean["db"]) and _units(db)

    _edit(kb, random.Random(SEED + 1))
    _edit(clean_kb, random.Random(SEED + 1))
    _killed_run(kb, db, rng, first_doc=1, last_doc=total - 1, extra=units)
    _complete_run(kb, db, *units)
    index_paths([clean_kb], model=HashEmbedder(dim=32), units=True, **clean)
    _assert_same_index({"db": db, "collection": "kb"}, kb, clean, clean_kb)
    assert _units(db) == _units(clean["db"])
