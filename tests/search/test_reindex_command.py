"""`tradepost reindex` and `tradepost reindex --check`."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from tests.factories.catalog import make_product
from tradepost.catalog.models import Product, ProductStatus
from tradepost.search.index import index_writer, product_key, read_state
from tradepost.search.models import IndexOutbox
from tradepost.search.selectors import search_products

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("reindex", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_reindex_rebuilds_from_the_database_and_reports_the_rate():
    products = [make_product(title=f"Linen napkin set {n}") for n in range(3)]
    make_product(title="Linen draft", status=ProductStatus.DRAFT)
    output = run()
    assert "Indexed 3 products" in output
    assert "products/s" in output
    assert search_products(query="linen napkin", language="en").total == 3
    assert read_state() is not None
    # A second rebuild replaces rather than adds.
    Product.objects.filter(id=products[0].id).update(status=ProductStatus.HIDDEN)
    run()
    assert search_products(query="linen napkin", language="en").total == 2


def test_reindex_takes_the_outbox_position_so_later_rows_are_not_replayed_forever():
    make_product()
    from tests.factories.search import record

    record(make_product())
    run()
    assert read_state().position == IndexOutbox.objects.latest("id").id


def test_check_passes_on_a_fresh_index():
    make_product()
    run()
    assert "The index matches the database." in run("--check")


def test_check_reports_missing_stale_and_extra_documents():
    missing, stale, unpublished, fine = (make_product(title=f"Jute rug {n}") for n in range(4))
    run()
    with index_writer() as writer:
        writer.delete_term("key", product_key(missing.id))
        writer.commit()
    Product.objects.filter(id=stale.id).update(updated_at=timezone.now() + timedelta(seconds=5))
    Product.objects.filter(id=unpublished.id).update(status=ProductStatus.DRAFT)
    out = StringIO()
    with pytest.raises(CommandError) as excinfo:
        call_command("reindex", "--check", stdout=out)
    assert excinfo.value.returncode == 1
    output = out.getvalue()
    assert f"1 products missing from the index: {missing.id}" in output
    assert f"1 products stale in the index: {stale.id}" in output
    assert f"1 products in the index but not published: {unpublished.id}" in output
    assert str(fine.id) not in output.split("Pending")[1]
    run()
    assert "matches" in run("--check")


def test_check_before_any_build_reports_everything_missing():
    product = make_product()
    with pytest.raises(CommandError):
        call_command("reindex", "--check", stdout=StringIO())
    assert product.id
