"""Background tasks of the catalogue: machine translations of listings (docs/adr/0036)."""

from __future__ import annotations

from django_tasks import task

from tradepost.catalog.machine_texts import products_translate


@task()
def translate_products(product_ids: list[int]) -> int:
    """Store the machine translations the published listings among `product_ids` lack, once
    they are published or edited, and queue those whose titles got one for the search index
    (`products_translate`); answers how many were written."""
    return products_translate(product_ids)
