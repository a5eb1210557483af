"""Signed, expiring links sent by email: verify an address, confirm a change of address.

The token carries the user id and the address it was made for, so a link stops working once
the account's address changes. Nothing is stored; the signature (SECRET_KEY) and the age check
make the link trustworthy.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core import signing
from django.utils.translation import gettext as _

from tradepost.accounts.errors import AccountError, AccountErrorCode

VERIFY_EMAIL_SALT = "tradepost.accounts.verify-email"
VERIFY_EMAIL_MAX_AGE = timedelta(days=3)
CHANGE_EMAIL_SALT = "tradepost.accounts.change-email"
CHANGE_EMAIL_MAX_AGE = timedelta(days=2)


@dataclass(frozen=True)
class EmailVerificationClaim:
    user_id: int
    email: str


@dataclass(frozen=True)
class EmailChangeClaim:
    user_id: int
    old_email: str
    new_email: str


def make_verification_token(*, user_id: int, email: str) -> str:
    return signing.dumps({"u": user_id, "e": email}, salt=VERIFY_EMAIL_SALT)


def read_verification_token(token: str) -> EmailVerificationClaim:
    data = _load(token, salt=VERIFY_EMAIL_SALT, max_age=VERIFY_EMAIL_MAX_AGE)
    try:
        return EmailVerificationClaim(user_id=int(data["u"]), email=str(data["e"]))
    except (KeyError, TypeError, ValueError):
        raise _invalid() from None


def make_email_change_token(*, user_id: int, old_email: str, new_email: str) -> str:
    return signing.dumps({"u": user_id, "o": old_email, "n": new_email}, salt=CHANGE_EMAIL_SALT)


def read_email_change_token(token: str) -> EmailChangeClaim:
    data = _load(token, salt=CHANGE_EMAIL_SALT, max_age=CHANGE_EMAIL_MAX_AGE)
    try:
        return EmailChangeClaim(
            user_id=int(data["u"]), old_email=str(data["o"]), new_email=str(data["n"])
        )
    except (KeyError, TypeError, ValueError):
        raise _invalid() from None


def _load(token: str, *, salt: str, max_age: timedelta) -> dict:
    if not token or len(token) > 500:
        raise _invalid()
    try:
        data = signing.loads(token, salt=salt, max_age=max_age)
    except signing.SignatureExpired:
        raise AccountError(
            AccountErrorCode.LINK_EXPIRED, _("This link has expired. Ask for a new one.")
        ) from None
    except signing.BadSignature:
        raise _invalid() from None
    if not isinstance(data, dict):
        raise _invalid()
    return data


def _invalid() -> AccountError:
    return AccountError(
        AccountErrorCode.LINK_INVALID, _("This link is not valid. Check that you copied it whole.")
    )
