"""API authentication: `Authorization: Bearer <token>` or the web session (with CSRF)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from ninja.security import HttpBearer, SessionAuth

from tradepost.api.callers import token_user


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        user = token_user(request, token)  # looked up once: the rate limits read it first
        if user is None:
            return None
        request.user = user
        return user


#: Use as `auth=API_AUTH` on endpoints that need a signed-in user.
API_AUTH = [BearerToken(), SessionAuth()]


def _anonymous(request: HttpRequest) -> Any:
    """Lets public endpoints run for visitors without a token."""
    return AnonymousUser()


#: Use as `auth=PUBLIC_AUTH, openapi_extra=PUBLIC_OPENAPI` on endpoints that answer visitors
#: too (and say more to a signed-in user): the schema then shows the token as optional.
PUBLIC_AUTH = [*API_AUTH, _anonymous]
PUBLIC_OPENAPI: dict[str, Any] = {"security": [{}]}
