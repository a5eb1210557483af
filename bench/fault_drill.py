"""`tradepost bench faults`: faults during load, then proof that nothing acknowledged was lost.

On the PostgreSQL + Redis profile of the load benchmark (same data folder, same accounts):
1. starts `tradepost serve` (gunicorn + worker, supervised) with emails written to files;
2. runs writers and readers for `--duration` seconds: suppliers create and publish products,
   buyers send inquiries about them (each inquiry emails and notifies the supplier), readers
   search. Every write the server acknowledged (201/200) is recorded with a unique token;
3. meanwhile, at fixed times: kill -9 one web worker; kill -9 the web server (gunicorn's
   master); kill -9 the worker (tasks, periodic jobs and the search indexer) while the
   outbox has changes waiting; restart PostgreSQL; restart Redis;
4. then checks, in a process with the profile's settings (`bench/fault_check.py`): every
   acknowledged product, publication and inquiry is in the database; the index holds every
   acknowledged publication once the outbox is applied; no inquiry email and no notification
   was sent twice, and how many were never sent.

Restarting PostgreSQL and Redis needs root and Debian's `pg_ctlcluster`; a fault that cannot
be caused here is reported as skipped. The machine's Redis is started again with the settings
it ran with (no persistence). Not a test: run it on a quiet machine; results go to
bench/results/faults-*.md and .json.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import psutil

from bench import load_bench

PROFILE = "postgres"


@dataclass
class Ledger:
    """What the server acknowledged, and what failed when."""

    created: list[tuple[int, str]] = field(default_factory=list)
    published: list[int] = field(default_factory=list)
    inquiries: list[tuple[str, int]] = field(default_factory=list)
    reads: int = 0
    failures: list[tuple[float, str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, started: float, what: str, error: str) -> None:
        with self.lock:
            self.failures.append((round(time.monotonic() - started, 1), what, error[:120]))


def _call(host: str, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"{host}{path}",
        data=data,
        method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None


def _supplier(host, token, run, stop, ledger, started, category_id):
    n = 0
    while not stop.is_set():
        n += 1
        title = f"drill{run}p{threading.get_ident() % 10000}n{n} stainless tumbler"
        try:
            status, body = _call(
                host,
                "POST",
                "/api/v1/me/products",
                token,
                {
                    "title": title,
                    "category_id": category_id,
                    "moq": "100",
                    "moq_unit": "pieces",
                    "price_min": "2.50",
                    "price_max": "3.10",
                    "currency": "USD",
                    "original_language": "en",
                    "description": "<p>Double wall, 500 ml.</p>",
                },
            )
            if status != 201:
                ledger.fail(started, "create product", f"HTTP {status}")
                continue
            with ledger.lock:
                ledger.created.append((body["id"], title))
            status, _body = _call(host, "POST", f"/api/v1/me/products/{body['id']}/publish", token)
            if status == 200:
                with ledger.lock:
                    ledger.published.append(body["id"])
            else:
                ledger.fail(started, "publish", f"HTTP {status}")
        except OSError as error:
            ledger.fail(started, "create product", repr(error))
            time.sleep(0.2)


def _buyer(host, token, run, stop, ledger, started):
    n = 0
    while not stop.is_set():
        with ledger.lock:
            targets = list(ledger.published[-50:])
        if not targets:
            time.sleep(0.2)
            continue
        n += 1
        marker = f"drill{run}b{threading.get_ident() % 10000}i{n}"
        try:
            status, body = _call(
                host,
                "POST",
                "/api/v1/conversations/inquiries",
                token,
                {"product_id": random.choice(targets), "message": f"{marker}: please quote."},
            )
            if status == 201:
                with ledger.lock:
                    ledger.inquiries.append((marker, body["id"]))
            else:
                ledger.fail(started, "inquiry", f"HTTP {status}")
        except OSError as error:
            ledger.fail(started, "inquiry", repr(error))
            time.sleep(0.2)


def _reader(host, token, queries, stop, ledger, started):
    while not stop.is_set():
        try:
            status, _body = _call(
                host,
                "GET",
                "/api/v1/search/products?" + urlencode({"q": random.choice(queries)}),
                token,
            )
            if status == 200:
                with ledger.lock:
                    ledger.reads += 1
            else:
                ledger.fail(started, "search", f"HTTP {status}")
        except OSError as error:
            ledger.fail(started, "search", repr(error))
            time.sleep(0.2)


# --- faults --------------------------------------------------------------------------------


def _children(server_pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(server_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _gunicorn_master(server_pid: int) -> psutil.Process | None:
    for process in psutil.Process(server_pid).children():
        if any("gunicorn" in part for part in process.cmdline()[:2]):
            return process
    return None


def kill_web_worker(server_pid: int, env: dict[str, str]) -> str:
    master = _gunicorn_master(server_pid)
    if master is None or not master.children():
        return "skipped: no web worker found"
    victim = master.children()[0]
    victim.send_signal(signal.SIGKILL)
    return f"killed web worker {victim.pid}"


def kill_web_server(server_pid: int, env: dict[str, str]) -> str:
    master = _gunicorn_master(server_pid)
    if master is None:
        return "skipped: no web server found"
    master.send_signal(signal.SIGKILL)
    return f"killed gunicorn master {master.pid} (its workers exit; serve starts a new one)"


def kill_worker(server_pid: int, env: dict[str, str]) -> str:
    for process in psutil.Process(server_pid).children():
        if "worker" in process.cmdline()[-1:]:
            process.send_signal(signal.SIGKILL)
            return f"killed worker {process.pid}"
    return "skipped: no worker found"


def restart_postgres(server_pid: int, env: dict[str, str]) -> str:
    if not shutil.which("pg_lsclusters") or os.geteuid() != 0:
        return "skipped: needs root and Debian's pg_ctlcluster"
    version, cluster = subprocess.run(
        ["pg_lsclusters", "--no-header"], capture_output=True, text=True, check=True
    ).stdout.split()[:2]
    subprocess.run(["pg_ctlcluster", version, cluster, "restart", "-m", "fast"], check=True)
    return f"restarted PostgreSQL {version}/{cluster} (fast: open connections cut)"


def restart_redis(server_pid: int, env: dict[str, str]) -> str:
    if not shutil.which("redis-server") or not shutil.which("redis-cli"):
        return "skipped: redis-server is not installed"
    subprocess.run(["redis-cli", "-h", "127.0.0.1", "shutdown", "nosave"], check=False)
    time.sleep(1)
    subprocess.run(
        [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            "6379",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "yes",
        ],
        check=True,
    )
    for _ in range(50):
        answer = subprocess.run(["redis-cli", "-h", "127.0.0.1", "ping"], capture_output=True)
        if answer.stdout.strip() == b"PONG":
            return "restarted Redis (down about 1 s; it keeps nothing on disk here)"
        time.sleep(0.1)
    return "Redis did not come back"


FAULTS: list[tuple[float, str, Callable[[int, dict[str, str]], str]]] = [
    (5, "kill -9 a web worker", kill_web_worker),
    (12, "kill -9 the web server", kill_web_server),
    (20, "kill -9 the worker (tasks, indexer) mid-batch", kill_worker),
    (30, "restart PostgreSQL", restart_postgres),
    (42, "restart Redis", restart_redis),
]


def run(*, home_root: Path, duration: int = 60, results_dir: Path, log=print) -> dict[str, Any]:
    home = home_root / f"load-{PROFILE}"
    env = load_bench.profile_env(PROFILE, home)
    emails = home / "drill-emails"
    shutil.rmtree(emails, ignore_errors=True)
    env.update(
        {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(emails),
        }
    )
    plan_file = load_bench.prepare(PROFILE, home, env, log)
    plan = json.loads(plan_file.read_text())
    category_id = _leaf_category(env)
    port = load_bench.free_port()
    host = f"http://127.0.0.1:{port}"
    server_log = open(home / "drill-serve.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [load_bench._bin("tradepost"), "serve", "--port", str(port)],
        env=env,
        stdout=server_log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    run_id = datetime.now(UTC).strftime("%H%M%S")
    ledger = Ledger()
    stop = threading.Event()
    timeline: list[dict[str, Any]] = []
    try:
        load_bench.wait_healthy(f"{host}/healthz")
        started = time.monotonic()
        threads = [
            threading.Thread(
                target=_supplier,
                args=(host, token, run_id, stop, ledger, started, category_id),
                daemon=True,
            )
            for token in plan["suppliers"][:4]
        ]
        threads += [
            threading.Thread(
                target=_buyer, args=(host, token, run_id, stop, ledger, started), daemon=True
            )
            for token in plan["buyers"][:4]
        ]
        threads += [
            threading.Thread(
                target=_reader,
                args=(host, token, plan["queries"], stop, ledger, started),
                daemon=True,
            )
            for token in plan["buyers"][4:8]
        ]
        for thread in threads:
            thread.start()
        log(f"drill: {len(threads)} clients on {host} for {duration} s")
        for at, name, fault in FAULTS:
            time.sleep(max(0.0, started + at - time.monotonic()))
            try:
                outcome = fault(server.pid, env)
            except Exception as error:  # a fault that could not be caused is reported
                outcome = f"failed: {error!r}"
            timeline.append({"at_s": at, "fault": name, "outcome": outcome})
            log(f"  t={at:>3}s {name}: {outcome}")
        time.sleep(max(0.0, started + duration - time.monotonic()))
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
        acked_file = home / "drill-acknowledged.json"
        acked_file.write_text(
            json.dumps(
                {
                    "created": ledger.created,
                    "published": ledger.published,
                    "inquiries": ledger.inquiries,
                }
            )
        )
        log("drill: load stopped; checking (waits for the outbox and the queue)")
        checked = subprocess.run(
            [
                sys.executable,
                "-c",
                "import django, sys; django.setup(); sys.path.insert(0, sys.argv[1]);"
                "import json; from pathlib import Path; from bench.fault_check import check;"
                "print(json.dumps(check(json.loads(Path(sys.argv[2]).read_text()))))",
                str(load_bench.ROOT),
                str(acked_file),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        report = json.loads(checked.stdout.strip().splitlines()[-1])
    finally:
        stop.set()
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        server_log.close()
    failures_by_window: dict[str, int] = {}
    for at, what, _error in ledger.failures:
        window = f"{int(at // 5) * 5:>3}-{int(at // 5) * 5 + 5}s {what}"
        failures_by_window[window] = failures_by_window.get(window, 0) + 1
    result = {
        "profile": PROFILE,
        "duration_s": duration,
        "timeline": timeline,
        "writes": {
            "products_created": len(ledger.created),
            "published": len(ledger.published),
            "inquiries": len(ledger.inquiries),
            "searches": ledger.reads,
        },
        "failed_requests": len(ledger.failures),
        "failed_requests_by_window": failures_by_window,
        "failure_samples": ledger.failures[:15],
        "checks": report,
    }
    results_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    (results_dir / f"faults-{stamp}.json").write_text(json.dumps(result, indent=1))
    (results_dir / f"faults-{stamp}.md").write_text(markdown(result))
    log(f"results: {results_dir}/faults-{stamp}.md")
    return result


def _leaf_category(env: dict[str, str]) -> int:
    code = (
        "import django; django.setup();"
        "from tradepost.catalog.models import Category;"
        "leaves = Category.objects.filter(is_leaf=True).order_by('path');"
        "print(leaves.values_list('pk', flat=True)[0])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip().splitlines()[-1])


def markdown(result: dict[str, Any]) -> str:
    checks = result["checks"]
    lines = [
        f"# Fault drill: {result['duration_s']} s of writes and searches on the "
        f"{result['profile']} profile",
        "",
        "| at | fault | outcome |",
        "|---:|---|---|",
    ]
    lines += [f"| {f['at_s']} s | {f['fault']} | {f['outcome']} |" for f in result["timeline"]]
    writes = result["writes"]
    lines += [
        "",
        f"Acknowledged: {writes['products_created']} products created, {writes['published']} "
        f"published, {writes['inquiries']} inquiries; {writes['searches']} searches answered; "
        f"{result['failed_requests']} requests failed (not acknowledged).",
        "",
        "Failed requests by 5-second window: "
        + (
            ", ".join(f"{k.strip()}: {v}" for k, v in result["failed_requests_by_window"].items())
            or "none"
        ),
        "",
        "| check | result |",
        "|---|---|",
    ]
    for name, value in checks.items():
        shown = len(value) if isinstance(value, list) else value
        lines.append(f"| {name.replace('_', ' ')} | {shown} |")
    lines.append("")
    return "\n".join(lines)
