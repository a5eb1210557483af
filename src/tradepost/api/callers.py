"""Who sent an API request, before django-ninja authenticates it for the operation.

The rate limits count per caller, and an Idempotency-Key belongs to one caller; both are
applied around every operation (`tradepost.api.urls`), before its authentication runs. The
caller is:

- an API token that is valid (`Authorization: Bearer tp_…`): that token, and its user;
- else a signed-in web session: that user;
- else (no credentials, or a token that is not valid): the client's address, as the login
  and account limits see it (`tradepost.core.clients`).

A bearer token is looked up once per request: `BearerToken` reuses the answer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.http import HttpRequest

from tradepost.accounts.models import User
from tradepost.accounts.tokens import hash_token, user_for_token
from tradepost.core.clients import client_address

#: The request attribute holding {secret: user or None} of the bearer token looked up.
TOKEN_LOOKUP = "_tradepost_bearer"


@dataclass(frozen=True)
class Caller:
    """`kind`: "token", "user" or "address"; `identity`: what the limits and the keys are
    counted under (a token's hash, a user id, an address); `user`: the signed-in user."""

    kind: str
    identity: str
    user: User | None = None

    @property
    def scope(self) -> str:
        """A hash naming the caller: what an Idempotency-Key is stored under. A token's
        keys belong to its user (a new token of the same user sees them)."""
        owner = f"user:{self.user.pk}" if self.user is not None else f"{self.kind}:{self.identity}"
        return hashlib.sha256(owner.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def authenticated(self) -> bool:
        return self.user is not None


def bearer_secret(request: HttpRequest) -> str | None:
    """The token sent as `Authorization: Bearer <token>`, as django-ninja reads it."""
    header = request.headers.get("Authorization")
    if not header:
        return None
    scheme, _space, secret = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return secret


def token_user(request: HttpRequest, secret: str) -> User | None:
    """The user of an active token, looked up once per request."""
    looked_up: dict[str, User | None] = request.__dict__.setdefault(TOKEN_LOOKUP, {})
    if secret not in looked_up:
        looked_up[secret] = user_for_token(secret)
    return looked_up[secret]


def api_caller(request: HttpRequest) -> Caller:
    secret = bearer_secret(request)
    if secret:
        user = token_user(request, secret)
        if user is not None:
            return Caller("token", hash_token(secret), user)
    session_user = getattr(request, "user", None)
    if session_user is not None and session_user.is_authenticated:
        return Caller("user", str(session_user.pk), session_user)
    return Caller("address", client_address(request))
