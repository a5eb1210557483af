"""`tradepost worker`: queued tasks (emails, webhooks...) and the search indexer."""

from __future__ import annotations

import threading
import time

from django.core.management import call_command
from django.core.management.base import BaseCommand

from tradepost.core.database import ensure_planner_statistics
from tradepost.core.periodic import run_due_jobs, run_periodic_jobs
from tradepost.search.indexer import apply_outbox, run_indexer_loop


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
            run_due_jobs({}, time.monotonic())
            call_command("db_worker", "--queue-name", "*", "--batch")
            return
        if options["no_indexer"]:
            call_command("db_worker", "--queue-name", "*")
            return
        # The task worker owns the main thread (it installs the SIGTERM/SIGINT handlers and
        # exits through SystemExit); the indexer runs beside it and is stopped on the way out,
        # after finishing the batch it is applying.
        stop = threading.Event()
        indexer = threading.Thread(
            target=run_indexer_loop, args=(stop,), name="search-indexer", daemon=True
        )
        indexer.start()
        periodic = threading.Thread(
            target=run_periodic_jobs, args=(stop,), name="periodic-jobs", daemon=True
        )
        periodic.start()
        try:
            call_command("db_worker", "--queue-name", "*")
        finally:
            stop.set()
            indexer.join(timeout=30)
            periodic.join(timeout=30)
