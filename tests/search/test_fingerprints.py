"""Near-duplicate detection (`tradepost.search.fingerprints`): shingles of the analysed text,
MinHash signatures and the LSH index kept in the database, within one owner only."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import override_settings

from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tradepost.catalog.models import ProductStatus
from tradepost.search.fingerprints import (
    SCHEME,
    fingerprint,
    fingerprint_remove,
    fingerprint_store,
    fingerprints_rebuild,
    fingerprints_store_many,
    likely_duplicates,
    listing_body,
    listing_shingles,
    similarity,
)
from tradepost.search.models import ListingFingerprint, ListingFingerprintBand

FLASK = "Stainless steel vacuum flask 500 ml, double wall, keeps drinks hot for 12 hours"
FLASK_REWORDED = "Vacuum flask of stainless steel, 500ml double walled: keeps coffee hot 12 hours"
LAMP = "LED desk lamp with USB charging port and touch dimmer, foldable arm"
CN_TRADITIONAL = "不鏽鋼保溫杯 500毫升 雙層真空 商務辦公水杯"
CN_SIMPLIFIED_REORDERED = "商务办公水杯 不锈钢保温杯 双层真空 500毫升"
CN_OTHER = "儿童卡通书包 小学生减负双肩包 防水"


def store(object_id: int, owner_id: int, title: str, body: str = "", kind: str = "product"):
    fingerprint_store(kind=kind, object_id=object_id, owner_id=owner_id, title=title, body=body)


def found(owner_id: int, title: str, body: str = "", **options) -> list[int]:
    matches = likely_duplicates(
        kind="product", owner_id=owner_id, title=title, body=body, **options
    )
    return [match.object_id for match in matches]


# --- shingles and signatures ---------------------------------------------------------------


def test_word_order_case_and_width_do_not_change_the_shingles():
    assert listing_shingles("Vacuum flask steel") == listing_shingles("STEEL ｆｌａｓｋ vacuum")


def test_traditional_and_simplified_chinese_give_the_same_shingles():
    assert listing_shingles("不鏽鋼保溫杯") == listing_shingles("不锈钢保温杯")
    shingles = listing_shingles("不锈钢保温杯")
    assert "~保温" in shingles  # character bigrams, whatever the segmenter does


def test_product_codes_are_joined_and_weighted():
    shingles = listing_shingles("Cordless phone", "Model KX-TG1032S, silver")
    assert "kxtg1032s" in shingles
    assert {f"#{n}:kxtg1032s" for n in range(1, SCHEME.code_weight)} <= shingles
    assert "silver" not in shingles  # the body contributes codes only


def test_empty_text_has_no_fingerprint():
    assert listing_shingles("") == set()
    assert fingerprint("product", "  ", "") is None


def test_similarity_estimates_jaccard():
    a = fingerprint("product", FLASK)
    b = fingerprint("product", FLASK_REWORDED)
    c = fingerprint("product", LAMP)
    assert a is not None and b is not None and c is not None
    assert similarity(a.values, a.values) == 1.0
    exact = len(listing_shingles(FLASK) & listing_shingles(FLASK_REWORDED)) / len(
        listing_shingles(FLASK) | listing_shingles(FLASK_REWORDED)
    )
    assert abs(similarity(a.values, b.values) - exact) < 0.15
    assert similarity(a.values, c.values) < 0.2
    assert len(a.keys) == SCHEME.bands


def test_listing_body_joins_the_texts():
    assert listing_body(description="d", keywords="k", attributes=["a", ""]) == "d\nk\na"


# --- the index -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_reworded_copy_is_found_within_its_owner_only():
    store(1, owner_id=10, title=FLASK)
    store(2, owner_id=10, title=LAMP)
    store(3, owner_id=20, title=FLASK)
    assert found(10, FLASK_REWORDED) == [1]
    assert found(10, "Children's cartoon school backpack, waterproof") == []
    assert found(30, FLASK) == []  # another owner's identical listing is not a duplicate


@pytest.mark.django_db
def test_chinese_copies_in_the_other_script_are_found():
    store(1, owner_id=10, title=CN_TRADITIONAL)
    store(2, owner_id=10, title=CN_OTHER)
    assert found(10, CN_SIMPLIFIED_REORDERED) == [1]


@pytest.mark.django_db
def test_the_listing_itself_is_excluded_and_results_are_ordered():
    store(1, owner_id=10, title=FLASK)
    store(2, owner_id=10, title=FLASK_REWORDED)
    matches = likely_duplicates(kind="product", owner_id=10, title=FLASK, exclude_id=1)
    assert [m.object_id for m in matches] == [2]
    both = likely_duplicates(kind="product", owner_id=10, title=FLASK)
    assert [m.object_id for m in both] == [1, 2]
    assert both[0].similarity == 1.0 > both[1].similarity


@pytest.mark.django_db
def test_the_threshold_setting_and_zero_turns_it_off():
    store(1, owner_id=10, title=FLASK)
    with override_settings(TRADEPOST_DUPLICATE_SIMILARITY=0):
        assert found(10, FLASK) == []
    with override_settings(TRADEPOST_DUPLICATE_SIMILARITY=0.99):
        assert found(10, FLASK_REWORDED) == []
        assert found(10, FLASK) == [1]


@pytest.mark.django_db
def test_kinds_are_apart():
    store(1, owner_id=10, title=FLASK, kind="request")
    assert found(10, FLASK) == []


@pytest.mark.django_db
def test_store_rewrites_on_change_only_and_remove_forgets():
    store(1, owner_id=10, title=FLASK)
    row = ListingFingerprint.objects.get(object_id=1)
    bands = set(ListingFingerprintBand.objects.values_list("id", flat=True))
    store(1, owner_id=10, title=FLASK)  # unchanged: nothing rewritten
    assert set(ListingFingerprintBand.objects.values_list("id", flat=True)) == bands
    store(1, owner_id=10, title=LAMP)
    assert ListingFingerprint.objects.get(object_id=1).pk == row.pk
    assert ListingFingerprintBand.objects.count() == SCHEME.bands
    assert found(10, FLASK) == [] and found(10, LAMP) == [1]
    store(1, owner_id=11, title=LAMP)  # moved to another owner
    assert found(10, LAMP) == [] and found(11, LAMP) == [1]
    fingerprint_remove(kind="product", object_id=1)
    assert not ListingFingerprint.objects.exists()
    assert not ListingFingerprintBand.objects.exists()
    store(1, owner_id=10, title="")  # nothing to compare: no fingerprint
    assert not ListingFingerprint.objects.exists()


@pytest.mark.django_db
def test_writes_need_the_writers_transaction():
    with transaction.atomic():
        fingerprints_store_many(kind="product", listings=[(1, 10, FLASK, ""), (2, 10, "", "")])
    assert list(ListingFingerprint.objects.values_list("object_id", flat=True)) == [1]


def test_writes_outside_a_transaction_are_refused():
    with pytest.raises(RuntimeError):
        fingerprint_remove(kind="product", object_id=1)


@pytest.mark.django_db
def test_rebuild_fingerprints_the_published_products_from_the_database():
    company = make_company()
    published = make_product(company=company, title=FLASK)
    make_product(company=company, title=FLASK_REWORDED, status=ProductStatus.DRAFT)
    store(999, owner_id=company.pk, title="A listing that no longer exists")
    assert fingerprints_rebuild() == 1
    assert list(ListingFingerprint.objects.values_list("object_id", "owner_id")) == [
        (published.pk, company.pk)
    ]
    assert found(company.pk, FLASK_REWORDED) == [published.pk]


@pytest.mark.django_db
def test_reindex_fingerprints_command():
    company = make_company()
    product = make_product(company=company, title=FLASK)
    out = StringIO()
    call_command("reindex", "--fingerprints", stdout=out, stderr=StringIO())
    assert "Fingerprinted 1 published products" in out.getvalue()
    assert found(company.pk, FLASK_REWORDED) == [product.pk]


@pytest.mark.django_db
def test_the_admin_lists_fingerprints_read_only(admin_client):
    store(1, owner_id=10, title=FLASK)
    url = "/admin/search/listingfingerprint/"
    response = admin_client.get(url, {"q": "10"})
    assert response.status_code == 200
    assert "product:1 (owner 10)" in response.content.decode()
    assert admin_client.get(url + "add/").status_code == 403
