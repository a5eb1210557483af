"""`kill -9` of the worker in the middle of a delivery (real processes: `tradepost worker`
with the database queue, a receiver on 127.0.0.1 that holds the first request open): no
event is lost. The killed attempt's claim runs out, the next worker's timer queues it again,
and every event arrives at least once; the one that was cut off arrives twice, with the same
event id, for the receiver to drop."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.processes import kill_9_once, process_env, python_json, run_python, start_cli
from tests.webhooks.conftest import hang

EVENTS = 4

SETUP = """
import django, sys
django.setup()
from django.db import transaction
from tests.factories.companies import make_trader
from tradepost.core.events import emit
from tradepost.webhooks.services import webhook_endpoint_create
owner, company = make_trader(slug="killed-webhooks")
webhook_endpoint_create(actor=owner, url=sys.argv[1], events=["product.published"])
for number in range({events}):
    with transaction.atomic():
        emit("product.published", company_id=company.pk, payload={{"product": {{"id": number}}}})
"""

STATE = """
import django, json
django.setup()
from tradepost.webhooks.models import WebhookDelivery
print(json.dumps(sorted(
    [d.status, d.attempts] for d in WebhookDelivery.objects.all()
)))
"""


def _env(home: Path) -> dict[str, str]:
    return process_env(
        home,
        # The durable queue, as in production; the receiver is on 127.0.0.1.
        TRADEPOST_TASKS_BACKEND="database",
        TRADEPOST_WEBHOOKS_ALLOW_PRIVATE="1",
        TRADEPOST_WEBHOOKS_CONNECT_TIMEOUT="1",
        TRADEPOST_WEBHOOKS_TIMEOUT="3",  # a claim lasts 3 + 1 + 5 seconds
        TRADEPOST_WEBHOOKS_SWEEP_GRACE_SECONDS="0",
    )


def _lease_ends(database: Path) -> float:
    """When the claim of the attempt that was cut off runs out (Unix time)."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as connection:
        (lease,) = connection.execute(
            "SELECT max(next_attempt_at) FROM webhooks_webhookdelivery WHERE attempts = 1"
        ).fetchone()
    return datetime.fromisoformat(lease).replace(tzinfo=UTC).timestamp()


def _worker(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return start_cli(env, "worker", "--no-indexer", *args)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_mid_delivery_loses_nothing(process_home, receiver):
    env = _env(process_home)
    setup = run_python(SETUP.format(events=EVENTS), env, receiver.url)
    assert setup.returncode == 0, setup.stderr
    assert python_json(STATE, env) == [["pending", 0]] * EVENTS  # committed, queued, not sent

    receiver.answer_with(hang(30))  # the first request is held open: the worker waits
    worker = _worker(env)
    kill_9_once(worker, lambda: receiver.received, within=120, what="the worker sent nothing")
    # The attempt was claimed and never answered; the others wait in the queue.
    assert python_json(STATE, env) == [["pending", 0]] * (EVENTS - 1) + [["pending", 1]]

    # A new worker once the claim has run out (3 + 1 + 5 s after it was taken: the lease the
    # database holds): its timer queues the cut-off delivery again, its queue runs the others.
    lease_ends = _lease_ends(process_home / "tradepost.sqlite3")
    time.sleep(max(0.0, lease_ends - time.time() + 0.05))
    rerun = _worker(env, "--batch")
    assert rerun.wait(timeout=180) == 0, rerun.stderr.read() if rerun.stderr else ""

    assert python_json(STATE, env) == [["succeeded", 1]] * (EVENTS - 1) + [["succeeded", 2]]
    ids = [body["id"] for body in receiver.bodies()]
    assert len(set(ids)) == EVENTS  # every event arrived
    assert len(ids) == EVENTS + 1  # the cut-off one twice, with the same id
    assert ids.count(ids[0]) == 2
    numbers = sorted({body["data"]["product"]["id"] for body in receiver.bodies()})
    assert numbers == list(range(EVENTS))
