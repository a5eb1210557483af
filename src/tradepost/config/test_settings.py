"""Settings for the test suite: the site's settings with test defaults.

A separate data folder, a fixed key, tasks run in-process, no page cache and no API rate
limits (the tests that check them turn them on), insight counts written at once, fast
password hashing and static files served from the apps. The defaults go into the
environment, so a server or command a test starts gets them too; a variable already set wins.
Each parallel test worker (pytest-xdist) has a data folder of its own, apart for a run on
SQLite and one on PostgreSQL (the two may run at once on one machine); pytest-django gives it a
test database of its own.
"""

from __future__ import annotations

import os

_DATABASE_KIND = (
    "postgres"
    if os.environ.get("DATABASE_URL", "").startswith(("postgres:", "postgresql:", "pgsql:"))
    else "sqlite"
)
_WORKER = os.environ.get("PYTEST_XDIST_WORKER") or "main"

for _name, _value in {
    "TRADEPOST_HOME": f"var/test/{_DATABASE_KIND}/{_WORKER}",
    "SECRET_KEY": "tests-only-this-key-is-not-secret-0123456789abcdef",
    "TRADEPOST_TASKS_BACKEND": "immediate",
    "TRADEPOST_PAGE_CACHE_SECONDS": "0",
    # Counts are written at once, so a test reads what it just caused.
    "TRADEPOST_INSIGHTS_FLUSH_SECONDS": "0",
    # No API rate limits (tests/api/test_rate_limits.py turns them on): no test waits or
    # fails for having sent many requests, and no count is written per request.
    "TRADEPOST_API_READS_PER_MINUTE": "0",
    "TRADEPOST_API_WRITES_PER_MINUTE": "0",
}.items():
    os.environ.setdefault(_name, _value)

from tradepost.config.settings import *  # noqa: E402, F403
from tradepost.config.settings import PASSWORD_HASHERS, STORAGES  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *PASSWORD_HASHERS]
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
