"""The demo marketplace served on a free loopback port, for the audits that need a real server
(`bench/lighthouse_audit.py`, `bench/screenshots.py`).

`prepare` makes a data folder as `bench/load_bench.py` does (migrate, static files,
`tradepost demo --if-empty`, one worker batch so the search index holds the demo),
`main_pages` asks that database for the pages to look at (a listing of the demo supplier with
pictures, its company and category, an open request of the demo buyer with quotations, a
conversation) and the demo logins, `served` runs `tradepost serve` while the block runs, and
`session_cookie` logs a demo person in over HTTP.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.load_bench import free_port, wait_healthy

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HOME = ROOT / "var" / "audit-home"
LANGUAGES = ("en", "zh-hans", "zh-hant")

Log = Callable[[str], None]


@dataclass(frozen=True)
class MainPage:
    name: str
    path: str  # without the language prefix
    who: str  # "visitor", "buyer" or "supplier"


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def demo_env(home: Path) -> dict[str, str]:
    """The production settings on the default install (SQLite, no Redis), data in `home`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "TRADEPOST_TASKS_BACKEND", "SITE_URL"}
    }
    env.update(
        {
            "TRADEPOST_HOME": str(home),
            "DJANGO_SETTINGS_MODULE": "tradepost.config.settings",
            "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
        }
    )
    return env


def prepare(home: Path, env: dict[str, str], log: Log = print) -> None:
    home.mkdir(parents=True, exist_ok=True)
    tradepost = _bin("tradepost")
    for argv in (
        [tradepost, "compiletranslations", "-v0"],
        [tradepost, "migrate", "--noinput", "-v0"],
        [tradepost, "collectstatic", "--noinput", "-v0"],
        [tradepost, "demo", "--if-empty", "-v0"],
    ):
        log(f"tradepost {argv[1]}")
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    log("tradepost worker --batch")
    subprocess.run([tradepost, "worker", "--batch"], env=env, check=True, capture_output=True)


# Run in the data folder's settings: prints the pages' addresses and the demo logins as JSON.
_DISCOVER = """
import json, django
django.setup()
from django.db.models import Count
from tradepost.catalog.models import Product, ProductStatus
from tradepost.demo.generator import DEMO_LOGIN_EMAILS
from tradepost.demo.services import demo_logins
from tradepost.messaging.models import Conversation
from tradepost.sourcing.models import BuyingRequest, RequestStatus

logins = {login.role: [login.email, login.password] for login in demo_logins()}
supplier = DEMO_LOGIN_EMAILS["supplier"]
buyer = DEMO_LOGIN_EMAILS["buyer"]
product = (
    Product.objects.filter(
        status=ProductStatus.PUBLISHED, company__memberships__user__email=supplier
    )
    .annotate(pictures=Count("images")).filter(pictures__gt=0)
    .select_related("company", "category").order_by("pk").first()
)
request = (
    BuyingRequest.objects.filter(status=RequestStatus.OPEN, buyer__memberships__user__email=buyer)
    .annotate(quotes=Count("quotations")).filter(quotes__gt=1).order_by("-quotes", "pk").first()
)
conversation = (
    Conversation.objects.filter(buyer_company__memberships__user__email=buyer)
    .order_by("pk").first()
)
# Read in another language by machine: a Chinese listing its supplier did not translate into
# English, and a request written in English.
chinese = (
    Product.objects.filter(status=ProductStatus.PUBLISHED, original_language__startswith="zh")
    .exclude(translations__language="en").order_by("pk").first()
)
english = (
    BuyingRequest.objects.filter(status=RequestStatus.OPEN, original_language="en")
    .order_by("pk").first()
)
print(json.dumps({
    "logins": logins,
    "product": f"/products/{product.pk}-{product.slug}/",
    "company": f"/companies/{product.company.slug}/",
    "category": f"/categories/{product.category.slug}/",
    "request": request.pk,
    "conversation": conversation.pk if conversation else None,
    "chinese_product": f"/products/{chinese.pk}-{chinese.slug}/" if chinese else None,
    "english_request": english.pk if english else None,
}))
"""


def main_pages(env: dict[str, str]) -> tuple[list[MainPage], dict[str, tuple[str, str]]]:
    """The main pages of the served demo, and the demo logins (role: (email, password))."""
    found = json.loads(
        subprocess.run(
            [sys.executable, "-c", _DISCOVER], env=env, check=True, capture_output=True, text=True
        ).stdout
    )
    request = found["request"]
    pages = [
        MainPage("home", "/", "visitor"),
        MainPage("search", "/search/?q=packing+machine", "visitor"),
        MainPage("product", found["product"], "visitor"),
        MainPage("company", found["company"], "visitor"),
        MainPage("category", found["category"], "visitor"),
        MainPage("request-board", "/requests/", "visitor"),
        MainPage("request", f"/requests/{request}/", "visitor"),
        MainPage("compare", f"/requests/{request}/compare/", "buyer"),
        MainPage("messages", "/messages/", "buyer"),
        MainPage("dashboard", "/accounts/dashboard/", "supplier"),
        MainPage("product-form", "/dashboard/products/create/", "supplier"),
        MainPage("matching", "/requests/matching/", "supplier"),
    ]
    if found["conversation"]:
        pages.insert(9, MainPage("conversation", f"/messages/{found['conversation']}/", "buyer"))
    # Machine translation (#28): a Chinese listing read on /en/, an English request on /zh-hant/.
    if found["chinese_product"]:
        pages.append(MainPage("product-in-chinese", found["chinese_product"], "visitor"))
    if found["english_request"]:
        pages.append(
            MainPage("request-in-english", f"/requests/{found['english_request']}/", "visitor")
        )
    logins = {role: (email, password) for role, (email, password) in found["logins"].items()}
    return pages, logins


@contextmanager
def served(home: Path, env: dict[str, str], log: Log = print) -> Iterator[str]:
    """`tradepost serve` (no worker) on a free loopback port; yields its base address."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server_env = {**env, "SITE_URL": base}
    with open(home / "serve.log", "w") as server_log:
        server = subprocess.Popen(
            [_bin("tradepost"), "serve", "--port", str(port), "--no-worker"],
            env=server_env,
            stdout=server_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_healthy(f"{base}/healthz")
            log(f"serving the demo on {base}")
            yield base
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)


def session_cookie(base: str, email: str, password: str) -> str:
    """Logs in through the login form; answers the Cookie header of the signed-in session."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    login = f"{base}/en/accounts/login/"
    with opener.open(login, timeout=30) as response:
        html = response.read().decode()
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    if match is None:
        raise RuntimeError("the login page has no CSRF token")
    form = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": match.group(1), "username": email, "password": password}
    ).encode()
    request = urllib.request.Request(login, data=form, headers={"Referer": login})
    with opener.open(request, timeout=30) as response:
        if "/accounts/login/" in response.url:
            raise RuntimeError(f"could not log in as {email}")
    cookies = {cookie.name: cookie.value for cookie in jar}
    if "sessionid" not in cookies:
        raise RuntimeError(f"no session cookie after logging in as {email}")
    return "; ".join(f"{name}={value}" for name, value in cookies.items())
