"""Addresses a request asks to be sent back to (a form's `next`, the referring page): followed
only when they lead to a page of this site."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def on_this_site(request: HttpRequest, address: str) -> bool:
    """Whether `address` is a page of this site: a path from its root ("/en/...") or an
    absolute address on its host, never a relative one ("-1" or "dashboard" would be read as
    a view's name by `redirect`) or another site's."""
    if not address or not url_has_allowed_host_and_scheme(
        address, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return False
    parts = urlsplit(address)
    return bool(parts.scheme) or address.startswith("/")
