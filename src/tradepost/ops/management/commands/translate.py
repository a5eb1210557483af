"""`tradepost translate`: write the machine translations the published listings, open buying
requests and shown messages lack, now, in this process (the worker writes them as they are
published or sent; this catches up after a bulk load, or redoes them all with `--again`
after the engine changed)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.management.base import BaseCommand

from tradepost.catalog.machine_texts import products_translate
from tradepost.catalog.selectors import published_products
from tradepost.core.management.progress import progress_bar
from tradepost.messaging.machine_texts import messages_translate, shown_message_ids
from tradepost.sourcing.machine_texts import open_request_ids, requests_translate
from tradepost.translation.services import translations_forget

#: Rows translated per call (each call reads its rows in one query and stores in batches).
CHUNK = 200


class Command(BaseCommand):
    help = (
        "Write the machine translations that published listings (titles, descriptions, "
        "keywords and attributes), open buying requests and messages lack, into each "
        "interface language. --again deletes every stored machine translation first, to "
        "write them all with the current engine."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--again",
            action="store_true",
            help="Delete the stored machine translations first and write them all again.",
        )

    def handle(self, *args, **options):
        if options["again"]:
            self.stdout.write(f"Deleted {translations_forget():,} stored machine translations.")
        quiet = options["verbosity"] == 0
        listings = list(published_products().order_by("pk").values_list("pk", flat=True))
        self._run("published listings", listings, products_translate, quiet)
        self._run("open buying requests", open_request_ids(), requests_translate, quiet)
        self._run("messages", shown_message_ids(), messages_translate, quiet)

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
