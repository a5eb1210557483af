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


@pytest.fixture
def schema(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def _operations(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            yield path, method, operation


def test_the_schema_describes_every_error_as_a_problem(schema):
    assert schema["components"]["schemas"]["Problem"]["required"] == ["type", "title", "status"]
    for path, method, operation in _operations(schema):
        responses = operation["responses"]
        # 414 and 431: the HTTP server's own refusals (tests/api/test_server_refusals.py).
        for status in ("400", "414", "431", "500"):
            assert status in responses, (method, path, status)
        for status, response in responses.items():
            if int(status) >= 400:
                assert "application/problem+json" in response["content"], (method, path)
        security = operation.get("security")
        if security and {} not in security:
            assert "401" in responses, (method, path)
        if "{" in path:
            assert "404" in responses, (method, path)


def test_the_schema_says_which_endpoints_answer_without_a_token(schema, client):
    public = {
        (path, method)
        for path, method, operation in _operations(schema)
        if not operation.get("security") or {} in operation["security"]
    }
    assert ("/api/v1/requests", "get") in public
    assert ("/api/v1/requests/{request_id}", "get") in public
    assert ("/api/v1/requests", "post") not in public
    # ...and it is true: without a token the public list answers, the write does not.
    assert client.get("/api/v1/requests").status_code == 200
    assert client.post("/api/v1/requests", {}, content_type="application/json").status_code == 401


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer tp_not-a-token"}, {"Authorization": "Basic eDp5"}],
    ids=["anonymous", "bad-token", "other-scheme"],
)
def test_a_write_without_valid_credentials_is_a_401_problem_in_the_callers_language(headers):
    """Not django-ninja's English "CSRF check Failed" 403 (the probe's finding): a caller with
    no session is not refused for a CSRF token it has no reason to send."""
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        "/api/v1/requests",
        {},
        content_type="application/json",
        headers={**headers, "Accept-Language": "zh-Hant"},
    )
    body = _problem(response, 401)
    assert body["type"].endswith("unauthenticated")
    assert "CSRF" not in body["detail"] and body["title"] != "Authentication required"


def test_a_signed_in_session_without_the_csrf_token_is_a_403_problem_saying_so():
    from tests.factories.accounts import make_user

    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user())
    response = client.post(
        "/api/v1/requests", {}, content_type="application/json", headers={"Accept-Language": "en"}
    )
    body = _problem(response, 403)
    assert body["type"].endswith("csrf-failed") and "X-CSRFToken" in body["detail"]
    # With the token, the same session gets past authentication, to the service's refusal.
    client.get("/en/")  # sets the csrftoken cookie
    token = client.cookies["csrftoken"].value
    request = {
        "title": "Stainless steel flasks",
        "category_id": 1,
        "quantity": "500",
        "unit": "piece",
        "destination_country": "NL",
        "deadline": "2030-01-31",
    }
    answered = client.post(
        "/api/v1/requests", request, content_type="application/json", headers={"X-CSRFToken": token}
    )
    assert _problem(answered, 403)["type"].endswith("no-company")
