"""Writes of the webhooks app (docs/webhooks.md, docs/adr/0028-webhooks.md).

A company's owner and admins add endpoints (an address and the events it wants), change
them, rotate the signing secret, switch them off and on, delete them, send a test event and
send a delivery again; each of these checks the actor's right itself, runs in one
transaction, writes its audit entry and queues what it sends on commit. The secret is
answered twice only: by `webhook_endpoint_create` and `webhook_endpoint_rotate_secret`.

The worker sends: `delivery_attempt` claims a due delivery (a conditional UPDATE, so one
worker sends it), POSTs the event's body signed (`sending.post`, guarded against
server-side request forgery), and records the answer: delivered; or due again after an
exponential back-off with jitter (about a day of attempts in all); or failed for good after
the last attempt. An endpoint whose deliveries failed for good
`TRADEPOST_WEBHOOKS_DISABLE_AFTER` times in a row is switched off and its company's owner
and admins are emailed, each in their language. `deliveries_send_due` (the worker's timer)
queues the deliveries whose task was lost: at least once, never silently dropped.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict, Unpack
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.audit.services import audit_record
from tradepost.companies.models import Company
from tradepost.companies.selectors import company_managers, standing_refusal
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_choices,
    clean_text,
    refuse_unstorable,
    too_long,
    unstorable,
)
from tradepost.core.events import EventType
from tradepost.core.languages import normalise_ui_language
from tradepost.core.queueing import enqueue_on_commit
from tradepost.core.retries import Backoff
from tradepost.notify.services import link_in, queue_email
from tradepost.webhooks import sending
from tradepost.webhooks.errors import WebhookError, WebhookErrorCode, WebhookNotFound
from tradepost.webhooks.models import (
    URL_MAX_LENGTH,
    DeliveryStatus,
    DisabledReason,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from tradepost.webhooks.outbox import TEST_EVENT, new_deliveries, new_event, queue_after_commit
from tradepost.webhooks.selectors import require_webhook_manager
from tradepost.webhooks.signing import (
    SIGNATURE_HEADER,
    endpoint_secret,
    new_salt,
    secret_hint,
    signature_header,
)

logger = logging.getLogger(__name__)

DESCRIPTION_MAX_LENGTH = 200
#: Deliveries the timer queues per run.
SWEEP_BATCH = 500
#: The company's page of an endpoint (as reversed in the recipient's language, for emails).
ENDPOINT_PAGE = "webhooks:detail"


class EndpointFields(TypedDict, total=False):
    """What a company says about an endpoint: the input of `webhook_endpoint_create` and
    `webhook_endpoint_update`. The web form and the API body send these names;
    tests/test_input_layer.py keeps the three in step."""

    url: str
    description: str
    events: list[str] | str


ENDPOINT_FIELDS = frozenset(EndpointFields.__annotations__)


@dataclass(frozen=True)
class EndpointWithSecret:
    """An endpoint and its signing secret, answered once (at creation, after a rotation)."""

    endpoint: WebhookEndpoint
    secret: str


# --- cleaning --------------------------------------------------------------------------------

_UNSAFE_URL_CHARACTERS = frozenset('<>"\\^`{|}')


def _bad_url() -> FieldInvalid:
    return FieldInvalid(
        _("Enter a web address that starts with https:// or http://, without spaces.")
    )


def clean_endpoint_url(value: Any, *, allow_private: bool) -> str:
    """An http(s) address with a host, without credentials or a fragment, of at most
    URL_MAX_LENGTH characters. Unless `allow_private`, an IP address that is not public and
    `localhost` are refused here already; a host name is checked each time it is resolved,
    when a delivery connects (`sending`)."""
    if not isinstance(value, str):
        raise _bad_url()
    url = value.strip()
    if not url:
        raise FieldInvalid(_("This field is required."))
    if len(url) > URL_MAX_LENGTH:
        raise FieldInvalid(too_long(URL_MAX_LENGTH))
    if unstorable(url) or any(
        char.isspace() or not char.isprintable() or char in _UNSAFE_URL_CHARACTERS for char in url
    ):
        raise _bad_url()
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname or ""
    except ValueError:
        raise _bad_url() from None
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise FieldInvalid(_("Use an address that starts with https:// or http://."))
    if parts.username is not None or parts.password is not None:
        raise FieldInvalid(
            _("Leave the user name and password out of the address: check the signature instead.")
        )
    if "#" in url:
        raise FieldInvalid(_("Leave the part after # out of the address."))
    if port == 0:
        raise _bad_url()
    try:
        httpx.URL(url)
    except (httpx.InvalidURL, ValueError, UnicodeError):
        raise _bad_url() from None
    if not allow_private:
        literal = sending.parse_address(host)
        if (literal is not None and not sending.is_public_address(literal)) or (
            host == "localhost" or host.endswith(".localhost")
        ):
            raise FieldInvalid(
                _(
                    "Webhooks are sent to public internet addresses only, not to private, "
                    "loopback or reserved ones."
                )
            )
    return url


def _clean_description(value: Any) -> str:
    return refuse_unstorable(clean_text(value, max_length=DESCRIPTION_MAX_LENGTH))


def _clean_events(value: Any) -> list[str]:
    chosen = clean_choices(
        value,
        allowed=EventType.values,
        message=_("“%(value)s” is not an event you can subscribe to."),
        canonical_order=True,
    )
    if not chosen:
        raise FieldInvalid(_("Choose at least one event."))
    return chosen


def _clean_endpoint(fields: dict[str, Any], *, partial: bool) -> dict[str, Any]:
    """The cleaned values of the fields given (all of them unless `partial`)."""
    errors = FieldErrors()
    for name in sorted(set(fields) - ENDPOINT_FIELDS):
        errors.add(name, _("This field is not known here."))
    cleaned: dict[str, Any] = {}
    allow_private = bool(settings.TRADEPOST_WEBHOOKS_ALLOW_PRIVATE)
    cleaners = {
        "url": lambda value: clean_endpoint_url(value, allow_private=allow_private),
        "description": _clean_description,
        "events": _clean_events,
    }
    for name, cleaner in cleaners.items():
        if partial and (name not in fields or fields[name] is None):
            continue
        value = errors.clean(name, cleaner, fields.get(name))
        if value is not None:
            cleaned[name] = value
    errors.raise_if_any(WebhookError, WebhookErrorCode.INVALID)
    return cleaned


# --- permissions -----------------------------------------------------------------------------


def _company_of_manager(actor: Any) -> Company:
    """The company whose webhooks the actor manages, in good standing."""
    company = require_webhook_manager(user=actor)
    suspended = standing_refusal(company)
    if suspended:
        raise WebhookError(WebhookErrorCode.COMPANY_SUSPENDED, suspended)
    return company


def _locked_endpoint(actor: Any, endpoint: WebhookEndpoint) -> WebhookEndpoint:
    """The endpoint's row, locked, after checking the actor manages its company."""
    company = _company_of_manager(actor)
    locked = WebhookEndpoint.objects.select_for_update().filter(pk=endpoint.pk).first()
    if locked is None or locked.company_id != company.pk:
        raise WebhookNotFound()
    return locked


def _refuse_if_off(endpoint: WebhookEndpoint) -> None:
    if not endpoint.is_active:
        raise WebhookError(
            WebhookErrorCode.ENDPOINT_DISABLED,
            _("The endpoint is switched off: switch it on first."),
        )


# --- endpoints -------------------------------------------------------------------------------


@transaction.atomic
def webhook_endpoint_create(*, actor: Any, **fields: Unpack[EndpointFields]) -> EndpointWithSecret:
    """Add an endpoint to the actor's company; answers it with its secret (shown once)."""
    company = _company_of_manager(actor)
    cleaned = _clean_endpoint(dict(fields), partial=False)
    # The company's row is locked so two additions at once cannot pass the limit together.
    Company.objects.select_for_update().filter(pk=company.pk).first()
    limit = int(settings.TRADEPOST_WEBHOOKS_MAX_ENDPOINTS)
    if WebhookEndpoint.objects.filter(company=company).count() >= limit:
        raise WebhookError(
            WebhookErrorCode.TOO_MANY_ENDPOINTS,
            _("A company can have at most %(limit)d webhook endpoints: delete one first.")
            % {"limit": limit},
        )
    endpoint = WebhookEndpoint(company=company, created_by=actor, secret_salt=new_salt(), **cleaned)
    WebhookError.clean_model(endpoint, code=WebhookErrorCode.INVALID)
    endpoint.save()
    audit_record(
        actor=actor,
        action="webhook.create",
        target=endpoint,
        changes={"url": [None, endpoint.url], "events": [None, endpoint.events]},
    )
    return EndpointWithSecret(endpoint, endpoint_secret(endpoint.secret_salt))


@transaction.atomic
def webhook_endpoint_update(
    *, actor: Any, endpoint: WebhookEndpoint, **fields: Unpack[EndpointFields]
) -> WebhookEndpoint:
    """Change an endpoint's address, description or events (those given)."""
    locked = _locked_endpoint(actor, endpoint)
    cleaned = _clean_endpoint(dict(fields), partial=True)
    changes = {
        name: [getattr(locked, name), value]
        for name, value in cleaned.items()
        if getattr(locked, name) != value
    }
    if changes:
        for name, value in cleaned.items():
            setattr(locked, name, value)
        WebhookError.clean_model(locked, code=WebhookErrorCode.INVALID)
        locked.save()
        audit_record(actor=actor, action="webhook.update", target=locked, changes=changes)
    return locked


@transaction.atomic
def webhook_endpoint_rotate_secret(
    *, actor: Any, endpoint: WebhookEndpoint, keep_previous: bool = True
) -> EndpointWithSecret:
    """Give the endpoint a new secret, answered once. With `keep_previous` the old one also
    signs every delivery for TRADEPOST_WEBHOOKS_ROTATION_HOURS more (two `v1` signatures),
    so the receiver can switch without missing a delivery; without it, it stops at once (a
    secret that leaked)."""
    locked = _locked_endpoint(actor, endpoint)
    now = timezone.now()
    hours = int(settings.TRADEPOST_WEBHOOKS_ROTATION_HOURS)
    before = secret_hint(locked.secret_salt)
    if keep_previous is True and hours > 0:
        locked.previous_secret_salt = locked.secret_salt
        locked.previous_secret_expires_at = now + timedelta(hours=hours)
    else:
        locked.previous_secret_salt = ""
        locked.previous_secret_expires_at = None
    locked.secret_salt = new_salt()
    locked.secret_rotated_at = now
    locked.save()
    audit_record(
        actor=actor,
        action="webhook.rotate_secret",
        target=locked,
        changes={"secret": [before, secret_hint(locked.secret_salt)]},
    )
    return EndpointWithSecret(locked, endpoint_secret(locked.secret_salt))


def _switch(
    locked: WebhookEndpoint, *, active: bool, reason: str, actor: Any, action: str
) -> WebhookEndpoint:
    if locked.is_active == active:
        return locked
    before = locked.is_active
    locked.is_active = active
    locked.disabled_reason = "" if active else reason
    locked.disabled_at = None if active else timezone.now()
    if active:
        locked.consecutive_failures = 0
    locked.save()
    audit_record(actor=actor, action=action, target=locked, changes={"is_active": [before, active]})
    return locked


@transaction.atomic
def webhook_endpoint_disable(*, actor: Any, endpoint: WebhookEndpoint) -> WebhookEndpoint:
    """Switch an endpoint off: nothing more is sent to it (the deliveries waiting are not
    sent) until it is switched on again."""
    locked = _locked_endpoint(actor, endpoint)
    return _switch(
        locked, active=False, reason=DisabledReason.MANUAL, actor=actor, action="webhook.disable"
    )


@transaction.atomic
def webhook_endpoint_enable(*, actor: Any, endpoint: WebhookEndpoint) -> WebhookEndpoint:
    """Switch an endpoint on again (its count of failures starts from zero)."""
    locked = _locked_endpoint(actor, endpoint)
    return _switch(locked, active=True, reason="", actor=actor, action="webhook.enable")


@transaction.atomic
def webhook_endpoint_delete(*, actor: Any, endpoint: WebhookEndpoint) -> None:
    """Delete an endpoint with its delivery log."""
    locked = _locked_endpoint(actor, endpoint)
    audit_record(
        actor=actor, action="webhook.delete", target=locked, changes={"url": [locked.url, None]}
    )
    locked.delete()


@transaction.atomic
def webhook_endpoint_send_test(*, actor: Any, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """Send a `webhook.test` event to this endpoint only (one attempt, signed like every
    delivery), to check the receiver; answers its delivery, sent after the commit."""
    locked = _locked_endpoint(actor, endpoint)
    _refuse_if_off(locked)
    event = new_event(
        event_type=TEST_EVENT,
        company_id=locked.company_id,
        data={"endpoint_id": locked.pk, "message": "This is a test event from Tradepost."},
    )
    (delivery,) = new_deliveries(event, [locked.pk], manual=True)
    return delivery


@transaction.atomic
def webhook_delivery_redeliver(*, actor: Any, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery's event again to its endpoint: a new delivery (one attempt) with the
    same body and event id, so a receiver that got it already can drop it."""
    locked = _locked_endpoint(actor, delivery.endpoint)
    _refuse_if_off(locked)
    event = WebhookEvent.objects.get(pk=delivery.event_id)
    (again,) = new_deliveries(event, [locked.pk], manual=True)
    audit_record(
        actor=actor,
        action="webhook.redeliver",
        target=locked,
        changes={"event": [None, str(event.event_id)]},
    )
    return again


# --- sending (the worker) --------------------------------------------------------------------


def _lease() -> timedelta:
    """Longer than any attempt can take: a claimed delivery is due again after it."""
    return timedelta(
        seconds=float(settings.TRADEPOST_WEBHOOKS_TIMEOUT)
        + float(settings.TRADEPOST_WEBHOOKS_CONNECT_TIMEOUT)
        + 5.0
    )


def webhook_backoff() -> Backoff:
    """The waits between a delivery's attempts: `TRADEPOST_WEBHOOKS_RETRY_BASE_SECONDS`
    doubled each time, at most `TRADEPOST_WEBHOOKS_RETRY_MAX_SECONDS`, within ±25%."""
    return Backoff(
        base=timedelta(seconds=float(settings.TRADEPOST_WEBHOOKS_RETRY_BASE_SECONDS)),
        ceiling=timedelta(seconds=float(settings.TRADEPOST_WEBHOOKS_RETRY_MAX_SECONDS)),
        jitter=0.25,
    )


def secrets_in_use(endpoint: WebhookEndpoint, *, now: datetime) -> list[str]:
    """The secrets that sign a delivery now: the endpoint's, and its previous one for a
    while after a rotation."""
    in_use = [endpoint_secret(endpoint.secret_salt)]
    expires = endpoint.previous_secret_expires_at
    if endpoint.previous_secret_salt and expires is not None and expires > now:
        in_use.append(endpoint_secret(endpoint.previous_secret_salt))
    return in_use


def delivery_headers(delivery: WebhookDelivery, *, body: bytes, now: datetime) -> dict[str, str]:
    event = delivery.event
    return {
        "Content-Type": "application/json; charset=utf-8",
        SIGNATURE_HEADER: signature_header(
            secrets_in_use(delivery.endpoint, now=now), int(time.time()), body
        ),
        "Tradepost-Event-Id": str(event.event_id),
        "Tradepost-Event-Type": event.type,
        "Tradepost-Delivery-Id": str(delivery.pk),
        "Tradepost-Attempt": str(delivery.attempts),
    }


def delivery_attempt(*, delivery_id: int, now: datetime | None = None) -> str:
    """Send one due delivery once: "delivered", "retry" (due again later), "failed" (for
    good), "cancelled" (its endpoint is switched off) or "not-due" (not pending, not due
    yet, or claimed by another worker)."""
    now = now or timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    ).update(attempts=F("attempts") + 1, next_attempt_at=now + _lease(), last_attempt_at=now)
    if not claimed:
        return "not-due"
    delivery = WebhookDelivery.objects.select_related("event", "endpoint").get(pk=delivery_id)
    if not delivery.endpoint.is_active:
        WebhookDelivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.CANCELLED,
            attempts=F("attempts") - 1,
            next_attempt_at=None,
            last_error="not sent: the endpoint is switched off",
        )
        return "cancelled"
    body = delivery.event.body.encode("utf-8")
    outcome = sending.post(
        delivery.endpoint.url, body=body, headers=delivery_headers(delivery, body=body, now=now)
    )
    return _record_outcome(delivery, outcome, now=timezone.now())


@transaction.atomic
def _record_outcome(delivery: WebhookDelivery, outcome: sending.Outcome, *, now: datetime) -> str:
    endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=delivery.endpoint_id).first()
    if endpoint is None:
        return "cancelled"  # deleted while the attempt ran, with its delivery log
    pending = WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING)
    answer = {
        "response_status": outcome.status,
        "response_ms": outcome.elapsed_ms,
        "last_error": outcome.error,
    }
    if outcome.succeeded:
        pending.update(
            status=DeliveryStatus.SUCCEEDED, delivered_at=now, next_attempt_at=None, **answer
        )
        if endpoint.consecutive_failures:
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=0)
        return "delivered"
    last = delivery.manual or delivery.attempts >= int(settings.TRADEPOST_WEBHOOKS_MAX_ATTEMPTS)
    if not last:
        due = now + webhook_backoff().delay(delivery.attempts)
        pending.update(next_attempt_at=due, **answer)
        _queue_retry(delivery.pk, due)
        return "retry"
    pending.update(status=DeliveryStatus.FAILED, next_attempt_at=None, **answer)
    if not delivery.manual:
        _count_failure(endpoint)
    return "failed"


def _queue_retry(delivery_id: int, due: datetime) -> None:
    """Queue the next attempt for `due` where the queue can defer a task (the database and
    Redis queues); elsewhere (the tests' immediate queue) the worker's timer sends it."""
    from tradepost.webhooks.tasks import deliver_webhook

    if deliver_webhook.get_backend().supports_defer:
        enqueue_on_commit(deliver_webhook, run_after=due, delivery_id=delivery_id)


def _count_failure(endpoint: WebhookEndpoint) -> None:
    """One more delivery failed for good (the endpoint's row is locked): switch it off at
    the limit and tell the company's owner and admins."""
    failures = endpoint.consecutive_failures + 1
    limit = int(settings.TRADEPOST_WEBHOOKS_DISABLE_AFTER)
    if not endpoint.is_active or limit <= 0 or failures < limit:
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=failures)
        return
    endpoint.consecutive_failures = failures
    _switch(
        endpoint,
        active=False,
        reason=DisabledReason.FAILURES,
        actor=None,
        action="webhook.disable_failing",
    )
    _tell_managers_disabled(endpoint, failures=failures)
    logger.warning(
        "webhook endpoint %s of company %s switched off after %d failed deliveries",
        endpoint.pk,
        endpoint.company_id,
        failures,
    )


def _tell_managers_disabled(endpoint: WebhookEndpoint, *, failures: int) -> None:
    company = endpoint.company
    for user in company_managers(endpoint.company_id):
        language = normalise_ui_language(user.preferred_language)
        with translation.override(language):
            link = link_in(language, ENDPOINT_PAGE, kwargs={"endpoint_id": endpoint.pk})
            company_name = company.name_for(language)
        queue_email(
            to=user.email,
            subject=gettext_lazy("A webhook endpoint of your company was switched off"),
            template="webhooks_endpoint_disabled",
            context={
                "recipient_name": user.get_short_name(),
                "company_name": company_name,
                "url": endpoint.url,
                "failures": failures,
                "timeout": int(settings.TRADEPOST_WEBHOOKS_TIMEOUT),
                "link": link,
            },
            language=language,
        )


def deliveries_send_due(*, now: datetime | None = None, grace: timedelta | None = None) -> int:
    """Queue the pending deliveries due for longer than `grace` (by default
    TRADEPOST_WEBHOOKS_SWEEP_GRACE_SECONDS): their task was lost (a
    worker killed mid-delivery leaves its claim to run out) or never queued (the process
    died between the commit and the queue), or the queue cannot defer retries. Each is
    stamped due now and queued once the stamp commits (at once outside a transaction, as in
    the worker's timer), so the next run does not queue it again at once. Answers how many
    were queued."""
    now = now or timezone.now()
    if grace is None:
        grace = timedelta(seconds=float(settings.TRADEPOST_WEBHOOKS_SWEEP_GRACE_SECONDS))
    due = list(
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=now - grace
        )
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    if not due:
        return 0
    with transaction.atomic():
        WebhookDelivery.objects.filter(pk__in=due, status=DeliveryStatus.PENDING).update(
            next_attempt_at=now
        )
        queue_after_commit(due)
    return len(due)


def webhook_log_prune(*, now: datetime | None = None) -> int:
    """Delete the events older than TRADEPOST_WEBHOOKS_LOG_DAYS with their deliveries (none
    still pending); answers how many events went."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=int(settings.TRADEPOST_WEBHOOKS_LOG_DAYS))
    old = (
        WebhookEvent.objects.filter(created_at__lt=cutoff)
        .exclude(deliveries__status=DeliveryStatus.PENDING)
        .values_list("pk", flat=True)[:5000]
    )
    ids = list(old)
    if not ids:
        return 0
    WebhookEvent.objects.filter(pk__in=ids).delete()
    return len(ids)
