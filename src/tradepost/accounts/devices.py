"""Login guessing limited per account, with device cookies (docs/adr/0033-device-cookies.md).

django-axes counts failures per address and client: five, then that client waits. A guesser
with many addresses is limited here, per account, without locking its owner out:

- A successful login (or password reset) leaves a **device cookie** in the browser: signed,
  naming the accounts (as hashes of their addresses) that signed in on this device.
- A login attempt from a device without one for the account (an **unknown device**) counts
  against the account, whatever the password, before the password is checked (so that
  guesses sent at once cannot slip past the count): `TRADEPOST_LOGIN_NEW_DEVICE_PER_MINUTE`
  a minute (slowed), then `TRADEPOST_LOGIN_NEW_DEVICE_PER_HOUR` an hour (refused), counted by
  the one rate limiter (`accounts.throttle`). Unknown addresses are counted the same way.
- A device that signed in before is never counted here: the owner gets in while a guesser is
  refused. The owner is told by email when the account's limit is first reached in an hour.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.utils.translation import gettext_lazy

from tradepost.accounts.models import User
from tradepost.accounts.services import user_language
from tradepost.accounts.throttle import throttle, throttle_key
from tradepost.notify.services import link_in, queue_email

DEVICE_COOKIE = "tradepost_device"
DEVICE_MAX_AGE = timedelta(days=365)
_SALT = "tradepost.accounts.device"
#: Accounts one device cookie remembers (the latest ones).
ACCOUNTS_PER_DEVICE = 5


def _account(email: str) -> str:
    """An address as the cookie holds it: a short keyed hash, not the address."""
    keyed = f"{settings.SECRET_KEY}:{email.strip().lower()}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(keyed).hexdigest()[:24]


def _accounts(cookie: str | None) -> list[str]:
    if not cookie:
        return []
    try:
        value = signing.loads(cookie, salt=_SALT, max_age=DEVICE_MAX_AGE)
    except (signing.BadSignature, ValueError, TypeError):
        return []
    accounts = value.get("a") if isinstance(value, dict) else None
    return (
        [str(item) for item in accounts][:ACCOUNTS_PER_DEVICE] if isinstance(accounts, list) else []
    )


def known_device(cookie: str | None, email: str) -> bool:
    """Whether the device cookie says that this account signed in on this device."""
    return bool(email) and _account(email) in _accounts(cookie)


def device_cookie(cookie: str | None, email: str) -> str:
    """The device cookie to leave after `email` signed in: the accounts it named, this one
    last."""
    account = _account(email)
    accounts = [item for item in _accounts(cookie) if item != account] + [account]
    return signing.dumps({"a": accounts[-ACCOUNTS_PER_DEVICE:]}, salt=_SALT, compress=True)


@dataclass(frozen=True)
class LoginPause:
    """An attempt from an unknown device refused: seconds to wait, and whether the account's
    hourly limit (not only the pace) was reached."""

    retry_after: int
    paused: bool


def new_device_attempt(*, email: str, cookie: str | None) -> LoginPause | None:
    """Count a login attempt on `email` from a device that holds `cookie` (None: it holds
    none); None when it may go ahead, else how long it must wait. A known device is never
    counted."""
    if known_device(cookie, email):
        return None
    key = throttle_key("login-account", email.strip().lower())
    pace = throttle(
        action="login-device-pace",
        limits=[(key, int(settings.TRADEPOST_LOGIN_NEW_DEVICE_PER_MINUTE))],
        window=timedelta(minutes=1),
    )
    if not pace:
        return LoginPause(pace.retry_after, paused=False)
    hourly = throttle(
        action="login-device",
        limits=[(key, int(settings.TRADEPOST_LOGIN_NEW_DEVICE_PER_HOUR))],
        window=timedelta(hours=1),
    )
    if hourly:
        return None
    _tell_owner(email, key)
    return LoginPause(hourly.retry_after, paused=True)


def _tell_owner(email: str, key: str) -> None:
    """Email the account's owner once an hour while its login is paused on new devices."""
    user = User.objects.filter(email__iexact=email.strip(), is_active=True).first()
    if user is None:
        return
    if not throttle(action="login-paused-mail", limits=[(key, 1)], window=timedelta(hours=1)):
        return
    language = user_language(user)
    reset_link = link_in(language, "accounts:password_reset")
    context: dict[str, Any] = {
        "user": user,
        "reset_link": reset_link,
        "limit": settings.TRADEPOST_LOGIN_NEW_DEVICE_PER_HOUR,
    }
    queue_email(
        to=user.email,
        subject=gettext_lazy("Someone is trying to sign in to your Tradepost account"),
        template="login_paused",
        context=context,
        language=language,
    )
