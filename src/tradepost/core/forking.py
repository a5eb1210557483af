"""Pools of processes forked from this one, for work that only computes (analysing listings for
the index, planning generated catalogues): each child shares what the parent has loaded.

A child inherits its parent's signal handlers. A process that installed its own for SIGTERM or
SIGINT (the server, the task worker) would give children that `Pool.terminate` cannot stop:
they take the SIGTERM it sends, keep waiting for work, and the parent waits for them forever.
So each child first gives both signals back their default behaviour; they are blocked from the
fork until then, so that a SIGTERM sent to a child that had not started yet (a pool ended as
soon as it was made) waits for that and then ends it.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable
from multiprocessing.pool import Pool

_STOPPING = {signal.SIGTERM, signal.SIGINT}


def forked_pool(processes: int, initializer: Callable[[], None] | None = None) -> Pool:
    """`processes` forked workers, each running `initializer` once when it starts."""
    context = multiprocessing.get_context("fork")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    try:
        return context.Pool(processes, initializer=_start, initargs=(initializer, mask))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _start(initializer: Callable[[], None] | None, mask: set[signal.Signals]) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    if initializer is not None:
        initializer()
