"""Helpers for the account tests: links in emails."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.conf import settings

_LINK = re.compile(r"https?://[^\s\"<>]+")


def link_path(message) -> str:
    """The path of the first absolute link in a text email, checking it is on SITE_URL."""
    for url in _LINK.findall(message.body):
        if url.startswith(settings.SITE_URL + "/"):
            return urlsplit(url).path
    raise AssertionError(f"no link to {settings.SITE_URL} in: {message.body}")
