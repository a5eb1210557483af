"""Authentication backends: failed logins are counted and throttled (django-axes)."""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.http import HttpRequest

from tradepost.accounts.services import normalise_email


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' check before every login that comes with a request (the login page):
    after too many failures for one address from one client, even the right password is
    refused until the cool-off ends. Code that authenticates without a request (commands,
    the test client's `login`) has no client to throttle and is passed to the next backend."""

    def authenticate(  # type: ignore[override]
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)


def login_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """The address a login attempt is counted under, normalised as logins match it (so
    "A@x.com" and "a@x.com " are one account's failures)."""
    raw = (credentials or {}).get("username") or request.POST.get("username", "")
    return normalise_email(str(raw))[:254]
