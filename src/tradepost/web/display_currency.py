"""Which display currency a viewer has: the one place that answers it for pages.

A signed-in person's saved choice (their settings) comes first, then the choice kept in the
visitor's cookie (the header's currency form, `web.views.site.display_currency_set`), then the
default of the page's language (`tradepost.money.display.default_display_currency`). A value
the table no longer knows counts as no choice.

The public page cache keeps one copy of a page per value of the cookie
(`tradepost.config.page_cache`).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import get_language

from tradepost.money.display import default_display_currency, display_choice

COOKIE_NAME = "tradepost_currency"
COOKIE_MAX_AGE = timedelta(days=365)


def viewer_display_currency(request: HttpRequest) -> str:
    """The viewer's display currency: a currency code, or AS_LISTED."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        saved = display_choice(getattr(user, "display_currency", ""))
        if saved is not None:
            return saved
    chosen = display_choice(request.COOKIES.get(COOKIE_NAME))
    if chosen is not None:
        return chosen
    return default_display_currency(get_language())


def remember_display_currency(response: HttpResponse, choice: str) -> None:
    """Keep `choice` in the visitor's cookie (read by the server only)."""
    response.set_cookie(
        COOKIE_NAME,
        choice,
        max_age=COOKIE_MAX_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def forget_display_currency(response: HttpResponse) -> None:
    """Drop the visitor's cookie: the page's language decides again."""
    response.delete_cookie(COOKIE_NAME, samesite="Lax")
