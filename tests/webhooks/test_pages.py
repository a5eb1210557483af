"""The company's webhook pages: add an endpoint (its secret shown once), change it, rotate the
secret, switch it off and on, send a test event and a delivery again, delete it; who may."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories.webhooks import add_endpoint
from tests.pages import log_in, page_url
from tradepost.audit.models import AuditEntry
from tradepost.webhooks.models import WebhookDelivery, WebhookEndpoint
from tradepost.webhooks.signing import endpoint_secret

pytestmark = pytest.mark.django_db

HOOK = "https://erp.example.com/tradepost"
SECRET = re.compile(r"whsec_[A-Za-z0-9_-]{43}")


def test_an_owner_adds_an_endpoint_and_sees_its_secret_once(cast, client):
    log_in(client, cast.owner)
    response = client.post(
        page_url("webhooks:list"),
        {"url": HOOK, "description": "ERP", "events": ["inquiry.created", "quotation.received"]},
    )
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    [secret] = SECRET.findall(response.content.decode())
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint_secret(endpoint.secret_salt) == secret
    assert endpoint.company == cast.company
    assert endpoint.events == ["inquiry.created", "quotation.received"]
    assert AuditEntry.objects.filter(action="webhook.create", actor=cast.owner).exists()

    listing = client.get(page_url("webhooks:list")).content.decode()
    detail = client.get(page_url("webhooks:detail", endpoint_id=endpoint.pk)).content.decode()
    for page in (listing, detail):
        assert HOOK in page
        assert secret not in page  # never again
        assert f"whsec_…{secret[-4:]}" in page


def test_the_pages_speak_chinese(cast, client):
    endpoint, _secret = add_endpoint(cast.owner, HOOK)
    log_in(client, cast.owner)
    listing = client.get(page_url("webhooks:list", "zh-hans")).content.decode()
    assert "添加端点" in listing
    detail = client.get(page_url("webhooks:detail", "zh-hant", endpoint_id=endpoint.pk))
    assert "發送測試事件" in detail.content.decode()


def test_a_bad_address_is_shown_on_the_form_and_nothing_is_saved(cast, client):
    log_in(client, cast.owner)
    response = client.post(
        page_url("webhooks:list", "zh-hans"),
        {"url": "http://127.0.0.1/<script>", "events": ["inquiry.created"]},
    )
    assert response.status_code == 400
    assert response.context["form"].errors["url"]
    assert not WebhookEndpoint.objects.exists()


def test_the_endpoint_page_changes_rotates_switches_tests_and_deletes(
    cast, client, django_capture_on_commit_callbacks
):
    endpoint, first = add_endpoint(cast.owner, HOOK)
    log_in(client, cast.owner)
    detail = page_url("webhooks:detail", endpoint_id=endpoint.pk)

    response = client.post(detail, {"url": HOOK + "/v2", "events": ["product.published"]})
    assert response.status_code == 302
    endpoint.refresh_from_db()
    assert (endpoint.url, endpoint.events) == (HOOK + "/v2", ["product.published"])

    response = client.post(
        page_url("webhooks:rotate", endpoint_id=endpoint.pk), {"keep_previous": "on"}
    )
    [second] = SECRET.findall(response.content.decode())
    assert second != first
    endpoint.refresh_from_db()
    assert endpoint_secret(endpoint.previous_secret_salt) == first

    client.post(page_url("webhooks:disable", endpoint_id=endpoint.pk))
    endpoint.refresh_from_db()
    assert not endpoint.is_active and endpoint.disabled_reason == "manual"
    refused = client.post(page_url("webhooks:test", endpoint_id=endpoint.pk), follow=True)
    assert "switched off" in refused.content.decode()
    client.post(page_url("webhooks:enable", endpoint_id=endpoint.pk))
    endpoint.refresh_from_db()
    assert endpoint.is_active

    # The test event's delivery fails (nobody listens at erp.example.com here: the name
    # does not resolve), and shows in the log with a button to send it again.
    with django_capture_on_commit_callbacks(execute=False):
        client.post(page_url("webhooks:test", endpoint_id=endpoint.pk))
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status="failed", next_attempt_at=None)
    log = client.get(detail).content.decode()
    assert "webhook.test" in log and str(delivery.event.event_id) in log
    assert page_url("webhooks:redeliver", endpoint_id=endpoint.pk, delivery_id=delivery.pk) in log
    with django_capture_on_commit_callbacks(execute=False):
        client.post(
            page_url("webhooks:redeliver", endpoint_id=endpoint.pk, delivery_id=delivery.pk)
        )
    again = WebhookDelivery.objects.exclude(pk=delivery.pk).get()
    assert again.event_id == delivery.event_id and again.manual
    filtered = client.get(detail, {"status": "failed"}).content.decode()
    assert str(delivery.event.event_id) in filtered

    response = client.post(page_url("webhooks:delete", endpoint_id=endpoint.pk))
    assert response.status_code == 302
    assert not WebhookEndpoint.objects.exists() and not WebhookDelivery.objects.exists()
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {
        "webhook.update",
        "webhook.rotate_secret",
        "webhook.disable",
        "webhook.enable",
        "webhook.redeliver",
        "webhook.delete",
    } <= actions


@pytest.mark.parametrize("who", ["member", "operator", "loner"])
def test_people_who_do_not_manage_the_company_cannot_use_the_pages(cast, who):
    endpoint, _secret = add_endpoint(cast.owner, HOOK)
    client = log_in(Client(), cast.user(who))
    listing = client.get(page_url("webhooks:list"))
    assert listing.status_code in (302, 403)
    assert HOOK not in listing.content.decode()
    assert client.get(page_url("webhooks:detail", endpoint_id=endpoint.pk)).status_code in (
        302,
        403,
    )
    for name in ("disable", "delete", "test", "rotate"):
        response = client.post(page_url(f"webhooks:{name}", endpoint_id=endpoint.pk))
        assert response.status_code == 404
    endpoint.refresh_from_db()
    assert endpoint.is_active


def test_another_companys_endpoint_is_not_found(cast, client):
    endpoint, _secret = add_endpoint(cast.owner, HOOK)
    log_in(client, cast.outsider)
    assert client.get(page_url("webhooks:detail", endpoint_id=endpoint.pk)).status_code == 404
    for name in ("disable", "delete", "test", "rotate", "enable"):
        assert client.post(page_url(f"webhooks:{name}", endpoint_id=endpoint.pk)).status_code == 404
    WebhookEndpoint.objects.get(pk=endpoint.pk)


def test_an_admin_manages_them_too(cast, client):
    log_in(client, cast.admin)
    assert client.get(page_url("webhooks:list")).status_code == 200


def test_a_visitor_is_sent_to_the_login(client):
    response = client.get(page_url("webhooks:list"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_the_company_navigation_links_to_the_webhooks(cast, client):
    log_in(client, cast.owner)
    page = client.get(page_url("companies:members")).content.decode()
    assert page_url("webhooks:list") in page
