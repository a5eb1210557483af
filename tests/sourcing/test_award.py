"""The award: its transaction records the award (and its audit entry); the quoting suppliers
are told the outcome by a task enqueued when it commits, each once. A decline is audited."""

from __future__ import annotations

import pytest

from tests.factories.companies import add_member
from tests.factories.sourcing import make_quoted_request
from tradepost.audit.models import AuditEntry
from tradepost.notify.models import Notification, NotificationKind
from tradepost.sourcing import services
from tradepost.sourcing.errors import SourcingError
from tradepost.sourcing.models import BuyingRequest, QuotationStatus, RequestStatus
from tradepost.sourcing.tasks import notify_award_result, request_notify_award

pytestmark = pytest.mark.django_db


def _three_quotes():
    return make_quoted_request({}, {"unit_price": "2.10"}, {})


def _kinds(user):
    return list(Notification.objects.filter(recipient=user).values_list("kind", flat=True))


def test_the_award_transaction_tells_nobody_the_commit_enqueues_the_task(
    mailoutbox, django_capture_on_commit_callbacks
):
    buyer, request, (first, second, third) = _three_quotes()
    services.quotation_decline(actor=buyer, quotation=third, reason="Too late")
    Notification.objects.all().delete()
    mailoutbox.clear()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.quotation_award(actor=buyer, quotation=second)
        # Inside the award's transaction: the award is recorded, nobody is told yet.
        request.refresh_from_db()
        assert request.status == RequestStatus.AWARDED
        assert request.award_notified_at is None
        assert not Notification.objects.exists()
    assert len(callbacks) == 1  # the task's enqueue: no email, no notification written
    assert mailoutbox == []

    with django_capture_on_commit_callbacks(execute=True):
        callbacks[0]()  # the commit: the task runs (the immediate backend of the tests)

    suppliers = [first.created_by, second.created_by, third.created_by]
    assert sorted(m.to[0] for m in mailoutbox) == sorted(user.email for user in suppliers)
    won = next(m for m in mailoutbox if m.to == [second.created_by.email])
    assert "Good news" in won.body
    assert _kinds(second.created_by) == [NotificationKind.QUOTATION_AWARDED]
    for loser in (first.created_by, third.created_by):
        assert _kinds(loser) == [NotificationKind.QUOTATION_NOT_SELECTED]
    assert _kinds(buyer) == []
    request.refresh_from_db()
    assert request.award_notified_at is not None


def test_each_quoting_supplier_is_told_once(mailoutbox, django_capture_on_commit_callbacks):
    buyer, request, (first, _second, _third) = _three_quotes()
    colleague = add_member(first.supplier)
    Notification.objects.all().delete()
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.quotation_award(actor=buyer, quotation=first)
    assert len(mailoutbox) == 3
    assert Notification.objects.count() == 4  # the winner's two members, the two others
    assert _kinds(colleague) == [NotificationKind.QUOTATION_AWARDED]

    # The task run again (a queue that delivers twice) tells nobody again.
    with django_capture_on_commit_callbacks(execute=True):
        assert request_notify_award(request_id=request.pk) == 0
        notify_award_result.enqueue(request.pk)
    assert len(mailoutbox) == 3
    assert Notification.objects.count() == 4


def test_the_task_tells_nobody_of_a_request_not_awarded(mailoutbox):
    _buyer, request, _quotations = _three_quotes()
    mailoutbox.clear()
    assert request_notify_award(request_id=request.pk) == 0
    assert BuyingRequest.objects.get(pk=request.pk).award_notified_at is None
    assert mailoutbox == []


def test_the_award_is_audited_with_its_actor_and_target(django_capture_on_commit_callbacks):
    buyer, _request, (_first, second, _third) = _three_quotes()
    with django_capture_on_commit_callbacks(execute=True):
        services.quotation_award(actor=buyer, quotation=second)
    entry = AuditEntry.objects.get(action="quotation.award")
    assert entry.actor == buyer
    assert entry.actor_email == buyer.email
    assert (entry.target_type, entry.target_id) == ("sourcing.quotation", str(second.pk))
    assert entry.changes == {
        "status": [QuotationStatus.SUBMITTED, QuotationStatus.AWARDED],
        "request_status": [RequestStatus.OPEN, RequestStatus.AWARDED],
    }
    assert AuditEntry.objects.count() == 1  # one entry: none for the quotations not selected


def test_a_refused_award_is_neither_audited_nor_told(
    mailoutbox, django_capture_on_commit_callbacks
):
    buyer, request, (first, _second, _third) = _three_quotes()
    services.request_close(actor=buyer, buying_request=request)
    mailoutbox.clear()
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(SourcingError),
    ):
        services.quotation_award(actor=buyer, quotation=first)
    assert callbacks == []
    assert not AuditEntry.objects.exists()
    assert mailoutbox == []


def test_a_decline_is_audited_with_its_reason():
    buyer, _request, (first, _second, _third) = _three_quotes()
    services.quotation_shortlist(actor=buyer, quotation=first)
    services.quotation_decline(actor=buyer, quotation=first, reason="Lead time too long")
    entry = AuditEntry.objects.get()
    assert entry.action == "quotation.decline"
    assert entry.actor == buyer
    assert (entry.target_type, entry.target_id) == ("sourcing.quotation", str(first.pk))
    assert entry.changes == {
        "status": [QuotationStatus.SHORTLISTED, QuotationStatus.DECLINED],
        "reason": [None, "Lead time too long"],
    }


def test_a_refused_decline_is_not_audited():
    buyer, _request, (first, _second, _third) = _three_quotes()
    with pytest.raises(SourcingError):
        services.quotation_decline(actor=buyer, quotation=first, reason="")
    services.quotation_decline(actor=buyer, quotation=first, reason="No")
    with pytest.raises(SourcingError):
        services.quotation_decline(actor=buyer, quotation=first, reason="No again")
    assert AuditEntry.objects.count() == 1
