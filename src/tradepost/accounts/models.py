from __future__ import annotations

from typing import ClassVar

from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra) -> User:
        if not email:
            raise ValueError("email is required")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        extra.setdefault("email_verified_at", timezone.now())
        return self.create_user(email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    """A person. People act for a company through a Membership."""

    email = models.EmailField(_("email"), max_length=254, unique=True)
    full_name = models.CharField(_("full name"), max_length=120, blank=True)
    preferred_language = models.CharField(
        _("preferred language"), max_length=10, default="en", blank=True
    )
    #: The currency prices are shown in (beside the listed price): a code of the exchange-rate
    #: table, "listed" for none, or blank for the default of the page's language
    #: (`tradepost.money.display`).
    display_currency = models.CharField(_("display currency"), max_length=8, default="", blank=True)
    email_verified_at = models.DateTimeField(_("email verified at"), null=True, blank=True)
    is_staff = models.BooleanField(_("operator"), default=False)
    is_active = models.BooleanField(_("active"), default=True)
    date_joined = models.DateTimeField(_("date joined"), default=timezone.now)

    objects: ClassVar[UserManager] = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")

    def __str__(self) -> str:
        return self.email

    @property
    def is_email_verified(self) -> bool:
        return self.email_verified_at is not None

    def get_full_name(self) -> str:
        return self.full_name or self.email

    def get_short_name(self) -> str:
        return self.full_name.split(" ")[0] if self.full_name else self.email


class ApiToken(models.Model):
    """A personal API token. Only a SHA-256 hash of the secret is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=80)
    prefix = models.CharField(max_length=12, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class ThrottleHit(models.Model):
    """One attempt of a rate-limited action (signing up, asking for a password reset, an API
    request), counted under a key: a hash of the address, the client's IP or the API token,
    never the value itself (`tradepost.accounts.throttle`). Rows older than the action's
    window are deleted as new ones arrive, and by the periodic jobs."""

    action = models.CharField(max_length=20)
    key = models.CharField(max_length=64)
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["action", "key", "created_at"], name="throttle_lookup")]

    def __str__(self) -> str:
        return f"{self.action} {self.key[:8]} {self.created_at:%Y-%m-%d %H:%M}"
