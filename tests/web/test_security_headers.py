"""Security headers: a Content-Security-Policy the site's pages satisfy (the browser journeys
check that no page breaks it), and the production switch for HTTPS."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "src" / "tradepost" / "web" / "templates"
INLINE_HANDLER = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


@pytest.mark.parametrize("url", ["/en/", "/zh-hans/search/?q=flask", "/api/v1/categories"])
def test_every_answer_carries_the_policy(client, url):
    policy = client.get(url)["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"


def test_the_api_docs_page_is_the_one_exception(client):
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    assert "Content-Security-Policy" not in response


def test_page_templates_hold_no_inline_script_or_handler():
    offenders = []
    for path in TEMPLATES.rglob("*.html"):
        if "emails" in path.parts:
            continue  # emails are not pages (their inline styles are for mail clients)
        text = path.read_text(encoding="utf-8")
        if INLINE_HANDLER.search(text) or INLINE_SCRIPT.search(text) or 'style="' in text:
            offenders.append(str(path.relative_to(TEMPLATES)))
    assert offenders == []


def _settings_with(env: dict[str, str]) -> dict:
    code = (
        "import json, django, os; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({k: getattr(s, k, None) for k in ("
        "'SECURE_SSL_REDIRECT', 'SECURE_HSTS_SECONDS', 'SESSION_COOKIE_SECURE', "
        "'CSRF_COOKIE_SECURE', 'SECURE_PROXY_SSL_HEADER')}))"
    )
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("TRADEPOST_HTTPS", "TRADEPOST_PROXY_HTTPS_HEADER")
    }
    environment.update(env, DJANGO_SETTINGS_MODULE="tradepost.config.settings")
    out = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_production_switch_turns_on_https_only():
    plain = _settings_with({})
    assert not plain["SECURE_SSL_REDIRECT"] and not plain["SECURE_HSTS_SECONDS"]
    production = _settings_with({"TRADEPOST_HTTPS": "1", "TRADEPOST_PROXY_HTTPS_HEADER": "1"})
    assert production["SECURE_SSL_REDIRECT"] is True
    assert production["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert production["SESSION_COOKIE_SECURE"] and production["CSRF_COOKIE_SECURE"]
    assert production["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
