"""Operators' moderation of buying requests: hidden from the board and the search, restored;
each audited."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator
from tradepost.audit.services import audit_record
from tradepost.search.outbox import OutboxKind, record_change
from tradepost.sourcing.errors import RequestNotFound, SourcingError, SourcingErrorCode
from tradepost.sourcing.models import BuyingRequest, RequestStatus


def _moderated(actor: Any, buying_request: BuyingRequest) -> BuyingRequest:
    """The request row-locked, once the actor is found to be an operator."""
    if not is_operator(actor):
        raise SourcingError(SourcingErrorCode.NOT_ALLOWED, _("Only operators can do this."))
    request = BuyingRequest.objects.select_for_update().filter(pk=buying_request.pk).first()
    if request is None:
        raise RequestNotFound()
    return request


def _moderation_change(actor: Any, request: BuyingRequest, status: str, action: str) -> None:
    audit_record(
        actor=actor,
        action=f"request.{action}",
        target=request,
        changes={"status": [request.status, status]},
    )
    request.status = status
    request.save(update_fields=["status", "updated_at"])
    record_change(kind=OutboxKind.REQUEST, object_id=request.pk)


@transaction.atomic
def request_hide(*, actor: Any, buying_request: BuyingRequest) -> BuyingRequest:
    """Hide an open request by moderation (operators): off the board and the search, no
    more quotations; its buyer and quoting suppliers still see it. A hidden one stays so."""
    request = _moderated(actor, buying_request)
    if request.status == RequestStatus.HIDDEN:
        return request
    if request.status != RequestStatus.OPEN:
        raise SourcingError(
            SourcingErrorCode.REQUEST_NOT_OPEN,
            _("Only open requests can be hidden: this one is no longer public."),
        )
    _moderation_change(actor, request, RequestStatus.HIDDEN, "hide")
    return request


@transaction.atomic
def request_restore(*, actor: Any, buying_request: BuyingRequest) -> BuyingRequest:
    """Lift a moderation hide (operators): the request is open again, or expired when its
    deadline passed meanwhile. A request that is not hidden stays as it is."""
    request = _moderated(actor, buying_request)
    if request.status == RequestStatus.HIDDEN:
        now = timezone.now()
        status = RequestStatus.OPEN if request.deadline > now else RequestStatus.EXPIRED
        if status == RequestStatus.EXPIRED:
            request.closed_at = now
            request.save(update_fields=["closed_at"])
        _moderation_change(actor, request, status, "restore")
    return request
