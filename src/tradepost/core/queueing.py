"""The one way work is put on the task queue: once the current transaction commits.

A task enqueued inside a transaction that later rolls back would run on rows that do not
exist; one enqueued before the commit may run before its rows are visible. Outside a
transaction (a task's own retry, a timer) the commit is now, so the task is queued at once.
`robust`: a queue that does not answer is logged and leaves the work to the worker's timers;
it never fails the write that asked for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django_tasks.base import Task


def enqueue_on_commit(
    task: Task[Any, Any], *args: Any, run_after: datetime | None = None, **kwargs: Any
) -> None:
    """Queue `task(*args, **kwargs)` when the current transaction commits.

    `run_after` defers it where the queue can (the database and Redis queues); a queue that
    cannot (the tests' immediate one) runs it at the commit.
    """
    if run_after is not None and task.get_backend().supports_defer:
        task = task.using(run_after=run_after)
    transaction.on_commit(lambda: task.enqueue(*args, **kwargs), robust=True)


def enqueue_in_chunks(task: Task[Any, Any], ids: Sequence[int], size: int) -> int:
    """Queue `task(chunk)` for each `size` ids of `ids`, when the current transaction commits
    (a backlog split into tasks of bounded work); answers how many ids were queued."""
    for start in range(0, len(ids), size):
        enqueue_on_commit(task, list(ids[start : start + size]))
    return len(ids)
