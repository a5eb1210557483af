"""`kill -9` of the process matching or sending trade alerts (real processes, as the other
drills): no match is lost, none is recorded twice, and no digest email goes out twice, even
when the process dies right after the mail server took one."""

from __future__ import annotations

import json
import signal
import subprocess

import pytest

from tests.processes import process_env, run_python

SETUP = """
import django
django.setup()
from django.db import transaction
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tradepost.alerts.services import saved_search_create
from tradepost.search.indexer import apply_outbox
from tradepost.search.outbox import record_change
apply_outbox()  # the (empty) index exists before anything is saved
buyers = [make_trader(country="DE", slug=f"buyer-{n}")[0] for n in range(3)]
for buyer in buyers:
    saved_search_create(actor=buyer, kind="product", query="enamel mug", frequency="instant")
with transaction.atomic():
    for n in range(30):
        product = make_product(title=f"Enamel camping mug {n}")
        record_change(kind="product", object_id=product.pk)
apply_outbox()
"""

CRASH_MATCHING = """
import os, signal, django
django.setup()
import tradepost.alerts.percolation as percolation
real = percolation.Percolator._shown
calls = []
def dying(*args, **kwargs):  # asked once per clear (alert, listing) pair
    calls.append(1)
    if len(calls) == 40:  # in the middle of the second batch
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
percolation.Percolator._shown = dying
percolation.percolate(batch_size=10)
"""

SENDER = """
import os, signal, sys, django
django.setup()
import tradepost.alerts.digests as digests
die_after = int(sys.argv[1])
sent = []
def recorded(*, to, subject, **kwargs):
    with open(os.path.join(os.environ["TRADEPOST_HOME"], "mail.log"), "a") as log:
        log.write(to + "\\n")
    sent.append(to)
    if len(sent) == die_after:  # the mail server took it; the status is not yet "sent"
        os.kill(os.getpid(), signal.SIGKILL)
    return "sent"
digests.deliver_email = recorded
digests.digests_send_due()
"""

STATE = """
import json, django
django.setup()
from tradepost.alerts.models import AlertDigest, AlertMatch
from tradepost.alerts.percolation import percolate
percolate()
pairs = list(AlertMatch.objects.values_list("alert_id", "object_id"))
print(json.dumps({
    "matches": len(pairs),
    "distinct": len(set(pairs)),
    "digests": sorted(AlertDigest.objects.values_list("status", flat=True)),
}))
"""


def run(code: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_python(code, env, *args, timeout=180)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_while_matching_and_while_sending_loses_nothing_and_doubles_nothing(
    process_home,
):
    env = process_env(process_home)
    setup = run(SETUP, env)
    assert setup.returncode == 0, setup.stderr

    crash = run(CRASH_MATCHING, env)
    assert crash.returncode == -signal.SIGKILL, crash.stderr
    state = run(STATE, env)
    assert state.returncode == 0, state.stderr
    # Three alerts, thirty listings: every pair once, the crashed batch matched again.
    assert json.loads(state.stdout.strip().splitlines()[-1]) == {
        "matches": 90,
        "distinct": 90,
        "digests": [],
    }

    first = run(SENDER, env, "2")  # killed right after handing over the second email
    assert first.returncode == -signal.SIGKILL, first.stderr
    again = run(SENDER, env, "0")  # the next run: the rest, never the same one twice
    assert again.returncode == 0, again.stderr
    state = run(STATE, env)
    log = (process_home / "mail.log").read_text().split()
    assert len(log) == 3 and len(set(log)) == 3, log
    assert json.loads(state.stdout.strip().splitlines()[-1])["digests"] == [
        "sending",
        "sent",
        "sent",
    ]
