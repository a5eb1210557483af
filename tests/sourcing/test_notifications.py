"""In-app notifications (and the expiring email) of sourcing events."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from tests.factories.accounts import make_user
from tests.factories.companies import add_member, make_trader
from tests.factories.sourcing import make_quotation, make_request
from tradepost.notify.models import Notification, NotificationKind
from tradepost.notify.selectors import notification_link, notification_text
from tradepost.ops import periodic
from tradepost.sourcing import services
from tradepost.sourcing.errors import SourcingError
from tradepost.sourcing.models import BuyingRequest, RequestStatus

pytestmark = pytest.mark.django_db


def _kinds(user):
    return list(Notification.objects.filter(recipient=user).values_list("kind", flat=True))


def test_new_quotation_notifies_every_buyer_member_in_their_language():
    buyer, buyer_company = make_trader(country="NL")
    colleague = add_member(buyer_company)
    colleague.preferred_language = "zh-hans"
    colleague.save()
    request = make_request(actor=buyer, title="Bamboo cutting boards")
    supplier, _supplier_company = make_trader(
        legal_name="宁波竹木有限公司", english_name="Ningbo Bamboo"
    )
    make_quotation(request, actor=supplier)

    for user in (buyer, colleague):
        notification = Notification.objects.get(recipient=user)
        assert notification.kind == NotificationKind.NEW_QUOTATION
        assert notification.params["subject"] == "Bamboo cutting boards"
        assert notification.link == f"/en/requests/{request.pk}/compare/"
    assert _kinds(supplier) == []
    with translation.override("zh-hans"):
        notification = Notification.objects.get(recipient=colleague)
        assert "Bamboo cutting boards" in notification_text(notification)
        assert notification_link(notification, "zh-hans").startswith("/zh-hans/")


def test_a_revision_does_not_notify_again():
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, _supplier_company = make_trader()
    make_quotation(request, actor=supplier)
    make_quotation(request, actor=supplier, unit_price="2.20")
    assert _kinds(buyer) == [NotificationKind.NEW_QUOTATION]


def test_refused_quotation_leaves_no_notification():
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, _supplier_company = make_trader()
    with pytest.raises(SourcingError):
        make_quotation(request, actor=supplier, unit_price="-1")
    assert Notification.objects.count() == 0


def test_award_notifies_the_winner_and_the_other_suppliers(django_capture_on_commit_callbacks):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer, title="LED panels")
    winner, winner_company = make_trader()
    winner_colleague = add_member(winner_company)
    loser, _loser_company = make_trader()
    declined_supplier, _declined_company = make_trader()
    won = make_quotation(request, actor=winner)
    make_quotation(request, actor=loser)
    declined = make_quotation(request, actor=declined_supplier)
    services.quotation_decline(actor=buyer, quotation=declined, reason="Too expensive")
    Notification.objects.all().delete()

    with django_capture_on_commit_callbacks(execute=True):  # told by a task after the commit
        services.quotation_award(actor=buyer, quotation=won)

    assert _kinds(winner) == [NotificationKind.QUOTATION_AWARDED]
    assert _kinds(winner_colleague) == [NotificationKind.QUOTATION_AWARDED]
    assert _kinds(loser) == [NotificationKind.QUOTATION_NOT_SELECTED]
    assert _kinds(declined_supplier) == [NotificationKind.QUOTATION_NOT_SELECTED]
    assert _kinds(buyer) == []
    notification = Notification.objects.get(recipient=loser)
    assert notification.params == {"subject": "LED panels"}
    assert notification.link == f"/en/requests/{request.pk}/"


def test_a_refused_award_notifies_nobody():
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, _supplier_company = make_trader()
    quotation = make_quotation(request, actor=supplier)
    services.request_close(actor=buyer, buying_request=request)
    Notification.objects.all().delete()
    with pytest.raises(SourcingError):
        services.quotation_award(actor=buyer, quotation=quotation)
    assert Notification.objects.count() == 0


def test_another_company_cannot_award_and_nobody_is_told():
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, _supplier_company = make_trader()
    quotation = make_quotation(request, actor=supplier)
    stranger, _stranger_company = make_trader(country="DE")
    Notification.objects.all().delete()
    with pytest.raises(SourcingError):
        services.quotation_award(actor=stranger, quotation=quotation)
    assert Notification.objects.count() == 0
    request.refresh_from_db()
    assert request.status == RequestStatus.OPEN


def _due_in(request: BuyingRequest, delta: timedelta) -> None:
    BuyingRequest.objects.filter(pk=request.pk).update(deadline=timezone.now() + delta)


def test_expiring_requests_are_told_once(mailoutbox, django_capture_on_commit_callbacks):
    buyer, company = make_trader(country="NL")
    colleague = add_member(company)
    soon = make_request(actor=buyer, title="Closing soon")
    later = make_request(actor=buyer, title="Closing later")
    past = make_request(actor=buyer, title="Already past")
    closed = make_request(actor=buyer, title="Closed by the buyer")
    _due_in(soon, timedelta(hours=5))
    _due_in(later, timedelta(days=3))
    _due_in(closed, timedelta(hours=5))
    services.request_close(actor=buyer, buying_request=closed)
    _due_in(past, timedelta(hours=-1))
    make_quotation(soon)
    Notification.objects.all().delete()
    mailoutbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        assert services.requests_notify_expiring() == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert services.requests_notify_expiring() == 0  # idempotent

    for user in (buyer, colleague):
        notification = Notification.objects.get(recipient=user)
        assert notification.kind == NotificationKind.REQUEST_EXPIRING
        assert notification.params == {"subject": "Closing soon"}
        assert notification.link == f"/en/requests/{soon.pk}/compare/"
    assert [message.to for message in mailoutbox] == [[buyer.email]]
    assert "Closing soon" in mailoutbox[0].body
    assert "1 quotation so far" in mailoutbox[0].body
    assert f"/en/requests/{soon.pk}/compare/" in mailoutbox[0].body
    soon.refresh_from_db()
    assert soon.expiring_notified_at is not None


def test_expiring_email_is_in_the_buyers_language(mailoutbox, django_capture_on_commit_callbacks):
    buyer = make_user(preferred_language="zh-hans")
    from tests.factories.companies import make_company

    make_company(owner=buyer, country="NL")
    request = make_request(actor=buyer)
    _due_in(request, timedelta(hours=2))
    with django_capture_on_commit_callbacks(execute=True):
        services.requests_notify_expiring()
    assert len(mailoutbox) == 1
    assert f"/zh-hans/requests/{request.pk}/compare/" in mailoutbox[0].body


def test_extending_the_deadline_tells_the_buyer_again_before_the_new_one():
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    _due_in(request, timedelta(hours=3))
    assert services.requests_notify_expiring() == 1
    request.refresh_from_db()
    services.request_update(
        actor=buyer,
        buying_request=request,
        **{"deadline": timezone.now() + timedelta(days=5)},
    )
    request.refresh_from_db()
    assert request.expiring_notified_at is None
    assert services.requests_notify_expiring() == 0  # not due yet
    assert services.requests_notify_expiring(now=timezone.now() + timedelta(days=4, hours=12)) == 1
    assert Notification.objects.filter(kind=NotificationKind.REQUEST_EXPIRING).count() == 2


def test_expiring_job_is_registered(monkeypatch):
    calls = []
    monkeypatch.setattr(
        "tradepost.ops.periodic.requests_notify_expiring", lambda: calls.append(1) or 0
    )
    monkeypatch.setattr("tradepost.ops.periodic.request_expire_due", lambda: 0)
    periodic.run_due_jobs({}, now=10_000.0)
    assert calls == [1]
