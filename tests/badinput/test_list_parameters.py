"""Extreme values in the query parameters of every page and every API list (found by walking
the URL resolver and the served OpenAPI schema), never a 5xx: a page drops or bounds a value it
cannot use (the request board once computed "posted within 999,999 days" and overflowed the
date), the API refuses one outside its schema with a 422 problem and answers one at its
schema's bounds.

A page gets every parameter any page reads at once, set to one extreme value; each API
operation gets each of its parameters in turn, at the bounds its schema states and past them."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

import pytest
from django.conf import settings
from django.test import Client
from django.urls import NoReverseMatch, reverse
from django.urls.resolvers import get_resolver
from django.utils import translation

from tests.badinput.payloads import OVERLONG
from tests.badinput.web_cases import OPERATOR, OWNER, _walk
from tests.badinput.world import World
from tradepost.search.index import beat

pytestmark = pytest.mark.django_db

#: Every query parameter a page reads (the search's filters, the board's, pagination, sorting,
#: the tabs and formats of lists and exports).
PAGE_PARAMETERS = (
    "q", "page", "per_page", "sort", "tab", "category", "country", "destination", "language",
    "business_type", "incoterm", "price_min", "price_max", "moq_max", "lead_time_max",
    "quantity_min", "quantity_max", "posted_within", "verified", "company", "currency",
    "status", "active", "type", "format", "product", "title", "p", "next", "target",
    "target_id",
)  # fmt: skip

#: One value for every parameter at once, as it stands in the address (already encoded).
EXTREMES = {
    "huge": "9" * 40,
    "large": "999999999",
    "negative": "-1",
    "overflow": "1e400",
    "nan": "NaN",
    "infinity": "inf",
    "words": "twelve",
    "nul": quote("x\x00y"),
    "surrogate-bytes": "x%ED%A0%80y",
    "not-utf8": "%FF%FE",
    "script": quote("<script>alert(1)</script>"),
    "overlong": quote(OVERLONG[:6_000]),
}

#: URL names that are no page to list anything (they act on GET, or stream a file).
NOT_LISTS = frozenset({"accounts:logout", "set_language"})


def _pages() -> list[str]:
    """The project's pages that take no argument in their address (lists, desks, forms)."""
    names = []
    for name, view in _walk(get_resolver().url_patterns):
        if not getattr(view, "__module__", "").startswith("tradepost.") or name in NOT_LISTS:
            continue
        try:
            with translation.override("zh-hans"):
                reverse(name)
        except NoReverseMatch:
            continue
        names.append(name)
    return sorted(set(names))


def _client(sessions: dict[str, str], actor: str) -> Client:
    client = Client(raise_request_exception=False)
    client.cookies[settings.SESSION_COOKIE_NAME] = sessions[actor]
    return client


@pytest.mark.parametrize("value", list(EXTREMES), ids=list(EXTREMES))
def test_every_page_survives_extreme_parameters(world: World, sessions, value: str):
    beat()  # this node's worker is alive: /healthz answers 200, not 503
    owner, operator = _client(sessions, OWNER), _client(sessions, OPERATOR)
    query = "&".join(f"{name}={EXTREMES[value]}" for name in PAGE_PARAMETERS)
    pages = _pages()
    assert len(pages) > 40, pages
    failed = []
    for name in pages:
        with translation.override("zh-hans"):
            path = reverse(name)
        client = operator if "/operator/" in path or "/admin/" in path else owner
        response = client.get(f"{path}?{query}")
        if response.status_code >= 500:
            failed.append(f"{path}: {response.status_code}")
    assert not failed, "\n".join(failed)


def _list_operations(http: Client) -> list[tuple[str, list[dict]]]:
    """(path, query parameters) of every API GET without a path parameter."""
    schema = json.loads(http.get("/api/v1/openapi.json").content)
    found = []
    for path, item in schema["paths"].items():
        get = item.get("get")
        if get is None or "{" in path:
            continue
        parameters = [p for p in get.get("parameters", []) if p["in"] == "query"]
        if parameters:
            found.append((path, parameters))
    return found


def _values(parameter: dict) -> list[str]:
    """The schema's bounds for a number, and values past every bound."""
    schema = parameter.get("schema", {})
    options = [schema, *schema.get("anyOf", [])]
    values = ["9" * 40, "-1", "1e400", "NaN", quote("x\x00y"), "%FF"]
    for option in options:
        for bound in ("maximum", "minimum"):
            if bound in option:
                values.append(str(option[bound]))
        if "maxLength" in option:
            values.append("x" * (option["maxLength"] + 1))
    return values


def test_every_api_list_survives_extreme_parameters(http: Client, world: World):
    operations = _list_operations(http)
    assert len(operations) > 10, operations
    failed = []
    for path, parameters in operations:
        for parameter in parameters:
            for value in _values(parameter):
                response = http.get(
                    f"/api/v1{path}?{parameter['name']}={value}",
                    headers={"Authorization": f"Bearer {world.operator_secret}"}
                    if "/operator" in path or path.startswith("/screening")
                    else {"Authorization": f"Bearer {world.api_secret}"},
                )
                if response.status_code >= 500:
                    failed.append(f"{path}?{parameter['name']}={value[:40]}: 5xx")
                elif response.status_code >= 400:
                    assert response["Content-Type"] == "application/problem+json", path
    assert not failed, "\n".join(failed)


def test_the_request_board_bounds_the_days_it_is_asked_for(client, world: World):
    """What the probe found: a 500 (OverflowError) for "posted within 999,999 days"."""
    for days in ("999999", "3650", "1"):
        response = client.get(f"/en/requests/?{urlencode({'posted_within': days})}")
        assert response.status_code == 200
