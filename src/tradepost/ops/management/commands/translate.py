"""`tradepost translate`: write the machine translations the published listings, open buying
requests, quotations' notes and shown messages lack, now, in this process (the worker writes
them as they are published or sent; this catches up after a bulk load, or redoes them all
with `--again` after the engine changed); `--prune` then deletes those no text asks for any
more (edited, unpublished or deleted listings, hidden messages)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain

from django.core.management.base import BaseCommand
from django.utils import timezone

from tradepost.catalog.machine_texts import products_translate, published_listings_wanted
from tradepost.catalog.selectors import published_products
from tradepost.core.management.progress import progress_bar
from tradepost.messaging.machine_texts import (
    messages_translate,
    shown_message_ids,
    shown_messages_wanted,
)
from tradepost.sourcing.machine_texts import (
    all_quotation_ids,
    open_request_ids,
    quotations_translate,
    requests_and_quotations_wanted,
    requests_translate,
)
from tradepost.translation.services import translations_forget, translations_prune

#: Rows translated per call (each call reads its rows in one query and stores in batches).
CHUNK = 200


class Command(BaseCommand):
    help = (
        "Write the machine translations that published listings (titles, descriptions, "
        "keywords and attributes), open buying requests and messages lack, into each "
        "interface language. --again deletes every stored machine translation first, to "
        "write them all with the current engine; --prune deletes afterwards those no text "
        "asks for any more."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--again",
            action="store_true",
            help="Delete the stored machine translations first and write them all again.",
        )
        parser.add_argument(
            "--prune",
            action="store_true",
            help="Then delete the stored machine translations that no listing, buying "
            "request, quotation or shown message asks for any more.",
        )

    def handle(self, *args, **options):
        if options["again"]:
            self.stdout.write(f"Deleted {translations_forget():,} stored machine translations.")
        quiet = options["verbosity"] == 0
        listings = list(published_products().order_by("pk").values_list("pk", flat=True))
        self._run("published listings", listings, products_translate, quiet)
        self._run("open buying requests", open_request_ids(), requests_translate, quiet)
        self._run("quotations' notes", all_quotation_ids(), quotations_translate, quiet)
        self._run("messages", shown_message_ids(), messages_translate, quiet)
        if options["prune"]:
            walk = chain(
                published_listings_wanted(),
                requests_and_quotations_wanted(),
                shown_messages_wanted(),
            )
            deleted = translations_prune(walk, now=timezone.now())
            self.stdout.write(f"Deleted {deleted:,} machine translations no text asks for.")

    def _run(
        self, label: str, ids: list[int], translate: Callable[[Iterable[int]], int], quiet: bool
    ) -> None:
        written = 0
        with progress_bar(self, total=len(ids), unit="rows", quiet=quiet, label=label) as bar:
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start : start + CHUNK]
                written += translate(chunk)
                bar.update(len(chunk))
        self.stdout.write(f"Wrote {written:,} machine translations for {len(ids):,} {label}.")
