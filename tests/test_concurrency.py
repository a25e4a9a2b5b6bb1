"""Concurrent indexers (issue 13): one run at a time writes an index; a second one waits
(``--wait``) or stops with one line naming the index and the run that holds it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mdchunk.errors import LockedError
from mdchunk.index.lock import index_lock, lock_path

from .conftest_milvus import write_corpus


def test_a_second_writer_is_refused_or_waits(tmp_path: Path) -> None:
    db = str(tmp_path / "kb.db")
    with index_lock(db, "kb"):
        with pytest.raises(LockedError) as info, index_lock(db, "kb"):
            pass
        assert str(info.value).startswith(
            f"{db}: another mdchunk index run is writing to this index (pid {os.getpid()} on ")
        assert str(info.value).endswith(", collection 'kb'); let it finish, or pass --wait SECONDS")
        # the lock is the file's, whatever the collection
        with pytest.raises(LockedError, match=r"after waiting 0\.3s"), \
                index_lock(db, "other", wait=0.3):
            pass
    released = threading.Event()

    def hold() -> None:
        with index_lock(db, "kb"):
            released.wait(5)
            time.sleep(0.5)

    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(0.2)
    released.set()
    started = time.monotonic()
    with index_lock(db, "kb", wait=10):  # waits for the holder, then holds
        assert time.monotonic() - started > 0.2
    holder.join()
    assert lock_path(db).exists()


def test_a_refusal_names_the_run_that_holds_the_lock_not_the_one_before(tmp_path: Path) -> None:
    """Found by a fresh clone's ``make test``: the holder writes its line just after taking the
    lock, and a second run refused in between quoted an empty file (or, before that, would
    have quoted the run before it, long gone). A line naming a dead process of this host is
    read again until the holder's own line is there."""
    import fcntl
    import socket

    db = str(tmp_path / "kb.db")
    fd = os.open(lock_path(db), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # taken, its line not written yet
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True).stdout.strip()
        os.pwrite(fd, f"pid {dead} on {socket.gethostname()}, since then, collection 'kb'\n"
                  .encode(), 0)  # what the run before left

        def write_own_line() -> None:
            time.sleep(0.3)
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, now, collection 'kb'\n"
                      .encode(), 0)

        writer = threading.Thread(target=write_own_line)
        writer.start()
        with pytest.raises(LockedError) as info, index_lock(db, "kb"):
            pass
        writer.join()
        assert f"(pid {os.getpid()} on " in str(info.value)
        assert f"pid {dead} " not in str(info.value)
    finally:
        os.close(fd)


def test_a_server_is_not_locked_by_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server URI takes no file lock: a second hold is not refused, and no ``<uri>.lock`` (nor
    any other file) is written where a Lite file's lock would go. (Port 9 has no server: the
    server's own lock is taken by the index run, not here.)"""
    monkeypatch.chdir(tmp_path)
    server = "http://127.0.0.1:9"
    held = []
    with index_lock(server, "kb"), index_lock(server, "kb"):
        held.append(server)
    assert held == [server]
    assert not lock_path(server).exists() and list(tmp_path.iterdir()) == []


def _index_cli(kb: Path, db: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-m", "mdchunk.cli", "index", str(kb), "--db", db,
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


@pytest.mark.slow
@pytest.mark.parametrize("wait", [None, "300"])
def test_two_index_runs_started_together(tmp_path: Path, milvus: dict[str, str],
                                         wait: str | None) -> None:
    from mdchunk.index import index_paths

    from .test_index import snapshot

    kb = write_corpus(tmp_path / "kb")
    db, collection = milvus["db"], milvus["collection"]
    extra = ("--wait", wait) if wait else ()
    runs = [_index_cli(kb, db, "--collection", collection, *extra) for _ in range(2)]
    done = [(run.wait(timeout=600), *run.communicate()) for run in runs]
    codes = sorted(code for code, _, _ in done)
    outs = [out for code, out, _ in done if code == 0]
    if wait:
        assert codes == [0, 0], done
        assert sorted(o.split(";")[0] for o in outs) == [
            "added 0, updated 0, deleted 0, unchanged 6 documents",
            "added 6, updated 0, deleted 0, unchanged 0 documents"]
    elif codes == [0, 0]:  # on a loaded machine the first may finish before the second starts:
        # then they ran one after the other, never both writing (the second found all unchanged)
        assert sorted(o.split(";")[0] for o in outs) == [
            "added 0, updated 0, deleted 0, unchanged 6 documents",
            "added 6, updated 0, deleted 0, unchanged 0 documents"], done
    else:
        assert codes == [0, 1], done
        refused = next(err for code, _, err in done if code == 1)
        assert refused.strip().startswith(
            f"mdchunk: error: {db}: another mdchunk index run is writing to this index (pid "
            if "://" not in db else f"mdchunk: error: Milvus at {db}: collection "
            f"{collection!r} is being indexed by another run (pid "), refused
        assert len(refused.strip().splitlines()) == 1 and "Traceback" not in refused
        assert outs[0].startswith("added 6, updated 0, deleted 0, unchanged 0 documents")
    rows, manifest, parents = snapshot(milvus)
    clean = {"db": str(tmp_path / "clean.db"), "collection": "mdchunk"}
    index_paths([kb], **clean)  # the CLI's default model too: auto
    clean_rows, clean_manifest, clean_parents = snapshot(clean)
    assert set(rows) == set(clean_rows) and set(parents) == set(clean_parents)
    assert manifest == clean_manifest


@pytest.mark.slow
def test_a_lite_file_open_elsewhere_is_one_line(tmp_path: Path) -> None:
    """Milvus Lite opens a file in one process at a time: a search while another process holds
    the file says so in one line, without the client libraries' tracebacks."""
    db = str(tmp_path / "kb.db")
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\n"
                               "from pymilvus import MilvusClient\n"
                               f"MilvusClient(uri={db!r}).list_collections()\n"
                               "print('open', flush=True)\ntime.sleep(60)\n"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        done = subprocess.run([sys.executable, "-m", "mdchunk.cli", "search", "q", "--db", db],
                              capture_output=True, text=True, check=False,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"})
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"mdchunk: error: {db}: the Milvus Lite file is open in another process (Milvus Lite "
        "opens a file in one process at a time); try again when it is done, or use a Milvus "
        "server")


@pytest.mark.slow
def test_server_lock_refuses_waits_and_takes_over_a_stale_one(milvus_server: str,
                                                              caplog: pytest.LogCaptureFixture
                                                              ) -> None:
    import uuid

    from mdchunk.index.lock import ServerLock
    from mdchunk.index.milvus import MilvusStore
    from mdchunk.index.milvus.locks import LOCKS_COLLECTION

    name = f"kb_{uuid.uuid4().hex[:10]}"
    with MilvusStore(milvus_server, name) as one, MilvusStore(milvus_server, name) as two:
        first = ServerLock(one.lock_table(), name, settle=0.2, heartbeat=0.2, stale_after=30)
        first.acquire()
        second = ServerLock(two.lock_table(), name, settle=0.2, heartbeat=0.2, stale_after=30)
        with pytest.raises(LockedError) as info:
            second.acquire()
        assert str(info.value).startswith(
            f"Milvus at {milvus_server}: collection {name!r} is being indexed by another run "
            f"(pid {os.getpid()} on ")
        assert str(info.value).endswith("s ago); let it finish, or pass --wait SECONDS")
        threading.Timer(0.5, first.release).start()
        second.acquire(wait=10)  # waits for the release
        first.check()  # released, not lost
        # a run that died leaves a row nobody renews: taken over once it is stale, with a warning
        second._stop.set()  # as if its process was killed: no more heartbeats
        assert second._thread is not None
        second._thread.join()
        third = ServerLock(one.lock_table(), name, settle=0.2, heartbeat=0.2, stale_after=0.5)
        with pytest.raises(LockedError):
            third.acquire()
        time.sleep(0.8)
        with caplog.at_level("WARNING", logger="mdchunk.index.lock"):
            third.acquire()
        assert "taking over the lock of collection" in caplog.text
        # a holder that was taken over finds out, and stops before its next write
        fourth = ServerLock(two.lock_table(), name, settle=0.2, heartbeat=0.2, stale_after=0.0)
        fourth.acquire()
        time.sleep(0.6)
        with pytest.raises(LockedError, match="this run's lock was taken over by pid "):
            third.check()
        third.release()  # not its lock any more: left alone
        assert fourth._read()["owner"] == fourth.owner  # type: ignore[index]
        fourth.release()
        assert fourth._read() is None
        assert LOCKS_COLLECTION in one._client.list_collections()


def test_a_race_another_run_may_win_logs_no_pymilvus_error(caplog: pytest.LogCaptureFixture
                                                           ) -> None:
    """Two runs creating the server's lock collection at once: the loser's failed call is
    expected and checked, and pymilvus's own error log of it (with a traceback) stays out of
    the user's terminal; the logger is as it was after."""
    import logging

    from mdchunk.index.milvus.client import race_expected

    logger = logging.getLogger("pymilvus.decorators")
    with caplog.at_level(logging.ERROR, logger="pymilvus.decorators"):
        with race_expected():
            logger.error("RPC error: [create_index] index already exists")
        assert caplog.records == []
        logger.error("a real failure")
    assert [r.getMessage() for r in caplog.records] == ["a real failure"]
    assert not logger.disabled
