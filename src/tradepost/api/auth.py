"""API authentication: `Authorization: Bearer <token>` or the web session (with CSRF)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer, SessionAuth

from tradepost.accounts.tokens import user_for_token


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        user = user_for_token(token)
        if user is None:
            return None
        request.user = user
        return user


#: Use as `auth=API_AUTH` on endpoints that need a signed-in user.
API_AUTH = [BearerToken(), SessionAuth()]
