"""`tradepost demo`: loads a small marketplace, prints working logins, stays out of a
database that already has data."""

from __future__ import annotations

import io
from collections import Counter

import pytest
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.test import Client

from tests.factories.accounts import make_user
from tradepost.accounts.models import User
from tradepost.catalog.models import Product, ProductImage, ProductStatus, ProductTranslation
from tradepost.companies.models import Company, Membership, Role
from tradepost.core.currencies import is_currency
from tradepost.demo import services
from tradepost.demo.generator import DEFAULT_SEED, build_plan
from tradepost.demo.selectors import leaf_categories
from tradepost.demo.services import demo_password
from tradepost.demo.vocabulary import load_vocabulary
from tradepost.search.models import IndexOutbox, OutboxKind

SMALL = ["--companies", "30", "--products", "200"]


def run_demo(*args: str) -> str:
    out = io.StringIO()
    call_command("demo", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def loaded(category_tree, shared_media):
    return run_demo(*SMALL)


def test_demo_loads_a_published_multilingual_marketplace(loaded):
    assert Company.objects.count() == 30
    assert len(set(Company.objects.values_list("country", flat=True))) >= 10
    products = list(Product.objects.select_related("category", "company"))
    assert len(products) == 200
    languages = Counter(p.original_language for p in products)
    assert languages["zh-hans"] and languages["zh-hant"] and languages["en"]
    assert languages["zh-hans"] + languages["zh-hant"] > 100
    for product in products:
        assert product.status == ProductStatus.PUBLISHED and product.published_at
        assert product.category.is_leaf
        assert product.moq > 0
        assert product.price_min is not None and product.price_min <= product.price_max
        assert is_currency(product.currency)
        assert product.company.memberships.filter(role=Role.OWNER).exists()
    for product in products[:40]:
        product.full_clean()
    for company in Company.objects.all()[:10]:
        company.full_clean()
    assert ProductTranslation.objects.filter(language="en").exists()
    assert "Demo marketplace loaded" in loaded


def test_demo_images_exist_on_storage_with_their_sizes(loaded):
    images = list(ProductImage.objects.all())
    assert len(images) >= 200
    names = {image.image.name for image in images} | {image.thumbnail.name for image in images}
    assert len(names) < 2 * len(images)  # files are shared between products
    for name in names:
        assert default_storage.exists(name), name
    assert all(image.width == 480 and image.height == 480 for image in images)
    assert not Product.objects.filter(images__isnull=True).exists()


def test_demo_titles_follow_the_seed(loaded):
    plan = build_plan(
        seed=DEFAULT_SEED,
        companies=30,
        products=200,
        vocab=load_vocabulary(),
        leaves=leaf_categories(),
    )
    stored = set(Product.objects.values_list("title", flat=True))
    assert stored == {product.title for product in plan.products}


def test_demo_tells_the_search_index_about_every_listing(loaded):
    product_rows = IndexOutbox.objects.filter(kind=OutboxKind.PRODUCT)
    assert set(product_rows.values_list("object_id", flat=True)) == set(
        Product.objects.values_list("id", flat=True)
    )
    # Every company (a company with a recorded membership history a second time: its
    # periods decide its Gold Supplier badge in the documents).
    company_rows = IndexOutbox.objects.filter(kind=OutboxKind.COMPANY)
    assert set(company_rows.values_list("object_id", flat=True)) == set(
        Company.objects.values_list("id", flat=True)
    )
    assert Company.objects.count() == 30


def test_demo_fingerprints_its_published_listings_for_duplicate_detection(loaded):
    from tradepost.search.models import ListingFingerprint

    published = Product.objects.filter(status=ProductStatus.PUBLISHED)
    assert set(ListingFingerprint.objects.values_list("object_id", "owner_id")) == set(
        published.values_list("id", "company_id")
    )


def test_demo_logins_work_and_are_printed(loaded):
    for role in ("supplier", "buyer", "operator"):
        email = f"{role}@demo.example"
        assert f"{email}" in loaded and demo_password(role) in loaded
        user = User.objects.get(email=email)
        assert user.is_email_verified
        assert Client().login(email=email, password=demo_password(role))
    supplier = Membership.objects.select_related("company").get(user__email="supplier@demo.example")
    assert supplier.role == Role.OWNER
    assert supplier.company.country == "CN" and supplier.company.original_language == "zh-hans"
    assert "manufacturer" in supplier.company.business_types
    assert supplier.company.products.filter(status=ProductStatus.PUBLISHED).count() >= 3
    assert supplier.company.products.filter(title__contains="保温杯").exists()
    buyer = Membership.objects.select_related("company").get(user__email="buyer@demo.example")
    assert buyer.company.country == "NL" and not buyer.company.products.exists()
    operator = User.objects.get(email="operator@demo.example")
    assert operator.is_staff and operator.is_superuser
    assert not Membership.objects.filter(user=operator).exists()
    client = Client()
    client.force_login(operator)
    assert client.get("/admin/").status_code == 200


def test_generated_owners_cannot_log_in(loaded):
    owner = User.objects.filter(email__startswith="sales@").first()
    assert owner is not None and not owner.has_usable_password()


def test_if_empty_prints_the_logins_again_without_loading(loaded):
    counts = (User.objects.count(), Company.objects.count(), Product.objects.count())
    out = run_demo("--if-empty")
    assert "not loaded" in out
    for role in ("supplier", "buyer", "operator"):
        assert demo_password(role) in out
    assert (User.objects.count(), Company.objects.count(), Product.objects.count()) == counts


def test_if_empty_reports_a_changed_password(loaded):
    user = User.objects.get(email="buyer@demo.example")
    user.set_password("another-secret-42")
    user.save()
    out = run_demo("--if-empty")
    assert demo_password("buyer") not in out
    assert "changed since the demo was loaded" in out


def test_if_empty_does_nothing_on_a_site_with_its_own_data(category_tree):
    make_user(email="someone@example.com")
    out = run_demo("--if-empty", *SMALL)
    assert "not loaded" in out and "demo.example" not in out
    assert not Company.objects.exists() and not Product.objects.exists()
    assert User.objects.count() == 1


def test_demo_refuses_a_database_with_data(category_tree):
    make_user(email="someone@example.com")
    with pytest.raises(CommandError, match="empty database"):
        run_demo(*SMALL)
    assert not Company.objects.exists()


@pytest.mark.parametrize(
    "args", [["--companies", "1"], ["--products", "-5"], ["--companies", "999999"]]
)
def test_demo_rejects_impossible_counts(category_tree, args):
    with pytest.raises(CommandError, match="must be between"):
        run_demo(*args)
    assert not User.objects.exists()


def test_demo_needs_the_category_tree(category_tree, monkeypatch):
    monkeypatch.setattr(services, "leaf_categories", lambda: [])
    with pytest.raises(CommandError, match="category tree is empty"):
        run_demo(*SMALL)
    assert not User.objects.exists()


def test_the_demo_suppliers_desk_shows_twelve_weeks_of_views_and_search_words(loaded):
    """A new user who signs in as the demo supplier sees numbers on the supplier desk, not
    empty charts: the demo counts views and search words through the insights app."""
    from tradepost.insights.models import ProductViewDay, SearchWordDay
    from tradepost.insights.selectors import supplier_desk

    supplier = Membership.objects.select_related("company").get(user__email="supplier@demo.example")
    desk = supplier_desk(company=supplier.company)
    assert desk.total_views > 0
    assert sum(week.views > 0 for week in desk.weeks) >= 10  # the weeks have numbers, not one
    assert len(desk.top_words) >= 5 and all(word.impressions > 0 for word in desk.top_words)
    # The words of its own listings, Chinese ones among them.
    keywords = " ".join(supplier.company.products.values_list("keywords", flat=True)).lower()
    assert all(word.word in keywords for word in desk.top_words)
    assert any("\u4e00" <= word.word[0] <= "\u9fff" for word in desk.top_words)
    # Every supplier has some; the rows stay per week (a full demo writes thousands, not
    # one a listing and day).
    assert (
        ProductViewDay.objects.values("company").distinct().count()
        == Company.objects.filter(products__isnull=False).distinct().count()
    )
    assert ProductViewDay.objects.count() <= Product.objects.count() * 12
    assert SearchWordDay.objects.count() <= Company.objects.count() * 10 * 12

    client = Client()
    assert client.login(email="supplier@demo.example", password=demo_password("supplier"))
    html = client.get("/en/dashboard/insights/").content.decode()
    assert "No search has shown your listings" not in html
    assert f'<span class="stat-value">{desk.total_views:,}</span>' in html


def test_the_demo_counters_follow_the_seed(category_tree):
    from datetime import date

    from tradepost.demo.counters import plan_counters

    plan = build_plan(
        seed=DEFAULT_SEED,
        companies=12,
        products=60,
        vocab=load_vocabulary(),
        leaves=leaf_categories(),
    )
    today = date(2026, 12, 17)
    first = plan_counters(seed=DEFAULT_SEED, products=plan.products, today=today)
    assert first == plan_counters(seed=DEFAULT_SEED, products=plan.products, today=today)
    assert first != plan_counters(seed=DEFAULT_SEED + 1, products=plan.products, today=today)
    assert first.views and first.words
    assert all(day <= today and count > 0 for _index, day, count in first.views)


def test_demo_gold_suppliers_fill_their_showcase_and_the_home_page_shows_it(loaded):
    from tradepost.catalog.models import Showcase
    from tradepost.catalog.showcase_selectors import forget_showcase_cache
    from tradepost.membership.selectors import benefit_of_companies

    companies = list(Company.objects.all())
    slots = benefit_of_companies([company.pk for company in companies], "showcase_slots")
    paying = {pk for pk, room in slots.items() if room and _published(pk)}
    assert paying, "the demo's history leaves some suppliers on a plan with slots today"
    showcased = Counter(Showcase.objects.values_list("company_id", flat=True))
    assert set(showcased) == paying
    assert all(showcased[pk] == min(slots[pk], _published(pk)) for pk in paying)
    assert not Showcase.objects.exclude(product__status=ProductStatus.PUBLISHED).exists()
    forget_showcase_cache()
    home = Client().get("/en/").content.decode()
    assert 'data-showcase="home"' in home


def _published(company_id: int) -> int:
    return Product.objects.filter(company_id=company_id, status=ProductStatus.PUBLISHED).count()
