"""Which client sent a request: the address the login and account rate limits count.

Behind a reverse proxy every request comes from the proxy's address; the proxy adds the
address it saw to X-Forwarded-For. With TRADEPOST_PROXY_COUNT proxies in front (set it to the
number of proxies that add themselves, usually 1 for nginx), the client is the entry that
many places from the end of that header: anything before it the client may have written
itself. Without proxies the header is ignored, so no client can choose its own address.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    remote = str(request.META.get("REMOTE_ADDR", ""))
    proxies = int(settings.TRADEPOST_PROXY_COUNT)
    if proxies <= 0:
        return remote
    forwarded = [
        part.strip()
        for part in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",")
        if part.strip()
    ]
    if len(forwarded) < proxies:
        return remote
    return forwarded[-proxies]
