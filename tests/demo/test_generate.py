"""`tradepost generate`: a large catalogue appended fast, valid, published and searchable."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from tests.factories.catalog import make_product
from tradepost.accounts.models import User
from tradepost.catalog.models import Product, ProductStatus, ProductTranslation
from tradepost.companies.models import Company, Membership
from tradepost.core.html import sanitize_html
from tradepost.demo.bulk import generate_catalogue
from tradepost.search.indexer import apply_outbox, rebuild_now
from tradepost.search.models import IndexOutbox, OutboxKind
from tradepost.search.selectors import search_products

pytestmark = pytest.mark.django_db


def _snapshot() -> list[tuple]:
    return list(
        Product.objects.order_by("id").values_list(
            "company__slug", "title", "original_language", "category_id", "price_min", "moq"
        )
    )


def _wipe() -> None:
    Product.objects.all().delete()
    Company.objects.all().delete()
    User.objects.all().delete()
    IndexOutbox.objects.all().delete()


def test_same_seed_same_catalogue_whatever_the_number_of_processes(category_tree):
    generate_catalogue(products=90, companies=6, seed=7, chunk_size=20, workers=1)
    first = _snapshot()
    _wipe()
    generate_catalogue(products=90, companies=6, seed=7, chunk_size=20, workers=2)
    assert _snapshot() == first
    _wipe()
    generate_catalogue(products=90, companies=6, seed=8, chunk_size=20, workers=1)
    assert _snapshot() != first


def test_products_are_valid_published_and_in_the_demo_language_mix(category_tree):
    result = generate_catalogue(products=200, companies=10, seed=3, workers=1)
    assert result.products == Product.objects.count() == 200
    assert result.companies == Company.objects.count() == 10
    assert Membership.objects.count() == 10
    assert result.products_per_second > 0
    assert result.translations == ProductTranslation.objects.count()
    products = list(Product.objects.select_related("company", "category"))
    assert {p.status for p in products} == {ProductStatus.PUBLISHED}
    assert all(p.published_at is not None and p.category.is_leaf for p in products)
    for product in products[:40]:
        product.full_clean()
        # The planner escapes everything it writes, so sanitising changes nothing.
        assert sanitize_html(product.description) == product.description
    chinese = sum(p.original_language in ("zh-hans", "zh-hant") for p in products)
    assert 0.4 < chinese / len(products) < 0.8


def test_appends_next_to_existing_companies_without_collisions(category_tree):
    generate_catalogue(products=40, companies=4, seed=1, workers=1)
    generate_catalogue(products=40, companies=4, seed=1, workers=1)
    assert Product.objects.count() == 80
    slugs = list(Company.objects.values_list("slug", flat=True))
    assert len(slugs) == len(set(slugs)) == 8
    # New products got ids after the old ones; a product created later gets the next id
    # (on PostgreSQL the sequence was moved past the generated ids).
    assert Product.objects.order_by("-id").first().id == 80
    later = make_product(company=Company.objects.first(), category=category_tree.first())
    assert later.id > 80


def test_outbox_rows_make_the_products_searchable(category_tree):
    generate_catalogue(products=30, companies=3, seed=5, workers=1)
    assert IndexOutbox.objects.filter(kind=OutboxKind.PRODUCT).count() == 30
    assert IndexOutbox.objects.filter(kind=OutboxKind.COMPANY).count() == 3
    apply_outbox()
    product = Product.objects.order_by("id").first()
    result = search_products(query=product.title, language="en")
    assert product.id in [hit.product.id for hit in result.hits]
    assert search_products(query="", language="en").total == 30


def test_without_outbox_a_reindex_makes_them_searchable(category_tree):
    generate_catalogue(products=25, companies=3, seed=5, outbox=False, workers=1)
    assert not IndexOutbox.objects.exists()
    rebuild_now(workers=1)
    assert search_products(query="", language="en").total == 25


def test_command_prints_the_rate(category_tree, capsys):
    call_command("generate", "--products", "20", "--companies", "2", "--workers", "1", "-v0")
    out = capsys.readouterr().out
    assert "Generated 20 products" in out and "products/s" in out
    assert Product.objects.count() == 20


@pytest.mark.parametrize(
    "args", [["--products", "0"], ["--products", "-5"], ["--products", "10", "--companies", "1"]]
)
def test_command_refuses_bad_counts(category_tree, args):
    with pytest.raises(CommandError):
        call_command("generate", *args, "-v0")
    assert not Product.objects.exists() and not Company.objects.exists()
