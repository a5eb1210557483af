"""POST /api/v1/me/products/{id}/publish with a likely duplicate: 409 naming it, unless the
body confirms with {"allow_duplicate": true} (ADR 0024)."""

from __future__ import annotations

from functools import partial

import pytest
from django.test import Client

from tests.api_client import ApiClient
from tests.duplicate_listings import FLASK
from tradepost.catalog.models import ProductStatus

pytestmark = pytest.mark.django_db

BASE = "/api/v1/me/products"
Api = partial(ApiClient, base=BASE)


def test_a_likely_duplicate_answers_409_naming_it(cast, original, copy):
    response = Api(cast.actor("member")).post(f"/{copy.pk}/publish")
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"].endswith("/likely-duplicate")
    assert problem["status"] == 409
    assert FLASK in problem["detail"]
    (duplicate,) = problem["duplicates"]
    assert duplicate["id"] == original.pk
    assert duplicate["title"] == FLASK
    assert duplicate["url"] == original.get_absolute_url()
    assert 0 < duplicate["similarity"] <= 1
    copy.refresh_from_db()
    assert copy.status == ProductStatus.DRAFT


def test_allow_duplicate_publishes_it(cast, original, copy):
    response = Api(cast.actor("member")).post(f"/{copy.pk}/publish", {"allow_duplicate": True})
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "published"


def test_allow_duplicate_false_is_the_default(cast, original, copy):
    response = Api(cast.actor("member")).post(f"/{copy.pk}/publish", {"allow_duplicate": False})
    assert response.status_code == 409


def test_a_body_is_optional(cast, copy):
    api = Api(cast.actor("member"))
    # What `curl -X POST` sends: no body, no Content-Type.
    response = api.client.generic("POST", f"{BASE}/{copy.pk}/publish", b"", headers=api.headers)
    assert response.status_code == 200, response.content


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_allow_duplicate_must_be_a_boolean(cast, original, copy, value):
    response = Api(cast.actor("member")).post(f"/{copy.pk}/publish", {"allow_duplicate": value})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "allow_duplicate"
    copy.refresh_from_db()
    assert copy.status == ProductStatus.DRAFT


def test_the_schema_documents_the_body_and_the_duplicates(client: Client):
    schema = client.get("/api/v1/openapi.json").json()
    operation = schema["paths"]["/api/v1/me/products/{product_id}/publish"]["post"]
    assert "requestBody" in operation
    assert "409" in operation["responses"]
    assert "duplicates" in schema["components"]["schemas"]["Problem"]["properties"]
