"""`tradepost reindex`: rebuild the search index from the database, or check it; with
`--fingerprints`, rebuild the near-duplicate fingerprints of the published listings instead
(after `tradepost generate` or a change of `search.fingerprints.SCHEME`)."""

from __future__ import annotations

import os
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from tradepost.core.management.progress import progress_bar
from tradepost.search import sources
from tradepost.search.check import check_index
from tradepost.search.fingerprints import fingerprints_rebuild
from tradepost.search.index import IndexBusy, index_dir
from tradepost.search.indexer import rebuild_now


class Command(BaseCommand):
    help = (
        "Rebuild the search index from the database (the worker then keeps it up to date), "
        "or with --check report listings missing from or stale in the index; with "
        "--fingerprints rebuild the published listings' near-duplicate fingerprints instead."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="Compare the index with the database instead of rebuilding; exit 1 on a "
            "difference.",
        )
        parser.add_argument(
            "--heap-mb", type=int, default=512, help="Indexing memory budget (default 512)."
        )
        parser.add_argument(
            "--threads", type=int, default=0, help="Indexing threads (default: tantivy decides)."
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="Processes analysing text (default: one per CPU; 1 analyses in this process).",
        )
        parser.add_argument(
            "--fingerprints",
            action="store_true",
            help="Rebuild the near-duplicate fingerprints of the published listings (in one "
            "transaction) instead of the index.",
        )

    def _fingerprints(self, verbosity: int) -> None:
        total = sources.products().count()
        started = time.perf_counter()
        with progress_bar(self, total=total, unit="products", quiet=verbosity == 0) as bar:
            written = fingerprints_rebuild(on_progress=bar.update)
        elapsed = max(time.perf_counter() - started, 1e-9)
        self.stdout.write(
            f"Fingerprinted {written:,} published products in {elapsed:.1f} s "
            f"({written / elapsed:,.0f} products/s)."
        )

    def handle(self, *args, **options):
        if options["check"]:
            self._check()
            return
        if options["fingerprints"]:
            self._fingerprints(options["verbosity"])
            return
        total = sources.products().count()
        started = time.perf_counter()
        quiet = options["verbosity"] == 0
        try:
            with progress_bar(self, total=total, unit="products", quiet=quiet) as bar:
                state = rebuild_now(
                    on_progress=bar.update,
                    heap_bytes=max(50, options["heap_mb"]) * 1_000_000,
                    threads=max(0, options["threads"]),
                    workers=self._workers(options["workers"]),
                )
        except IndexBusy as exc:
            raise CommandError(
                "The search index is being written by another process (a worker or another "
                "reindex). Try again in a moment."
            ) from exc
        elapsed = max(time.perf_counter() - started, 1e-9)
        if state is None:
            raise CommandError("Reindex stopped before it finished; the index is unchanged.")
        self.stdout.write(
            f"Indexed {total:,} products in {elapsed:.1f} s "
            f"({total / elapsed:,.0f} products/s) into {index_dir()}; "
            f"outbox position {state.position}."
        )

    @staticmethod
    def _workers(requested: int | None) -> int:
        if requested is not None:
            return max(1, requested)
        database = connection.settings_dict
        name = str(database.get("TEST", {}).get("NAME") or "") + str(database["NAME"])
        if database["ENGINE"].endswith("sqlite3") and (":memory:" in name or "memory" in name):
            return 1  # other processes cannot see an in-memory database
        return max(1, min(os.cpu_count() or 1, 8))

    def _check(self):
        report = check_index()
        self.stdout.write(
            f"Index: {report.indexed_products:,} products, {report.indexed_companies:,} "
            f"companies. Database: {report.published_products:,} published products, "
            f"{report.companies:,} companies. Pending outbox rows: {report.pending_rows:,}."
        )
        self.stdout.write(
            f"Buying requests: {report.indexed_requests:,} in the index, "
            f"{report.open_requests:,} open in the database."
        )
        for label, ids in (
            ("missing from the index", report.missing),
            ("stale in the index", report.stale),
            ("in the index but not published", report.extra),
        ):
            if ids:
                sample = ", ".join(str(i) for i in ids[:20])
                more = f" (and {len(ids) - 20:,} more)" if len(ids) > 20 else ""
                self.stdout.write(f"{len(ids):,} products {label}: {sample}{more}")
        for label, ids in (
            ("companies missing from the index", report.missing_companies),
            ("companies stale in the index", report.stale_companies),
            ("companies in the index but deleted", report.extra_companies),
            ("buying requests missing from the index", report.missing_requests),
            ("buying requests stale in the index", report.stale_requests),
            ("buying requests in the index but no longer open", report.extra_requests),
        ):
            if ids:
                self.stdout.write(f"{len(ids):,} {label}: {', '.join(map(str, ids[:20]))}")
        if report.ok:
            self.stdout.write("The index matches the database.")
            return
        hint = (
            " The worker has not applied every change yet."
            if report.pending_rows
            else " Run `tradepost reindex` to rebuild it."
        )
        raise CommandError("The index differs from the database." + hint, returncode=1)
