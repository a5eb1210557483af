"""Who may do what, on every membership page and endpoint: the company's owner, admin and plain
member, the member of another company, a signed-in person without a company, a visitor and an
operator. A refusal changes nothing."""

from __future__ import annotations

import pytest

from tests.api_client import ApiClient
from tests.factories.membership import gold, make_plan, subscribe
from tests.pages import log_in, page_url
from tradepost.membership.models import BillingDetails, Invoice, InvoiceStatus, Subscription

pytestmark = pytest.mark.django_db

WHO = ["anonymous", "loner", "owner", "admin", "member", "outsider", "operator"]


@pytest.fixture
def world(cast):
    """The cast's company with Gold paid, and its (paid) invoice."""
    subscribe(cast.company, gold(), actor=cast.owner)
    paid = Invoice.objects.get(company=cast.company)
    return cast, paid


def client_for(client, cast, who):
    user = cast.user(who)
    return log_in(client, user) if user is not None else client


def _state(company):
    return (
        list(
            Subscription.objects.filter(company=company).values_list("pk", "status", "auto_renew")
        ),
        list(Invoice.objects.filter(company=company).values_list("pk", "status")),
        BillingDetails.objects.filter(company=company).count(),
    )


# --- pages -----------------------------------------------------------------------------------

PAGE_GET = {
    # who: (status of the company's membership page, of its invoice, of the operators' page)
    "anonymous": (302, 302, 302),
    "loner": (302, 404, 404),
    "owner": (200, 200, 404),
    "admin": (200, 200, 404),
    "member": (200, 200, 404),
    "outsider": (200, 404, 404),
    "operator": (302, 200, 200),
}


@pytest.mark.parametrize("who", WHO)
def test_pages(client, world, who):
    cast, invoice = world
    browser = client_for(client, cast, who)
    assert browser.get(page_url("membership:plans")).status_code == 200
    overview = browser.get(page_url("membership:overview"))
    invoice_page = browser.get(page_url("membership:invoice", invoice_id=invoice.pk))
    payments = browser.get(page_url("membership:payments"))
    assert (overview.status_code, invoice_page.status_code, payments.status_code) == PAGE_GET[who]
    if who == "outsider":
        assert cast.company.legal_name not in overview.content.decode()


CHANGE_ALLOWED = {"owner", "admin"}


@pytest.mark.parametrize("who", WHO)
def test_change_cancel_and_billing_pages(client, world, who):
    cast, _invoice = world
    browser = client_for(client, cast, who)
    before = _state(cast.company)
    silver = make_plan(price=500)
    urls = [
        page_url("membership:change", plan_id=silver.pk),
        page_url("membership:cancel"),
        page_url("membership:billing"),
    ]
    answers = [browser.get(url).status_code for url in urls]
    posts = [
        browser.post(urls[0], {"action": "downgrade"}).status_code,
        browser.post(urls[2], {"legal_name": "Changed", "country": "CN"}).status_code,
        browser.post(urls[1]).status_code,
    ]
    if who in CHANGE_ALLOWED:
        assert answers == [200, 200, 200] and posts == [302, 302, 302]
        assert _state(cast.company) != before
        assert Subscription.objects.filter(company=cast.company, kind="downgrade").exists()
        return
    expected = {"anonymous": 302, "loner": 302, "member": 403, "operator": 302}
    if who == "outsider":  # acts for its own company, on the free plan: nothing of the cast's
        assert answers[2] == 200
    else:
        assert set(answers) == {expected[who]} and set(posts) == {expected[who]}
    assert _state(cast.company) == before


@pytest.mark.parametrize("who", WHO)
def test_confirming_a_payment_is_for_operators(client, world, who):
    cast, _paid = world
    open_invoice = subscribe(
        cast.company,
        make_plan(price=9000),
        actor=cast.owner,
        action="upgrade",
        paid=False,
    ).invoice
    browser = client_for(client, cast, who)
    answer = browser.post(page_url("membership:payment_confirm", invoice_id=open_invoice.pk))
    open_invoice.refresh_from_db()
    if who == "operator":
        assert answer.status_code == 302 and open_invoice.status == InvoiceStatus.PAID
    else:
        assert answer.status_code in (302, 404) and open_invoice.status == InvoiceStatus.OPEN
        assert answer.status_code == (302 if who == "anonymous" else 404)


# --- API -------------------------------------------------------------------------------------

API_READ = {
    # who: (GET /me/subscription, GET /me/invoices, GET /me/invoices/{id}, GET awaiting)
    "anonymous": (401, 401, 401, 401),
    "loner": (403, 403, 404, 403),  # no company (403 no-company); the invoice is not theirs
    "owner": (200, 200, 200, 403),
    "admin": (200, 200, 200, 403),
    "member": (200, 200, 200, 403),
    "outsider": (200, 200, 404, 403),
    "operator": (403, 403, 200, 200),  # acts for no company; reads any invoice
}


@pytest.mark.parametrize("who", WHO)
def test_api_reads(world, who):
    cast, invoice = world
    api = ApiClient(cast.user(who), base="/api/v1")
    assert api.get("/plans").status_code == 200
    answers = (
        api.get("/me/subscription"),
        api.get("/me/invoices"),
        api.get(f"/me/invoices/{invoice.pk}"),
        api.get("/operator/invoices/awaiting"),
    )
    assert tuple(a.status_code for a in answers) == API_READ[who]
    if who == "outsider":
        assert answers[1].json()["count"] == 0
    if who in ("owner", "member"):
        assert answers[1].json()["items"][0]["number"] == invoice.number
        assert answers[0].json()["plan"]["code"] == "gold"


API_WRITE = {
    # who: (POST cancel, PUT billing)
    "anonymous": (401, 401),
    "loner": (403, 403),
    "owner": (200, 200),
    "admin": (200, 200),
    "member": (403, 403),
    "outsider": (409, 200),  # its own company: nothing to cancel, its own billing details
    "operator": (403, 403),
}


@pytest.mark.parametrize("who", WHO)
def test_api_writes(world, who):
    cast, _invoice = world
    api = ApiClient(cast.user(who), base="/api/v1")
    before = _state(cast.company)
    cancel = api.post("/me/subscription", {"action": "cancel"})
    billing = api.put("/me/subscription/billing", {"legal_name": "X Ltd", "country": "CN"})
    assert (cancel.status_code, billing.status_code) == API_WRITE[who]
    if who in ("owner", "admin"):
        assert cancel.json()["current"]["renews"] is False
    else:
        assert _state(cast.company) == before


@pytest.mark.parametrize("who", WHO)
def test_api_payment_confirmation(world, who):
    cast, _paid = world
    silver = make_plan(price=500)
    invoice = subscribe(cast.company, silver, actor=cast.owner, action="downgrade", paid=False)
    invoice = invoice.invoice
    api = ApiClient(cast.user(who), base="/api/v1")
    answer = api.post(f"/operator/invoices/{invoice.pk}/payment")
    invoice.refresh_from_db()
    expected = {"anonymous": 401, "operator": 200}.get(who, 403)
    assert answer.status_code == expected
    assert invoice.status == (InvoiceStatus.PAID if who == "operator" else InvoiceStatus.OPEN)
