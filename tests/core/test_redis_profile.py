"""The Redis profile (REDIS_URL set): the cache, the sessions' cache, login failures and the
account rate limits move to Redis; queued tasks stay in the database unless RQ is chosen
(TRADEPOST_TASKS_BACKEND=rq). Checked in a separate process against the Redis server the
machine runs (127.0.0.1:6379, a database of its own for each parallel test worker: 14, 13, …
on SQLite, 7, 6, … on PostgreSQL); in CI a missing Redis fails these tests instead of
skipping them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap

import pytest
from django.db import connection

# pytest-xdist names its workers gw0, gw1, …; each flushes only its own database: 14 to 8 for
# a run on SQLite, 7 to 1 for one on PostgreSQL (the two may run at once on one machine).
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")) % 7
REDIS_DB = 14 - _WORKER - (7 if connection.vendor == "postgresql" else 0)
REDIS_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"


def _redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def redis_env(tmp_path):
    if not _redis_up():
        if os.environ.get("CI"):
            pytest.fail("Redis is not answering on 127.0.0.1:6379 (CI needs it)")
        pytest.skip("Redis is not answering on 127.0.0.1:6379")
    import redis

    server = redis.Redis.from_url(REDIS_URL)
    server.flushdb()
    env = {
        **os.environ,
        "REDIS_URL": REDIS_URL,
        "TRADEPOST_HOME": str(tmp_path / "home"),
        "DJANGO_SETTINGS_MODULE": "tradepost.config.test_settings",
        "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend",
    }
    env.pop("DATABASE_URL", None)
    env.pop("TRADEPOST_TASKS_BACKEND", None)
    yield env
    server.flushdb()


def _run(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    script = "import django; django.setup()\n" + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )


def test_redis_url_moves_cache_sessions_and_limits_to_redis(redis_env):
    env = {**redis_env, "DJANGO_SETTINGS_MODULE": "tradepost.config.settings"}
    done = _run(
        env,
        """
        import json
        from django.conf import settings
        print(json.dumps({
            "cache": settings.CACHES["default"]["BACKEND"],
            "sessions": settings.SESSION_ENGINE,
            "axes": settings.AXES_HANDLER,
            "limits": settings.TRADEPOST_RATE_LIMIT_STORE,
            "tasks": settings.TASKS["default"]["BACKEND"],
        }))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "cache": "tradepost.core.cache.TolerantRedisCache",
        "sessions": "django.contrib.sessions.backends.cached_db",
        "axes": "axes.handlers.cache.AxesCacheHandler",
        "limits": "cache",
        "tasks": "django_tasks_db.DatabaseBackend",
    }


def test_rq_without_its_extra_stops_the_start_with_how_to_install_it(redis_env):
    """The RQ queue is an extra (`make install-rq`); a site asked for it without its packages
    says so instead of failing to import them."""
    env = {**redis_env, "TRADEPOST_TASKS_BACKEND": "rq"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['django_tasks_rq'] = None; import django; django.setup()",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "make install-rq" in done.stderr


def test_rq_is_chosen_by_name_and_uses_the_same_redis(redis_env):
    env = {**redis_env, "TRADEPOST_TASKS_BACKEND": "rq"}
    done = _run(
        env,
        """
        from django.conf import settings
        print(settings.TASKS["default"]["BACKEND"], settings.RQ_QUEUES["default"]["URL"])
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["django_tasks_rq.RQBackend", REDIS_URL]


def test_a_queued_email_is_sent_by_the_rq_worker(redis_env):
    env = {**redis_env, "TRADEPOST_TASKS_BACKEND": "rq"}
    done = _run(
        env,
        """
        from tradepost.ops.management.commands.worker import run_task_worker
        from tradepost.notify.tasks import send_email

        result = send_email.enqueue(
            to="buyer@example.com", subject="Quotation received", text="t", html="<p>t</p>",
            language="en", attempt=0,
        )
        run_task_worker(batch=True)
        print("STATUS", send_email.get_backend().get_result(result.id).status)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "Subject: Quotation received" in done.stdout
    assert "STATUS SUCCESSFUL" in done.stdout


def test_rate_limits_in_redis_hold_under_concurrent_attempts(redis_env):
    """Twenty threads try at once against a limit of five: exactly five get through."""
    done = _run(
        redis_env,
        """
        from concurrent.futures import ThreadPoolExecutor
        from tradepost.accounts.services import _throttle

        def attempt(_):
            return _throttle(action="signup", limits=[("client", 5)])

        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(attempt, range(20)))
        print("ALLOWED", sum(answers))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "ALLOWED 5" in done.stdout
