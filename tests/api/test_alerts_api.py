"""/api/v1/alerts: trade alerts (saved searches) through the API, with the services' rules
and messages: a company's alerts with its plan's usage, the CRUD, another company's alert
answering 404 like a missing one, the plan's limit (409), the matches as they are shown now,
and bad input refused as a problem document in the caller's language, never a 500."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext

from tests.api_client import ApiClient
from tests.factories.catalog import make_product, translate
from tests.factories.companies import make_company
from tests.factories.sourcing import make_request
from tradepost.alerts.models import AlertDigest, AlertMatch, SavedSearch
from tradepost.alerts.services import saved_search_create
from tradepost.api.urls import api
from tradepost.catalog.models import ProductStatus

pytestmark = pytest.mark.django_db

BASE = "/api/v1/alerts"
PROBLEM = "application/problem+json"


def _zh(client: ApiClient) -> ApiClient:
    client.headers["Accept-Language"] = "zh-Hans"
    return client


def _raw(client: ApiClient, method: str, path: str, raw: str):
    return getattr(client.client, method)(
        path, raw, content_type="application/json", headers=client.headers
    )


def _problem(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    return response.json()


def _fields(problem: dict) -> list[str]:
    return [error["field"] for error in problem.get("errors", [])]


# --- the schema ------------------------------------------------------------------------------


def test_the_schema_describes_every_operation():
    schema = api.get_openapi_schema()
    paths = schema["paths"]
    assert set(paths[BASE]) == {"get", "post"}
    assert set(paths[BASE + "/{alert_id}"]) == {"get", "patch", "delete"}
    assert set(paths[BASE + "/{alert_id}/matches"]) == {"get"}
    ids = {
        paths[BASE]["get"]["operationId"],
        paths[BASE]["post"]["operationId"],
        paths[BASE + "/{alert_id}"]["get"]["operationId"],
        paths[BASE + "/{alert_id}"]["patch"]["operationId"],
        paths[BASE + "/{alert_id}"]["delete"]["operationId"],
        paths[BASE + "/{alert_id}/matches"]["get"]["operationId"],
    }
    assert ids == {
        "listAlerts",
        "createAlert",
        "getAlert",
        "updateAlert",
        "deleteAlert",
        "listAlertMatches",
    }
    # The list of one's company's alerts refuses a caller without one (403 `no-company`).
    assert "403" in {str(status) for status in paths[BASE]["get"]["responses"]}
    assert "409" in {str(status) for status in paths[BASE]["post"]["responses"]}
    listed = paths[BASE]["get"]["responses"][200]["content"]["application/json"]["schema"]
    page = schema["components"]["schemas"][listed["$ref"].rsplit("/", 1)[-1]]
    assert {"items", "count", "usage"} <= set(page["required"])
    body = paths[BASE]["post"]["requestBody"]["content"]["application/json"]["schema"]
    created = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    assert created["required"] == ["kind"]
    assert created["additionalProperties"] is False


# --- the use cases ---------------------------------------------------------------------------


def test_a_member_saves_reads_changes_and_deletes_an_alert(cast):
    client = _zh(ApiClient(cast.member))
    created = client.post(
        BASE,
        {
            "kind": "product",
            "query": "vacuum flask",
            "params": {"country": ["CN"], "verified": "1"},
        },
    )
    assert created.status_code == 201, created.content
    body = created.json()
    alert = SavedSearch.objects.get(pk=body["id"])
    assert alert.company_id == cast.company.pk and alert.user_id == cast.member.pk
    assert body["kind"] == "product" and body["query"] == "vacuum flask"
    assert body["params"] == {"country": ["CN"], "verified": ["1"]}
    # No language sent: the request's (Accept-Language); the service's default frequency.
    assert body["language"] == "zh-hans" and body["frequency"] == "daily"
    assert body["paused"] is False and body["match_count"] == 0 and body["unsent_count"] == 0
    assert body["last_match_at"] is None and body["last_sent_at"] is None
    assert body["category_removed"] is False
    assert body["search_url"].startswith("http://testserver/zh-hans/")
    assert "q=vacuum+flask" in body["search_url"] and "tab=products" in body["search_url"]
    assert "country=CN" in body["search_url"]

    listed = client.get(BASE).json()
    assert [item["id"] for item in listed["items"]] == [alert.pk]
    assert listed["usage"] == {"used": 1, "limit": 10}
    assert listed["count"] == 1 and listed["next_page"] is None

    shown = client.get(f"{BASE}/{alert.pk}")
    assert shown.status_code == 200 and shown["ETag"]
    assert shown.json() == body | {"updated_at": shown.json()["updated_at"]}

    changed = client.patch(
        f"{BASE}/{alert.pk}",
        {"frequency": "weekly", "paused": True, "params": {}, "language": "en", "kind": "product"},
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["frequency"] == "weekly" and changed.json()["paused"] is True
    assert changed.json()["params"] == {} and changed.json()["language"] == "en"
    assert changed.json()["query"] == "vacuum flask"  # not sent: kept
    alert.refresh_from_db()
    assert (alert.frequency, alert.paused, alert.params) == ("weekly", True, {})

    # An admin of the same company reads and deletes it too.
    admin = ApiClient(cast.admin)
    assert admin.get(f"{BASE}/{alert.pk}").status_code == 200
    deleted = admin.delete(f"{BASE}/{alert.pk}")
    assert deleted.status_code == 204 and deleted.content == b""
    assert not SavedSearch.objects.filter(pk=alert.pk).exists()
    assert _problem(admin.get(f"{BASE}/{alert.pk}"), 404)["type"].endswith("/not-found")
    assert admin.get(BASE).json()["usage"] == {"used": 0, "limit": 10}


def test_the_language_sent_wins_and_a_request_or_supplier_alert_takes_its_own_filters(cast):
    client = _zh(ApiClient(cast.owner))
    request_alert = client.post(
        BASE,
        {
            "kind": "request",
            "params": {"destination": "NL"},
            "language": "zh-Hant",
            "frequency": "instant",
        },
    )
    assert request_alert.status_code == 201, request_alert.content
    assert request_alert.json()["language"] == "zh-hant"
    assert request_alert.json()["frequency"] == "instant"
    assert "tab=requests" in request_alert.json()["search_url"]
    supplier_alert = client.post(BASE, {"kind": "company", "query": "flask factory"})
    assert supplier_alert.status_code == 201
    assert "tab=companies" in supplier_alert.json()["search_url"]
    listed = client.get(BASE, page_size=1).json()
    assert listed["count"] == 2 and listed["next_page"] == 2
    assert listed["items"][0]["id"] == supplier_alert.json()["id"]  # newest first


def test_an_idempotency_key_saves_one_alert(cast):
    client = ApiClient(cast.owner)
    client.headers["Idempotency-Key"] = "alert-once-1"
    first = client.post(BASE, {"kind": "product", "query": "thermos"})
    again = client.post(BASE, {"kind": "product", "query": "thermos"})
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert SavedSearch.objects.filter(company=cast.company).count() == 1


def test_another_companys_alert_answers_like_a_missing_one(cast):
    theirs = saved_search_create(actor=cast.outsider, kind="product", query="glass jars")
    AlertMatch.objects.create(alert=theirs, object_id=make_product().pk, matched_at=timezone.now())
    client = ApiClient(cast.owner)
    missing = theirs.pk + 1000
    for method, body in (("get", None), ("patch", {"paused": True}), ("delete", None)):
        answers = []
        for pk in (theirs.pk, missing):
            path = f"{BASE}/{pk}"
            response = client.get(path) if method == "get" else None
            if method == "patch":
                response = client.patch(path, body)
            if method == "delete":
                response = client.delete(path)
            problem = _problem(response, 404)
            problem.pop("instance")
            answers.append(problem)
        assert answers[0] == answers[1], method
    matches = client.get(f"{BASE}/{theirs.pk}/matches")
    assert _problem(matches, 404)["type"].endswith("/not-found")
    assert client.get(BASE).json()["items"] == []
    theirs.refresh_from_db()
    assert theirs.paused is False
    assert SavedSearch.objects.filter(pk=theirs.pk).exists()


def test_a_caller_without_a_company_is_refused(cast):
    client = _zh(ApiClient(cast.loner))
    for response in (client.get(BASE), client.post(BASE, {"kind": "product", "query": "x"})):
        problem = _problem(response, 403)
        assert problem["type"].endswith("/problems/no-company")
        assert problem["title"] == "您未代表任何公司"
    assert _problem(client.get(f"{BASE}/1"), 404)
    assert _problem(Client().get(BASE), 401)["type"].endswith("/unauthenticated")


def test_the_free_plan_keeps_ten_alerts_and_refuses_the_eleventh(cast):
    client = ApiClient(cast.owner)
    for number in range(10):
        response = client.post(BASE, {"kind": "product", "query": f"flask model {number}"})
        assert response.status_code == 201, (number, response.content)
    refused = _problem(client.post(BASE, {"kind": "product", "query": "one more"}), 409)
    assert refused["type"].endswith("/problems/alert-limit-reached")
    assert refused["title"] == "Your plan's alerts are all in use"
    assert refused["detail"] == (
        "Your plan keeps 10 alerts. Delete one, or choose a plan with more."
    )
    # In the caller's language: the service's own message (its translation when there is one).
    in_chinese = _problem(_zh(client).post(BASE, {"kind": "product", "query": "再来一个"}), 409)
    with translation.override("zh-hans"):
        assert in_chinese["title"] == gettext("Your plan's alerts are all in use")
        assert in_chinese["detail"] == ngettext(
            "Your plan keeps %(limit)d alert. Delete one, or choose a plan with more.",
            "Your plan keeps %(limit)d alerts. Delete one, or choose a plan with more.",
            10,
        ) % {"limit": 10}
    assert SavedSearch.objects.filter(company=cast.company).count() == 10
    assert client.get(BASE).json()["usage"] == {"used": 10, "limit": 10}
    # Deleting one frees its place.
    first = SavedSearch.objects.filter(company=cast.company).last()
    assert client.delete(f"{BASE}/{first.pk}").status_code == 204
    assert client.post(BASE, {"kind": "product", "query": "one more"}).status_code == 201


# --- matches -----------------------------------------------------------------------------------


def test_the_matches_are_listed_newest_first_as_they_are_shown_now(cast):
    supplier = make_company(
        legal_name="宁波杯业有限公司", english_name="Ningbo Cups Co", country="CN", is_verified=True
    )
    flask = make_product(
        company=supplier, slug="flask", title="Vacuum flask 500 ml", moq=500, price_max=None
    )
    translate(flask, "zh-hans", "真空保温杯 500 毫升")
    hidden = make_product(
        company=supplier, slug="mug", title="Travel mug", status=ProductStatus.DRAFT
    )
    older = make_product(company=supplier, slug="bottle", title="Sports bottle")
    alert = saved_search_create(actor=cast.owner, kind="product", query="flask")
    now = timezone.now()
    digest = AlertDigest.objects.create(alert=alert, created_at=now, count=1)
    AlertMatch.objects.create(
        alert=alert, object_id=older.pk, matched_at=now - timedelta(days=2), digest=digest
    )
    AlertMatch.objects.create(alert=alert, object_id=hidden.pk, matched_at=now - timedelta(days=1))
    AlertMatch.objects.create(alert=alert, object_id=flask.pk, matched_at=now)

    client = _zh(ApiClient(cast.member))
    page = client.get(f"{BASE}/{alert.pk}/matches")
    assert page.status_code == 200, page.content
    body = page.json()
    assert body["count"] == 3 and body["next_page"] is None
    assert [m["object_id"] for m in body["items"]] == [flask.pk, hidden.pk, older.pk]
    assert [m["sent"] for m in body["items"]] == [False, False, True]
    newest, gone, sent = body["items"]
    assert gone["item"] is None  # a draft is no longer shown
    item = newest["item"]
    assert item["id"] == flask.pk and item["title"] == "真空保温杯 500 毫升"
    assert item["url"].startswith("http://testserver/zh-hans/") and str(flask.pk) in item["url"]
    assert (item["price_min"], item["price_max"], item["currency"]) == ("2.50", None, "USD")
    assert (item["moq"], item["moq_unit"]) == ("500", "pieces")
    company = item["company"]
    assert company["id"] == supplier.pk and company["name"] == "宁波杯业有限公司"
    assert company["country"] == "CN" and company["verified"] is True
    assert sent["item"]["title"] == "Sports bottle"

    second = client.get(f"{BASE}/{alert.pk}/matches", page=2, page_size=2).json()
    assert [m["object_id"] for m in second["items"]] == [older.pk]
    assert second["previous_page"] == 1 and second["count"] == 3

    # The alert's counts follow its matches.
    shown = client.get(f"{BASE}/{alert.pk}").json()
    assert (shown["match_count"], shown["unsent_count"]) == (3, 2)
    listed = client.get(BASE).json()["items"][0]
    assert (listed["match_count"], listed["unsent_count"]) == (3, 2)
    assert listed["last_match_at"] == shown["last_match_at"] is not None


def test_request_and_supplier_matches_show_their_title_or_name(cast):
    buying_request = make_request(title="Ceramic mugs for Rotterdam", destination_country="NL")
    request_alert = saved_search_create(actor=cast.owner, kind="request", query="mugs")
    AlertMatch.objects.create(
        alert=request_alert, object_id=buying_request.pk, matched_at=timezone.now()
    )
    company = make_company(legal_name="Xiamen Mug Works", country="CN")
    company_alert = saved_search_create(actor=cast.owner, kind="company", query="mug works")
    AlertMatch.objects.create(alert=company_alert, object_id=company.pk, matched_at=timezone.now())

    client = ApiClient(cast.owner)
    found = client.get(f"{BASE}/{request_alert.pk}/matches").json()["items"]
    assert found[0]["item"]["id"] == buying_request.pk
    assert found[0]["item"]["title"] == "Ceramic mugs for Rotterdam"
    assert found[0]["item"]["url"].endswith(f"/requests/{buying_request.pk}/")
    assert "price_min" not in found[0]["item"]
    supplier = client.get(f"{BASE}/{company_alert.pk}/matches").json()["items"][0]["item"]
    assert (supplier["id"], supplier["name"]) == (company.pk, "Xiamen Mug Works")
    assert supplier["url"].endswith(f"/companies/{company.slug}/")


# --- bad input -------------------------------------------------------------------------------

#: (name, raw JSON body of a new alert, the field refused, its message in Simplified Chinese
#: where the message has a translation already; None: any message).
BAD_CREATES = [
    ("nul", '{"kind": "product", "query": "flask\\u0000"}', "query", None),
    ("lone surrogate", '{"kind": "product", "query": "\\ud800"}', "query", None),
    (
        "surrogate in a filter",
        '{"kind": "product", "params": {"country": ["\\udfff"]}}',
        "params.country.0",
        None,
    ),
    (
        "nul in a filter name",
        '{"kind": "product", "params": {"coun\\u0000try": "CN"}}',
        "params.coun?try",
        None,
    ),
    (
        "300 characters",
        json.dumps({"kind": "product", "query": "x" * 300}),
        "query",
        "最多 200 个字符。",
    ),
    (
        "params as a list",
        '{"kind": "product", "query": "a", "params": ["CN"]}',
        "params",
        "请发送 JSON 对象。",
    ),
    (
        "params as text",
        '{"kind": "product", "query": "a", "params": "country=CN"}',
        "params",
        "请发送 JSON 对象。",
    ),
    (
        "a filter's number",
        '{"kind": "product", "params": {"country": 5}}',
        "params.country",
        "请发送文本（JSON 字符串）。",
    ),
    (
        "a filter's numbers",
        '{"kind": "product", "params": {"country": [5]}}',
        "params.country",
        "请发送文本（JSON 字符串）。",
    ),
    (
        "a filter's object",
        '{"kind": "product", "params": {"country": {"a": 1}}}',
        "params.country",
        "请发送文本（JSON 字符串）。",
    ),
    (
        "frequency 5",
        '{"kind": "product", "query": "a", "frequency": 5}',
        "frequency",
        "请发送文本（JSON 字符串）。",
    ),
    (
        "unknown frequency",
        '{"kind": "product", "query": "a", "frequency": "hourly"}',
        "frequency",
        "请选择有效的选项。",
    ),
    ("unknown kind", '{"kind": "factories", "query": "a"}', "kind", "请选择有效的选项。"),
    ("no kind", '{"query": "a"}', "kind", "此字段为必填项，请发送。"),
    (
        "kind as a list",
        '{"kind": ["product"], "query": "a"}',
        "kind",
        "请发送文本（JSON 字符串）。",
    ),
    (
        "unknown language",
        '{"kind": "product", "query": "a", "language": "fr"}',
        "language",
        "请选择有效的选项。",
    ),
    ("unknown filter", '{"kind": "product", "params": {"colour": "red"}}', "params", None),
    ("another kind's filter", '{"kind": "company", "params": {"price_max": "5"}}', "params", None),
    (
        "a value not understood",
        '{"kind": "product", "params": {"country": "Atlantis"}}',
        "params",
        None,
    ),
    ("no such category", '{"kind": "product", "params": {"category": "999999"}}', "params", None),
    (
        "too many values",
        json.dumps({"kind": "product", "params": {"country": ["CN"] * 21}}),
        "params",
        None,
    ),
    ("nothing to look for", '{"kind": "product", "query": "  "}', "query", None),
    (
        "unknown field",
        '{"kind": "product", "query": "a", "colour": "red"}',
        "colour",
        "此处不接受该字段。",
    ),
    (
        "query as a number",
        '{"kind": "product", "query": 12}',
        "query",
        "请发送文本（JSON 字符串）。",
    ),
]


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [pytest.param(raw, field, message, id=name) for name, raw, field, message in BAD_CREATES],
)
def test_a_bad_new_alert_is_refused_in_the_callers_language(cast, raw, field, message):
    client = _zh(ApiClient(cast.owner))
    problem = _problem(_raw(client, "post", BASE, raw), 422)
    assert problem["title"] == "请求中有无效字段"
    assert field in _fields(problem), problem
    if message is not None:
        assert message in [error["message"] for error in problem["errors"]], problem
    assert not SavedSearch.objects.exists()


BAD_CHANGES = [
    ("another kind", '{"kind": "company"}', "kind"),
    ("paused as text", '{"paused": "yes"}', "paused"),
    ("paused as a number", '{"paused": 1}', "paused"),
    ("frequency 5", '{"frequency": 5}', "frequency"),
    ("lone surrogate", '{"query": "\\ud800"}', "query"),
    ("300 characters", json.dumps({"query": "y" * 300}), "query"),
    ("params as a list", '{"params": ["CN"]}', "params"),
    ("unknown filter", '{"params": {"colour": "red"}}', "params"),
    ("no words left", '{"query": ""}', "query"),
    ("unknown field", '{"colour": "red"}', "colour"),
]


@pytest.mark.parametrize(
    ("raw", "field"), [pytest.param(raw, field, id=name) for name, raw, field in BAD_CHANGES]
)
def test_a_bad_change_is_refused_and_changes_nothing(cast, raw, field):
    alert = saved_search_create(actor=cast.owner, kind="product", query="flask")
    before = SavedSearch.objects.filter(pk=alert.pk).values().get()
    client = _zh(ApiClient(cast.owner))
    problem = _problem(_raw(client, "patch", f"{BASE}/{alert.pk}", raw), 422)
    assert problem["title"] == "请求中有无效字段"
    assert field in _fields(problem), problem
    assert SavedSearch.objects.filter(pk=alert.pk).values().get() == before


@pytest.mark.parametrize(
    ("method", "raw", "status"),
    [
        ("post", '{"kind": "product", "query": ', 400),
        ("post", '["product"]', 422),
        ("post", "null", 422),
        ("patch", '{"paused": tru}', 400),
        ("patch", '"paused"', 422),
    ],
)
def test_a_body_that_is_not_an_object_is_refused(cast, method, raw, status):
    alert = saved_search_create(actor=cast.owner, kind="product", query="flask")
    path = BASE if method == "post" else f"{BASE}/{alert.pk}"
    _problem(_raw(_zh(ApiClient(cast.owner)), method, path, raw), status)
    assert SavedSearch.objects.count() == 1


@pytest.mark.parametrize("alert_id", ["99999999999999999999", "0", "4611686018427387905"])
def test_an_id_that_names_no_alert_is_a_404(cast, alert_id):
    client = ApiClient(cast.owner)
    for path in (f"{BASE}/{alert_id}", f"{BASE}/{alert_id}/matches"):
        assert _problem(client.get(path), 404)["type"].endswith("/not-found"), path


@pytest.mark.parametrize(
    "params",
    [{"page": "0"}, {"page_size": "101"}, {"page": "abc"}, {"limit": "5"}, {"q": "flask"}],
)
def test_bad_paging_of_the_lists_is_a_422(cast, params):
    alert = saved_search_create(actor=cast.owner, kind="product", query="flask")
    client = _zh(ApiClient(cast.owner))
    for path in (BASE, f"{BASE}/{alert.pk}/matches"):
        problem = _problem(client.get(path, **params), 422)
        assert _fields(problem) == list(params), (path, problem)
