"""Authentication backends: failed logins are counted and throttled per client (django-axes),
and attempts from unknown devices per account (`accounts.devices`)."""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from tradepost.accounts.devices import DEVICE_COOKIE, LoginPause, new_device_attempt
from tradepost.accounts.services import normalise_email

#: Where a refused attempt's pause is left on the request, for the login form's message.
PAUSE_ATTRIBUTE = "tradepost_login_pause"


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' check before every login that comes with a request (the login page):
    after too many failures for one address from one client, even the right password is
    refused until the cool-off ends. Then an attempt from a device the account never signed
    in on is counted against the account (`devices.new_device_attempt`), and refused past its
    limits (`login_pause` says how long). Code that authenticates without a request
    (commands, the test client's `login`) has no client to throttle and is passed to the next
    backend."""

    def authenticate(  # type: ignore[override]
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if request is None:
            return None
        super().authenticate(request, username, password, **kwargs)  # raises when locked
        pause = new_device_attempt(
            email=login_username(request, {"username": username}),
            cookie=request.COOKIES.get(DEVICE_COOKIE),
        )
        if pause is not None:
            setattr(request, PAUSE_ATTRIBUTE, pause)
            raise PermissionDenied("login paused on new devices")
        return None


def login_pause(request: HttpRequest | None) -> LoginPause | None:
    """The pause of a login attempt refused from an unknown device, if it was."""
    pause = getattr(request, PAUSE_ATTRIBUTE, None)
    return pause if isinstance(pause, LoginPause) else None


def login_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """The address a login attempt is counted under, normalised as logins match it (so
    "A@x.com" and "a@x.com " are one account's failures)."""
    raw = (credentials or {}).get("username") or request.POST.get("username", "")
    return normalise_email(str(raw))[:254]
