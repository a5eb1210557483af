"""Jobs the worker runs on a timer (no cron needed on a one-machine install).

Each job is idempotent and safe to run from several workers at once: expiring requests is one
conditional UPDATE, and each request's "closes soon" notice, and each supplier's alert of a
matching request, is claimed by one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import close_old_connections, connection
from django.utils import timezone

from tradepost.accounts.throttle import throttle_hits_prune
from tradepost.alerts.digests import digests_send_due
from tradepost.api.idempotency import idempotency_keys_purge
from tradepost.imports.services import imports_resume_stalled
from tradepost.insights.services import counters_prune
from tradepost.membership.services import membership_jobs_run
from tradepost.sourcing.responsiveness import refresh_indexed_rates
from tradepost.sourcing.services import request_expire_due, requests_notify_expiring
from tradepost.sourcing.tasks import match_alerts_send_due
from tradepost.trust.services import suspensions_lift_due
from tradepost.webhooks.services import deliveries_send_due, webhook_log_prune

logger = logging.getLogger(__name__)


def _expire_requests() -> None:
    expired = request_expire_due()
    if expired:
        logger.info("expired %d buying requests past their deadline", expired)


def _send_match_alerts() -> None:
    told = match_alerts_send_due()
    if told:
        logger.info("told %d people of new matching buying requests (after the first look)", told)


def _send_alert_digests() -> None:
    sent = digests_send_due()
    if sent:
        logger.info("sent %d trade-alert digests", sent)


def _notify_expiring_requests() -> None:
    told = requests_notify_expiring()
    if told:
        logger.info("told the buyers of %d buying requests that their deadline is near", told)


class _IndexedRates:
    """Suppliers whose response rate moved get their documents rebuilt
    (`sourcing.responsiveness.refresh_indexed_rates`). The first look covers the last day
    (changes while no worker ran); each next one starts a minute before the last began, so
    answers committed while looking are seen next time."""

    def __init__(self) -> None:
        self.since: datetime | None = None

    def __call__(self) -> None:
        looked_at = timezone.now()
        since = self.since or looked_at - timedelta(days=1)
        changed = refresh_indexed_rates(since=since)
        self.since = looked_at - timedelta(minutes=1)
        if changed:
            logger.info("re-indexing %d suppliers whose response rate moved", changed)


def _prune_counters() -> None:
    pruned = counters_prune()
    if pruned:
        logger.info("deleted %d daily view and search-word counters past their retention", pruned)


def _purge_api_records() -> None:
    keys = idempotency_keys_purge()
    hits = throttle_hits_prune()
    if keys or hits:
        logger.info("deleted %d expired idempotency keys and %d old rate-limit counts", keys, hits)


def _membership_renewals() -> None:
    done = membership_jobs_run()
    if any(done.values()):
        logger.info(
            "memberships: %(renewals)d renewal invoices, %(reminders)d reminders, "
            "%(expired)d back on the free plan",
            done,
        )


def _resume_stalled_imports() -> None:
    queued = imports_resume_stalled()
    if queued:
        logger.info("queued again %d catalogue imports a stopped worker left", queued)


def _send_due_webhooks() -> None:
    queued = deliveries_send_due()
    if queued:
        logger.info("queued %d webhook deliveries whose task was lost", queued)


def _prune_webhook_log() -> None:
    pruned = webhook_log_prune()
    if pruned:
        logger.info("deleted %d webhook events past their retention", pruned)


def _lift_suspensions() -> None:
    lifted = suspensions_lift_due()
    if lifted:
        logger.info("lifted %d suspensions whose time was up", lifted)


#: (name, interval in seconds, job)
JOBS: list[tuple[str, float, Callable[[], None]]] = [
    ("expire buying requests", 60.0, _expire_requests),
    ("notify buyers of requests closing soon", 300.0, _notify_expiring_requests),
    ("alert suppliers of matching requests after the first look", 60.0, _send_match_alerts),
    ("refresh the response rates in the search index", 300.0, _IndexedRates()),
    ("delete old insight counters", 3600.0, _prune_counters),
    ("membership renewals, reminders and expiries", 900.0, _membership_renewals),
    ("delete expired idempotency keys and rate-limit counts", 3600.0, _purge_api_records),
    ("queue webhook deliveries whose task was lost", 15.0, _send_due_webhooks),
    ("delete old webhook events and deliveries", 3600.0, _prune_webhook_log),
    ("resume stalled catalogue imports", 60.0, _resume_stalled_imports),
    ("lift suspensions whose time is up", 60.0, _lift_suspensions),
    ("send the trade-alert digests that are due", 60.0, _send_alert_digests),
]


def run_due_jobs(last_run: dict[str, float], now: float) -> None:
    for name, interval, job in JOBS:
        if now - last_run.get(name, 0.0) < interval:
            continue
        last_run[name] = now
        try:
            job()
        except Exception:
            logger.exception("periodic job %r failed; it runs again at its next interval", name)


def run_periodic_jobs(stop: threading.Event, *, tick: float = 5.0) -> None:
    """Run the jobs at their intervals until `stop` is set (the worker runs this in a thread)."""
    last_run: dict[str, float] = {}
    try:
        while not stop.is_set():
            close_old_connections()
            run_due_jobs(last_run, time.monotonic())
            stop.wait(tick)
    finally:
        connection.close()
