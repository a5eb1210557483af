"""/api/v1/me/products: the supplier's write API, through HTTP."""

from __future__ import annotations

from functools import partial

import pytest
from django.test import Client

from tests.api_client import ApiClient
from tests.factories.accounts import make_user
from tests.factories.catalog import leaf_category, make_category, make_product, snapshot
from tests.factories.companies import ALLOWED_ROLES, ROLES, add_member
from tests.factories.images import image_upload
from tradepost.catalog import services
from tradepost.catalog.models import Product, ProductImage, ProductStatus

pytestmark = pytest.mark.django_db

BASE = "/api/v1/me/products"


Api = partial(ApiClient, base=BASE)  # one user's bearer token, paths below BASE


def new_product_body(**overrides):
    body = {
        "title": "LED panel light 600x600",
        "category_id": leaf_category().pk,
        "description": "<p>40 W, 4000 K.</p>",
        "attributes": [{"name": "Power", "value": "40 W"}],
        "moq": "100",
        "moq_unit": "pieces",
        "price_min": "6.5",
        "price_max": "8",
        "currency": "USD",
        "incoterms": ["FOB"],
        "payment_terms": ["tt"],
        "lead_time_days": 20,
        "origin_country": "CN",
        "original_language": "en",
    }
    body.update(overrides)
    return body


def errors_by_field(response) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for error in response.json().get("errors", []):
        found.setdefault(error["field"], []).append(error["message"])
    return found


# --- happy path --------------------------------------------------------------------------------


def test_full_life_of_a_product_with_a_bearer_token(cast):
    api = Api(cast.actor("member"))

    created = api.post("", new_product_body())
    assert created.status_code == 201, created.content
    product = created.json()
    pk = product["id"]
    assert product["status"] == "draft"
    assert product["company_id"] == cast.company.pk
    assert product["moq"] == "100.000"
    assert product["attributes"] == [{"name": "Power", "value": "40 W"}]
    assert product["images"] == [] and product["translations"] == []

    listed = api.get("")
    assert listed.status_code == 200
    assert [item["id"] for item in listed.json()["items"]] == [pk]

    changed = api.patch(f"/{pk}", {"title": "LED panel 60 x 60 cm", "lead_time_days": 15})
    assert changed.status_code == 200
    assert changed.json()["title"] == "LED panel 60 x 60 cm"
    assert changed.json()["lead_time_days"] == 15
    assert changed.json()["price_min"] == "6.5000"

    image = api.upload(f"/{pk}/images", image_upload())
    assert image.status_code == 201, image.content
    image_id = image.json()["id"]
    assert image.json()["thumbnail_url"].startswith("http://testserver/media/products/thumbs/")

    translated = api.put(f"/{pk}/translations/zh-hans", {"title": "LED 面板灯", "description": ""})
    assert translated.status_code == 200
    assert translated.json() == {"language": "zh-hans", "title": "LED 面板灯", "description": ""}

    published = api.post(f"/{pk}/publish")
    assert published.status_code == 200
    assert published.json()["status"] == "published"
    assert published.json()["published_at"]
    assert [t["language"] for t in published.json()["translations"]] == ["zh-hans"]

    assert api.post(f"/{pk}/unpublish").json()["status"] == "draft"
    assert api.delete(f"/{pk}/images/{image_id}").status_code == 204
    assert api.get(f"/{pk}").json()["images"] == []

    assert api.delete(f"/{pk}").status_code == 204
    assert api.get(f"/{pk}").status_code == 404
    assert api.get("").json()["items"] == []
    assert Product.objects.get(pk=pk).status == ProductStatus.DELETED


def test_list_filters_paginates_and_bounds_queries(cast, django_assert_max_num_queries):
    api = Api(cast.actor("owner"))
    for n in range(7):
        product = make_product(
            company=cast.company,
            status=ProductStatus.DRAFT if n % 2 else ProductStatus.PUBLISHED,
        )
        services.product_image_add(
            actor=cast.actor("owner"), product=product, upload=image_upload()
        )
    make_product(company=cast.other_company)
    make_product(company=cast.company, status=ProductStatus.DELETED)
    with django_assert_max_num_queries(10):
        response = api.get("", page_size=3)
    body = response.json()
    assert body["count"] == 7
    assert len(body["items"]) == 3
    assert body["next_page"] == 2 and body["previous_page"] is None
    last = api.get("", page_size=3, page=3).json()
    assert len(last["items"]) == 1 and last["next_page"] is None
    drafts = api.get("", status="draft").json()
    assert drafts["count"] == 3
    assert {item["status"] for item in drafts["items"]} == {"draft"}
    for bad in ({"page": 0}, {"page_size": 1000}, {"status": "deleted"}, {"page": "x"}):
        response = api.get("", **bad)
        assert response.status_code == 422
        assert response["Content-Type"] == "application/problem+json"


def test_image_order(cast):
    api = Api(cast.actor("owner"))
    product = make_product(company=cast.company)
    ids = [api.upload(f"/{product.pk}/images", image_upload()).json()["id"] for _ in range(3)]
    response = api.put(f"/{product.pk}/images/order", {"image_ids": ids[::-1]})
    assert [image["id"] for image in response.json()] == ids[::-1]
    response = api.put(f"/{product.pk}/images/order", {"image_ids": ids[:2]})
    assert response.status_code == 422


# --- refused input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"title": "t" * 201}, "title"),
        ({"moq": 0}, "moq"),
        ({"moq": -5}, "moq"),
        ({"price_min": "10", "price_max": "1"}, "price_max"),
        ({"currency": "XYZ"}, "currency"),
        ({"category_id": 99999999}, "category_id"),
        ({"hs_code": "999999"}, "hs_code"),
        ({"origin_country": "ZZ"}, "origin_country"),
        ({"incoterms": ["FOB", "XXX"]}, "incoterms"),
        ({"moq_unit": "bucket"}, "moq_unit"),
        ({"lead_time_days": 5000}, "lead_time_days"),
        ({"attributes": [{"name": "n" * 101, "value": "v"}]}, "attributes"),
        ({"moq": "lots"}, "moq"),
        ({"title": 42}, "title"),
    ],
)
def test_create_validation_errors_are_422_problems_per_field(cast, overrides, field):
    response = Api(cast.actor("owner")).post("", new_product_body(**overrides))
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["type"].endswith("validation-error")
    assert field in errors_by_field(response)
    assert not Product.objects.exists()


def test_non_leaf_category_is_refused(cast):
    parent = make_category()
    make_category(parent=parent)
    response = Api(cast.actor("owner")).post("", new_product_body(category_id=parent.pk))
    assert response.status_code == 422
    assert "category_id" in errors_by_field(response)
    assert not Product.objects.exists()


def test_create_requires_the_essentials(cast):
    response = Api(cast.actor("owner")).post("", {})
    assert response.status_code == 422
    assert {"title", "category_id", "moq", "moq_unit"} <= set(errors_by_field(response))


def test_patch_errors_change_nothing(cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    before = snapshot(product)
    response = Api(cast.actor("owner")).patch(
        f"/{product.pk}", {"title": None, "moq": 0, "currency": "XYZ"}
    )
    assert response.status_code == 422
    assert {"title", "moq", "currency"} <= set(errors_by_field(response))
    assert snapshot(product) == before


def test_script_in_description_is_stored_sanitised(cast):
    response = Api(cast.actor("owner")).post(
        "", new_product_body(description="<p>ok</p><script>alert(1)</script>")
    )
    assert response.json()["description"] == "<p>ok</p>"


@pytest.mark.parametrize("case", ["text_as_jpg", "too_many_pixels", "oversized", "seventh"])
def test_image_refusals(cast, settings, case):
    api = Api(cast.actor("owner"))
    product = make_product(company=cast.company)
    upload = image_upload()
    if case == "text_as_jpg":
        upload = image_upload("photo.jpg", b"hello, I am text" * 10)
    elif case == "too_many_pixels":
        settings.TRADEPOST_IMAGE_MAX_PIXELS = 100
    elif case == "oversized":
        settings.TRADEPOST_IMAGE_MAX_BYTES = 50
    else:
        settings.TRADEPOST_PRODUCT_MAX_IMAGES = 6
        for _ in range(6):
            services.product_image_add(
                actor=cast.actor("owner"), product=product, upload=image_upload()
            )
    count = product.images.count()
    response = api.upload(f"/{product.pk}/images", upload)
    assert response.status_code == 422
    assert "image" in errors_by_field(response)
    assert product.images.count() == count


def test_publish_refusals(cast):
    unverified = make_user(verified=False)
    add_member(cast.company, user=unverified)
    draft = make_product(company=cast.company, status=ProductStatus.DRAFT)
    response = Api(unverified).post(f"/{draft.pk}/publish")
    assert response.status_code == 403
    assert response.json()["type"].endswith("email-not-verified")
    hidden = make_product(company=cast.company, status=ProductStatus.HIDDEN)
    response = Api(cast.actor("owner")).post(f"/{hidden.pk}/publish")
    assert response.status_code == 409
    assert response.json()["type"].endswith("hidden-by-moderation")
    hidden.refresh_from_db()
    draft.refresh_from_db()
    assert (hidden.status, draft.status) == (ProductStatus.HIDDEN, ProductStatus.DRAFT)


def test_translation_refusals(cast):
    product = make_product(company=cast.company)
    api = Api(cast.actor("owner"))
    assert api.put(f"/{product.pk}/translations/en", {"title": "Same"}).status_code == 422
    assert api.put(f"/{product.pk}/translations/fr", {"title": "Non"}).status_code == 422
    assert api.put(f"/{product.pk}/translations/zh-hans", {"title": ""}).status_code == 422
    assert not product.translations.exists()


# --- who may -----------------------------------------------------------------------------------


def test_another_companys_product_looks_missing(cast):
    foreign = make_product(company=cast.other_company)
    api = Api(cast.actor("owner"))
    missing = api.get("/987654321")
    other = api.get(f"/{foreign.pk}")
    assert missing.status_code == other.status_code == 404
    strip = lambda body: {k: v for k, v in body.items() if k != "instance"}  # noqa: E731
    assert strip(missing.json()) == strip(other.json())
    image = services.product_image_add(
        actor=cast.actor("other_company"), product=foreign, upload=image_upload()
    )
    mine = make_product(company=cast.company)
    assert api.delete(f"/{mine.pk}/images/{image.pk}").status_code == 404
    assert ProductImage.objects.filter(pk=image.pk).exists()


def test_no_token_is_401(cast):
    response = Api().get("")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"


def test_user_without_company_gets_a_problem():
    response = Api(make_user()).post("", new_product_body())
    assert response.status_code == 403
    assert response.json()["type"].endswith("no-company")
    assert not Product.objects.exists()


def _call(api, action, product, image):
    pk = product.pk
    if action == "update":
        return api.patch(f"/{pk}", {"title": "Hacked"})
    if action == "publish":
        return api.post(f"/{pk}/publish")
    if action == "unpublish":
        return api.post(f"/{pk}/unpublish")
    if action == "delete":
        return api.delete(f"/{pk}")
    if action == "image_add":
        return api.upload(f"/{pk}/images", image_upload())
    if action == "image_remove":
        return api.delete(f"/{pk}/images/{image.pk}")
    if action == "translation":
        return api.put(f"/{pk}/translations/zh-hans", {"title": "标题"})
    return api.get(f"/{pk}")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    "action",
    [
        "read",
        "update",
        "publish",
        "unpublish",
        "delete",
        "image_add",
        "image_remove",
        "translation",
    ],
)
def test_api_permission_matrix(cast, role, action):
    status = ProductStatus.PUBLISHED if action == "unpublish" else ProductStatus.DRAFT
    product = make_product(company=cast.company, status=status)
    image = services.product_image_add(
        actor=cast.actor("owner"), product=product, upload=image_upload()
    )
    before = snapshot(product)
    response = _call(Api(cast.actor(role)), action, product, image)
    if role == "anonymous":
        assert response.status_code == 401
        assert snapshot(product) == before
    elif role == "other_company":
        assert response.status_code == 404
        assert snapshot(product) == before
    else:
        assert role in ALLOWED_ROLES
        assert response.status_code in (200, 201, 204), response.content
        if action != "read":
            assert snapshot(product) != before


@pytest.mark.parametrize("role", ROLES)
def test_api_create_matrix(cast, role):
    response = Api(cast.actor(role)).post("", new_product_body(company_id=cast.company.pk))
    if role == "anonymous":
        assert response.status_code == 401
    elif role == "other_company":
        # Naming another company looks like naming one that does not exist.
        assert response.status_code == 404
    else:
        assert response.status_code == 201
        assert response.json()["company_id"] == cast.company.pk
    expected = 1 if role in ALLOWED_ROLES else 0
    assert Product.objects.filter(company=cast.company).count() == expected


def test_session_auth_needs_csrf(cast):
    product = make_product(company=cast.company, status=ProductStatus.DRAFT)
    client = Client(enforce_csrf_checks=True)
    client.force_login(cast.actor("owner"))
    response = client.post(f"{BASE}/{product.pk}/unpublish")
    assert response.status_code in (401, 403)
    assert client.get(f"{BASE}/{product.pk}").status_code == 200


def test_endpoints_are_in_the_openapi_schema():
    paths = Client().get("/api/v1/openapi.json").json()["paths"]
    assert {"get", "post"} <= set(paths[BASE])
    assert {"get", "patch", "delete"} <= set(paths[BASE + "/{product_id}"])
    assert "post" in paths[BASE + "/{product_id}/images"]
    assert "put" in paths[BASE + "/{product_id}/translations/{language}"]
