"""Webhook delivery: the time from a commit to the delivery with the worker idle, and a
`kill -9` of the worker in the middle of a delivery (nothing may be lost).

    .venv/bin/python -m bench.webhooks [--events 100] [--kill-events 30]

Real processes throughout: a scratch data folder (SQLite; `DATABASE_URL` to use PostgreSQL,
on a fresh database), `tradepost worker` with the database queue (the default) in its own
process, and a receiver on 127.0.0.1 in this one (so private addresses are allowed, as the
tests do: `TRADEPOST_WEBHOOKS_ALLOW_PRIVATE=1`).

1. **Latency**: `--events` events, each emitted in its own transaction, one at a time, the
   next once the previous one arrived and after a random pause (0.05-1 s, so commits fall
   anywhere in the worker's polling cycle): the time from the end of the commit to the
   request's arrival at the receiver (median, p95, p99, max). The database queue's idle
   worker looks for tasks every `TRADEPOST_WORKER_POLL_SECONDS` (1 s by default; `--poll`),
   which is most of this time.
2. **kill -9**: `--kill-events` events emitted at once; the receiver holds the first request
   open, the worker is killed with SIGKILL while it waits, and a new worker is started at
   once (as `tradepost serve` or systemd restart it). Counted: events that arrived (at least
   once), duplicates (the same event id twice: the one cut off), the time from the kill to
   the last arrival, and the deliveries' final states in the database.

Writes `results/webhooks-<time>.json` and `.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parents[1]


class Receiver:
    """Keeps (arrival time, body) of each request; holds the first one marked `hold`."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.arrivals: list[tuple[float, dict[str, Any]]] = []
        self.hold_seconds = 0.0
        self.held = threading.Event()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                arrived = time.time()
                event = json.loads(body)
                with receiver.lock:
                    receiver.arrivals.append((arrived, event))
                    hold = receiver.hold_seconds if event["data"].get("hold") else 0.0
                    if hold:
                        receiver.hold_seconds = 0.0
                if hold:
                    receiver.held.set()
                    time.sleep(hold)
                try:
                    self.send_response(204)
                    self.end_headers()
                except OSError:
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def seen(self, phase: str) -> dict[int, list[float]]:
        """Arrival times by sequence number, for one phase."""
        found: dict[int, list[float]] = {}
        with self.lock:
            for arrived, event in self.arrivals:
                data = event["data"]
                if data.get("phase") == phase:
                    found.setdefault(data["seq"], []).append(arrived)
        return found


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        # The whole worker: the task queue and its timer (which queues lost deliveries).
        [sys.executable, "-m", "tradepost.cli", "worker"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.005)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--kill-events", type=int, default=30)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        help="TRADEPOST_WORKER_POLL_SECONDS of the worker (default 1, the setting's default)",
    )
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)

    home = Path(tempfile.mkdtemp(prefix="tradepost-webhooks-bench-"))
    receiver = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), receiver.handler())
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings_env = {
        "DJANGO_SETTINGS_MODULE": "tradepost.config.settings",
        "TRADEPOST_HOME": str(home),
        "DATABASE_URL": os.environ.get("DATABASE_URL", f"sqlite:///{home / 'bench.sqlite3'}"),
        "TRADEPOST_TASKS_BACKEND": "database",
        "TRADEPOST_WEBHOOKS_ALLOW_PRIVATE": "1",
        "TRADEPOST_WEBHOOKS_CONNECT_TIMEOUT": "1",
        "TRADEPOST_WEBHOOKS_TIMEOUT": "5",  # a claim lasts 5 + 1 + 5 s
        "TRADEPOST_WEBHOOKS_SWEEP_GRACE_SECONDS": "2",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "TRADEPOST_WORKER_POLL_SECONDS": str(arguments.poll),
    }
    os.environ.update(settings_env)
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}"}

    from tradepost.config.home import prepare_home

    prepare_home()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction

    from tradepost.accounts.models import User
    from tradepost.companies.models import Company, Membership, Role
    from tradepost.core.events import EventType, emit
    from tradepost.webhooks.models import WebhookDelivery
    from tradepost.webhooks.services import webhook_endpoint_create

    call_command("migrate", verbosity=0)
    owner = User.objects.create_user(email="bench@example.com", password="bench-Passphrase-42")
    company = Company.objects.create(slug="webhook-bench", legal_name="Webhook Bench", country="CN")
    Membership.objects.create(user=owner, company=company, role=Role.OWNER)
    url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    webhook_endpoint_create(actor=owner, url=url, events=[EventType.PRODUCT_PUBLISHED])

    def publish(phase: str, seq: int, **extra: Any) -> float:
        with transaction.atomic():
            emit(
                EventType.PRODUCT_PUBLISHED,
                company_id=company.pk,
                payload={"phase": phase, "seq": seq, **extra},
            )
        return time.time()  # committed

    worker = _worker(env)
    try:
        publish("warm-up", 0)
        _wait(lambda: receiver.seen("warm-up"), 120, "the worker to start")

        # 1. latency with the worker idle
        latencies = []
        for seq in range(arguments.events):
            time.sleep(rng.uniform(0.05, 1.0))
            committed = publish("latency", seq)
            _wait(lambda seq=seq: seq in receiver.seen("latency"), 60, f"event {seq}")
            latencies.append((receiver.seen("latency")[seq][0] - committed) * 1000)
        print(
            f"commit -> delivery, worker idle ({arguments.events} events): "
            f"median {statistics.median(latencies):.0f} ms, "
            f"p95 {_percentile(latencies, 0.95):.0f} ms, "
            f"p99 {_percentile(latencies, 0.99):.0f} ms, max {max(latencies):.0f} ms"
        )

        # 2. kill -9 in the middle of a delivery
        receiver.hold_seconds = 60.0
        kill_events = arguments.kill_events
        for seq in range(kill_events):
            publish("kill", seq, hold=seq == 0)
        _wait(receiver.held.is_set, 120, "the held delivery")
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        killed_at = time.time()
        worker = _worker(env)  # restarted at once, as a supervisor does
        # Done when no delivery is pending any more (the cut-off one is sent again once its
        # claim has run out), then what arrived is counted.
        connection.close()
        try:
            _wait(
                lambda: not WebhookDelivery.objects.filter(status="pending").exists(),
                300,
                "the deliveries to be recorded",
            )
        except SystemExit:
            for row in WebhookDelivery.objects.filter(status="pending").values(
                "pk", "attempts", "next_attempt_at", "last_error"
            ):
                print("still pending:", row)
        seen = receiver.seen("kill")
        recovered = max(max(times) for times in seen.values()) - killed_at
        duplicates = sum(len(times) - 1 for times in seen.values())
        states: dict[str, int] = {}
        for status in WebhookDelivery.objects.values_list("status", flat=True):
            states[status] = states.get(status, 0) + 1
        print(
            f"kill -9 mid-delivery: {len(seen)}/{kill_events} events arrived "
            f"({kill_events - len(seen)} lost), {duplicates} duplicate(s), the last "
            f"{recovered:.1f} s after the kill; deliveries {states}"
        )
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
        server.shutdown()

    result = {
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
        "database": connection.vendor,
        "worker_poll_seconds": arguments.poll,
        "latency_ms": {
            "events": arguments.events,
            "median": round(statistics.median(latencies), 1),
            "p95": round(_percentile(latencies, 0.95), 1),
            "p99": round(_percentile(latencies, 0.99), 1),
            "max": round(max(latencies), 1),
        },
        "kill": {
            "events": kill_events,
            "arrived": len(seen),
            "lost": kill_events - len(seen),
            "duplicates": duplicates,
            "last_arrival_after_kill_s": round(recovered, 1),
            "deliveries": states,
        },
    }
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    (RESULTS / f"webhooks-{stamp}.json").write_text(json.dumps(result, indent=2) + "\n")
    latency = result["latency_ms"]
    kill = result["kill"]
    (RESULTS / f"webhooks-{stamp}.md").write_text(
        f"# Webhook delivery ({result['time']}, {result['database']}, worker polling every "
        f"{arguments.poll:g} s)\n\n"
        f"Commit to delivery with the worker idle, {latency['events']} events: median "
        f"{latency['median']:.0f} ms, p95 {latency['p95']:.0f} ms, p99 {latency['p99']:.0f} ms, "
        f"max {latency['max']:.0f} ms.\n\n"
        f"kill -9 of the worker mid-delivery, {kill['events']} events: {kill['arrived']} "
        f"arrived, {kill['lost']} lost, {kill['duplicates']} duplicate(s) (same event id), the "
        f"last {kill['last_arrival_after_kill_s']} s after the kill; deliveries "
        f"{kill['deliveries']}.\n"
    )


if __name__ == "__main__":
    main()
