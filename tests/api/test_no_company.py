"""A caller who acts for no company, on the operations of their own company: one rule
(`companies.actors.Actor.require_company`), one answer (403 `no-company`, "You do not act for a
company", in the caller's language), and the schema lists that 403 for every such read."""

from __future__ import annotations

import pytest

from tests.api_client import ApiClient
from tests.factories.companies import make_cast
from tradepost.api.openapi import COMPANY_READS

pytestmark = pytest.mark.django_db

#: (method, path, body) of the operations on the caller's own company.
OWN_COMPANY = [
    ("patch", "/me/company", {"website": "https://example.com"}),
    ("get", "/me/insights", None),
    ("get", "/me/showcase", None),
    ("post", "/me/showcase", {"product_id": 1}),
    ("delete", "/me/showcase/1", None),
    ("get", "/me/subscription", None),
    ("post", "/me/subscription", {"action": "cancel"}),
    ("put", "/me/subscription/billing", {"legal_name": "X Ltd", "country": "CN"}),
    ("get", "/me/invoices", None),
    ("get", "/me/verification", None),
    ("get", "/me/verification/requests", None),
    ("post", "/me/verification/withdraw", None),
    ("get", "/requests/mine", None),
    ("get", "/requests/matching", None),
]


def _send(api: ApiClient, method: str, path: str, body, language: str = "en"):
    headers = {**api.headers, "Accept-Language": language}
    url = "/api/v1" + path
    if method in ("get", "delete"):
        return getattr(api.client, method)(url, headers=headers)
    return getattr(api.client, method)(
        url, body or {}, content_type="application/json", headers=headers
    )


@pytest.mark.parametrize("who", ["loner", "operator"])
def test_every_operation_on_ones_own_company_refuses_who_acts_for_none(who):
    cast = make_cast()
    api = ApiClient(cast.user(who))
    for method, path, body in OWN_COMPANY:
        response = _send(api, method, path, body)
        assert response.status_code == 403, (method, path, response.content)
        problem = response.json()
        assert problem["type"].endswith("/problems/no-company"), (method, path)
        assert problem["title"] == "You do not act for a company"
        assert problem["detail"] == "You do not belong to a company."


def test_the_refusal_is_in_the_callers_language():
    api = ApiClient(make_cast().loner)
    problem = _send(api, "get", "/me/subscription", None, language="zh-hans").json()
    assert problem["type"].endswith("/problems/no-company")
    assert (problem["title"], problem["detail"]) == ("您未代表任何公司", "您尚未加入任何公司。")


def test_the_schema_lists_the_403_of_every_read_that_refuses_it():
    """Every read that needs a token, without a path parameter, answers a caller without a
    company 403 exactly when the schema lists a 403 for it (COMPANY_READS)."""
    api = ApiClient(make_cast().loner)
    schema = api.client.get("/api/v1/openapi.json").json()
    reads = {
        path: operations["get"]
        for path, operations in schema["paths"].items()
        if "get" in operations
        and {} not in (operations["get"].get("security") or [{}])
        and "{" not in path
        and not path.startswith("/api/v1/operator/")
    }
    assert set(reads) >= COMPANY_READS
    for path, operation in reads.items():
        refused = _send(api, "get", path.removeprefix("/api/v1"), None).status_code == 403
        assert refused is ("403" in operation["responses"]), path
        assert refused is (path in COMPANY_READS), path
