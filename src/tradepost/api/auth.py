"""API authentication: `Authorization: Bearer <token>` or the web session (with CSRF)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.security import HttpBearer, SessionAuth
from ninja.utils import check_csrf

from tradepost.accounts.selectors import require_operator
from tradepost.api.callers import token_user
from tradepost.api.problems import ApiProblem
from tradepost.companies.actors import Actor, actor_of_request


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        user = token_user(request, token)  # looked up once: the rate limits read it first
        if user is None:
            return None
        request.user = user
        return user


class SignedInSession(SessionAuth):
    """The web session of a signed-in user, whose writes must carry the CSRF token. A caller
    without one (no token, no session, a visitor's session) is not authenticated: a 401
    problem, not django-ninja's English "CSRF check Failed" 403; a signed-in session without
    the token is a 403 problem in the caller's language."""

    def _get_key(self, request: HttpRequest) -> str | None:
        if not request.user.is_authenticated:
            return None
        if not getattr(request, "_ninja_csrf_exempt", False) and check_csrf(request):
            raise ApiProblem(
                403,
                "csrf-failed",
                _("CSRF check failed"),
                _(
                    "A write signed in with the web session must send the csrftoken cookie's "
                    "value in the X-CSRFToken header (or use an API token)."
                ),
            )
        return request.COOKIES.get(self.param_name)


def caller(request: HttpRequest) -> Any:
    """Who an operation acts for: the user of the request's token or signed-in session (an
    anonymous visitor on the endpoints that answer visitors), as its authentication found
    them. The one reader of `request.auth` in the API."""
    return getattr(request, "auth", None)


def caller_actor(request: HttpRequest) -> Actor:
    """The caller as an actor (their company, role, operator or not), resolved once per
    request (`companies.actors`)."""
    return actor_of_request(request, caller(request))


def operator_caller(request: HttpRequest) -> Any:
    """The caller of an operators' endpoint; anybody else is refused (403 `operators-only`,
    `accounts.selectors.require_operator`)."""
    user = caller(request)
    require_operator(user)
    return user


#: Use as `auth=API_AUTH` on endpoints that need a signed-in user.
API_AUTH = [BearerToken(), SignedInSession()]


def _anonymous(request: HttpRequest) -> Any:
    """Lets public endpoints run for visitors without a token."""
    return AnonymousUser()


#: Use as `auth=PUBLIC_AUTH, openapi_extra=PUBLIC_OPENAPI` on endpoints that answer visitors
#: too (and say more to a signed-in user): the schema then shows the token as optional.
PUBLIC_AUTH = [*API_AUTH, _anonymous]
PUBLIC_OPENAPI: dict[str, Any] = {"security": [{}]}
