"""Serve the site with gunicorn and one background worker process beside it, both kept
running (`tradepost.ops.supervise`: a child that dies is restarted, with backoff; a worker
whose heartbeat stops for `TRADEPOST_WORKER_HUNG_SECONDS` is killed and restarted).

Concurrency: a request is mostly Python (Django, analysis, hydration) holding the GIL, so
processes, not threads, use the cores. The default is one worker process per CPU, at least
two (`--workers` or `WEB_CONCURRENCY`), with 2 threads each (`--threads` or `WEB_THREADS`):
on a 2-core machine under 8 concurrent search clients, 4 threads per worker served about as
many requests per second as 2 (the work is CPU-bound); the second thread keeps a worker busy
while a request waits on the database. Each worker loads the search analysers, the
glossary and the index before its first request (`tradepost.config.gunicorn`).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from tradepost.ops.supervise import Child, Supervisor
from tradepost.search.index import heartbeat_age


def default_workers() -> int:
    """One gunicorn worker process per CPU this process may use, at least two."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 2
    return max(2, cpus)


#: A Unix socket's path must fit in 108 bytes (107 and the final NUL).
SOCKET_PATH_MAX = 100


def control_socket(host: str, port: int) -> Path:
    """gunicorn's control socket (`gunicornc -s PATH`) for the server on host:port, in
    this install's data folder: gunicorn's default is one path per user, so a second
    `tradepost serve` on the machine would take over the first one's. When the data folder's
    path is too long for a socket, a short path in the temporary folder named after it."""
    name = f"gunicorn-{host}-{port}.ctl".replace(":", "_")
    path = Path(settings.HOME) / "run" / name
    if len(str(path).encode()) > SOCKET_PATH_MAX:
        digest = hashlib.sha256(str(settings.HOME).encode()).hexdigest()[:12]
        path = Path(tempfile.gettempdir()) / f"tradepost-{digest}-{name}"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


class Command(BaseCommand):
    help = "Serve Tradepost with gunicorn (static files through whitenoise) and a worker."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=settings.PORT)
        parser.add_argument("--host", default=settings.HOST)
        parser.add_argument(
            "--workers",
            type=int,
            default=settings.WEB_CONCURRENCY or default_workers(),
        )
        parser.add_argument("--threads", type=int, default=settings.WEB_THREADS)
        parser.add_argument("--no-worker", action="store_true", help="Do not start a worker.")

    def handle(self, *args, **options):
        bin_dir = os.path.dirname(sys.executable)
        env = {"DJANGO_SETTINGS_MODULE": "tradepost.config.settings", **os.environ}
        gunicorn = [
            os.path.join(bin_dir, "gunicorn"),
            "tradepost.config.wsgi:application",
            "--bind",
            f"{options['host']}:{options['port']}",
            "--workers",
            str(max(1, options["workers"])),
            "--threads",
            str(max(1, options["threads"])),
            "--config",
            "python:tradepost.config.gunicorn",
            "--control-socket",
            str(control_socket(options["host"], options["port"])),
            "--access-logfile",
            "-" if settings.DEBUG else "/dev/null",
        ]
        web_env = dict(env)
        if options["no_worker"]:
            # No worker here: /healthz says "degraded" for it, not 503.
            web_env.setdefault("TRADEPOST_HEALTH_NEEDS_WORKER", "off")
        children = [Child("web server", lambda: subprocess.Popen(gunicorn, env=web_env))]
        if not options["no_worker"]:
            worker = [os.path.join(bin_dir, "tradepost"), "worker"]
            children.append(
                Child("worker", lambda: subprocess.Popen(worker, env=env), silent=heartbeat_age)
            )
        supervisor = Supervisor(children, hung_after=float(settings.TRADEPOST_WORKER_HUNG_SECONDS))

        def stop(signum, frame):
            supervisor.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        self.stdout.write(f"Tradepost is serving on http://{options['host']}:{options['port']}/")
        try:
            # Both children are kept running: one that exits is started again (with a
            # growing delay while it keeps failing) until this command is stopped.
            supervisor.run()
        finally:
            supervisor.stop()
