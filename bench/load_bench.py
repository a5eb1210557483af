"""`tradepost bench load`: 50 concurrent mixed clients against a real `tradepost serve`.

For each profile asked for:
1. prepares a data folder (`TRADEPOST_HOME/load-<profile>`): migrate, static files, the demo
   marketplace, then the benchmark's buyers, suppliers, tokens and buying requests
   (`bench/load_prepare.py`);
2. starts `tradepost serve` (gunicorn + worker, supervised) on a free port with the
   profile's settings: `sqlite` (the default install) or `postgres` (PostgreSQL for the data,
   Redis for the cache, sessions, rate limits and the task queue);
3. runs the reference: the same number of clients asking only for `/healthz` (the database
   answers, no page is rendered), so the mixed run can be read as a share of what this
   machine and server do with no work in the request at all;
4. runs the mixed load (`bench/locustfile.py`: 70% visitors, 20% buyers, 10% suppliers, no
   think time) for `--duration` seconds after a warm-up, and writes the per-endpoint table
   (requests, failures, requests/s, p50, p95, p99) to `bench/results/load-<profile>-*.md`
   and `.json`.

The per-person abuse limits (inquiries and messages an hour, quotations a month) are raised
for the run: the benchmark measures how much the site can answer, not the limits. Emails go
to a dummy backend (the worker still renders and sends them).
"""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
RESULTS = BENCH_DIR / "results"

PROFILES = {
    "sqlite": {},
    "postgres": {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/tradepost_load",
        "REDIS_URL": "redis://127.0.0.1:6379/13",
    },
}

#: Limits raised for the run (they are per person; the benchmark has a few dozen people).
#: What a server started by a benchmark is set to: the site's own limits out of the way (the
#: API's per-minute limits off), so that every answer that is not a success is a failure the
#: benchmark reports and stops on, never a limit counted as one (#25).
RAISED_LIMITS = {
    "TRADEPOST_API_READS_PER_MINUTE": "0",
    "TRADEPOST_API_WRITES_PER_MINUTE": "0",
    "TRADEPOST_INQUIRIES_PER_HOUR": "1000000",
    "TRADEPOST_MESSAGES_PER_HOUR": "1000000",
    "TRADEPOST_MONTHLY_QUOTE_QUOTA": "1000000",
    "TRADEPOST_RFQ_QUOTE_LIMIT": "1000",
}

GOALS = {"requests_per_second": 150.0, "p95_ms": 500.0, "failures": 0}


@dataclass
class Run:
    name: str
    seconds: float
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> dict[str, Any]:
        return next(row for row in self.rows if row["name"] == "Aggregated")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def profile_env(profile: str, home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "TRADEPOST_TASKS_BACKEND"}
    }
    env.update(PROFILES[profile])
    env.update(RAISED_LIMITS)
    env.update(
        {
            "TRADEPOST_HOME": str(home),
            "DJANGO_SETTINGS_MODULE": "tradepost.config.settings",
            "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
        }
    )
    return env


def prepare(profile: str, home: Path, env: dict[str, str], log) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    if "DATABASE_URL" in env:
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "ensure_postgres.py"), env["DATABASE_URL"]],
            check=True,
        )
    tradepost = _bin("tradepost")
    for argv in (
        [tradepost, "migrate", "--noinput", "-v0"],
        [tradepost, "collectstatic", "--noinput", "-v0"],
        [tradepost, "demo", "--if-empty", "-v0"],
    ):
        log(f"[{profile}] tradepost {argv[1]}")
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    plan = home / "load-plan.json"
    code = (
        "import django, sys; django.setup(); sys.path.insert(0, sys.argv[1]);"
        "from bench.load_prepare import prepare; from pathlib import Path;"
        "prepare(Path(sys.argv[2]))"
    )
    subprocess.run([sys.executable, "-c", code, str(ROOT), str(plan)], env=env, check=True)
    # The worker indexes the new requests and sends their match notifications first.
    subprocess.run([tradepost, "worker", "--batch"], env=env, check=True, capture_output=True)
    return plan


def wait_healthy(url: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the server did not answer {url} in {timeout:.0f} s")


def _locust(
    host: str,
    classes: list[str],
    *,
    users: int,
    seconds: int,
    csv_prefix: Path,
    plan: Path,
    locustfile: Path,
) -> Run:
    env = {**os.environ, "LOAD_PLAN": str(plan)}
    argv = [
        _bin("locust"),
        "-f",
        str(locustfile),
        "--headless",
        "--users",
        str(users),
        "--spawn-rate",
        str(users),
        "--run-time",
        f"{seconds}s",
        "--host",
        host,
        "--csv",
        str(csv_prefix),
        "--only-summary",
        "--loglevel",
        "WARNING",
        *classes,
    ]
    subprocess.run(argv, env=env, check=False, stdout=subprocess.DEVNULL)
    rows = []
    with open(f"{csv_prefix}_stats.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            rows.append(
                {
                    "name": row["Name"],
                    "method": row["Type"],
                    "requests": int(row["Request Count"]),
                    "failures": int(row["Failure Count"]),
                    "rps": float(row["Requests/s"]),
                    "p50_ms": float(row["50%"] or 0),
                    "p95_ms": float(row["95%"] or 0),
                    "p99_ms": float(row["99%"] or 0),
                    "mean_ms": float(row["Average Response Time"] or 0),
                }
            )
    failures = []
    failures_file = Path(f"{csv_prefix}_failures.csv")
    if failures_file.exists():
        with open(failures_file, encoding="utf-8") as handle:
            failures = [dict(row) for row in csv.DictReader(handle)]
    run = Run(name=",".join(classes), seconds=seconds, rows=rows)
    run.rows.append({"name": "_failures", "list": failures[:20]})
    return run


def measure(
    profile: str,
    *,
    home_root: Path,
    users: int,
    duration: int,
    warmup: int,
    reference_seconds: int,
    workers: int | None,
    log,
) -> dict[str, Any]:
    home = home_root / f"load-{profile}"
    env = profile_env(profile, home)
    plan = prepare(profile, home, env, log)
    port = free_port()
    host = f"http://127.0.0.1:{port}"
    serve = [_bin("tradepost"), "serve", "--port", str(port)]
    if workers:
        serve += ["--workers", str(workers)]
    server_log = open(home / "serve.log", "w")  # noqa: SIM115 - closed after the server
    server = subprocess.Popen(
        serve, env=env, stdout=server_log, stderr=subprocess.STDOUT, start_new_session=True
    )
    work = home / "locust"
    work.mkdir(exist_ok=True)
    try:
        wait_healthy(f"{host}/healthz")
        log(f"[{profile}] serving on {host}; reference /healthz for {reference_seconds} s")
        reference = _locust(
            host,
            ["Probe"],
            users=users,
            seconds=reference_seconds,
            csv_prefix=work / "reference",
            plan=plan,
            locustfile=BENCH_DIR / "locustfile_probe.py",
        )
        if warmup:
            log(f"[{profile}] warm-up {warmup} s")
            _locust(
                host,
                ["Visitor", "Buyer", "Supplier"],
                users=users,
                seconds=warmup,
                csv_prefix=work / "warmup",
                plan=plan,
                locustfile=BENCH_DIR / "locustfile.py",
            )
        log(f"[{profile}] mixed load, {users} clients, {duration} s")
        mixed = _locust(
            host,
            ["Visitor", "Buyer", "Supplier"],
            users=users,
            seconds=duration,
            csv_prefix=work / "mixed",
            plan=plan,
            locustfile=BENCH_DIR / "locustfile.py",
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        server_log.close()
    total = mixed.total
    ref_total = reference.total
    return {
        "profile": profile,
        "users": users,
        "duration_s": duration,
        "reference_healthz": {k: ref_total[k] for k in ("rps", "p50_ms", "p95_ms", "failures")},
        "mixed": [row for row in mixed.rows if row["name"] != "_failures"],
        "failures": next(row["list"] for row in mixed.rows if row["name"] == "_failures"),
        "total": total,
        "share_of_reference": round(total["rps"] / ref_total["rps"], 3)
        if ref_total["rps"]
        else None,
        "goals_met": {
            "requests_per_second": total["rps"] >= GOALS["requests_per_second"],
            "p95_ms": total["p95_ms"] <= GOALS["p95_ms"],
            "failures": total["failures"] <= GOALS["failures"],
        },
    }


def markdown(results: list[dict[str, Any]], machine: str) -> str:
    lines = [
        f"# Load: {results[0]['users']} concurrent mixed clients, {results[0]['duration_s']} s",
        "",
        f"Machine: {machine}. Goals: ≥ {GOALS['requests_per_second']:.0f} requests/s, "
        f"p95 ≤ {GOALS['p95_ms']:.0f} ms, 0 failures.",
        "",
    ]
    for result in results:
        total = result["total"]
        ref = result["reference_healthz"]
        lines += [
            f"## {result['profile']}",
            "",
            f"All requests: **{total['rps']:.1f} req/s**, p50 {total['p50_ms']:.0f} ms, "
            f"p95 **{total['p95_ms']:.0f} ms**, p99 {total['p99_ms']:.0f} ms, "
            f"{total['failures']} failures of {total['requests']}. Reference (`/healthz`, same "
            f"clients, same server): {ref['rps']:.1f} req/s, p95 {ref['p95_ms']:.0f} ms; the mixed "
            f"load answers {result['share_of_reference']:.2f} of it. Goals met: "
            + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in result["goals_met"].items()),
            "",
            "| endpoint | requests | failures | req/s | p50 ms | p95 ms | p99 ms |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for row in sorted(result["mixed"], key=lambda r: (r["name"] == "Aggregated", r["name"])):
            lines.append(
                f"| {row['name']} | {row['requests']} | {row['failures']} | {row['rps']:.1f} | "
                f"{row['p50_ms']:.0f} | {row['p95_ms']:.0f} | {row['p99_ms']:.0f} |"
            )
        if result["failures"]:
            lines += ["", "Failures:", ""]
            lines += [
                f"- {f.get('Method')} {f.get('Name')}: {f.get('Error')} ×{f.get('Occurrences')}"
                for f in result["failures"]
            ]
        lines.append("")
    return "\n".join(lines)


def run(
    profiles: list[str],
    *,
    home_root: Path,
    users: int = 50,
    duration: int = 60,
    warmup: int = 10,
    reference_seconds: int = 15,
    workers: int | None = None,
    results_dir: Path = RESULTS,
    log=print,
) -> list[dict[str, Any]]:
    results = [
        measure(
            profile,
            home_root=home_root,
            users=users,
            duration=duration,
            warmup=warmup,
            reference_seconds=reference_seconds,
            workers=workers,
            log=log,
        )
        for profile in profiles
    ]
    results_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    name = f"load-{'-'.join(profiles)}-{stamp}"
    machine = f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    (results_dir / f"{name}.json").write_text(json.dumps(results, indent=1))
    (results_dir / f"{name}.md").write_text(markdown(results, machine))
    log(f"results: {results_dir / name}.md")
    return results
