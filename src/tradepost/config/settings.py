"""Settings read from the environment; the same file serves every deployment.

Every knob is an environment variable, read with environs; docs/operations.md lists them all
with their defaults. The most used:
  TRADEPOST_HOME   data folder (database, media, index, secret key); default ./var
  DATABASE_URL     e.g. postgres://user@host:5432/tradepost; default SQLite in TRADEPOST_HOME
  SECRET_KEY       generated once and kept in TRADEPOST_HOME when unset
  DEBUG            "1"/"true" to turn on; off by default
  ALLOWED_HOSTS    comma separated; default localhost names
  SITE_URL         absolute base URL used in emails, sitemaps and canonical links;
                   default http://127.0.0.1:$PORT (PORT: 8000)
  EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD,
  EMAIL_USE_TLS, DEFAULT_FROM_EMAIL
  REDIS_URL        e.g. redis://127.0.0.1:6379/0: the cache, session reads and the rate
                   limits move to Redis (see "cache, sessions and rate limits")
  TRADEPOST_TASKS_BACKEND  "database" (default), "rq" (Redis at REDIS_URL) or "immediate"
  TRADEPOST_HTTPS, TRADEPOST_PROXY_HTTPS_HEADER  the production switch (see "security")

The tests run with `tradepost.config.test_settings` (this module with test defaults).
Importing settings writes nothing: the data folder and the secret key file are made by the
`tradepost` command before Django starts (`tradepost.config.home`).
"""

from __future__ import annotations

import importlib.util
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from environs import Env
from whitenoise.compress import Compressor

from tradepost.config.home import data_home, read_secret_key

env = Env()

PACKAGE_DIR = Path(__file__).resolve().parent.parent
HOME = data_home()

SECRET_KEY = env.str("SECRET_KEY", "") or read_secret_key(HOME)
DEBUG = env.bool("DEBUG", False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", [])
# `tradepost serve`: the address it listens on, its processes (0: one per CPU, at least 2)
# and the threads of each.
PORT = env.int("PORT", 8000)
HOST = env.str("HOST", "127.0.0.1")
WEB_CONCURRENCY = env.int("WEB_CONCURRENCY", 0)
WEB_THREADS = env.int("WEB_THREADS", 2)
SITE_URL = env.str("SITE_URL", f"http://127.0.0.1:{PORT}").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "ninja",
    "axes",
    "django_tasks",
    "django_tasks_db",
    "tradepost.core",
    "tradepost.audit",
    "tradepost.money",
    "tradepost.accounts",
    "tradepost.companies",
    "tradepost.membership",
    "tradepost.catalog",
    "tradepost.imports",
    "tradepost.screening",
    "tradepost.search",
    "tradepost.translation",
    "tradepost.sourcing",
    "tradepost.alerts",
    "tradepost.messaging",
    "tradepost.reviews",
    "tradepost.trust",
    "tradepost.webhooks",
    "tradepost.notify",
    "tradepost.insights",
    "tradepost.demo",
    "tradepost.web",
    "tradepost.api",
    "tradepost.ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "tradepost.config.middleware.ApiProblemMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Above the page cache: pages answered from the cache are counted too.
    "tradepost.insights.counting.CountingMiddleware",
    "tradepost.config.page_cache.PublicPageCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "tradepost.config.middleware.UnstorableTextMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "csp.middleware.CSPMiddleware",
]

# Logins: failed attempts are counted per address and client (django-axes, in the database);
# after TRADEPOST_LOGIN_FAILURES of them the login is refused, whatever the password, for
# TRADEPOST_LOGIN_COOLOFF_MINUTES. Unknown addresses are counted the same way, so the answer
# says nothing of which accounts exist.
AUTHENTICATION_BACKENDS = [
    "tradepost.accounts.backends.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("TRADEPOST_LOGIN_FAILURES", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("TRADEPOST_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "tradepost.accounts.backends.login_username"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
AXES_VERBOSE = False
# Behind TRADEPOST_PROXY_COUNT reverse proxies (nginx: 1), the client's address is taken from
# X-Forwarded-For (`tradepost.core.clients`), for the login and account limits alike.
TRADEPOST_PROXY_COUNT = env.int("TRADEPOST_PROXY_COUNT", 0)
# /metrics answers clients on this machine (loopback, after the proxies above), or, when set,
# whoever sends this token as `Authorization: Bearer <token>` (docs/operations.md).
TRADEPOST_METRICS_TOKEN = env.str("TRADEPOST_METRICS_TOKEN", "")
AXES_CLIENT_IP_CALLABLE = "tradepost.core.clients.client_address"
# Per account, whatever the client (docs/adr/0033-device-cookies.md): login attempts from
# devices the account never signed in on are slowed past the first and refused past the second
# (a device that signed in before always gets in; the owner is emailed).
TRADEPOST_LOGIN_NEW_DEVICE_PER_MINUTE = env.int("TRADEPOST_LOGIN_NEW_DEVICE_PER_MINUTE", 5)
TRADEPOST_LOGIN_NEW_DEVICE_PER_HOUR = env.int("TRADEPOST_LOGIN_NEW_DEVICE_PER_HOUR", 10)

ROOT_URLCONF = "tradepost.config.urls"
WSGI_APPLICATION = "tradepost.config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tradepost.web.context_processors.site",
                "tradepost.web.context_processors.display_currency",
            ],
        },
    }
]

# --- database -----------------------------------------------------------------------------
SQLITE_PATH = HOME / "tradepost.sqlite3"
DATABASES = {
    "default": dj_database_url.parse(
        env.str("DATABASE_URL", f"sqlite:///{SQLITE_PATH}"),
        conn_max_age=60,
        # A kept connection is checked before a request uses it, so a restarted PostgreSQL
        # costs a reconnect, not a 500 in each process.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Connections are kept between requests (CONN_MAX_AGE above), as on PostgreSQL: a new
    # SQLite connection starts with an empty page cache and reads the schema again (with a
    # connection per request `/healthz` answered 401 requests/s on a 2-core machine, with
    # kept connections 977; docs/operations.md).
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets readers run beside one writer; IMMEDIATE transactions plus a busy
        # timeout make several server processes queue for the write lock instead of
        # failing with "database is locked". An 8 MB page cache per connection (SQLite's
        # default is 2 MB) keeps the pages of recently shown listings.
        "init_command": (
            "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;PRAGMA foreign_keys=ON;"
            "PRAGMA cache_size=-8192;"
        ),
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "accounts:dashboard"
LOGOUT_REDIRECT_URL = "web:home"

# --- languages ----------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("zh-hans", _("Simplified Chinese")),
    ("zh-hant", _("Traditional Chinese")),
]
LOCALE_PATHS = [PACKAGE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- files --------------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = HOME / "static"
MEDIA_URL = "/media/"
MEDIA_ROOT = HOME / "media"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# Files only their company and the operators may read (verification documents): beside
# MEDIA_ROOT, never under it (/media/ is served to anyone); sent only by views that check access.
TRADEPOST_PRIVATE_ROOT = env.path("TRADEPOST_PRIVATE_ROOT", HOME / "private")
WHITENOISE_USE_FINDERS = False
# Only the hashed names are kept and compressed (pages name static files through the manifest):
# compressing both names did the work twice. Source maps are fetched by a developer's tools,
# not by visitors, and are not compressed: brotli spent 26 of its 47 CPU seconds on the API
# docs' two maps (ADR 0031).
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")
DATA_UPLOAD_MAX_MEMORY_SIZE = 12 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# Image limits for logos and product photos.
TRADEPOST_IMAGE_MAX_BYTES = env.int("TRADEPOST_IMAGE_MAX_BYTES", 5 * 1024 * 1024)
TRADEPOST_IMAGE_MAX_PIXELS = env.int("TRADEPOST_IMAGE_MAX_PIXELS", 25_000_000)
TRADEPOST_PRODUCT_MAX_IMAGES = 6

# --- search -------------------------------------------------------------------------------
TRADEPOST_INDEX_DIR = env.path("TRADEPOST_INDEX_DIR", HOME / "index")
# The indexer waits this long for an outbox row that is missing from the sequence (a write
# still in its transaction) before it skips the hole, and keeps applied rows this long.
TRADEPOST_SEARCH_OUTBOX_HOLE_SECONDS = env.float("TRADEPOST_SEARCH_OUTBOX_HOLE_SECONDS", 600)
TRADEPOST_SEARCH_OUTBOX_RETENTION_HOURS = env.float("TRADEPOST_SEARCH_OUTBOX_RETENTION_HOURS", 24)
# A listing being published at least this alike (estimated Jaccard similarity of its analysed
# title and product codes) to one its company has published is shown to the supplier as a
# likely duplicate first (search.fingerprints, ADR 0024); 0 turns the check off.
TRADEPOST_DUPLICATE_SIMILARITY = env.float("TRADEPOST_DUPLICATE_SIMILARITY", 0.48)

# --- sourcing and messaging limits (operator settings) ------------------------------------
TRADEPOST_RFQ_QUOTE_LIMIT = env.int("TRADEPOST_RFQ_QUOTE_LIMIT", 10)
TRADEPOST_MONTHLY_QUOTE_QUOTA = env.int("TRADEPOST_MONTHLY_QUOTE_QUOTA", 20)
# Minutes after a buying request is posted when matching suppliers without a first look are
# told of it; a plan's `early_look_minutes` (Gold: 60) tells its suppliers that much sooner.
# 0: everyone at once. The request is public all along (sourcing.first_look, ADR 0026).
TRADEPOST_FIRST_LOOK_MINUTES = env.int("TRADEPOST_FIRST_LOOK_MINUTES", 60)
TRADEPOST_ATTACHMENT_MAX_BYTES = env.int("TRADEPOST_ATTACHMENT_MAX_BYTES", 10 * 1024 * 1024)
TRADEPOST_MESSAGE_ATTACHMENT_MAX_BYTES = env.int(
    "TRADEPOST_MESSAGE_ATTACHMENT_MAX_BYTES", 5 * 1024 * 1024
)
TRADEPOST_MESSAGE_MAX_ATTACHMENTS = env.int("TRADEPOST_MESSAGE_MAX_ATTACHMENTS", 3)
# Verification documents (business licence, export licence, certifications): per file, and
# files per request.
TRADEPOST_VERIFICATION_MAX_BYTES = env.int("TRADEPOST_VERIFICATION_MAX_BYTES", 10 * 1024 * 1024)
TRADEPOST_VERIFICATION_MAX_FILES = env.int("TRADEPOST_VERIFICATION_MAX_FILES", 10)
# Catalogue uploads (docs/operations.md, "Catalogue import and export"): the sheet's size and
# rows, what an XLSX file or a ZIP of pictures may unpack to, the ZIP's size and files; files
# of up to TRADEPOST_IMPORT_INLINE_ROWS rows are checked and imported during the request, larger
# ones by the worker, which picks up an import with no progress for
# TRADEPOST_IMPORT_STALLED_MINUTES again from its checkpoint.
TRADEPOST_IMPORT_MAX_BYTES = env.int("TRADEPOST_IMPORT_MAX_BYTES", 50 * 1024 * 1024)
TRADEPOST_IMPORT_MAX_ROWS = env.int("TRADEPOST_IMPORT_MAX_ROWS", 100_000)
TRADEPOST_IMPORT_MAX_UNPACKED_BYTES = env.int(
    "TRADEPOST_IMPORT_MAX_UNPACKED_BYTES", 1024 * 1024 * 1024
)
TRADEPOST_IMPORT_PICTURES_MAX_BYTES = env.int(
    "TRADEPOST_IMPORT_PICTURES_MAX_BYTES", 200 * 1024 * 1024
)
TRADEPOST_IMPORT_PICTURES_MAX_FILES = env.int("TRADEPOST_IMPORT_PICTURES_MAX_FILES", 5_000)
TRADEPOST_IMPORT_INLINE_ROWS = env.int("TRADEPOST_IMPORT_INLINE_ROWS", 200)
TRADEPOST_IMPORT_STALLED_MINUTES = env.int("TRADEPOST_IMPORT_STALLED_MINUTES", 10)
# An XLSX file is read by a process of its own (imports/xlsx.py) with these limits: a workbook
# that needs more memory or CPU time is refused, and ends only that process.
TRADEPOST_IMPORT_READER_MEMORY_MB = env.int("TRADEPOST_IMPORT_READER_MEMORY_MB", 512)
TRADEPOST_IMPORT_READER_SECONDS = env.int("TRADEPOST_IMPORT_READER_SECONDS", 60)
TRADEPOST_INQUIRIES_PER_HOUR = env.int("TRADEPOST_INQUIRIES_PER_HOUR", 20)
TRADEPOST_MESSAGES_PER_HOUR = env.int("TRADEPOST_MESSAGES_PER_HOUR", 120)
# Reports (of listings, companies, requests, messages) one person may send in 24 hours.
TRADEPOST_REPORTS_PER_DAY = env.int("TRADEPOST_REPORTS_PER_DAY", 20)
# The same message text sent to this many different companies within a day is flagged.
TRADEPOST_DUPLICATE_MESSAGE_COMPANIES = env.int("TRADEPOST_DUPLICATE_MESSAGE_COMPANIES", 5)
# Sign-ups from one client (IP address), and password-reset emails to one address, per hour
# (a client may ask for five times as many resets, to different addresses).
TRADEPOST_SIGNUPS_PER_HOUR = env.int("TRADEPOST_SIGNUPS_PER_HOUR", 10)
TRADEPOST_PASSWORD_RESETS_PER_HOUR = env.int("TRADEPOST_PASSWORD_RESETS_PER_HOUR", 3)
# The JSON API's requests per minute, reads (GET) and writes apart: per API token (or
# signed-in user), and per client address for callers without one; 0 turns a limit off (the
# tests do, but tests/api/test_rate_limits.py). Counted where the account limits are
# (`tradepost.api.ratelimits`). An Idempotency-Key is kept this many hours (docs/api.md).
TRADEPOST_API_READS_PER_MINUTE = env.int("TRADEPOST_API_READS_PER_MINUTE", 300)
TRADEPOST_API_WRITES_PER_MINUTE = env.int("TRADEPOST_API_WRITES_PER_MINUTE", 60)
TRADEPOST_IDEMPOTENCY_KEY_HOURS = env.int("TRADEPOST_IDEMPOTENCY_KEY_HOURS", 24)

# --- membership and invoices (operator settings; docs/operations.md) ----------------------
# Days a renewing paid period keeps its plan after its end while the renewal invoice waits.
TRADEPOST_MEMBERSHIP_GRACE_DAYS = env.int("TRADEPOST_MEMBERSHIP_GRACE_DAYS", 14)
TRADEPOST_INVOICE_DUE_DAYS = env.int("TRADEPOST_INVOICE_DUE_DAYS", 14)
TRADEPOST_INVOICE_PREFIX = env.str("TRADEPOST_INVOICE_PREFIX", "TP")
# The seller on every invoice: the operator's company ("\n" in the address starts a line).
TRADEPOST_SELLER_NAME = env.str("TRADEPOST_SELLER_NAME", "Tradepost")
TRADEPOST_SELLER_ADDRESS = env.str("TRADEPOST_SELLER_ADDRESS", "")
TRADEPOST_SELLER_COUNTRY = env.str("TRADEPOST_SELLER_COUNTRY", "")
TRADEPOST_SELLER_TAX_ID = env.str("TRADEPOST_SELLER_TAX_ID", "")
TRADEPOST_SELLER_EMAIL = env.str("TRADEPOST_SELLER_EMAIL", "")
# The account bank transfers go to (printed on invoices with each invoice's reference).
TRADEPOST_SELLER_BANK_ACCOUNT_NAME = env.str("TRADEPOST_SELLER_BANK_ACCOUNT_NAME", "")
TRADEPOST_SELLER_BANK_NAME = env.str("TRADEPOST_SELLER_BANK_NAME", "")
TRADEPOST_SELLER_BANK_ACCOUNT = env.str("TRADEPOST_SELLER_BANK_ACCOUNT", "")
TRADEPOST_SELLER_BANK_BIC = env.str("TRADEPOST_SELLER_BANK_BIC", "")

# --- email --------------------------------------------------------------------------------
EMAIL_BACKEND = env.str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env.str("EMAIL_HOST", "localhost")
EMAIL_PORT = env.int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", False)
# The file backend's folder (EMAIL_BACKEND=django.core.mail.backends.filebased.EmailBackend).
EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH", str(HOME / "sent-emails"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", "Tradepost <noreply@localhost>")

# --- cache, sessions and rate limits ------------------------------------------------------
# Without REDIS_URL (one machine, `make run`): a per-process memory cache, sessions and rate
# limits in the database. With REDIS_URL (several processes or machines): the cache is shared
# in Redis; sessions are written to the database and read through the cache (a restart of
# Redis signs nobody out); login failures and the sign-up/reset limits are counted in Redis.
REDIS_URL = env.str("REDIS_URL", "").strip()
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's Redis cache, answering "not cached" while Redis is down.
            "BACKEND": "tradepost.core.cache.TolerantRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env.str("TRADEPOST_CACHE_PREFIX", "tradepost"),
            "TIMEOUT": 300,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
    AXES_CACHE = "default"
    TRADEPOST_RATE_LIMIT_STORE = "cache"
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "tradepost",
        }
    }
    TRADEPOST_RATE_LIMIT_STORE = "database"
# Anonymous visitors' public pages (home, product, company, category, request and search
# pages) are kept this many seconds in the cache and answered from it (0 turns it off; the
# tests turn it on where they check it). `tradepost.config.page_cache`.
TRADEPOST_PAGE_CACHE_SECONDS = env.int("TRADEPOST_PAGE_CACHE_SECONDS", 30)

# --- insights -----------------------------------------------------------------------------
# Product page views and the search words that showed a company's listings are counted per
# day for the supplier's desk (no personal data; robots and the company's own members are
# not counted; `tradepost.insights.counting`). 0 turns counting off.
TRADEPOST_INSIGHTS_COUNTING = env.bool("TRADEPOST_INSIGHTS_COUNTING", True)
# Seconds a server process keeps its counts in memory before writing them (one transaction).
TRADEPOST_INSIGHTS_FLUSH_SECONDS = env.float("TRADEPOST_INSIGHTS_FLUSH_SECONDS", 5.0)

# --- webhooks (docs/webhooks.md, ADR 0028) ---------------------------------------------------
# Deliveries go only to public internet addresses: every address a host name resolves to is
# checked and the connection goes to the checked one. TRADEPOST_WEBHOOKS_ALLOW_PRIVATE=1 allows
# loopback and private networks too (tests, a receiver on the same network); never on a
# public site, where it would let a company make the server call its own network.
TRADEPOST_WEBHOOKS_ALLOW_PRIVATE = env.bool("TRADEPOST_WEBHOOKS_ALLOW_PRIVATE", False)
# Seconds to connect, and for the whole request (connect, send, answer), and the bytes of an
# answer read at most.
TRADEPOST_WEBHOOKS_CONNECT_TIMEOUT = env.float("TRADEPOST_WEBHOOKS_CONNECT_TIMEOUT", 3.0)
TRADEPOST_WEBHOOKS_TIMEOUT = env.float("TRADEPOST_WEBHOOKS_TIMEOUT", 10.0)
TRADEPOST_WEBHOOKS_RESPONSE_MAX_BYTES = env.int("TRADEPOST_WEBHOOKS_RESPONSE_MAX_BYTES", 65536)

# Machine translation (docs/adr/0036-stored-machine-translations.md): the embedded lexicon gloss
# always; a LibreTranslate server where TRADEPOST_LIBRETRANSLATE_URL names one (its base
# address, e.g. http://127.0.0.1:5000), with its API key if it asks for one, and the seconds
# a translation may take before the gloss is used instead (translations are written in the
# background: no page waits for the server).
TRADEPOST_LIBRETRANSLATE_URL = env.str("TRADEPOST_LIBRETRANSLATE_URL", "")
TRADEPOST_LIBRETRANSLATE_API_KEY = env.str("TRADEPOST_LIBRETRANSLATE_API_KEY", "")
TRADEPOST_LIBRETRANSLATE_TIMEOUT = env.float("TRADEPOST_LIBRETRANSLATE_TIMEOUT", 10.0)
# Attempts of one delivery, and the wait before the next: base * 2^(attempt-1), at most max,
# each within +-25% (jitter): 15 attempts over about a day.
TRADEPOST_WEBHOOKS_MAX_ATTEMPTS = env.int("TRADEPOST_WEBHOOKS_MAX_ATTEMPTS", 15)
TRADEPOST_WEBHOOKS_RETRY_BASE_SECONDS = env.float("TRADEPOST_WEBHOOKS_RETRY_BASE_SECONDS", 30.0)
TRADEPOST_WEBHOOKS_RETRY_MAX_SECONDS = env.float("TRADEPOST_WEBHOOKS_RETRY_MAX_SECONDS", 14400.0)
# An endpoint whose deliveries failed for good this many times in a row is switched off and
# its company's owner and admins are emailed.
TRADEPOST_WEBHOOKS_DISABLE_AFTER = env.int("TRADEPOST_WEBHOOKS_DISABLE_AFTER", 5)
# Hours the previous secret still signs (beside the new one) after a rotation.
TRADEPOST_WEBHOOKS_ROTATION_HOURS = env.int("TRADEPOST_WEBHOOKS_ROTATION_HOURS", 24)
# Seconds past its due time after which the worker's timer queues a pending delivery again
# (its task was lost: a worker killed mid-delivery, a queue that did not answer at commit).
TRADEPOST_WEBHOOKS_SWEEP_GRACE_SECONDS = env.float("TRADEPOST_WEBHOOKS_SWEEP_GRACE_SECONDS", 30.0)
# Endpoints per company; days the events and their delivery log are kept.
TRADEPOST_WEBHOOKS_MAX_ENDPOINTS = env.int("TRADEPOST_WEBHOOKS_MAX_ENDPOINTS", 10)
TRADEPOST_WEBHOOKS_LOG_DAYS = env.int("TRADEPOST_WEBHOOKS_LOG_DAYS", 30)
# The key endpoint secrets are derived from (default: SECRET_KEY). Changing it changes every
# endpoint's secret: set it before changing SECRET_KEY on a site with webhooks.
TRADEPOST_WEBHOOKS_SECRET_KEY = env.str("TRADEPOST_WEBHOOKS_SECRET_KEY", "") or SECRET_KEY

# --- background tasks ---------------------------------------------------------------------
# The database queue (the default, with or without Redis) is durable wherever the database
# is, and a task is queued in the same database as the write it follows. The RQ queue
# (TRADEPOST_TASKS_BACKEND=rq, Redis at REDIS_URL) needs a Redis that keeps its data
# (appendonly yes): a Redis restarted without it loses the tasks waiting in it (ADR 0011).
_TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "rq": "django_tasks_rq.RQBackend",
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
}
TASKS_BACKEND_NAME = env.str("TRADEPOST_TASKS_BACKEND", "database")
# Seconds the database queue's idle worker waits before it looks for tasks again: the most a
# side effect (an email, a webhook) waits after its commit when the worker is idle.
TRADEPOST_WORKER_POLL_SECONDS = env.float("TRADEPOST_WORKER_POLL_SECONDS", 1.0)
# The worker shows it is alive every TRADEPOST_WORKER_HEARTBEAT_SECONDS. /healthz answers 503
# when this node's worker has been silent for TRADEPOST_WORKER_SILENT_SECONDS (stopped, or hung:
# a process stopped or frozen), unless TRADEPOST_HEALTH_NEEDS_WORKER is off (a node served
# with `tradepost serve --no-worker`); `tradepost serve` kills and restarts a worker silent for
# TRADEPOST_WORKER_HUNG_SECONDS.
TRADEPOST_WORKER_HEARTBEAT_SECONDS = env.float("TRADEPOST_WORKER_HEARTBEAT_SECONDS", 5.0)
TRADEPOST_WORKER_SILENT_SECONDS = env.float("TRADEPOST_WORKER_SILENT_SECONDS", 30.0)
TRADEPOST_WORKER_HUNG_SECONDS = env.float("TRADEPOST_WORKER_HUNG_SECONDS", 90.0)
TRADEPOST_HEALTH_NEEDS_WORKER = env.bool("TRADEPOST_HEALTH_NEEDS_WORKER", True)
if TASKS_BACKEND_NAME not in _TASK_BACKENDS:
    raise ValueError(
        f"TRADEPOST_TASKS_BACKEND={TASKS_BACKEND_NAME!r}: use one of {', '.join(_TASK_BACKENDS)}"
    )
TASKS = {
    "default": {
        "BACKEND": _TASK_BACKENDS[TASKS_BACKEND_NAME],
        "QUEUES": ["default"],
    }
}
if TASKS_BACKEND_NAME == "rq":
    # An extra of its own (`make install-rq`, requirements-rq.lock; ADR 0030).
    if importlib.util.find_spec("django_tasks_rq") is None:
        raise ImproperlyConfigured(
            "TRADEPOST_TASKS_BACKEND=rq needs the RQ queue's packages: run `make install-rq` "
            "(docs/deploy.md), or leave the variable unset for the database queue."
        )
    INSTALLED_APPS.append("django_rq")
    RQ_QUEUES = {"default": {"URL": REDIS_URL or "redis://127.0.0.1:6379/0"}}

# --- security -----------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = env.bool("SECURE_COOKIES", False)

# Content-Security-Policy (django-csp) on every response: scripts, styles, pictures and
# forms from this site only, no plugins, no framing. The site's pages hold no inline script
# or style (their behaviours are in static/tradepost/site.js); the browser tests check that
# no page breaks the policy. The API's interactive docs page (Swagger UI from a CDN) is the
# one exception (`tradepost.api.urls`).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# The production switch: TRADEPOST_HTTPS=1 where the site is served over HTTPS (directly or
# behind a proxy). Then plain HTTP is redirected, browsers are told to use HTTPS only (HSTS,
# a year, subdomains too) and cookies travel over HTTPS only. TRADEPOST_PROXY_HTTPS_HEADER=1
# trusts the proxy's X-Forwarded-Proto header to tell a request came over HTTPS (set it only
# behind a proxy that sets that header itself).
if env.bool("TRADEPOST_HTTPS", False):
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = 31_536_000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
if env.bool("TRADEPOST_PROXY_HTTPS_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", "WARNING")},
}
