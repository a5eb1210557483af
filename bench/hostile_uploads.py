"""Hostile XLSX uploads: what each costs the web request and the worker that checks it.

    .venv/bin/python -m bench.hostile_uploads [--only NAME ...] [--home /some/scratch/folder]
                                              [--timeout 300] [--repeat 1]
                                              [--memory-limit-mb 8192]

In a scratch data folder (a fresh SQLite database, migrated; the database task queue, so
that nothing runs by itself), one supplier uploads each file of `tests.factories.hostile_xlsx`
`FULL` (the attacks at their real sizes) and two valid references built with openpyxl as
`tests.factories.imports.xlsx_bytes` builds them (200 rows: checked during the request;
20,000 rows: checked in the background). For each file, each in a fresh Python process (so
that each measure is its own):

- **web**: the file is built (and kept in a temporary file), the process's peak memory is
  reset (`/proc/self/clear_refs`), then `imports.services.import_upload` runs as the web
  request calls it, with the bytes in a `SimpleUploadedFile`. A refusal (`ImportJobError`)
  is recorded with its message.
- **worker**: when the job was sent to the background ("checking"), a second process runs
  `imports.running.import_check` as the worker does; then the job's status and message.

Each phase's wall time; its extra memory: the peak resident memory (`ru_maxrss`) less the
resident memory right before the call (`/proc/self/statm`); and the peak resident memory of
its XLSX reader processes (`imports.xlsx`, each a process of its own), as each reports it.
The goals: the web process at most 50 MB more and 2 s (its reader has its own limit); the
worker, and its reader, at most 500 MB and 60 s.
A phase running past `--timeout` is killed with its children ("timed out"); each runs under
an address-space limit (`--memory-limit-mb`, 0 for none), so that a bomb fails here rather
than take the machine. With `--repeat`, every figure is the median of the runs.

Prints a table, and writes `results/hostile-uploads-<time>.json` and `.md`.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parents[1]
OWNER_EMAIL = "bench-hostile@example.com"
COMPANY_SLUG = "bench-hostile-uploads"
#: The valid references: rows of `tests.factories.imports.product_rows`.
REFERENCES = {"reference-200": 200, "reference-20000": 20_000}
#: The goals: extra megabytes and seconds, for the web request and for the worker.
GOALS = {"web": (50.0, 2.0), "worker": (500.0, 60.0)}
MEASURES = ("seconds", "extra_mb", "peak_mb", "children_peak_mb", "reader_cpu_seconds")


def _hostile_names() -> list[str]:
    sys.path[:0] = [str(REPO), str(REPO / "src")]
    from tests.factories.hostile_xlsx import FULL

    return list(FULL)


def _setup_django(home: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "tradepost.config.settings"
    os.environ["TRADEPOST_HOME"] = home
    os.environ["TRADEPOST_TASKS_BACKEND"] = "database"  # enqueued, run by `_worker` here
    os.environ["TRADEPOST_PAGE_CACHE_SECONDS"] = "0"
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(home) / 'bench.sqlite3'}"
    sys.path[:0] = [str(REPO), str(REPO / "src")]
    from tradepost.config.home import prepare_home

    prepare_home()
    import django

    django.setup()


# --- memory ----------------------------------------------------------------------------------


def _rss_mb() -> float:
    """The resident memory now."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def _peak_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _reset_peak() -> bool:
    """Forget the peak resident memory so far (Linux: "5" to clear_refs); whether it was."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return True


def _limit_memory(megabytes: int) -> None:
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class _ReaderCosts(logging.Handler):
    """What each XLSX reader process said it cost (`imports.reading` logs it): its own peak
    resident memory (VmHWM, read by the reader itself: `RUSAGE_CHILDREN` would count the
    starting process's pages from before its exec) and CPU seconds."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.costs: list[dict[str, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        cost = getattr(record, "reader_cost", None)
        if isinstance(cost, dict):
            self.costs.append(cost)


class _Measure:
    """Wall time and extra memory of what runs inside, and the peak of its XLSX readers."""

    def __enter__(self) -> _Measure:
        gc.collect()
        self.peak_reset = _reset_peak()
        self.before_mb = _rss_mb()
        self.readers = _ReaderCosts()
        logging.getLogger("tradepost.imports.reading").addHandler(self.readers)
        logging.getLogger("tradepost.imports.reading").setLevel(logging.INFO)
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.started
        logging.getLogger("tradepost.imports.reading").removeHandler(self.readers)

    def figures(self) -> dict[str, Any]:
        peak = _peak_mb()
        costs = self.readers.costs
        return {
            "seconds": round(self.seconds, 3),
            "rss_before_mb": round(self.before_mb, 1),
            "peak_mb": round(peak, 1),
            "extra_mb": round(max(0.0, peak - self.before_mb), 1),
            "readers": len(costs),
            "children_peak_mb": max((cost.get("peak_mb", 0.0) for cost in costs), default=0.0),
            "reader_cpu_seconds": round(sum(cost.get("cpu_seconds", 0.0) for cost in costs), 2),
            "peak_reset": self.peak_reset,
        }


# --- the phases (each in a process of its own) -----------------------------------------------


def _prepare(home: str, _argument: Any) -> dict[str, Any]:
    _setup_django(home)
    from django.core.management import call_command

    from tradepost.accounts.models import User
    from tradepost.companies.models import Company, Membership, Role

    call_command("migrate", verbosity=0)
    existing = Company.objects.filter(slug=COMPANY_SLUG).first()
    if existing is not None:  # a --home used before
        return {"company": existing.pk}
    owner = User.objects.create_user(email=OWNER_EMAIL, password="x" * 12)
    owner.email_verified_at = datetime.now(UTC)
    owner.save()
    company = Company.objects.create(
        legal_name="Bench Hostile Uploads",
        english_name="Bench Hostile Uploads",
        slug=COMPANY_SLUG,
        country="CN",
    )
    Membership.objects.create(user=owner, company=company, role=Role.OWNER)
    return {"company": company.pk}


def _build(name: str) -> bytes:
    if name in REFERENCES:
        from tests.factories.imports import product_rows, table, xlsx_bytes

        return xlsx_bytes(table(product_rows(REFERENCES[name])))
    from tests.factories.hostile_xlsx import FULL

    return FULL[name]()


def _refusal_message(refusal: Any) -> str:
    messages = getattr(refusal, "message_dict", None) or {"": [str(refusal)]}
    return " ".join(str(text) for texts in messages.values() for text in texts)


def _web(home: str, name: str) -> dict[str, Any]:
    _setup_django(home)
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tradepost.accounts.models import User
    from tradepost.companies.models import Company
    from tradepost.imports import services
    from tradepost.imports.errors import ImportJobError

    owner = User.objects.get(email=OWNER_EMAIL)
    company = Company.objects.get(slug=COMPANY_SLUG)
    built = time.perf_counter()
    data = _build(name)
    build_seconds = time.perf_counter() - built
    kept = Path(home) / "uploads" / f"{name}.xlsx"
    kept.parent.mkdir(exist_ok=True)
    kept.write_bytes(data)
    # The bytes are held once, by the upload (BytesIO shares them until written to).
    upload = SimpleUploadedFile(f"{name}.xlsx", data, "application/octet-stream")
    size = len(data)
    del data
    result: dict[str, Any] = {"bytes": size, "build_seconds": round(build_seconds, 2)}
    with _Measure() as measure:
        try:
            job = services.import_upload(actor=owner, company=company, catalogue=upload)
        except ImportJobError as refusal:
            result.update(status="refused", message=_refusal_message(refusal))
        except Exception as error:  # a bomb may raise anything; record it
            result.update(status="error", message=f"{type(error).__name__}: {error}"[:500])
        else:
            result.update(
                status=job.status,
                message=job.message,
                job=job.pk,
                rows_total=job.rows_total,
                rejected_rows=job.rejected_rows,
            )
    result.update(measure.figures())
    return result


def _worker(home: str, job_id: int) -> dict[str, Any]:
    _setup_django(home)
    from tradepost.imports.models import ImportJob
    from tradepost.imports.running import import_check

    result: dict[str, Any] = {}
    with _Measure() as measure:
        try:
            import_check(job_id=job_id)
        except Exception as error:  # a bomb may raise anything; record it
            result.update(error=f"{type(error).__name__}: {error}"[:500])
    result.update(measure.figures())
    job = ImportJob.objects.get(pk=job_id)
    result.update(
        status=job.status,
        message=result.pop("error", "") or job.message,
        rows_total=job.rows_total,
        rejected_rows=job.rejected_rows,
    )
    return result


PHASES: dict[str, Callable[[str, Any], dict[str, Any]]] = {
    "prepare": _prepare,
    "web": _web,
    "worker": _worker,
}


def _in_process(
    phase: str, home: str, argument: Any, *, timeout: float, memory_limit_mb: int
) -> dict[str, Any]:
    """One phase in a fresh Python process, killed with its children past `timeout`; its
    result (or why there is none)."""
    command = [sys.executable, "-m", "bench.hostile_uploads", "--phase", phase, "--home", home]
    command += ["--phase-input", json.dumps(argument), "--memory-limit-mb", str(memory_limit_mb)]
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: killed with any reader it starts
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return {"status": "timed out", "message": f"killed after {timeout:g} s", "seconds": None}
    lines = stdout.strip().splitlines()
    if process.returncode != 0 or not lines:
        tail = stderr.strip().splitlines()[-1:] or [""]
        return {
            "status": "crashed",
            "message": f"exit status {process.returncode}: {tail[0][:300]}",
            "seconds": round(time.perf_counter() - started, 3),
        }
    return dict(json.loads(lines[-1]))


# --- the run ---------------------------------------------------------------------------------


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The last run, each measure the median of the runs that have it."""
    merged = dict(runs[-1])
    for key in MEASURES:
        values = [run[key] for run in runs if isinstance(run.get(key), int | float)]
        if values:
            merged[key] = round(statistics.median(values), 3)
    merged["runs"] = len(runs)
    return merged


def _verdict(phase: str, figures: dict[str, Any] | None) -> bool | None:
    """Whether a phase met its goals (None: it did not run)."""
    if figures is None:
        return None
    megabytes, seconds = GOALS[phase]
    if figures.get("seconds") is None or figures["status"] in ("timed out", "crashed"):
        return False
    memory = figures.get("extra_mb", 0.0)
    if phase == "worker":
        memory = max(memory, figures.get("children_peak_mb", 0.0))
    return bool(figures["seconds"] <= seconds and memory <= megabytes)


def measure_file(
    name: str, home: str, *, timeout: float, repeat: int, memory_limit_mb: int
) -> dict[str, Any]:
    webs: list[dict[str, Any]] = []
    workers: list[dict[str, Any]] = []
    for _ in range(repeat):
        web = _in_process("web", home, name, timeout=timeout, memory_limit_mb=memory_limit_mb)
        webs.append(web)
        if web.get("status") == "checking" and web.get("job"):
            workers.append(
                _in_process(
                    "worker", home, web["job"], timeout=timeout, memory_limit_mb=memory_limit_mb
                )
            )
    web = _median(webs)
    worker = _median(workers) if workers else None
    verdicts = [_verdict("web", web), _verdict("worker", worker)]
    return {
        "name": name,
        "bytes": web.get("bytes"),
        "web": web,
        "worker": worker,
        "web_pass": verdicts[0],
        "worker_pass": verdicts[1],
        "pass": all(verdict is not False for verdict in verdicts),
    }


def _cell(figures: dict[str, Any] | None, verdict: bool | None) -> list[str]:
    if figures is None:
        return ["", "", "", ""]
    seconds = figures.get("seconds")
    memory = f"{figures.get('extra_mb', '–')} / {figures.get('children_peak_mb', '–')}"
    message = str(figures.get("message") or "").replace("\n", " ").replace("|", "/")
    outcome = str(figures.get("status"))
    if figures.get("status") in ("ready", "checking", "failed"):
        outcome += f" ({figures.get('rows_total')} rows"
        outcome += f", {figures.get('rejected_rows')} rejected)" if outcome[0] != "c" else ")"
    return [
        "–" if seconds is None else f"{seconds:.2f}",
        memory if seconds is not None else "–",
        f"{outcome}: {message[:110]}" if message else outcome,
        {True: "pass", False: "FAIL", None: ""}[verdict],
    ]


def report(result: dict[str, Any], stamp: str) -> str:
    web_mb, web_s = GOALS["web"]
    worker_mb, worker_s = GOALS["worker"]
    lines = [
        f"# Hostile XLSX uploads ({stamp})",
        "",
        f"{result['cpus']} CPUs, load average {result['load_average']}, timeout "
        f"{result['timeout']:g} s a phase, address space limit "
        f"{result['memory_limit_mb'] or 'none'} MB, {result['repeat']} run(s) a file "
        "(medians). MB: own extra over the resident memory before the call / the reader "
        "process's peak.",
        f"Goals: web ≤ {web_mb:g} MB and ≤ {web_s:g} s; "
        f"worker ≤ {worker_mb:g} MB and ≤ {worker_s:g} s.",
        "",
        "| file | bytes | web s | web MB | web outcome | web | worker s | worker MB "
        "| worker outcome | worker |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in result["files"]:
        size = entry.get("bytes")
        lines.append(
            "| "
            + " | ".join(
                [
                    entry["name"],
                    f"{size:,}" if isinstance(size, int) else "–",
                    *_cell(entry["web"], entry["web_pass"]),
                    *_cell(entry["worker"], entry["worker_pass"]),
                ]
            )
            + " |"
        )
    passed = sum(1 for entry in result["files"] if entry["pass"])
    lines += ["", f"{passed} of {len(result['files'])} files met their goals."]
    return "\n".join(lines)


def run(
    names: list[str], home: str, *, timeout: float, repeat: int, memory_limit_mb: int
) -> dict[str, Any]:
    prepared = _in_process("prepare", home, None, timeout=600, memory_limit_mb=0)
    if "company" not in prepared:
        raise RuntimeError(f"the prepare phase failed: {prepared.get('message')}")
    files = []
    for name in names:
        entry = measure_file(
            name, home, timeout=timeout, repeat=repeat, memory_limit_mb=memory_limit_mb
        )
        files.append(entry)
        print(f"{name}: {'pass' if entry['pass'] else 'FAIL'}", file=sys.stderr, flush=True)
    return {
        "cpus": os.cpu_count(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "timeout": timeout,
        "repeat": repeat,
        "memory_limit_mb": memory_limit_mb,
        "goals": {phase: {"mb": mb, "seconds": s} for phase, (mb, s) in GOALS.items()},
        "files": files,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="These files only")
    parser.add_argument("--home", help="A scratch data folder (default: a new temporary one)")
    parser.add_argument("--timeout", type=float, default=300, help="Seconds a phase may run")
    parser.add_argument("--repeat", type=int, default=1, help="Runs a file (medians)")
    parser.add_argument("--memory-limit-mb", type=int, default=8192)
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--phase-input", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.phase:
        _limit_memory(options.memory_limit_mb)
        result = PHASES[options.phase](options.home, json.loads(options.phase_input))
        print(json.dumps(result), flush=True)
        return
    known = [*REFERENCES, *_hostile_names()]
    names = options.only or known
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"unknown files: {', '.join(unknown)} (known: {', '.join(known)})")
    home = options.home or tempfile.mkdtemp(prefix="bench-hostile-")
    result = run(
        names,
        home,
        timeout=options.timeout,
        repeat=max(1, options.repeat),
        memory_limit_mb=options.memory_limit_mb,
    )
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"hostile-uploads-{stamp}.json").write_text(json.dumps(result, indent=2) + "\n")
    text = report(result, stamp)
    (RESULTS / f"hostile-uploads-{stamp}.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
