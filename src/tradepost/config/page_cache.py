"""The public pages an anonymous visitor reads, answered from the cache for a short while.

Most requests to a marketplace are visitors reading the same pages: the home page, product,
company and category pages, the request board, search results. For a visitor who is not
signed in (no session cookie, no pending messages, no API token) these pages are the same
for everyone who asks for the same address with the same display currency (the cookie
`tradepost.web.display_currency` keeps), so the first answer is kept in the shared cache
(Redis where REDIS_URL is set) for TRADEPOST_PAGE_CACHE_SECONDS (30 by default; 0 turns it
off) and given to the next visitors without running the view. Signed-in people always get a
fresh page, so a supplier sees an edit at once; a visitor may see it up to that many seconds
later.

Only pages named in CACHEABLE are kept, only a 200 HTML answer that sets no cookie, and never
one that says `Cache-Control: private` or `no-store`. The language is part of the address
(/en/, /zh-hans/, /zh-hant/), so the key is the host, the full path with its query and the
display-currency cookie.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import get_max_age

from tradepost.web.display_currency import COOKIE_NAME as DISPLAY_CURRENCY_COOKIE

#: URL names (namespace:name) of the public pages that may be cached.
CACHEABLE = frozenset(
    {
        "web:home",
        "catalog:category_list",
        "catalog:category_detail",
        "catalog:product_detail",
        "catalog:company_directory",
        "catalog:company_detail",
        "search:results",
        "sourcing:board",
        "sourcing:request_detail",
    }
)
#: Headers that mark an answer to one person, never to be shared.
PRIVATE = ("private", "no-store", "no-cache")
KEY_VERSION = 1


def page_cache_seconds() -> int:
    return settings.TRADEPOST_PAGE_CACHE_SECONDS


def _anonymous(request: HttpRequest) -> bool:
    return (
        settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "messages" not in request.COOKIES
        and "HTTP_AUTHORIZATION" not in request.META
    )


def _cacheable_address(request: HttpRequest) -> bool:
    # The pages' addresses start with a language (i18n_patterns), and only the active
    # language's prefix resolves: this runs before LocaleMiddleware has chosen it.
    language = translation.get_language_from_path(request.path_info)
    if language is None:
        return False
    try:
        with translation.override(language):
            match = resolve(request.path_info)
    except Resolver404:
        return False
    return match.view_name in CACHEABLE


def page_key(request: HttpRequest) -> str:
    # The prices are shown in the currency the visitor's cookie names: one copy per choice.
    currency = request.COOKIES.get(DISPLAY_CURRENCY_COOKIE, "")
    address = f"{request.get_host()}{request.get_full_path()}\n{currency}"
    digest = hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()
    return f"page:{KEY_VERSION}:{digest}"


def _storable(response: HttpResponse) -> bool:
    if response.status_code != 200 or response.streaming or response.cookies:
        return False
    if not response.get("Content-Type", "").startswith("text/html"):
        return False
    control = response.get("Cache-Control", "").lower()
    return not any(word in control for word in PRIVATE) and get_max_age(response) != 0


class PublicPageCacheMiddleware:
    """Answers anonymous GET/HEAD requests for CACHEABLE pages from the cache (`X-Cache: hit`)
    and keeps a fresh answer for the next visitor (`X-Cache: miss`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        seconds = page_cache_seconds()
        if (
            seconds <= 0
            or request.method not in ("GET", "HEAD")
            or not _anonymous(request)
            or not _cacheable_address(request)
        ):
            return self.get_response(request)
        key = page_key(request)
        stored = cache.get(key)
        if stored is not None:
            headers, content = stored
            response = HttpResponse(content, status=200)
            for name, value in headers:
                response[name] = value
            response["X-Cache"] = "hit"
            return response
        response = self.get_response(request)
        if _storable(response):
            headers = [(name, value) for name, value in response.items() if name != "X-Cache"]
            cache.set(key, (headers, response.content), seconds)
            response["X-Cache"] = "miss"
        return response
