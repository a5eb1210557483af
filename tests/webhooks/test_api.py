"""/api/v1/me/webhooks: the same use cases as the pages, for the owner and the admins;
a plain member is refused (403), another company's ids answer 404 and change nothing."""

from __future__ import annotations

import pytest

from tests.api_client import ApiClient
from tests.factories.webhooks import add_endpoint
from tradepost.api.urls import api
from tradepost.webhooks.models import WebhookDelivery, WebhookEndpoint
from tradepost.webhooks.signing import endpoint_secret

pytestmark = pytest.mark.django_db

BASE = "/api/v1/me/webhooks"
HOOK = "https://erp.example.com/tradepost"


def test_the_schema_describes_every_operation():
    paths = api.get_openapi_schema()["paths"]
    assert set(paths[BASE]) == {"get", "post"}
    assert set(paths[BASE + "/{endpoint_id}"]) == {"get", "patch", "delete"}
    for suffix in ("rotate-secret", "disable", "enable", "test"):
        assert "post" in paths[f"{BASE}/{{endpoint_id}}/{suffix}"]
    assert "get" in paths[BASE + "/{endpoint_id}/deliveries"]
    assert "get" in paths[BASE + "/{endpoint_id}/deliveries/{delivery_id}"]
    assert "post" in paths[BASE + "/{endpoint_id}/deliveries/{delivery_id}/redeliver"]
    assert "get" in paths[BASE + "/event-types"]


def test_an_owner_manages_an_endpoint_through_the_api(cast, django_capture_on_commit_callbacks):
    client = ApiClient(cast.owner)
    created = client.post(BASE, {"url": HOOK, "events": ["quotation.received"]})
    assert created.status_code == 201, created.content
    body = created.json()
    endpoint = WebhookEndpoint.objects.get(pk=body["id"])
    assert body["secret"] == endpoint_secret(endpoint.secret_salt)
    assert body["secret_hint"].endswith(body["secret"][-4:])
    assert body["active"] is True and body["events"] == ["quotation.received"]

    shown = client.get(f"{BASE}/{endpoint.pk}").json()
    assert "secret" not in shown
    assert [item["id"] for item in client.get(BASE).json()["items"]] == [endpoint.pk]

    changed = client.patch(f"{BASE}/{endpoint.pk}", {"events": ["inquiry.created"]})
    assert changed.json()["events"] == ["inquiry.created"] and changed.json()["url"] == HOOK

    rotated = client.post(f"{BASE}/{endpoint.pk}/rotate-secret", {"keep_previous": False})
    assert rotated.status_code == 200
    assert rotated.json()["secret"] != body["secret"]
    assert rotated.json()["previous_secret_expires_at"] is None

    assert client.post(f"{BASE}/{endpoint.pk}/disable").json()["active"] is False
    refused = client.post(f"{BASE}/{endpoint.pk}/test")
    assert refused.status_code == 409
    assert refused.json()["type"].endswith("/webhook-endpoint-disabled")
    enabled = client.post(f"{BASE}/{endpoint.pk}/enable").json()
    assert enabled["active"] is True and enabled["disabled_reason"] == ""

    with django_capture_on_commit_callbacks(execute=False):
        test = client.post(f"{BASE}/{endpoint.pk}/test")
    assert test.status_code == 201
    delivery = test.json()
    assert delivery["event_type"] == "webhook.test" and delivery["status"] == "pending"
    assert delivery["payload_version"] == 1 and delivery["manual"] is True

    log = client.get(f"{BASE}/{endpoint.pk}/deliveries").json()
    assert [item["id"] for item in log["items"]] == [delivery["id"]]
    assert client.get(f"{BASE}/{endpoint.pk}/deliveries", status="failed").json()["items"] == []
    detail = client.get(f"{BASE}/{endpoint.pk}/deliveries/{delivery['id']}").json()
    assert detail["payload"]["id"] == delivery["event_id"]
    assert detail["payload"]["type"] == "webhook.test"

    with django_capture_on_commit_callbacks(execute=False):
        again = client.post(f"{BASE}/{endpoint.pk}/deliveries/{delivery['id']}/redeliver")
    assert again.status_code == 201
    assert again.json()["event_id"] == delivery["event_id"]
    assert again.json()["id"] != delivery["id"]

    assert client.delete(f"{BASE}/{endpoint.pk}").status_code == 204
    assert not WebhookEndpoint.objects.exists() and not WebhookDelivery.objects.exists()


def test_the_event_types_are_listed(cast):
    types = ApiClient(cast.owner).get(f"{BASE}/event-types").json()
    assert {item["type"] for item in types} >= {"inquiry.created", "import.finished"}
    assert all(item["description"] for item in types)


def test_bad_input_is_refused_in_the_clients_language(cast):
    client = ApiClient(cast.owner)
    client.headers["Accept-Language"] = "zh-hans"
    refused = client.post(
        BASE, {"url": "ftp://erp.example.com", "events": ["nothing.happened"], "description": 5}
    )
    assert refused.status_code == 422
    refused = client.post(BASE, {"url": "file:///etc/passwd", "events": ["nothing.happened"]})
    assert refused.status_code == 422
    fields = {error["field"] for error in refused.json()["errors"]}
    assert fields == {"url", "events"}
    assert not WebhookEndpoint.objects.exists()


def test_a_company_has_at_most_the_configured_number_of_endpoints(cast, settings):
    settings.TRADEPOST_WEBHOOKS_MAX_ENDPOINTS = 2
    client = ApiClient(cast.owner)
    for _ in range(2):
        assert client.post(BASE, {"url": HOOK, "events": ["inquiry.created"]}).status_code == 201
    refused = client.post(BASE, {"url": HOOK, "events": ["inquiry.created"]})
    assert refused.status_code == 409
    assert refused.json()["type"].endswith("/webhook-too-many-endpoints")


@pytest.mark.parametrize("who", ["member", "loner", "operator"])
def test_who_does_not_manage_a_company_is_refused(cast, who):
    endpoint, _secret = add_endpoint(cast.owner, HOOK)
    client = ApiClient(cast.user(who))
    assert client.get(BASE).status_code == 403
    assert client.post(BASE, {"url": HOOK, "events": ["inquiry.created"]}).status_code == 403
    assert client.get(f"{BASE}/{endpoint.pk}").status_code == 404
    assert client.post(f"{BASE}/{endpoint.pk}/disable").status_code == 404
    assert WebhookEndpoint.objects.get().is_active


def test_another_companys_endpoint_answers_like_a_missing_one(
    cast, django_capture_on_commit_callbacks
):
    endpoint, _secret = add_endpoint(cast.owner, HOOK)
    with django_capture_on_commit_callbacks(execute=False):
        delivery = ApiClient(cast.owner).post(f"{BASE}/{endpoint.pk}/test").json()
    client = ApiClient(cast.outsider)
    for method, path in [
        ("get", f"{BASE}/{endpoint.pk}"),
        ("patch", f"{BASE}/{endpoint.pk}"),
        ("delete", f"{BASE}/{endpoint.pk}"),
        ("post", f"{BASE}/{endpoint.pk}/rotate-secret"),
        ("post", f"{BASE}/{endpoint.pk}/test"),
        ("get", f"{BASE}/{endpoint.pk}/deliveries"),
        ("get", f"{BASE}/{endpoint.pk}/deliveries/{delivery['id']}"),
        ("post", f"{BASE}/{endpoint.pk}/deliveries/{delivery['id']}/redeliver"),
        ("get", f"{BASE}/999999"),
    ]:
        if method == "patch":
            response = client.patch(path, {"events": ["inquiry.created"]})
        else:
            response = getattr(client, method)(path)
        assert response.status_code == 404, (method, path)
        assert response.json()["status"] == 404
    # The owner's own endpoint id with a delivery id of another endpoint: 404 as well.
    other, _secret = add_endpoint(cast.owner, HOOK + "/2")
    owner = ApiClient(cast.owner)
    assert owner.get(f"{BASE}/{other.pk}/deliveries/{delivery['id']}").status_code == 404
    assert WebhookDelivery.objects.count() == 1
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).is_active


def test_an_anonymous_client_is_asked_to_authenticate():
    assert ApiClient().get(BASE).status_code == 401
