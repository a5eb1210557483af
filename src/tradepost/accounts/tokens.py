"""API tokens: a random secret shown once; only its SHA-256 hash is stored."""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.errors import AccountError, AccountErrorCode
from tradepost.accounts.models import ApiToken, User

TOKEN_PREFIX = "tp_"
TOKEN_NAME_MAX_LENGTH = 80
#: Active tokens a user may hold at once.
MAX_ACTIVE_TOKENS = 25


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def clean_token_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise AccountError(
            AccountErrorCode.TOKEN_NAME_INVALID, _("Give the token a name."), field="name"
        )
    if len(name) > TOKEN_NAME_MAX_LENGTH:
        raise AccountError(
            AccountErrorCode.TOKEN_NAME_INVALID,
            _("A token name has at most %(max)d characters.") % {"max": TOKEN_NAME_MAX_LENGTH},
            field="name",
        )
    return name


@transaction.atomic
def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """Create a token for `user`; return it with the secret, which is never stored."""
    name = clean_token_name(name)
    # Lock the user's row so two requests cannot both pass the limit.
    User.objects.select_for_update().filter(pk=user.pk).first()
    if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_ACTIVE_TOKENS:
        raise AccountError(
            AccountErrorCode.TOKEN_LIMIT,
            _("You have %(max)d active tokens, the most allowed. Revoke one first.")
            % {"max": MAX_ACTIVE_TOKENS},
        )
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user=user, name=name, prefix=secret[:10], key_hash=hash_token(secret))
    token.full_clean()
    token.save()
    return token, secret


@transaction.atomic
def token_revoke(*, user: User, token_id: int) -> bool:
    """Revoke one of the user's own tokens; False when there is no such active token."""
    updated = ApiToken.objects.filter(id=token_id, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    return updated == 1


def tokens_for(user: User) -> QuerySet[ApiToken]:
    """The user's tokens, newest first, revoked ones included."""
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


def user_for_token(secret: str) -> User | None:
    """The active user owning an active token, or None."""
    if not secret or not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_token(secret), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
