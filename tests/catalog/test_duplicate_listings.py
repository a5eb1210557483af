"""Near-duplicate listings within a company, at publish time (`product_publish`, ADR 0024):
the supplier is shown the likely duplicate and may confirm; fingerprints follow the
products' edits, unpublishing, moderation and deletion."""

from __future__ import annotations

import pytest

from tests.duplicate_listings import FLASK, FLASK_COPY
from tests.factories.catalog import product_fields
from tradepost.catalog import services
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.models import Product, ProductStatus
from tradepost.search.models import ListingFingerprint

pytestmark = pytest.mark.django_db

LAMP = "LED desk lamp with USB charging port and touch dimmer"


def draft(cast, company=None, actor=None, **overrides) -> Product:
    return services.product_create(
        actor=actor or cast.actor("owner"),
        company=company or cast.company,
        **product_fields(**overrides),
    )


def publish(cast, product: Product, actor=None, **options) -> Product:
    return services.product_publish(actor=actor or cast.actor("owner"), product=product, **options)


def listed(cast, title: str, **overrides) -> Product:
    return publish(cast, draft(cast, title=title, **overrides))


def fingerprinted() -> set[int]:
    return set(ListingFingerprint.objects.values_list("object_id", flat=True))


def test_a_reworded_copy_is_refused_naming_the_listing_it_resembles(cast):
    original = listed(cast, FLASK)
    copy = draft(cast, title=FLASK_COPY)
    with pytest.raises(ProductError) as refused:
        publish(cast, copy)
    error = refused.value
    assert error.code is ProductErrorCode.LIKELY_DUPLICATE
    assert error.kind == "conflict"
    assert FLASK in error.message
    (duplicate,) = error.extensions["duplicates"]
    assert duplicate["id"] == original.pk
    assert duplicate["title"] == FLASK
    assert duplicate["url"] == original.get_absolute_url()
    assert 0.5 <= duplicate["similarity"] < 1
    copy.refresh_from_db()
    assert copy.status == ProductStatus.DRAFT
    assert fingerprinted() == {original.pk}


def test_publish_anyway_when_the_supplier_confirms(cast):
    original = listed(cast, FLASK)
    copy = publish(cast, draft(cast, title=FLASK_COPY), allow_duplicate=True)
    assert copy.status == ProductStatus.PUBLISHED
    assert fingerprinted() == {original.pk, copy.pk}


def test_a_different_product_of_the_same_company_is_published(cast):
    listed(cast, FLASK)
    lamp = listed(cast, LAMP, description="<p>Warm and cold light.</p>", attributes=[])
    assert lamp.status == ProductStatus.PUBLISHED


def test_another_companys_identical_product_is_not_a_duplicate(cast):
    listed(cast, FLASK)
    outsider = cast.outsider
    theirs = services.product_create(
        actor=outsider, company=cast.other_company, **product_fields(title=FLASK)
    )
    assert publish(cast, theirs, actor=outsider).status == ProductStatus.PUBLISHED


def test_traditional_and_simplified_chinese_copies_are_caught(cast):
    listed(cast, "不鏽鋼保溫杯 500毫升 雙層真空 商務辦公水杯", original_language="zh-hant")
    copy = draft(
        cast, title="商务办公水杯 不锈钢保温杯 双层真空 500毫升", original_language="zh-hans"
    )
    with pytest.raises(ProductError) as refused:
        publish(cast, copy)
    assert refused.value.code is ProductErrorCode.LIKELY_DUPLICATE


def test_model_numbers_tell_variants_apart(cast):
    listed(cast, "Cordless phone", attributes=[{"name": "Model", "value": "KX-TG1032S"}])
    other = draft(
        cast, title="Cordless phone", attributes=[{"name": "Model", "value": "KX-TG9343T"}]
    )
    assert publish(cast, other).status == ProductStatus.PUBLISHED
    same = draft(cast, title="Cordless phone", attributes=[{"name": "Model", "value": "kxtg1032s"}])
    with pytest.raises(ProductError):
        publish(cast, same)


def test_fingerprints_follow_edits(cast):
    original = listed(cast, FLASK)
    services.product_update(actor=cast.actor("owner"), product=original, title=LAMP)
    assert publish(cast, draft(cast, title=FLASK_COPY)).status == ProductStatus.PUBLISHED
    with pytest.raises(ProductError):
        publish(cast, draft(cast, title=LAMP + " new"))


@pytest.mark.parametrize("action", ["unpublish", "delete", "hide"])
def test_a_listing_no_longer_published_is_not_compared(cast, action):
    original = listed(cast, FLASK)
    if action == "hide":
        services.product_hide(actor=cast.operator, product=original)
    else:
        getattr(services, f"product_{action}")(actor=cast.actor("owner"), product=original)
    assert fingerprinted() == set()
    assert publish(cast, draft(cast, title=FLASK_COPY)).status == ProductStatus.PUBLISHED


def test_republishing_a_listing_is_checked_against_the_others(cast):
    original = listed(cast, FLASK)
    services.product_unpublish(actor=cast.actor("owner"), product=original)
    copy = listed(cast, FLASK_COPY)
    with pytest.raises(ProductError) as refused:
        publish(cast, original)
    assert refused.value.extensions["duplicates"][0]["id"] == copy.pk
    # Publishing what is already published changes nothing and is not refused.
    assert publish(cast, copy).status == ProductStatus.PUBLISHED
