"""Every error the API answers is `application/problem+json`, including those no endpoint
produced: unknown addresses, methods an endpoint does not take, unexpected errors."""

from __future__ import annotations

import pytest
from django.test import Client

from tradepost.api import public

pytestmark = pytest.mark.django_db


def _problem(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == status and body["title"]
    return body


@pytest.mark.parametrize("path", ["/api/v1/nothing-here", "/api/v2/products", "/api/"])
def test_an_unknown_api_address_is_a_404_problem(client, path):
    _problem(client.get(path), 404)


def test_a_method_the_endpoint_does_not_take_is_a_405_problem(client):
    response = client.delete("/api/v1/categories")
    body = _problem(response, 405)
    assert body["type"].endswith("method-not-allowed")
    assert "GET" in response["Allow"]


def test_an_unexpected_error_is_a_500_problem(monkeypatch):
    def broken():
        raise RuntimeError("boom: internal detail")

    monkeypatch.setattr(public, "all_categories", broken)
    client = Client(raise_request_exception=False)
    body = _problem(client.get("/api/v1/categories"), 500)
    assert "boom" not in str(body)  # nothing of the error leaks


def test_the_problem_is_in_the_clients_language(client):
    body = _problem(client.get("/api/v1/nothing-here", headers={"Accept-Language": "zh-hant"}), 404)
    assert body["title"] != "Not found"


def test_pages_keep_their_html_errors(client):
    response = client.get("/en/nothing-here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
