"""/api/v1/me/showcase (the company's choice, its permission matrix and refusals) and the public
/api/v1/showcase (the labelled block), and what the schema says of them."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories.catalog import make_product, showcase
from tests.factories.companies import make_cast, make_trader
from tests.factories.membership import gold, subscribe
from tests.factories.search import index
from tradepost.accounts.tokens import token_create
from tradepost.catalog.models import ProductStatus, Showcase

pytestmark = pytest.mark.django_db

URL = "/api/v1/me/showcase"


def _client(user, language: str = "en") -> Client:
    _token, secret = token_create(user=user, name="tests")
    return Client(headers={"Authorization": f"Bearer {secret}", "Accept-Language": language})


def _cast_on_gold():
    cast = make_cast()
    subscribe(cast.company, gold(), actor=cast.owner)
    return cast


def test_choose_read_and_remove():
    cast = _cast_on_gold()
    product = make_product(company=cast.company, title="Vacuum flask 500 ml")
    api = _client(cast.owner)
    empty = api.get(URL).json()
    assert empty == {"slots": 3, "used": 0, "showing": 0, "can_choose": True, "items": []}

    added = api.post(URL, {"product_id": product.pk}, content_type="application/json")
    assert added.status_code == 201
    [item] = added.json()["items"]
    assert item["product_id"] == product.pk and item["state"] == "showing"
    again = api.post(URL, {"product_id": product.pk}, content_type="application/json")
    assert again.status_code == 200 and again.json()["used"] == 1

    assert api.delete(f"{URL}/{product.pk}").status_code == 204
    assert api.delete(f"{URL}/{product.pk}").status_code == 404
    assert not Showcase.objects.exists()


def test_the_free_plan_is_refused_with_a_clear_problem():
    owner, company = make_trader()
    product = make_product(company=company)
    response = _client(owner, "zh-hant").post(
        URL, {"product_id": product.pk}, content_type="application/json"
    )
    assert response.status_code == 403
    problem = response.json()
    assert problem["type"].endswith("showcase-no-slots")
    assert "貴公司的方案沒有展示位" in problem["detail"]
    assert not Showcase.objects.exists()


def test_full_and_unpublished_are_conflicts():
    cast = _cast_on_gold()
    api = _client(cast.owner)
    for _ in range(3):
        showcase(make_product(company=cast.company), actor=cast.owner)
    full = api.post(
        URL, {"product_id": make_product(company=cast.company).pk}, content_type="application/json"
    )
    assert full.status_code == 409 and full.json()["type"].endswith("showcase-full")
    Showcase.objects.all().delete()
    draft = make_product(company=cast.company, status=ProductStatus.DRAFT)
    refused = api.post(URL, {"product_id": draft.pk}, content_type="application/json")
    assert refused.status_code == 409
    assert refused.json()["type"].endswith("showcase-not-published")


#: who, and what a POST and a DELETE answer: owners and admins choose; a plain member reads
#: (403 on writes); another company's owner is told the product does not exist.
MATRIX = [("owner", 201, 204), ("admin", 201, 204), ("member", 403, 403), ("outsider", 404, 404)]


@pytest.mark.parametrize(("who", "post_status", "delete_status"), MATRIX)
def test_permission_matrix(who, post_status, delete_status):
    cast = _cast_on_gold()
    chosen = make_product(company=cast.company)
    showcase(chosen, actor=cast.owner)
    other = make_product(company=cast.company)
    api = _client(getattr(cast, who))
    before = list(Showcase.objects.values_list("product_id", flat=True))
    posted = api.post(URL, {"product_id": other.pk}, content_type="application/json")
    assert posted.status_code == post_status, posted.content
    if post_status != 201:
        assert list(Showcase.objects.values_list("product_id", flat=True)) == before
    deleted = api.delete(f"{URL}/{chosen.pk}")
    assert deleted.status_code == delete_status
    if delete_status != 204:
        assert Showcase.objects.filter(product=chosen).exists()
    if who == "member":
        assert posted.json()["type"].endswith("showcase-managers-only")
        mine = api.get(URL).json()
        assert mine["can_choose"] is False and mine["used"] == 1


def test_another_companys_product_ids_are_not_found():
    cast = _cast_on_gold()
    theirs = make_product(company=cast.other_company)
    api = _client(cast.owner)
    response = api.post(URL, {"product_id": theirs.pk}, content_type="application/json")
    assert response.status_code == 404
    assert api.delete(f"{URL}/{theirs.pk}").status_code == 404


def test_without_a_token_or_a_company():
    assert Client().get(URL).status_code == 401
    loner = make_cast().loner
    refused = _client(loner).get(URL)
    assert refused.status_code == 403 and refused.json()["type"].endswith("/no-company")


@pytest.mark.parametrize(
    ("language", "label"),
    [
        ("en", "Sponsored · Paid supplier showcase"),
        ("zh-hans", "赞助 · 付费供应商展示"),
        ("zh-hant", "贊助 · 付費供應商展示"),
    ],
)
def test_the_public_block_is_labelled_and_matches_the_words(language, label):
    owner, company = make_trader()
    subscribe(company, gold(), actor=owner)
    flask = make_product(company=company, title="Stainless steel vacuum flask")
    pen = make_product(company=company, title="Ballpoint pen")
    index(flask, pen)
    showcase(flask, actor=owner)
    showcase(pen, actor=owner)
    found = Client().get("/api/v1/showcase", {"q": "保温杯", "language": language}).json()
    assert found["label"] == label
    assert found["about_url"].endswith(f"/{language}/sponsored/")
    assert [item["id"] for item in found["items"]] == [flask.pk]
    assert found["items"][0]["sponsored"] is True
    assert found["items"][0]["url"].endswith(f"/{language}/products/{flask.pk}-product/")
    home = Client().get("/api/v1/showcase").json()
    assert {item["id"] for item in home["items"]} == {flask.pk, pen.pk}
    assert Client().get("/api/v1/showcase", {"q": "towels"}).json()["items"] == []


def test_the_schema_describes_the_refusals():
    schema = Client().get("/api/v1/openapi.json").json()
    post = schema["paths"][URL]["post"]["responses"]
    assert {"201", "200", "401", "403", "404", "409", "422"} <= set(post)
    delete = schema["paths"][URL + "/{product_id}"]["delete"]["responses"]
    assert {"204", "403", "404", "409"} <= set(delete)
    public = schema["paths"]["/api/v1/showcase"]["get"]
    assert {} in public["security"]
