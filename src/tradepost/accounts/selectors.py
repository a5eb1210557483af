"""Reads of the accounts app."""

from __future__ import annotations

from typing import Any


def user_can_publish(user: Any) -> bool:
    """Whether `user` may publish listings: a signed-in, active person with a verified email."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_active and user.email_verified_at is not None)


def is_operator(user: Any) -> bool:
    """An operator: an active staff user (the marketplace's back office)."""
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and user.is_active
        and user.is_staff
    )
