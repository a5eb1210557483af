"""Every list of the API is paged one way, and buying requests are filtered with one spelling.

docs/adr/0014-one-pagination-style.md: `page` and `page_size` in, `items`, `count`, `page`,
`page_size`, `next_page` and `previous_page` out; a page past the last one is empty; a bad
value, or a parameter the list does not take, is a 422 problem in the client's language.
"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.imports import upload_catalogue
from tests.factories.sourcing import make_request
from tests.factories.webhooks import add_endpoint
from tradepost.alerts.services import saved_search_create
from tradepost.search import indexer

pytestmark = pytest.mark.django_db

PAGE_FIELDS = {"items", "count", "page", "page_size", "next_page", "previous_page"}

#: Every paged list, and whether it needs a signed-in user.
PAGED = {
    "/api/v1/companies": False,
    "/api/v1/products": False,
    "/api/v1/requests": False,
    "/api/v1/requests/mine": True,
    "/api/v1/requests/matching": True,
    "/api/v1/requests/quotations/mine": True,
    "/api/v1/alerts": True,
    "/api/v1/alerts/{alert_id}/matches": True,
    "/api/v1/conversations": True,
    "/api/v1/conversations/{conversation_id}/messages": True,
    "/api/v1/notifications": True,
    "/api/v1/me/products": True,
    "/api/v1/search/products": False,
    "/api/v1/search/companies": False,
    "/api/v1/search/requests": False,
    "/api/v1/plans": False,
    "/api/v1/me/invoices": True,
    "/api/v1/operator/invoices/awaiting": True,
    "/api/v1/me/verification/requests": True,
    "/api/v1/operator/verification": True,
    "/api/v1/operator/reports": True,
    "/api/v1/operator/banned-terms": True,
    "/api/v1/operator/held-listings": True,
    "/api/v1/companies/{slug}/reviews": False,
    "/api/v1/me/webhooks": True,
    "/api/v1/me/webhooks/{endpoint_id}/deliveries": True,
    "/api/v1/me/imports": True,
    "/api/v1/me/imports/{import_id}/rows": True,
}
#: Paged lists only operators read (the world's operator reads them).
OPERATOR_LISTS = {
    "/api/v1/operator/invoices/awaiting",
    "/api/v1/operator/verification",
    "/api/v1/operator/reports",
    "/api/v1/operator/banned-terms",
    "/api/v1/operator/held-listings",
}
#: Lists bounded by what they are, answered whole: the category tree, the files of one
#: request or quotation (a few each), one request's quotations side by side (its quote limit),
#: a company's showcase and the sponsored block.
WHOLE = {
    "/api/v1/categories",
    "/api/v1/requests/{request_id}/attachments",
    "/api/v1/requests/quotations/{quotation_id}/attachments",
    "/api/v1/requests/{request_id}/quotations",
    # The company's showcase (its few choices) and the sponsored block (a few products).
    "/api/v1/me/showcase",
    "/api/v1/showcase",
    # The events a webhook endpoint can subscribe to (a fixed handful).
    "/api/v1/me/webhooks/event-types",
}
#: The buying-request filters, one spelling on the board, in the search and on the pages.
REQUEST_FILTERS = {"category", "destination", "quantity_min", "quantity_max", "posted_within"}
RETIRED = ["min_quantity", "max_quantity", "destination_country", "category_id", "posted"]


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return Client().get("/api/v1/openapi.json").json()


def _resolve(schema, node):
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _gets(schema):
    for path, operations in schema["paths"].items():
        if "get" in operations:
            yield path, operations["get"]


def _query_names(operation):
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}


def _is_list(schema, operation):
    content = operation["responses"]["200"].get("content", {}).get("application/json")
    if content is None:
        return False
    body = _resolve(schema, content["schema"])
    return body.get("type") == "array" or "items" in body.get("properties", {})


def test_every_list_is_paged_or_listed_as_whole(schema):
    lists = {path for path, operation in _gets(schema) if _is_list(schema, operation)}
    assert lists == set(PAGED) | WHOLE


@pytest.mark.parametrize("path", sorted(PAGED))
def test_the_schema_describes_one_paging_style(schema, path):
    operation = schema["paths"][path]["get"]
    parameters = {p["name"]: p["schema"] for p in operation["parameters"] if p["in"] == "query"}
    assert parameters["page"]["type"] == "integer" and parameters["page"]["minimum"] == 1
    assert parameters["page_size"]["type"] == "integer"
    assert parameters["page_size"]["minimum"] == 1 and parameters["page_size"]["maximum"] <= 100
    assert not {"cursor", "limit", "offset", "per_page"} & set(parameters)
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
    body = _resolve(schema, ok)
    assert set(body["required"]) >= PAGE_FIELDS
    assert body["properties"]["items"]["type"] == "array"
    assert "422" in {str(status) for status in operation["responses"]}


def test_no_other_list_takes_paging_parameters(schema):
    for path, operation in _gets(schema):
        if path not in PAGED:
            assert not {"page", "page_size", "cursor", "per_page"} & _query_names(operation), path


def test_buying_requests_are_filtered_with_one_spelling(schema):
    board = _query_names(schema["paths"]["/api/v1/requests"]["get"])
    found = _query_names(schema["paths"]["/api/v1/search/requests"]["get"])
    assert board - {"page", "page_size"} == REQUEST_FILTERS
    assert found >= REQUEST_FILTERS
    for path, operation in _gets(schema):
        assert not set(RETIRED) & _query_names(operation), path


# --- behaviour ----------------------------------------------------------------------------


@pytest.fixture
def world():
    """A signed-in supplier with a product, a buyer's open request, and a conversation."""
    from tradepost.messaging import services as messaging

    supplier, company = make_trader(country="CN")
    product = make_product(company=company, title="Ballpoint pens")
    buyer, _buyer_company = make_trader(country="NL")
    make_request(actor=buyer, title="Ballpoint pens", quantity="5000")
    conversation = messaging.inquiry_send(
        actor=buyer, product=product, company=None, quantity=None, unit="", message="Price?"
    )
    endpoint, _secret = add_endpoint(supplier, "https://erp.example.com/hooks")
    catalogue_import = upload_catalogue(supplier, company)
    alert = saved_search_create(actor=supplier, kind="request", query="ballpoint pens")
    indexer.apply_outbox()
    client = Client()
    client.force_login(supplier)
    operator = Client()
    operator.force_login(make_operator())
    return {
        "client": client,
        "operator": operator,
        "conversation": conversation,
        "slug": company.slug,
        "endpoint": endpoint,
        "import": catalogue_import,
        "alert": alert,
    }


def _client(world, path):
    return world["operator"] if path in OPERATOR_LISTS else world["client"]


def _paths(world):
    conversation_id = world["conversation"].pk
    return [
        path.format(
            conversation_id=conversation_id,
            slug=world["slug"],
            endpoint_id=world["endpoint"].pk,
            import_id=world["import"].pk,
            alert_id=world["alert"].pk,
        )
        for path in sorted(PAGED)
    ]


def test_every_list_answers_the_same_page(world):
    for path in _paths(world):
        client = _client(world, path)
        first = client.get(path, {"page_size": 1})
        assert first.status_code == 200, (path, first.content)
        body = first.json()
        assert set(body) >= PAGE_FIELDS, path
        assert body["page"] == 1 and body["page_size"] == 1 and body["previous_page"] is None
        assert len(body["items"]) == min(1, body["count"]), path
        assert body["next_page"] == (2 if body["count"] > 1 else None), path


def test_a_page_past_the_last_is_empty(world):
    for path in _paths(world):
        client = _client(world, path)
        response = client.get(path, {"page": 99, "page_size": 5})
        assert response.status_code == 200, (path, response.content)
        body = response.json()
        assert body["items"] == [] and body["next_page"] is None and body["page"] == 99, path


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"page": "0"}, "page"),
        ({"page": "-1"}, "page"),
        ({"page": "abc"}, "page"),
        ({"page": "99999999999999999999"}, "page"),
        ({"page_size": "0"}, "page_size"),
        ({"page_size": "10000"}, "page_size"),
        ({"page_size": "2.5"}, "page_size"),
        ({"page": "\t2"}, "page"),
        ({"page": " 2 "}, "page"),
        ({"page": "+2"}, "page"),
        ({"page_size": "1_0"}, "page_size"),
        ({"page_size": "10.0"}, "page_size"),
        ({"per_page": "5"}, "per_page"),
        ({"cursor": "abc"}, "cursor"),
        ({"limit": "5"}, "limit"),
    ],
)
def test_bad_paging_is_a_422_problem_in_the_clients_language(world, params, field):
    for path in _paths(world):
        client = _client(world, path)
        response = client.get(path, params, headers={"Accept-Language": "zh-Hans"})
        assert response.status_code == 422, (path, params, response.content)
        assert response["Content-Type"] == "application/problem+json"
        body = response.json()
        assert [error["field"] for error in body["errors"]] == [field], path
        assert body["title"] != "The request has invalid fields"  # translated
        assert all(not error["message"].isascii() for error in body["errors"]), body


def test_the_board_takes_the_one_spelling_and_refuses_the_others():
    wanted = make_request(title="Flasks for Germany", quantity="20000", destination_country="DE")
    make_request(title="Mugs for France", quantity="50", destination_country="FR")
    indexer.apply_outbox()
    client = Client()
    params = {"destination": "de", "quantity_min": "1000", "quantity_max": "50000"}
    for path in ("/api/v1/requests", "/api/v1/search/requests"):
        body = client.get(path, {**params, "posted_within": "7"}).json()
        assert [item["id"] for item in body["items"]] == [wanted.pk], path
        both = client.get(path, {"destination": "DE,FR"}).json()
        assert both["count"] == 2, path
        for name in RETIRED:
            response = client.get(path, {name: "1"})
            assert response.status_code == 422, (path, name)
            assert [error["field"] for error in response.json()["errors"]] == [name]
        assert client.get(path, {"destination": "XX"}).status_code == 422


def _query_numbers() -> list[tuple[str, str, object]]:
    """Every number an operation reads from its query: (operation, parameter, type)."""
    import typing
    from decimal import Decimal

    from tradepost.api.urls import api

    def numbers(annotation: object) -> bool:
        if annotation in (int, float, Decimal):
            return True
        return any(numbers(argument) for argument in typing.get_args(annotation))

    found = []
    for _prefix, router in api._routers:
        for path_view in router.path_operations.values():
            for operation in path_view.operations:
                for model in operation.signature.models:
                    if getattr(model, "__ninja_param_source__", None) != "query":
                        continue
                    fields = list(model.model_fields.items())
                    for name, field in list(fields):
                        inner = getattr(field.annotation, "model_fields", None)
                        if inner:  # a schema of parameters (filters, paging)
                            fields += [(f"{name}.{key}", value) for key, value in inner.items()]
                    for name, field in fields:
                        if numbers(field.annotation):
                            found.append((operation.view_func.__name__, name, field))
    return found


def test_every_number_in_a_query_is_read_as_the_schema_writes_it():
    """pydantic reads " 6", "+6" and "6_000" as numbers; the API's query numbers take the
    schema's spelling only (api.bodies.QueryInt, QueryFloat, QueryDecimal)."""
    numbers = _query_numbers()
    assert len(numbers) > 30
    lax = [
        (operation, name)
        for operation, name, field in numbers
        if not any(_written_as_check(item) for item in [*field.metadata, field.annotation])
    ]
    assert not lax, lax


def _written_as_check(item: object) -> bool:
    import typing

    function = getattr(item, "func", None)
    if function is not None and function.__qualname__.startswith("_written_as"):
        return True
    return any(_written_as_check(argument) for argument in typing.get_args(item))


@pytest.mark.parametrize("limit", ["\t6", " 6", "6 ", "+6", "6_0", "6.0", "６"])
def test_a_number_written_otherwise_is_a_422_problem(client, limit):
    response = client.get("/api/v1/search/suggest", {"q": "fla", "limit": limit})
    assert response.status_code == 422, (limit, response.content)
    assert [error["field"] for error in response.json()["errors"]] == ["limit"]
    assert client.get("/api/v1/search/suggest", {"q": "fla", "limit": "6"}).status_code == 200
