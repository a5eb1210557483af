"""ETag and If-None-Match on the API's GETs: 304 with no body while the client's copy is
current (tradepost.api.etags, docs/api.md, ADR 0029)."""

from __future__ import annotations

import io

import pytest
from django.http import FileResponse, HttpResponse
from django.test import Client, RequestFactory

from tests.factories.catalog import make_product
from tradepost.accounts.tokens import token_create
from tradepost.api.etags import conditional_get
from tradepost.catalog.models import Product

pytestmark = pytest.mark.django_db


def _vary(response) -> set[str]:
    return {part.strip().lower() for part in response["Vary"].split(",")}


def test_a_public_read_carries_an_etag_and_answers_304_while_it_is_current(client):
    product = make_product(title="Enamel camping mug")
    path = f"/api/v1/products/{product.pk}"
    first = client.get(path)
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"') and len(etag) == 34
    assert first["Cache-Control"] == "no-cache"
    assert _vary(first) >= {"accept-language", "authorization", "cookie"}

    same = client.get(path, headers={"If-None-Match": etag})
    assert same.status_code == 304
    assert same.content == b""
    assert same["ETag"] == etag
    assert same["Cache-Control"] == "no-cache"
    assert _vary(same) >= {"accept-language", "authorization", "cookie"}


@pytest.mark.parametrize(
    "condition",
    ["W/{etag}", '"other", {etag}', "*"],
    ids=["weak", "one-of-a-list", "any"],
)
def test_if_none_match_compares_weakly_and_takes_lists(client, condition):
    path = f"/api/v1/products/{make_product().pk}"
    etag = client.get(path)["ETag"]
    answer = client.get(path, headers={"If-None-Match": condition.format(etag=etag)})
    assert answer.status_code == 304


def test_another_etag_gets_the_whole_answer(client):
    path = f"/api/v1/products/{make_product().pk}"
    answer = client.get(path, headers={"If-None-Match": '"not-this-one"'})
    assert answer.status_code == 200
    assert answer.json()["id"]


def test_the_etag_changes_when_the_resource_changes(client):
    product = make_product(title="Enamel camping mug")
    path = f"/api/v1/products/{product.pk}"
    before = client.get(path)["ETag"]
    Product.objects.filter(pk=product.pk).update(title="Enamel camping mug, 350 ml")
    changed = client.get(path, headers={"If-None-Match": before})
    assert changed.status_code == 200
    assert changed.json()["title"] == "Enamel camping mug, 350 ml"
    assert changed["ETag"] != before
    assert client.get(path, headers={"If-None-Match": changed["ETag"]}).status_code == 304


def test_the_etag_follows_the_language(client):
    path = "/api/v1/categories"
    english = client.get(path, headers={"Accept-Language": "en"})
    chinese = client.get(path, headers={"Accept-Language": "zh-hans"})
    if english.content != chinese.content:
        assert english["ETag"] != chinese["ETag"]
    else:
        assert english["ETag"] == chinese["ETag"]


def test_a_list_has_an_etag_per_page(client):
    for _ in range(3):
        make_product()
    first = client.get("/api/v1/products", {"page_size": 1})
    second = client.get("/api/v1/products", {"page_size": 1, "page": 2})
    assert first["ETag"] != second["ETag"]
    again = client.get(
        "/api/v1/products", {"page_size": 1}, headers={"If-None-Match": first["ETag"]}
    )
    assert again.status_code == 304


def test_an_answer_for_a_token_is_private(cast):
    make_product(company=cast.company)
    _token, secret = token_create(user=cast.member, name="tests")
    client = Client(headers={"Authorization": f"Bearer {secret}"})
    first = client.get("/api/v1/me/products")
    assert first.status_code == 200
    assert first["Cache-Control"] == "private, no-cache"
    again = client.get("/api/v1/me/products", headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again["Cache-Control"] == "private, no-cache"


def test_an_answer_for_a_session_is_private(cast):
    client = Client()
    client.force_login(cast.member)
    assert client.get("/api/v1/me")["Cache-Control"] == "private, no-cache"


def test_errors_and_writes_carry_no_etag(client, cast):
    assert "ETag" not in client.get("/api/v1/products/999999")
    _token, secret = token_create(user=cast.member, name="tests")
    written = Client().post(
        "/api/v1/me/products",
        "{}",
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert written.status_code == 422
    assert "ETag" not in written


def test_an_endpoints_own_caching_headers_are_kept():
    """A PDF says `private, no-store` itself; a streamed file gets no ETag at all."""
    request = RequestFactory().get("/api/v1/anything")

    def pdf(request):
        response = HttpResponse(b"%PDF-1.7", content_type="application/pdf")
        response["Cache-Control"] = "private, no-store"
        return response

    answered = conditional_get(pdf)(request)
    assert answered["Cache-Control"] == "private, no-store"
    assert answered["ETag"]

    def stream(request):
        response = FileResponse(io.BytesIO(b"attachment"), content_type="application/pdf")
        response["Cache-Control"] = "private, no-store"
        return response

    streamed = conditional_get(stream)(request)
    assert "ETag" not in streamed
    assert streamed["Cache-Control"] == "private, no-store"
    assert "Authorization" in streamed["Vary"]


def test_the_schema_documents_if_none_match_and_304_on_every_get(client):
    schema = client.get("/api/v1/openapi.json").json()
    assert schema["components"]["parameters"]["IfNoneMatch"]["name"] == "If-None-Match"
    reads = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method != "get":
                assert "304" not in operation["responses"], (method, path)
                continue
            reads += 1
            names = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
            assert "If-None-Match" in names, path
            assert "ETag" in operation["responses"]["304"]["headers"], path
            assert "ETag" in operation["responses"]["200"]["headers"], path
    assert reads > 20
