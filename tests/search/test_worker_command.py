"""`tradepost worker` applies the search outbox beside the task queue."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.factories.catalog import make_product
from tests.factories.search import record
from tradepost.search.indexer import has_pending
from tradepost.search.selectors import search_products

pytestmark = pytest.mark.django_db


# The task worker closes connections that are not in autocommit mode (as between tasks in
# production), so this test runs outside the per-test transaction.
@pytest.mark.django_db(transaction=True)
def test_worker_batch_applies_pending_index_changes(settings):
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}
    }
    product = make_product(title="Walnut serving tray")
    record(product)
    call_command("worker", "--batch")
    assert not has_pending()
    hits = search_products(query="walnut tray", language="en").hits
    assert [hit.product.id for hit in hits] == [product.id]
