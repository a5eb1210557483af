"""The supplier's product services: what they save, and that refused input saves nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.files.storage import default_storage

from tests.factories.accounts import make_user
from tests.factories.catalog import (
    ensure_hs_code,
    leaf_category,
    make_category,
    make_product,
    product_fields,
    snapshot,
)
from tests.factories.companies import make_company
from tests.factories.images import bomb_png_header, image_upload, png_bytes, real_png
from tradepost.catalog import services
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.models import Product, ProductImage, ProductStatus, ProductTranslation

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(cast):
    return cast.actor("owner")


@pytest.fixture
def draft(cast):
    return make_product(company=cast.company, status=ProductStatus.DRAFT)


def create(cast, **overrides):
    return services.product_create(
        actor=cast.actor("owner"), company=cast.company, **product_fields(**overrides)
    )


# --- create --------------------------------------------------------------------------------


def test_create_saves_a_draft_with_clean_fields(cast):
    code = ensure_hs_code("961730")
    product = create(
        cast,
        title="  Vacuum   flask\n500 ml ",
        currency="eur",
        origin_country="cn",
        incoterms=["FOB", "EXW", "FOB"],
        hs_code=code,
        attributes=[{"name": " Colour ", "value": " red "}, {"name": "", "value": ""}],
    )
    product.refresh_from_db()
    assert product.company == cast.company
    assert product.status == ProductStatus.DRAFT
    assert product.published_at is None
    assert product.title == "Vacuum flask 500 ml"
    assert product.slug == "vacuum-flask-500-ml"
    assert product.currency == "EUR"
    assert product.origin_country == "CN"
    assert product.incoterms == ["EXW", "FOB"]
    assert product.payment_terms == ["tt", "lc"]
    assert product.attributes == [{"name": "Colour", "value": "red"}]
    assert product.hs_code == code
    assert product.moq == Decimal("500")


def test_chinese_title_gets_a_fallback_slug(cast):
    product = create(cast, title="不锈钢保温杯", original_language="zh-hans")
    assert product.slug == "product"
    mixed = create(cast, title="304不锈钢 vacuum 保温杯")
    assert mixed.slug == "304-vacuum"


def test_description_is_sanitised(cast):
    product = create(
        cast,
        description='<p onclick="steal()">Good</p><script>alert("x")</script>'
        '<a href="javascript:alert(1)">link</a><img src=x onerror=alert(1)>',
    )
    product.refresh_from_db()
    assert "<script" not in product.description
    assert "onclick" not in product.description
    assert "javascript:" not in product.description
    assert "onerror" not in product.description
    assert "<p>Good</p>" in product.description


BAD_INPUT = [
    ({"title": "x" * 201}, "title"),
    ({"title": "   "}, "title"),
    ({"title": 12}, "title"),
    ({"moq": 0}, "moq"),
    ({"moq": -5}, "moq"),
    ({"moq": "many"}, "moq"),
    ({"moq": float("nan")}, "moq"),
    ({"moq": "Infinity"}, "moq"),
    ({"moq": "12345678901234567"}, "moq"),
    ({"moq": "1.23456"}, "moq"),
    ({"moq_unit": "bucket"}, "moq_unit"),
    ({"price_min": Decimal("5"), "price_max": Decimal("4")}, "price_max"),
    ({"price_min": Decimal("-1")}, "price_min"),
    ({"currency": "XYZ"}, "currency"),
    ({"currency": ""}, "currency"),
    ({"category_id": 987654321}, "category_id"),
    ({"category_id": "abc"}, "category_id"),
    ({"category_id": 2**70}, "category_id"),
    ({"category_id": None}, "category_id"),
    ({"category_id": True}, "category_id"),
    ({"category_id": 1.5}, "category_id"),
    ({"hs_code": "999999"}, "hs_code"),
    ({"hs_code": "12ab"}, "hs_code"),
    ({"origin_country": "ZZ"}, "origin_country"),
    ({"original_language": "xx"}, "original_language"),
    ({"incoterms": ["FOB", "FREE"]}, "incoterms"),
    ({"incoterms": "not-a-list!"}, "incoterms"),
    ({"payment_terms": ["bitcoin"]}, "payment_terms"),
    ({"lead_time_days": -1}, "lead_time_days"),
    ({"lead_time_days": 3651}, "lead_time_days"),
    ({"lead_time_days": "2.5"}, "lead_time_days"),
    ({"description": "<p>" + "x" * 20_001 + "</p>"}, "description"),
    ({"keywords": "k" * 301}, "keywords"),
    ({"port_of_loading": "p" * 101}, "port_of_loading"),
    ({"attributes": [{"name": "n" * 101, "value": "v"}]}, "attributes"),
    ({"attributes": [{"name": "n", "value": "v" * 301}]}, "attributes"),
    ({"attributes": [{"name": "", "value": "orphan"}]}, "attributes"),
    ({"attributes": [{"name": f"n{i}", "value": "v"} for i in range(31)]}, "attributes"),
    ({"attributes": "Material: steel"}, "attributes"),
    ({"supply_capacity": Decimal("1000")}, "supply_capacity_unit"),
]


@pytest.mark.parametrize(("overrides", "field"), BAD_INPUT)
def test_create_refuses_bad_input_and_saves_nothing(cast, overrides, field):
    before = Product.objects.count()
    with pytest.raises(ProductError) as caught:
        create(cast, **overrides)
    assert caught.value.code == ProductErrorCode.INVALID
    assert field in caught.value.message_dict
    assert all(caught.value.message_dict[field])
    assert Product.objects.count() == before


def test_create_reports_every_bad_field_at_once(cast):
    with pytest.raises(ProductError) as caught:
        create(cast, title="", moq=0, currency="XYZ", origin_country="ZZ")
    assert {"title", "moq", "currency", "origin_country"} <= set(caught.value.message_dict)


def test_create_requires_the_essentials(cast):
    with pytest.raises(ProductError) as caught:
        services.product_create(actor=cast.actor("owner"), company=cast.company)
    assert {"title", "category_id", "moq", "moq_unit"} <= set(caught.value.message_dict)
    assert not Product.objects.exists()


def test_create_refuses_a_category_with_subcategories(cast):
    parent = make_category()
    make_category(parent=parent)
    parent.refresh_from_db()
    with pytest.raises(ProductError) as caught:
        create(cast, category_id=parent.pk)
    assert "category_id" in caught.value.message_dict
    assert not Product.objects.filter(company=cast.company).exists()


def test_unknown_field_names_are_a_programming_error(cast):
    with pytest.raises(TypeError):
        create(cast, colour="red")


def test_null_characters_are_dropped(cast):
    product = create(cast, title="Flask\x00 500", keywords="a\x00b")
    product.refresh_from_db()
    assert "\x00" not in product.title
    assert product.keywords == "ab"


def test_create_messages_are_translated(cast):
    from django.utils import translation

    with translation.override("zh-hans"), pytest.raises(ProductError) as caught:
        create(cast, moq=0)
    with translation.override("en"), pytest.raises(ProductError) as english:
        create(cast, moq=0)
    # The English message is the msgid; the Chinese one differs once translations are compiled.
    assert english.value.message_dict["moq"] == ["Enter a number greater than zero."]
    assert caught.value.message_dict["moq"]


# --- update --------------------------------------------------------------------------------


def test_update_changes_only_given_fields(owner, draft):
    before = snapshot(draft)
    updated = services.product_update(actor=owner, product=draft, title="New title", moq=12)
    after = snapshot(updated)
    assert after["title"] == "New title"
    assert after["moq"] == Decimal("12")
    assert after["slug"] == "new-title"
    assert after["price_min"] == before["price_min"]
    assert after["category_id"] == before["category_id"]


@pytest.mark.parametrize(("overrides", "field"), BAD_INPUT[:20])
def test_update_refuses_bad_input_and_changes_nothing(owner, draft, overrides, field):
    before = snapshot(draft)
    with pytest.raises(ProductError) as caught:
        services.product_update(actor=owner, product=draft, **overrides)
    assert field in caught.value.message_dict
    assert snapshot(draft) == before


def test_update_price_order_uses_the_stored_other_end(owner, draft):
    before = snapshot(draft)  # stored range 2.50 .. 3.80
    with pytest.raises(ProductError) as caught:
        services.product_update(actor=owner, product=draft, price_min=Decimal("9"))
    assert "price_max" in caught.value.message_dict
    assert snapshot(draft) == before


def test_update_does_not_touch_the_callers_instance_on_error(owner, draft):
    title = draft.title
    with pytest.raises(ProductError):
        services.product_update(actor=owner, product=draft, title="", moq=-5)
    assert draft.title == title


def test_slug_stays_once_published(owner, cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT, slug="first")
    product = services.product_publish(actor=owner, product=product)
    product = services.product_update(actor=owner, product=product, title="A different name")
    assert product.slug == "first"


def test_original_language_cannot_clash_with_a_translation(owner, draft):
    services.product_translation_set(actor=owner, product=draft, language="zh-hans", title="保温杯")
    before = snapshot(draft)
    with pytest.raises(ProductError) as caught:
        services.product_update(actor=owner, product=draft, original_language="zh-hans")
    assert "original_language" in caught.value.message_dict
    assert snapshot(draft) == before


def test_deleted_products_cannot_be_updated(owner, cast):
    product = make_product(company=cast.company, status=ProductStatus.DELETED)
    with pytest.raises(ProductNotFound):
        services.product_update(actor=owner, product=product, title="Back")


# --- publish / unpublish / delete ----------------------------------------------------------


def test_publish_sets_published_at_once(owner, draft):
    product = services.product_publish(actor=owner, product=draft)
    assert product.status == ProductStatus.PUBLISHED
    first = product.published_at
    assert first is not None
    product = services.product_unpublish(actor=owner, product=product)
    assert product.status == ProductStatus.DRAFT
    product = services.product_publish(actor=owner, product=product)
    assert product.published_at == first


def test_publish_needs_a_verified_email(cast, draft):
    unverified = make_user(verified=False)
    from tests.factories.companies import add_member

    add_member(cast.company, user=unverified)
    before = snapshot(draft)
    with pytest.raises(ProductError) as caught:
        services.product_publish(actor=unverified, product=draft)
    assert caught.value.code == ProductErrorCode.EMAIL_NOT_VERIFIED
    assert snapshot(draft) == before


def test_publish_needs_a_leaf_category(owner, cast):
    parent = make_category()
    child = make_category(parent=parent)
    product = make_product(company=cast.company, status=ProductStatus.DRAFT, category=child)
    # The tree changed after the product was filed: its category now has sub-categories.
    make_category(parent=child)
    before = snapshot(product)
    with pytest.raises(ProductError) as caught:
        services.product_publish(actor=owner, product=product)
    assert caught.value.code == ProductErrorCode.NOT_PUBLISHABLE
    assert "category_id" in caught.value.message_dict
    assert snapshot(product) == before


def test_supplier_cannot_publish_a_hidden_product(owner, cast):
    hidden = make_product(company=cast.company, status=ProductStatus.HIDDEN)
    before = snapshot(hidden)
    with pytest.raises(ProductError) as caught:
        services.product_publish(actor=owner, product=hidden)
    assert caught.value.code == ProductErrorCode.HIDDEN_BY_MODERATION
    with pytest.raises(ProductError):
        services.product_unpublish(actor=owner, product=hidden)
    assert snapshot(hidden) == before


def test_operator_may_publish_a_hidden_product(cast):
    hidden = make_product(company=cast.company, status=ProductStatus.HIDDEN)
    product = services.product_publish(actor=cast.actor("operator"), product=hidden)
    assert product.status == ProductStatus.PUBLISHED


def test_edit_keeps_a_hidden_product_hidden(owner, cast):
    hidden = make_product(company=cast.company, status=ProductStatus.HIDDEN)
    product = services.product_update(actor=owner, product=hidden, title="Fixed title")
    assert product.status == ProductStatus.HIDDEN


def test_delete_is_soft(owner, draft):
    services.product_delete(actor=owner, product=draft)
    draft.refresh_from_db()
    assert draft.status == ProductStatus.DELETED
    with pytest.raises(ProductNotFound):
        services.product_publish(actor=owner, product=draft)


# --- images --------------------------------------------------------------------------------


def test_image_add_stores_image_and_thumbnail(owner, draft):
    image = services.product_image_add(
        actor=owner, product=draft, upload=image_upload(data=png_bytes(800, 600))
    )
    image.refresh_from_db()
    assert image.position == 0
    assert (image.width, image.height) == (800, 600)
    assert default_storage.exists(image.image.name)
    assert default_storage.exists(image.thumbnail.name)
    assert image.image.name.startswith("products/")
    second = services.product_image_add(actor=owner, product=draft, upload=image_upload())
    assert second.position == 1


@pytest.mark.parametrize(
    "case", ["oversized", "text_as_jpg", "bomb_header", "too_many_pixels", "empty"]
)
def test_image_add_refuses_bad_files_and_saves_nothing(owner, draft, settings, case):
    if case == "oversized":
        settings.TRADEPOST_IMAGE_MAX_BYTES = 1024
        upload = image_upload(data=png_bytes(200, 200, noise=True))
        assert upload.size > 1024
    elif case == "text_as_jpg":
        upload = image_upload("photo.jpg", b"This is a plain text file, not a picture.\n" * 10)
    elif case == "bomb_header":
        upload = image_upload("bomb.png", bomb_png_header())
    elif case == "too_many_pixels":
        settings.TRADEPOST_IMAGE_MAX_PIXELS = 1000
        upload = image_upload(data=png_bytes(64, 64))
    else:
        upload = image_upload(data=b"")
    before = snapshot(draft)
    with pytest.raises(ProductError) as caught:
        services.product_image_add(actor=owner, product=draft, upload=upload)
    assert caught.value.code == ProductErrorCode.IMAGE_REJECTED
    assert caught.value.message_dict["image"]
    assert snapshot(draft) == before
    assert not ProductImage.objects.exists()


@pytest.mark.parametrize("size", [(20_000, 20_000), (12_000, 12_000), (6_000, 5_000)])
def test_a_whole_png_with_too_many_pixels_is_refused_for_its_pixels(owner, draft, size):
    """A real, complete PNG (small in bytes, every row present): above Pillow's own
    decompression-bomb limit (20000 × 20000), between its warning and its error (12000 ×
    12000), and just above the site's limit (6000 × 5000 = 30 million). Each is refused
    because of its pixels, never as "not a valid image"."""
    width, height = size
    with pytest.raises(ProductError) as caught:
        services.product_image_add(
            actor=owner, product=draft, upload=image_upload("big.png", real_png(width, height))
        )
    assert caught.value.code == ProductErrorCode.IMAGE_REJECTED
    (message,) = caught.value.message_dict["image"]
    assert "pixels" in message and "not a valid image" not in message, message
    assert not ProductImage.objects.exists()


def test_image_limit(owner, draft, settings):
    for _ in range(settings.TRADEPOST_PRODUCT_MAX_IMAGES):
        services.product_image_add(actor=owner, product=draft, upload=image_upload())
    before = snapshot(draft)
    with pytest.raises(ProductError) as caught:
        services.product_image_add(actor=owner, product=draft, upload=image_upload())
    assert caught.value.code == ProductErrorCode.TOO_MANY_IMAGES
    assert snapshot(draft) == before
    assert draft.images.count() == 6


def test_image_remove_renumbers_and_deletes_files(owner, draft, django_capture_on_commit_callbacks):
    images = [
        services.product_image_add(actor=owner, product=draft, upload=image_upload())
        for _ in range(3)
    ]
    names = [images[1].image.name, images[1].thumbnail.name]
    with django_capture_on_commit_callbacks(execute=True):
        services.product_image_remove(actor=owner, product=draft, image_id=images[1].pk)
    assert list(draft.images.values_list("id", "position")) == [
        (images[0].pk, 0),
        (images[2].pk, 1),
    ]
    assert not any(default_storage.exists(name) for name in names)


def test_image_remove_keeps_files_another_product_still_uses(
    owner, draft, django_capture_on_commit_callbacks
):
    # The demo's listings share picture files; a copy of a listing may too.
    image = services.product_image_add(actor=owner, product=draft, upload=image_upload())
    names = [image.image.name, image.thumbnail.name]
    other = make_product(company=draft.company, title="Another listing")
    ProductImage.objects.create(
        product=other, image=names[0], thumbnail=names[1], width=1, height=1, position=0
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.product_image_remove(actor=owner, product=draft, image_id=image.pk)
    assert all(default_storage.exists(name) for name in names)
    # Once nothing uses them, they go.
    with django_capture_on_commit_callbacks(execute=True):
        services.product_image_remove(actor=owner, product=other, image_id=other.images.get().pk)
    assert not any(default_storage.exists(name) for name in names)


def test_image_remove_of_another_products_image_is_not_found(owner, draft, cast):
    other = make_product(company=cast.other_company)
    image = services.product_image_add(
        actor=cast.actor("other_company"), product=other, upload=image_upload()
    )
    with pytest.raises(ProductNotFound):
        services.product_image_remove(actor=owner, product=draft, image_id=image.pk)
    assert ProductImage.objects.filter(pk=image.pk).exists()


def test_image_reorder(owner, draft):
    a, b, c = (
        services.product_image_add(actor=owner, product=draft, upload=image_upload())
        for _ in range(3)
    )
    services.product_image_reorder(actor=owner, product=draft, image_ids=[c.pk, a.pk, b.pk])
    assert list(draft.images.values_list("id", flat=True)) == [c.pk, a.pk, b.pk]
    for wrong in ([a.pk, b.pk], [a.pk, b.pk, c.pk, c.pk], [a.pk, b.pk, 999999]):
        before = snapshot(draft)
        with pytest.raises(ProductError):
            services.product_image_reorder(actor=owner, product=draft, image_ids=wrong)
        assert snapshot(draft) == before


# --- translations --------------------------------------------------------------------------


def test_translation_set_and_replace(owner, draft):
    services.product_translation_set(
        actor=owner,
        product=draft,
        language="zh-hans",
        title="不锈钢保温杯",
        description="<p>双层</p><script>x()</script>",
    )
    translation = services.product_translation_set(
        actor=owner, product=draft, language="zh-hans", title="保温杯 500ml"
    )
    assert ProductTranslation.objects.filter(product=draft).count() == 1
    translation.refresh_from_db()
    assert translation.title == "保温杯 500ml"
    assert translation.description == ""
    assert services.product_translation_remove(actor=owner, product=draft, language="zh-hans")
    assert not ProductTranslation.objects.exists()


def test_translation_description_is_sanitised(owner, draft):
    translation = services.product_translation_set(
        actor=owner,
        product=draft,
        language="zh-hant",
        title="保溫杯",
        description="<p>雙層</p><script>x()</script>",
    )
    assert translation.description == "<p>雙層</p>"


@pytest.mark.parametrize(
    ("language", "title", "field"),
    [
        ("en", "Same language", "language"),
        ("de", "Kein UI", "language"),
        ("zh-hans", "", "title"),
        ("zh-hans", "长" * 201, "title"),
    ],
)
def test_translation_refuses_bad_input(owner, draft, language, title, field):
    before = snapshot(draft)
    with pytest.raises(ProductError) as caught:
        services.product_translation_set(actor=owner, product=draft, language=language, title=title)
    assert field in caught.value.message_dict
    assert snapshot(draft) == before


# --- who may -------------------------------------------------------------------------------


def test_a_company_cannot_create_for_another(cast):
    with pytest.raises(ProductError) as caught:
        services.product_create(
            actor=cast.actor("other_company"), company=cast.company, **product_fields()
        )
    assert caught.value.code == ProductErrorCode.NOT_ALLOWED
    assert not Product.objects.filter(company=cast.company).exists()


def test_user_without_company_cannot_create():
    loner = make_user()
    company = make_company()
    with pytest.raises(ProductError):
        services.product_create(actor=loner, company=company, **product_fields())
    assert not Product.objects.exists()


def test_category_leaf_of_shipped_tree_is_accepted(cast):
    product = create(cast, category_id=leaf_category().pk)
    assert product.category.is_leaf


# --- search outbox -------------------------------------------------------------------------


def test_every_write_notes_the_product_for_the_search_index(owner, draft):
    from tradepost.search.models import IndexOutbox

    def noted() -> int:
        return IndexOutbox.objects.filter(kind="product", object_id=draft.pk).count()

    services.product_publish(actor=owner, product=draft)
    assert noted() == 1
    services.product_update(actor=owner, product=draft, title="Renamed")
    services.product_translation_set(actor=owner, product=draft, language="zh-hans", title="杯")
    services.product_image_add(actor=owner, product=draft, upload=image_upload())
    services.product_delete(actor=owner, product=draft)
    assert noted() == 5


def test_refused_writes_note_nothing(owner, draft):
    from tradepost.search.models import IndexOutbox

    with pytest.raises(ProductError):
        services.product_update(actor=owner, product=draft, moq=0)
    with pytest.raises(ProductError):
        create_for = make_company()
        services.product_create(actor=owner, company=create_for, **product_fields())
    assert not IndexOutbox.objects.exists()
