"""`tradepost translate`: write the machine translations the published listings and open
buying requests lack, now, in this process (the worker writes them as they are published;
this catches up after a bulk load, or redoes them all with `--again` after the engine
changed)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tradepost.catalog.machine_texts import TRANSLATE_CHUNK, products_translate
from tradepost.catalog.selectors import published_products
from tradepost.core.management.progress import progress_bar
from tradepost.sourcing.machine_texts import TRANSLATE_CHUNK as REQUESTS_CHUNK
from tradepost.sourcing.machine_texts import open_request_ids, requests_translate
from tradepost.translation.services import translations_forget


class Command(BaseCommand):
    help = (
        "Write the machine translations that published listings (titles, descriptions, "
        "keywords and attributes) and open buying requests lack, into each interface "
        "language. --again deletes every stored machine translation first, to write them "
        "all with the current engine."
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
        ids = list(published_products().order_by("pk").values_list("pk", flat=True))
        written = 0
        quiet = options["verbosity"] == 0
        with progress_bar(self, total=len(ids), unit="listings", quiet=quiet) as bar:
            for start in range(0, len(ids), TRANSLATE_CHUNK):
                chunk = ids[start : start + TRANSLATE_CHUNK]
                written += products_translate(chunk)
                bar.update(len(chunk))
        self.stdout.write(
            f"Wrote {written:,} machine translations for {len(ids):,} published listings."
        )
        ids = open_request_ids()
        written = 0
        with progress_bar(self, total=len(ids), unit="requests", quiet=quiet) as bar:
            for start in range(0, len(ids), REQUESTS_CHUNK):
                chunk = ids[start : start + REQUESTS_CHUNK]
                written += requests_translate(chunk)
                bar.update(len(chunk))
        self.stdout.write(
            f"Wrote {written:,} machine translations for {len(ids):,} open buying requests."
        )
