"""API tokens: a random secret shown once; only its SHA-256 hash is stored."""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from tradepost.accounts.models import ApiToken, User

TOKEN_PREFIX = "tp_"


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@transaction.atomic
def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """Create a token for `user`; return it with the secret, which is never stored."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        user=user, name=name.strip()[:80], prefix=secret[:10], key_hash=hash_token(secret)
    )
    token.full_clean()
    token.save()
    return token, secret


def token_revoke(*, user: User, token_id: int) -> bool:
    """Revoke one of the user's own tokens; False when there is no such active token."""
    updated = ApiToken.objects.filter(id=token_id, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    return updated == 1


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
