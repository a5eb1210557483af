"""Reads of the accounts app."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from tradepost.accounts.errors import AccountError, AccountErrorCode


def user_can_publish(user: Any) -> bool:
    """Whether `user` may publish listings: a signed-in, active person with a verified email."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_active and user.email_verified_at is not None)


def is_operator(user: Any) -> bool:
    """An operator: an active staff user (the marketplace's back office). The one place that
    reads `is_staff` for it."""
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and user.is_active
        and user.is_staff
    )


def require_operator(user: Any) -> None:
    """Refuse anybody but an operator (403 `operators-only`, in the user's language): the one
    check of every operators' service and endpoint (pages: `web.guards.operator_required`)."""
    if not is_operator(user):
        raise AccountError(AccountErrorCode.OPERATORS_ONLY, _("Only operators can do this."))
