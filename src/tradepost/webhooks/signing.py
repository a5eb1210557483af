"""Endpoint secrets and the signature every delivery carries (docs/webhooks.md).

A secret is never stored. Each endpoint keeps a random salt; its secret is
HMAC-SHA256(site webhook key, salt), written `whsec_` + URL-safe base64. The site's webhook
key is `TRADEPOST_WEBHOOKS_SECRET_KEY` (by default `SECRET_KEY`), which lives in the
environment or the data folder, apart from the database: a database dump or backup alone
gives no endpoint's secret away, yet the worker can sign with it at any time, and the page
shows it once, when it is made.

The signature is the payment processors' scheme: the header

    Tradepost-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>

with one `v1` per secret in use (two for a while after a rotation). A receiver recomputes
the HMAC over the timestamp, a dot and the raw body with its secret, compares in constant
time with any `v1`, and refuses a timestamp more than five minutes old (replays).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable

from django.conf import settings

SIGNATURE_HEADER = "Tradepost-Signature"
SECRET_PREFIX = "whsec_"
#: What a receiver should accept between the timestamp and its clock (seconds).
TOLERANCE_SECONDS = 300


def new_salt() -> str:
    return secrets.token_hex(32)


def endpoint_secret(salt: str) -> str:
    """The secret an endpoint with `salt` is signed with."""
    key = str(settings.TRADEPOST_WEBHOOKS_SECRET_KEY).encode()
    digest = hmac.new(key, b"tradepost.webhooks.secret:" + salt.encode(), hashlib.sha256)
    return SECRET_PREFIX + base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")


def secret_hint(salt: str) -> str:
    """Enough of a secret to tell which one a receiver holds: its prefix and last 4."""
    return f"{SECRET_PREFIX}…{endpoint_secret(salt)[-4:]}"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    message = str(int(timestamp)).encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(secrets_in_use: Iterable[str], timestamp: int, body: bytes) -> str:
    """The value of the `Tradepost-Signature` header for `body` sent at `timestamp`."""
    parts = [f"t={int(timestamp)}"]
    parts += [f"v1={sign(secret, timestamp, body)}" for secret in secrets_in_use]
    return ",".join(parts)
