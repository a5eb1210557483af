"""`tradepost worker`: queued tasks (emails, webhooks...) and the search indexer."""

from __future__ import annotations

import threading
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from tradepost.alerts.digests import percolate_and_send
from tradepost.core.database import ensure_planner_statistics
from tradepost.ops.periodic import run_due_jobs, run_periodic_jobs
from tradepost.search.index import beat
from tradepost.search.indexer import apply_outbox, run_indexer_loop


def run_task_worker(*, batch: bool = False) -> None:
    """Run the queued tasks of the configured queue: the database queue's worker, or RQ's
    (with its scheduler, which starts deferred tasks such as email retries, and without
    forking a process per task: the indexer thread runs beside it)."""
    if settings.TASKS_BACKEND_NAME == "rq":
        options = ["--burst"] if batch else ["--with-scheduler"]
        call_command(
            "rqworker",
            "default",
            "--job-class",
            "django_tasks_rq.Job",
            "--worker-class",
            "rq.worker.SimpleWorker",
            *options,
        )
        return
    call_command(
        "db_worker",
        "--queue-name",
        "*",
        "--interval",
        str(settings.TRADEPOST_WORKER_POLL_SECONDS),
        *(["--batch"] if batch else []),
    )


def _indexer_and_percolator(stop: threading.Event) -> None:
    """The indexer loop, matching what each batch brought in against the saved searches
    right after it is applied, and telling "as it happens" alerts at once
    (`alerts.digests.percolate_and_send`)."""
    run_indexer_loop(stop, after_apply=percolate_and_send)


class Command(BaseCommand):
    help = (
        "Run the background worker: queued tasks (emails and other side effects) and the "
        "search indexer, which applies catalogue changes to the search index."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch", action="store_true", help="Run queued tasks and index changes, then exit."
        )
        parser.add_argument(
            "--no-indexer", action="store_true", help="Do not run the search indexer."
        )

    def handle(self, *args, **options):
        ensure_planner_statistics()
        if options["batch"]:
            if not options["no_indexer"]:
                apply_outbox()
                percolate_and_send()
            run_due_jobs({}, time.monotonic())
            run_task_worker(batch=True)
            return
        # The task worker owns the main thread (it installs the SIGTERM/SIGINT handlers and
        # exits through SystemExit); the indexer, the periodic jobs and the heartbeat run
        # beside it and are stopped on the way out (the indexer after finishing the batch it
        # is applying).
        stop = threading.Event()
        loops = [(run_heartbeat, "heartbeat")]
        if not options["no_indexer"]:
            loops += [
                (_indexer_and_percolator, "search-indexer"),
                (run_periodic_jobs, "periodic-jobs"),
            ]
        threads = [
            threading.Thread(target=loop, args=(stop,), name=name, daemon=True)
            for loop, name in loops
        ]
        for thread in threads:
            thread.start()
        try:
            run_task_worker()
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=30)


def run_heartbeat(stop: threading.Event) -> None:
    """Show that this worker is alive (`search.index.beat`, which /healthz and `tradepost
    serve` read) every `TRADEPOST_WORKER_HEARTBEAT_SECONDS`, whatever its tasks and indexer
    are busy with: only a process stopped or frozen falls silent."""
    every = float(settings.TRADEPOST_WORKER_HEARTBEAT_SECONDS)
    while not stop.is_set():
        beat()
        stop.wait(every)
