"""Reload the category tree and the HS 2022 list from the files in catalog/data/."""

from django.core.management.base import BaseCommand
from django.db import transaction

from tradepost.catalog.models import Category
from tradepost.catalog.reference_data import CATEGORIES_FILE, HS_FILE, load_reference_data
from tradepost.search.outbox import OutboxKind, record_changes


class Command(BaseCommand):
    help = (
        "Load catalog/data/categories.json and catalog/data/hs2022.tsv into the database "
        "(idempotent: upserts by slug and code; run it after the files change)."
    )

    def handle(self, *args, **options):
        with transaction.atomic():
            categories, hs_codes = load_reference_data()
            # Category names are indexed with the products filed under them.
            record_changes(
                kind=OutboxKind.CATEGORY,
                object_ids=list(Category.objects.values_list("pk", flat=True)),
            )
        self.stdout.write(f"{categories} categories loaded from {CATEGORIES_FILE.name}")
        self.stdout.write(f"{hs_codes} HS codes loaded from {HS_FILE.name}")
