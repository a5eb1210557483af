"""Helpers for search tests: record outbox rows the way services do, and apply them."""

from __future__ import annotations

from django.db import transaction

from tradepost.catalog.models import Category, Product
from tradepost.companies.models import Company
from tradepost.search.indexer import ApplyReport, apply_outbox
from tradepost.search.outbox import record_change


def record(*objects: Product | Company | Category) -> None:
    """Add outbox rows for these objects, as the write services do."""
    with transaction.atomic():
        for obj in objects:
            if isinstance(obj, Product):
                record_change(kind="product", object_id=obj.pk)
            elif isinstance(obj, Company):
                record_change(kind="company", object_id=obj.pk)
            else:
                record_change(kind="category", object_id=obj.pk)


def index(*objects: Product | Company | Category) -> ApplyReport:
    """Record and apply at once (the first call builds the index from the database)."""
    record(*objects)
    return apply_outbox()
