"""Python's cyclic garbage collector paused while a document is read and packed (issue 32).

Reading and packing allocate many small objects that live as long as the document (blocks,
pieces, their spans, the counts of every stretch): a 4 MB page of lists nested 10,000 deep
makes a million pieces; the young collections that reading paid cost 0.6-1.2% of chunking
(callgrind, rocketmq-docs and ory-docs).
The collector walks every live object it tracks on each full collection, and over one
document those walks grew faster than the document did: 2.35-2.5 times the CPU time for
each doubling of the nested lists and quotes of ``bench/bench_pathological.py``, 2.1 with the
collector paused. Nothing is left uncollected: reference counting frees objects as usual, and
any cycle packing leaves behind is collected at the collector's next run after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside, and on again after unless it was off already (another
    thread's packing, or the caller's choice)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
