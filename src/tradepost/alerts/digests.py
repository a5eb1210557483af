"""Digests: telling each alert's owner of its new matches, by email, in-app and by webhook.

The worker's timer runs `digests_send_due` every minute. An alert is due when it has unsent
matches and its last digest is older than its frequency allows (an hour for "as it happens",
a day, a week). For each due alert, one transaction

- claims it (a conditional UPDATE of its `claim` counter: of two workers, one wins),
- takes its unsent matches that are still shown (a listing hidden by moderation, unpublished
  or closed since it matched stays unsent: it goes out if it is shown again, never while
  hidden),
- records the digest (`AlertDigest`, pending) and ties the matches to it,
- adds the in-app notification and the webhook event `alert.matched`.

Then the digest is sent: its status goes from pending to sending in one conditional UPDATE
(one sender), the email is handed to the mail server, and the status becomes sent. A worker
killed before the handover leaves it pending, and the next run sends it; one killed during
the handover leaves it "sending", and it is not sent again: no email twice, and no match lost
(the matches stay recorded, on the alerts page and in the notification). An account closed
or deactivated since the alert was saved gets nothing: its alert is paused and the digest
dropped.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy

from tradepost.alerts.models import (
    AlertDigest,
    AlertKind,
    AlertMatch,
    DigestStatus,
    Frequency,
    SavedSearch,
)
from tradepost.alerts.percolation import PercolationReport, percolate
from tradepost.alerts.selectors import search_path, visible_items
from tradepost.alerts.services import unsubscribe_token
from tradepost.core.events import EventType, emit
from tradepost.core.languages import normalise_ui_language
from tradepost.notify.emails import render_email
from tradepost.notify.models import NotificationKind
from tradepost.notify.services import absolute_url, link_in, notification_create
from tradepost.notify.tasks import deliver_email

logger = logging.getLogger(__name__)

#: The least time between two digests of one alert, by frequency.
SPACING: dict[str, timedelta] = {
    Frequency.INSTANT: timedelta(hours=1),
    Frequency.DAILY: timedelta(days=1),
    Frequency.WEEKLY: timedelta(days=7),
}
#: Listings shown in one email (the rest are on the alert's page, one click away).
MAX_CARDS = 20
#: Alerts read in one query (a run takes them all, a chunk at a time).
MAX_ALERTS_PER_RUN = 2000


def due_alert_ids(
    now: datetime,
    limit: int = MAX_ALERTS_PER_RUN,
    *,
    among: set[int] | None = None,
    frequencies: tuple[str, ...] = tuple(SPACING),
    after: int = 0,
) -> list[int]:
    """Alerts (with ids above `after`, among `among` when given) with unsent matches whose
    frequency allows a digest now, in id order."""
    unsent = AlertMatch.objects.filter(alert=OuterRef("pk"), digest__isnull=True)
    spacing = Q()
    for frequency in frequencies:
        spacing |= Q(frequency=frequency) & (
            Q(last_sent_at__isnull=True) | Q(last_sent_at__lte=now - SPACING[frequency])
        )
    rows = SavedSearch.objects.filter(spacing, Exists(unsent), paused=False, pk__gt=after)
    if among is not None:
        rows = rows.filter(pk__in=sorted(among))
    return list(rows.order_by("pk").values_list("pk", flat=True)[:limit])


def percolate_and_send() -> PercolationReport:
    """What the worker does after each pass of the indexer: match what the index took in
    against the saved searches, then send at once the digests of "as it happens" alerts
    that got matches and are due (the others wait for the timer)."""
    report = percolate()
    if report.alerts:
        now = timezone.now()
        for alert_id in due_alert_ids(now, among=report.alerts, frequencies=(Frequency.INSTANT,)):
            digest = digest_make(alert_id, now=now)
            if digest is not None:
                digest_send(digest.pk)
    return report


def digests_send_due(*, now: datetime | None = None) -> int:
    """Make and send the digests that are due (and any left pending by a stopped worker);
    returns the number of emails sent."""
    now = now or timezone.now()
    after = 0
    while due := due_alert_ids(now, after=after):
        for alert_id in due:
            try:
                digest_make(alert_id, now=now)
            except Exception:  # one bad alert must not stop the others
                logger.exception("could not make the digest of alert %s", alert_id)
        after = due[-1]
    sent = 0
    after = 0
    while True:
        pending = list(
            AlertDigest.objects.filter(status=DigestStatus.PENDING, pk__gt=after)
            .order_by("pk")
            .values_list("pk", flat=True)[:MAX_ALERTS_PER_RUN]
        )
        if not pending:
            return sent
        for digest_id in pending:
            try:
                sent += int(digest_send(digest_id))
            except Exception:
                logger.exception("could not send alert digest %s", digest_id)
        after = pending[-1]


def digest_make(alert_id: int, *, now: datetime) -> AlertDigest | None:
    """Claim one due alert and record its digest (see the module's docstring); None when
    another worker claimed it, or nothing shown is left to send."""
    with transaction.atomic():
        alert = SavedSearch.objects.select_related("user", "company").filter(pk=alert_id).first()
        if alert is None:
            return None
        claimed = SavedSearch.objects.filter(pk=alert.pk, claim=alert.claim).update(
            claim=F("claim") + 1
        )
        if not claimed:
            return None
        if not _may_receive(alert):
            SavedSearch.objects.filter(pk=alert.pk).update(paused=True)
            return None
        language = normalise_ui_language(alert.language)
        unsent = list(
            AlertMatch.objects.filter(alert=alert, digest__isnull=True).order_by("matched_at", "pk")
        )
        shown = visible_items(alert.kind, [m.object_id for m in unsent], language)
        sendable = [m for m in unsent if m.object_id in shown]
        if not sendable:
            return None
        digest = AlertDigest.objects.create(alert=alert, created_at=now, count=len(sendable))
        AlertMatch.objects.filter(pk__in=[m.pk for m in sendable]).update(digest=digest)
        SavedSearch.objects.filter(pk=alert.pk).update(last_sent_at=now)
        path = _alert_path(alert)
        notification_create(
            recipient=alert.user,
            kind=NotificationKind.ALERT_MATCHED,
            params={"subject": alert.query or "", "count": len(sendable)},
            link=path,
            now=now,
        )
        emit(
            EventType.ALERT_MATCHED,
            company_id=alert.company_id,
            payload={
                "alert": {"id": alert.pk, "kind": alert.kind, "query": alert.query},
                "matches": [
                    {"kind": alert.kind, "id": m.object_id, "matched_at": m.matched_at.isoformat()}
                    for m in sendable
                ],
            },
        )
    return digest


def _may_receive(alert: SavedSearch) -> bool:
    """The owner still has an active account with an address, in the alert's company."""
    from tradepost.companies.models import Membership

    user = alert.user
    if not (user.is_active and user.email):
        return False
    return Membership.objects.filter(user_id=user.pk, company_id=alert.company_id).exists()


def _alert_path(alert: SavedSearch) -> str:
    """The alert's page, as a notification link (reversed in English)."""
    from django.urls import reverse

    with translation.override("en"):
        return reverse("alerts:detail", args=[alert.pk])


def digest_send(digest_id: int) -> bool:
    """Send one pending digest (one sender: pending -> sending, then sent). The email is
    rendered first, so a failure there leaves it pending for the next run."""
    digest = (
        AlertDigest.objects.select_related("alert__user")
        .filter(pk=digest_id, status=DigestStatus.PENDING)
        .first()
    )
    if digest is None:
        return False
    alert = digest.alert
    if not _may_receive(alert):
        AlertDigest.objects.filter(pk=digest_id).update(status=DigestStatus.DROPPED)
        SavedSearch.objects.filter(pk=alert.pk).update(paused=True)
        return False
    message, headers = render_digest(digest)
    taken = AlertDigest.objects.filter(pk=digest_id, status=DigestStatus.PENDING).update(
        status=DigestStatus.SENDING
    )
    if not taken:
        return False
    deliver_email(
        to=alert.user.email,
        attempt=0,
        headers=headers,
        subject=message["subject"],
        text=message["text"],
        html=message["html"],
        language=message["language"],
    )
    AlertDigest.objects.filter(pk=digest_id).update(status=DigestStatus.SENT)
    return True


def render_digest(digest: AlertDigest) -> tuple[dict[str, str], dict[str, str]]:
    """The digest's email in its reader's language, and its List-Unsubscribe headers."""
    alert = digest.alert
    language = normalise_ui_language(alert.language)
    ids = list(
        AlertMatch.objects.filter(digest=digest)
        .order_by("-matched_at", "-pk")
        .values_list("object_id", flat=True)
    )
    items = visible_items(alert.kind, ids[:MAX_CARDS], language)
    with translation.override(language):
        unsubscribe = link_in(
            language, "alerts:unsubscribe", kwargs={"token": unsubscribe_token(alert)}
        )
        context: dict[str, Any] = {
            "recipient_name": alert.user.get_short_name(),
            "alert": alert,
            "kind": alert.kind,
            "query": alert.query,
            "count": len(ids),
            "items": [items[i] for i in ids[:MAX_CARDS] if i in items],
            "more": max(0, len(ids) - MAX_CARDS),
            "search_link": absolute_url(search_path(alert, language)),
            "alert_link": absolute_url(_alert_path(alert).replace("/en/", f"/{language}/", 1)),
            "unsubscribe_link": unsubscribe,
            "is_products": alert.kind == AlertKind.PRODUCT,
            "is_requests": alert.kind == AlertKind.REQUEST,
        }
    message = render_email(
        subject=_subject(alert, len(ids)),
        template="alerts_digest",
        context=context,
        language=language,
    )
    headers = {
        "List-Unsubscribe": f"<{unsubscribe}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
    return message, headers


def _subject(alert: SavedSearch, count: int) -> Any:
    from django.utils.translation import ngettext_lazy

    if alert.query:
        return ngettext_lazy(
            "%(count)d new match for “%(query)s”",
            "%(count)d new matches for “%(query)s”",
            count,
        ) % {"count": count, "query": alert.query[:60]}
    return gettext_lazy("New matches for your saved search")
