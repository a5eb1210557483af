"""The buyer's decisions on quotations: shortlist, decline (audited), award (audited; the
quoting suppliers are told by a task once it commits)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.audit.services import audit_record
from tradepost.core.cleaning import FieldErrors, clean_text
from tradepost.core.events import EventType
from tradepost.core.queueing import enqueue_on_commit
from tradepost.search.outbox import OutboxKind, record_change
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import (
    REVISABLE_QUOTATION_STATES,
    BuyingRequest,
    Quotation,
    QuotationStatus,
    RequestStatus,
)
from tradepost.sourcing.services._common import (
    _buyer_quotation,
    _emit_quotation_event,
    _raise_if_invalid,
)
from tradepost.sourcing.tasks import notify_award_result

REASON_MAX_LENGTH = 500


@transaction.atomic
def quotation_shortlist(*, actor: Any, quotation: Quotation) -> Quotation:
    request = _buyer_quotation(actor, quotation)
    return _decide_quotation(
        quotation,
        request=request,
        from_states=[QuotationStatus.SUBMITTED],
        refusal=_("Only a new quotation can be shortlisted."),
        status=QuotationStatus.SHORTLISTED,
    )


@transaction.atomic
def quotation_decline(*, actor: Any, quotation: Quotation, reason: str) -> Quotation:
    request = _buyer_quotation(actor, quotation)
    errors = FieldErrors()
    text = errors.clean(
        "reason",
        clean_text,
        reason,
        max_length=REASON_MAX_LENGTH,
        required=True,
        markup_free=True,
    )
    _raise_if_invalid(errors)
    before = _status_of(quotation)
    declined = _decide_quotation(
        quotation,
        request=request,
        from_states=REVISABLE_QUOTATION_STATES,
        refusal=_("This quotation can no longer be declined."),
        status=QuotationStatus.DECLINED,
        decline_reason=text,
    )
    audit_record(
        actor=actor,
        action="quotation.decline",
        target=declined,
        changes={"status": [before, declined.status], "reason": [None, text]},
    )
    return declined


def _decide_quotation(
    quotation: Quotation,
    *,
    request: BuyingRequest,
    from_states: Iterable[str],
    refusal: str,
    **changes: Any,
) -> Quotation:
    """The buyer's decision on a quotation of an open request: a conditional UPDATE from one
    of `from_states`, so two decisions at once cannot both apply; `refusal` otherwise."""
    if request.status != RequestStatus.OPEN:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("This request is no longer open.")
        )
    updated = Quotation.objects.filter(pk=quotation.pk, status__in=from_states).update(
        updated_at=timezone.now(), **changes
    )
    if not updated:
        raise SourcingError(SourcingErrorCode.WRONG_STATE, refusal)
    quotation.refresh_from_db()
    return quotation


@transaction.atomic
def quotation_award(*, actor: Any, quotation: Quotation) -> Quotation:
    """Award the request to one quotation: the request closes, the other quotations are marked
    not selected, and the award is audited. The request row is locked, and the status change
    is conditional, so of two awards at once only one wins. Every quoting supplier is told
    the outcome by a task enqueued when the award commits (`notify_award_result`)."""
    request = _buyer_quotation(actor, quotation)
    before = _status_of(quotation)
    now = timezone.now()
    won = BuyingRequest.objects.filter(pk=request.pk, status=RequestStatus.OPEN).update(
        status=RequestStatus.AWARDED,
        awarded_quotation_id=quotation.pk,
        closed_at=now,
        updated_at=now,
    )
    if not won:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN, _("This request is no longer open.")
        )
    record_change(kind=OutboxKind.REQUEST, object_id=request.pk)
    awarded = Quotation.objects.filter(
        pk=quotation.pk,
        request_id=request.pk,
        status__in=REVISABLE_QUOTATION_STATES,
    ).update(status=QuotationStatus.AWARDED, updated_at=now)
    if not awarded:
        # Undo the request change: raising rolls the whole transaction back.
        raise SourcingError(SourcingErrorCode.WRONG_STATE, _("This quotation cannot be awarded."))
    Quotation.objects.filter(request_id=request.pk).exclude(pk=quotation.pk).exclude(
        status=QuotationStatus.DECLINED
    ).update(status=QuotationStatus.NOT_SELECTED, updated_at=now)
    request.refresh_from_db()
    quotation.refresh_from_db()
    audit_record(
        actor=actor,
        action="quotation.award",
        target=quotation,
        changes={
            "status": [before, quotation.status],
            "request_status": [RequestStatus.OPEN, request.status],
        },
    )
    _emit_quotation_event(EventType.QUOTATION_AWARDED, quotation, request, request.buyer)
    enqueue_on_commit(notify_award_result, request.pk)
    return quotation


def _status_of(quotation: Quotation) -> str | None:
    """The quotation's status as stored, for the audit log (its request is locked: no other
    decision changes it meanwhile)."""
    return Quotation.objects.filter(pk=quotation.pk).values_list("status", flat=True).first()
