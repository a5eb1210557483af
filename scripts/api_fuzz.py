"""Fuzz the JSON API with schemathesis against its own served OpenAPI schema.

    .venv/bin/python scripts/api_fuzz.py [--max-examples N] [--time-budget S] [--seed N] [--keep]

1. makes a temporary data folder (TRADEPOST_HOME) with a fresh database: SQLite inside it, or,
   when DATABASE_URL names PostgreSQL, a database `tradepost_fuzz` on that server (dropped
   and created again here, dropped at the end);
2. migrates, loads a small demo marketplace (with buying requests of the token's company,
   quoted by others: DEMO_EXTRAS) and indexes it for search, and creates an API token for
   the demo supplier (the owner of a company with products, requests, quotations and
   conversations); half of the identifiers drawn for path parameters are ones that exist;
3. starts `tradepost serve --no-worker` on a free port of 127.0.0.1 and waits for /healthz;
4. runs `schemathesis run` on /api/v1/openapi.json with that token (every phase: examples,
   coverage, fuzzing and stateful sequences; write endpoints create data, which is fine),
   with the checks in CHECKS and the project's own in scripts/api_fuzz_hooks.py;
5. stops the server, removes the folder and the database, and exits with schemathesis'
   status: non-zero on any failure (a server error, a response that does not match its
   schema, an undocumented status or type, an error that is not a problem document...).

Bounded: `--max-examples` cases per operation and phase (one pass), or `--time-budget`
seconds (passes repeat until it is spent); the whole schemathesis run is stopped after
WATCHDOG_SECONDS past the budget whatever happens.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

HOOKS = Path(__file__).resolve().with_name("api_fuzz_hooks.py")
FUZZ_DATABASE = "tradepost_fuzz"

#: Small and quick to load, but every kind of object is there (requests, quotations,
#: conversations, notifications) for the stateful phase to find.
DEMO_COMPANIES = 6
DEMO_PRODUCTS = 40
DEMO_USER = "supplier@demo.example"

#: Every built-in check that applies to this API, plus the project's own.
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "negative_data_rejection",
    "missing_required_header",
    "unsupported_method",
    "allow_header_conformance",
    "ignored_auth",
    "use_after_free",
    "ensure_resource_availability",
    "problem_json_errors",  # scripts/api_fuzz_hooks.py
)
#: Built-in checks left out, and why:
#: - positive_data_acceptance expects every request the schema allows to succeed. The API
#:   refuses, rightly and as documented (422), what no JSON Schema here says: a category id
#:   that does not exist or is not a leaf, a minimum price above the maximum, a file that is
#:   not a picture, an unpaired surrogate or a NUL in any string, a country code that is not
#:   ISO 3166. Its failures would be the fuzzer's guesses, not defects.
#: - object_level_authorization needs the credentials of a second company set up in a
#:   schemathesis configuration file; the permission matrices of tests/ (anonymous, other
#:   company, member, owner, operator) cover it for every endpoint.

#: schemathesis' configuration (TOML). A request the fuzzer made invalid may be refused by the
#: HTTP server before Django reads it: an address longer than gunicorn reads (414) or headers
#: beyond its limits (431), documented for every operation. Those are refusals too, so they
#: join the statuses `negative_data_rejection` counts as one (its default list lacks them).
CONFIG = """
[checks.negative_data_rejection]
expected-statuses = [
  "400", "401", "403", "404", "405", "406", "409", "414", "415", "422", "428", "429", "431",
  "5xx",
]
"""

DEFAULT_MAX_EXAMPLES = 30
WATCHDOG_SECONDS = 600
SERVER_START_SECONDS = 60


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _log(message: str) -> None:
    print(f"[api-fuzz] {message}", flush=True)


def _is_postgres(url: str) -> bool:
    return urlparse(url).scheme in {"postgres", "postgresql", "pgsql"}


def _admin_url(url: str) -> str:
    return urlparse(url)._replace(path="/postgres").geturl()


def _recreate_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = urlparse(url).path.lstrip("/")
    with psycopg.connect(_admin_url(url), autocommit=True, connect_timeout=5) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _drop_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = urlparse(url).path.lstrip("/")
    try:
        with psycopg.connect(_admin_url(url), autocommit=True, connect_timeout=5) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
    except psycopg.Error as error:
        _log(f"could not drop the database {name}: {error}")


def fuzz_environment(home: Path) -> tuple[dict[str, str], str | None]:
    """The environment of every command run here, and the PostgreSQL database to drop after
    (None on SQLite)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "TRADEPOST_TASKS_BACKEND", "DEBUG", "SECRET_KEY"}
    }
    env.update(
        {
            "TRADEPOST_HOME": str(home),
            "DJANGO_SETTINGS_MODULE": "tradepost.config.settings",
            # Production settings: an unexpected error must be a problem document, not
            # Django's technical page.
            "DEBUG": "0",
            "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
            # The server's log then holds the tracebacks of unexpected errors only.
            "LOG_LEVEL": "ERROR",
            # The rate limits are counted (their headers checked) but not reached: one token
            # sends thousands of requests a minute here.
            "TRADEPOST_API_READS_PER_MINUTE": "1000000",
            "TRADEPOST_API_WRITES_PER_MINUTE": "1000000",
        }
    )
    url = os.environ.get("DATABASE_URL", "")
    if url and _is_postgres(url):
        fuzz_url = urlparse(url)._replace(path=f"/{FUZZ_DATABASE}").geturl()
        env["DATABASE_URL"] = fuzz_url
        return env, fuzz_url
    return env, None


#: Run by `tradepost shell` after the demo. The token's company sells in the demo; here it
#: also buys: it posts buying requests and three other companies quote on each, so the
#: buyer's operations (compare, shortlist, decline, award, close) have something of its own
#: to act on. Then it prints as JSON the identifiers that exist, per path parameter: half of
#: the values drawn for those parameters come from these lists (the other half are
#: generated), so the fuzzer reaches the logic behind a found object, not only 404s.
DEMO_EXTRAS = """
import json
from datetime import timedelta
from django.utils import timezone
from tradepost.accounts.models import User
from tradepost.catalog.models import Category, Product, ProductImage
from tradepost.companies.models import Company, Membership, Role
from tradepost.messaging.models import Conversation, MessageAttachment
from tradepost.sourcing import services
from tradepost.sourcing.models import Attachment, BuyingRequest, Quotation

user = User.objects.get(email=EMAIL)
leaf = Category.objects.filter(is_leaf=True).order_by("pk").first()
others = [
    membership.user
    for membership in Membership.objects.filter(role=Role.OWNER)
    .exclude(company=user.membership.company)
    .select_related("user")
    .order_by("pk")[:3]
]
for number in range(3):
    request = services.request_create(actor=user, **{
        "title": f"Insulated lunch boxes, lot {number + 1}",
        "description": "<p>Food grade, two compartments.</p>",
        "category_id": leaf.pk, "quantity": "2000", "unit": "pieces",
        "target_unit_price": "3.10", "target_currency": "USD", "destination_country": "NL",
        "preferred_incoterm": "FOB", "deadline": timezone.now() + timedelta(days=20),
    })
    for supplier in others:
        services.quotation_submit(actor=supplier, buying_request=request, **{
            "unit_price": "2.90", "currency": "USD", "moq": "500", "lead_time_days": 25,
            "incoterm": "FOB", "named_place": "Ningbo", "payment_terms": ["tt"],
            "valid_until": timezone.localdate() + timedelta(days=30), "message": "In stock.",
        })

def ids(model):
    return list(model.objects.order_by("pk").values_list("pk", flat=True)[:200])

slugs = list(Company.objects.values_list("slug", flat=True)[:100])
slugs += list(Category.objects.filter(depth__lte=1).values_list("slug", flat=True)[:100])
print(json.dumps({
    "product_id": ids(Product),
    "image_id": ids(ProductImage),
    "request_id": ids(BuyingRequest),
    "quotation_id": ids(Quotation),
    "conversation_id": [str(pk) for pk in ids(Conversation)],
    "attachment_id": ids(Attachment) + ids(MessageAttachment),
    "slug": slugs,
}))
"""
KNOWN_ID_PROBABILITY = 0.5


def known_ids_config(known: dict[str, list[object]]) -> str:
    """schemathesis' dictionaries of known values, bound to the path parameters of that name."""
    lines = []
    for name, values in known.items():
        if values:
            lines += [f"[dictionaries.{name}]", f"values = {json.dumps(values)}", ""]
    lines.append("[parameters]")
    for name, values in known.items():
        if values:
            lines.append(
                f'"path.{name}" = {{ dictionary = "{name}", probability = {KNOWN_ID_PROBABILITY} }}'
            )
    return "\n".join(lines) + "\n"


def prepare(env: dict[str, str]) -> tuple[str, dict[str, list[object]]]:
    """Migrate, load the demo (and `DEMO_EXTRAS`) and index it; the API token of the demo
    supplier, and the identifiers that exist."""
    tradepost = _bin("tradepost")

    def run(*argv: str) -> str:
        begun = time.monotonic()
        done = subprocess.run(
            [tradepost, *argv], env=env, check=True, capture_output=True, text=True
        )
        _log(f"tradepost {argv[0]}: {time.monotonic() - begun:.1f} s")
        return done.stdout.strip()

    # The error pages a probe of a non-API address gets name static files by their manifest.
    # Collected beside the migrations: they need nothing of each other.
    static = subprocess.Popen(
        [tradepost, "collectstatic", "--noinput", "-v0"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        run("migrate", "--noinput", "-v0")
    finally:
        _, errors = static.communicate()
    if static.returncode:
        raise subprocess.CalledProcessError(static.returncode, static.args, stderr=errors)
    run("demo", "-v0", "--companies", str(DEMO_COMPANIES), "--products", str(DEMO_PRODUCTS))
    listed = run("shell", "-v0", "-c", f"EMAIL = {DEMO_USER!r}\n{DEMO_EXTRAS}")
    run("reindex", "-v0")
    token = run("token", "create", "--user", DEMO_USER, "--name", "api fuzz")
    return token, json.loads(listed.splitlines()[-1])


def _wait_healthy(url: str, server: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - our own URL
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the server did not answer {url} in {timeout:.0f} s")


def start_server(env: dict[str, str], port: int, log: Path) -> subprocess.Popen:
    argv = [_bin("tradepost"), "serve", "--port", str(port), "--no-worker"]
    argv += ["--workers", "2", "--threads", "2"]
    with log.open("wb") as out:
        server = subprocess.Popen(
            argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    _wait_healthy(f"http://127.0.0.1:{port}/healthz", server, SERVER_START_SECONDS)
    return server


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM to `tradepost serve` (it stops gunicorn), then to what is left of its group."""
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)
    server.wait()


def schemathesis_argv(
    url: str,
    token: str,
    *,
    config: Path,
    max_examples: int,
    time_budget: int | None,
    seed: int | None,
) -> list[str]:
    argv = [
        _bin("schemathesis"),
        "--config-file",
        str(config),
        "run",
        url,
        "--header",
        f"Authorization: Bearer {token}",
        "--checks",
        ",".join(CHECKS),
        "--max-examples",
        str(max_examples),
        # One worker: with two threads, hypothesis' concurrent `ast.parse` of its filter lambdas
        # sometimes fails inside CPython 3.11 ("AST constructor recursion depth mismatch"), a
        # schemathesis runtime error that is no finding about the API.
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--generation-database",
        "none",
        "--no-color",
    ]
    if time_budget is not None:
        argv += ["--max-time", str(time_budget)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    return argv


def _server_errors(log: Path, limit: int = 20) -> str:
    """The tracebacks the server logged (the first `limit`), for a failed run's report.
    Its log also holds a line per refused request (Django's "Not Found: /api/..."): those
    are left out."""
    blocks: list[list[str]] = []
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    inside = False
    for number, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            if not inside:
                blocks.append(lines[max(number - 1, 0) : number])
            inside = True
        if inside:
            blocks[-1].append(line)
            # The last line of a traceback names the exception, unindented.
            if line and not line[0].isspace() and not line.startswith(("Traceback", "During")):
                inside = line.endswith(":") or line == ""
    return "\n\n".join("\n".join(block) for block in blocks[:limit]) or "(no traceback)"


def run(max_examples: int, time_budget: int | None, seed: int | None, keep: bool) -> int:
    started = time.monotonic()
    home = Path(tempfile.mkdtemp(prefix="tradepost-fuzz-"))
    env, database = fuzz_environment(home)
    server: subprocess.Popen | None = None
    log = home / "server.log"
    try:
        if database:
            _log("database: PostgreSQL (a fresh database of its own)")
            _recreate_database(database)
        else:
            _log("database: SQLite (in a temporary folder)")
        token, known = prepare(env)
        port = _free_port()
        server = start_server(env, port, log)
        _log(f"serving on 127.0.0.1:{port} (ready after {time.monotonic() - started:.0f} s)")
        config = home / "schemathesis.toml"
        config.write_text(CONFIG + known_ids_config(known))
        argv = schemathesis_argv(
            f"http://127.0.0.1:{port}/api/v1/openapi.json",
            token,
            config=config,
            max_examples=max_examples,
            time_budget=time_budget,
            seed=seed,
        )
        fuzz_env = {**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)}
        fuzz_started = time.monotonic()
        try:
            # The working directory is the temporary folder: schemathesis writes nothing
            # into the repository.
            status = subprocess.run(
                argv, env=fuzz_env, cwd=home, timeout=(time_budget or 0) + WATCHDOG_SECONDS
            ).returncode
        except subprocess.TimeoutExpired:
            _log("schemathesis ran past its watchdog and was stopped")
            status = 1
        _log(f"schemathesis took {time.monotonic() - fuzz_started:.0f} s")
        if status != 0:
            print("--- server tracebacks ---", _server_errors(log), sep="\n", flush=True)
        return status
    finally:
        if server is not None:
            stop_server(server)
        if database:
            _drop_database(database)
        if keep:
            _log(f"kept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
        _log(f"done in {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--max-examples",
        type=int,
        default=DEFAULT_MAX_EXAMPLES,
        help=f"test cases per operation and phase (default {DEFAULT_MAX_EXAMPLES})",
    )
    parser.add_argument(
        "--time-budget",
        type=int,
        default=None,
        help="seconds of fuzzing; passes repeat until they are spent (default: one pass)",
    )
    parser.add_argument("--seed", type=int, default=None, help="repeat a run (it prints its seed)")
    parser.add_argument("--keep", action="store_true", help="keep the data folder and server log")
    args = parser.parse_args(argv)
    return run(args.max_examples, args.time_budget, args.seed, args.keep)


if __name__ == "__main__":
    sys.exit(main())
