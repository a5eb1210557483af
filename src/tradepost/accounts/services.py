"""Writes of the accounts app: sign-up, email verification and change, settings, password reset.

Each function is one use case with keyword-only arguments and one transaction; emails are queued
with `queue_email`, which sends them only after the transaction commits.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts import links
from tradepost.accounts.errors import AccountError, AccountErrorCode
from tradepost.accounts.models import ApiToken, User
from tradepost.accounts.selectors import require_operator
from tradepost.accounts.throttle import THROTTLE_WINDOW, throttle, throttle_key
from tradepost.audit.services import audit_record, field_changes, snapshot
from tradepost.core.languages import normalise_ui_language
from tradepost.money.display import UNKNOWN_CHOICE, display_choice
from tradepost.notify.services import link_in, queue_email

FULL_NAME_MAX_LENGTH = 120
EMAIL_MAX_LENGTH = 254


def normalise_email(email: str) -> str:
    return (email or "").strip().lower()


def _clean_email(email: str, *, field: str = "email") -> str:
    email = normalise_email(email)
    if not email:
        raise AccountError(AccountErrorCode.INVALID, _("Enter your email address."), field=field)
    if len(email) > EMAIL_MAX_LENGTH:
        raise AccountError(
            AccountErrorCode.INVALID,
            _("An email address has at most %(max)d characters.") % {"max": 254},
            field=field,
        )
    try:
        validate_email(email)
    except ValidationError:
        raise AccountError(
            AccountErrorCode.INVALID, _("Enter a valid email address."), field=field
        ) from None
    return email


def _clean_full_name(full_name: str) -> str:
    full_name = " ".join((full_name or "").split())
    if len(full_name) > FULL_NAME_MAX_LENGTH:
        raise AccountError(
            AccountErrorCode.INVALID,
            _("A name has at most %(max)d characters.") % {"max": FULL_NAME_MAX_LENGTH},
            field="full_name",
        )
    return full_name


def _full_clean(user: User, *, exclude: list[str]) -> None:
    AccountError.clean_model(user, code=AccountErrorCode.INVALID, exclude=exclude)


def _check_password(password: str, *, user: User) -> None:
    try:
        validate_password(password, user=user)
    except ValidationError as exc:
        raise AccountError(AccountErrorCode.INVALID, {"password": exc.messages}) from None


def _email_taken(email: str, *, exclude_user_id: int | None = None) -> bool:
    users = User.objects.filter(email__iexact=email)
    if exclude_user_id is not None:
        users = users.exclude(pk=exclude_user_id)
    return users.exists()


def _taken_error() -> AccountError:
    return AccountError(
        AccountErrorCode.EMAIL_TAKEN,
        _("An account with this email address already exists."),
        field="email",
    )


def user_language(user: User) -> str:
    return normalise_ui_language(user.preferred_language)


# --- rate limits (`tradepost.accounts.throttle`) -------------------------------------------

#: A client may ask for this many times more password resets than one address may receive.
RESETS_PER_CLIENT_FACTOR = 5

_throttle_key = throttle_key


def _throttle(*, action: str, limits: list[tuple[str, int]]) -> bool:
    """Count one attempt of `action` under each (key, limit) within the hour, or none and
    return False when a key already has `limit` attempts (`throttle.throttle`)."""
    return throttle(action=action, limits=limits, window=THROTTLE_WINDOW).allowed


@transaction.atomic
def user_signup(
    *, email: str, password: str, full_name: str, preferred_language: str, client: str = ""
) -> User:
    """Create an account and email a verification link. The address starts unverified.
    `client` (the IP address) may create TRADEPOST_SIGNUPS_PER_HOUR accounts an hour."""
    email = _clean_email(email)
    user = User(
        email=email,
        full_name=_clean_full_name(full_name),
        preferred_language=normalise_ui_language(preferred_language),
    )
    _check_password(password, user=user)
    if _email_taken(email):
        raise _taken_error()
    if client and not _throttle(
        action="signup",
        limits=[(_throttle_key("client", client), settings.TRADEPOST_SIGNUPS_PER_HOUR)],
    ):
        raise AccountError(
            AccountErrorCode.TOO_MANY_SIGNUPS,
            _(
                "Too many accounts were created from your network in the last hour. "
                "Please try again later."
            ),
        )
    user.set_password(password)
    _full_clean(user, exclude=["email"])
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise _taken_error() from None
    _queue_verification_email(user)
    return user


def _queue_verification_email(user: User) -> None:
    token = links.make_verification_token(user_id=user.pk, email=user.email)
    language = user_language(user)
    link = link_in(language, "accounts:verify_email", kwargs={"token": token})
    queue_email(
        to=user.email,
        subject=gettext_lazy("Confirm your email address for Tradepost"),
        template="verify_email",
        context={
            "user": user,
            "link": link,
            "expires_days": links.VERIFY_EMAIL_MAX_AGE.days,
        },
        language=language,
    )


@transaction.atomic
def email_verification_send(*, user: User) -> None:
    """Email a fresh verification link to a user whose address is not verified yet."""
    if user.is_email_verified:
        raise AccountError(
            AccountErrorCode.ALREADY_VERIFIED, _("Your email address is already verified.")
        )
    _queue_verification_email(user)


@transaction.atomic
def email_verify(*, token: str) -> User:
    """Mark the address in a verification link as verified; the link must be current."""
    claim = links.read_verification_token(token)
    user = User.objects.select_for_update().filter(pk=claim.user_id, is_active=True).first()
    if user is None or user.email.lower() != claim.email.lower():
        raise AccountError(
            AccountErrorCode.LINK_INVALID,
            _("This link is not valid for your account any more. Ask for a new one."),
        )
    if user.email_verified_at is None:
        user.email_verified_at = timezone.now()
        user.save(update_fields=["email_verified_at"])
    return user


def _clean_display_currency(display_currency: str) -> str:
    """A display-currency choice as stored: a code the exchange-rate table knows, "listed"
    (as each listing is priced) or "" (the default of the page's language)."""
    choice = "" if display_currency == "" else display_choice(display_currency)
    if choice is None:
        raise AccountError(
            AccountErrorCode.INVALID,
            str(UNKNOWN_CHOICE),
            field="display_currency",
        )
    return choice


def _gather(errors: dict[str, list[str]], clean: Any, value: Any) -> Any:
    """`clean(value)`, or None with its refusal's messages added to `errors`."""
    try:
        return clean(value)
    except AccountError as refused:
        for field, texts in refused.message_dict.items():
            errors.setdefault(field, []).extend(texts)
        return None


@transaction.atomic
def user_settings_update(
    *, user: User, full_name: str, preferred_language: str, display_currency: str | None = None
) -> User:
    """Save the person's settings; `display_currency` None leaves that choice as it is. The
    name and the currency are refused together, before anything changes on `user`."""
    errors: dict[str, list[str]] = {}
    name = _gather(errors, _clean_full_name, full_name)
    currency = None
    if display_currency is not None:
        currency = _gather(errors, _clean_display_currency, display_currency)
    if errors:
        raise AccountError(AccountErrorCode.INVALID, errors)
    user.full_name = name
    user.preferred_language = normalise_ui_language(preferred_language)
    _full_clean(user, exclude=["password", "email"])
    user.save(update_fields=["full_name", "preferred_language"])
    if currency is not None:
        user_display_currency_set(user=user, display_currency=currency)
    return user


@transaction.atomic
def user_display_currency_set(*, user: User, display_currency: str) -> User:
    """Keep the currency `user` wants prices shown in: a code the exchange-rate table knows,
    "listed" (as each listing is priced) or "" (the default of the page's language)."""
    choice = _clean_display_currency(display_currency)
    if user.display_currency != choice:
        user.display_currency = choice
        user.save(update_fields=["display_currency"])
    return user


@transaction.atomic
def email_change_request(*, user: User, new_email: str, password: str) -> None:
    """Email a confirmation link to `new_email`; the address changes only when it is opened."""
    if not user.check_password(password):
        raise AccountError(
            AccountErrorCode.WRONG_PASSWORD,
            _("Your password was entered incorrectly."),
            field="password",
        )
    new_email = _clean_email(new_email, field="new_email")
    if new_email == user.email.lower():
        raise AccountError(
            AccountErrorCode.EMAIL_UNCHANGED,
            _("This is already your email address."),
            field="new_email",
        )
    if _email_taken(new_email, exclude_user_id=user.pk):
        raise AccountError(
            AccountErrorCode.EMAIL_TAKEN,
            _("An account with this email address already exists."),
            field="new_email",
        )
    token = links.make_email_change_token(
        user_id=user.pk, old_email=user.email, new_email=new_email
    )
    language = user_language(user)
    link = link_in(language, "accounts:change_email_confirm", kwargs={"token": token})
    queue_email(
        to=new_email,
        subject=gettext_lazy("Confirm the new email address of your Tradepost account"),
        template="change_email",
        context={
            "user": user,
            "new_email": new_email,
            "link": link,
            "expires_days": links.CHANGE_EMAIL_MAX_AGE.days,
        },
        language=language,
    )


@transaction.atomic
def email_change_confirm(*, token: str) -> User:
    """Apply a change of address from a confirmation link; the new address counts as verified."""
    claim = links.read_email_change_token(token)
    user = User.objects.select_for_update().filter(pk=claim.user_id, is_active=True).first()
    if user is None or user.email.lower() != claim.old_email.lower():
        raise AccountError(
            AccountErrorCode.LINK_INVALID,
            _("This link is not valid any more: the address of the account has changed since."),
        )
    new_email = _clean_email(claim.new_email)
    if _email_taken(new_email, exclude_user_id=user.pk):
        raise _taken_error()
    old_email = user.email
    user.email = new_email
    user.email_verified_at = timezone.now()
    try:
        with transaction.atomic():
            user.save(update_fields=["email", "email_verified_at"])
    except IntegrityError:
        raise _taken_error() from None
    # Tell the previous address, so a hijacked session cannot move an account unnoticed.
    language = user_language(user)
    reset_link = link_in(language, "accounts:password_reset")
    queue_email(
        to=old_email,
        subject=gettext_lazy("The email address of your Tradepost account was changed"),
        template="email_changed",
        context={"user": user, "new_email": new_email, "reset_link": reset_link},
        language=language,
    )
    return user


@transaction.atomic
def password_reset_request(*, email: str, client: str = "") -> None:
    """Email a password-reset link to the active account with this address, if there is one.

    The caller answers the same whether or not an account exists, so addresses cannot be probed,
    and whether or not the request was over the limits (TRADEPOST_PASSWORD_RESETS_PER_HOUR to
    one address, five times that from one `client`), which are counted for unknown addresses
    too: then no email is sent.
    """
    email = normalise_email(email)
    if not email:
        return
    limit = settings.TRADEPOST_PASSWORD_RESETS_PER_HOUR
    limits = [(_throttle_key("email", email), limit)]
    if client:
        limits.append((_throttle_key("client", client), limit * RESETS_PER_CLIENT_FACTOR))
    if not _throttle(action="password-reset", limits=limits):
        return
    users = User.objects.filter(email__iexact=email, is_active=True)
    for user in users:
        if not user.has_usable_password():
            continue
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        token = default_token_generator.make_token(user)
        language = user_language(user)
        link = link_in(
            language, "accounts:password_reset_confirm", kwargs={"uidb64": uid, "token": token}
        )
        queue_email(
            to=user.email,
            subject=gettext_lazy("Reset your Tradepost password"),
            template="password_reset",
            context={"user": user, "link": link},
            language=language,
        )


# --- the operator's back office ------------------------------------------------------------
# Each change is written to the audit log in its transaction.


@transaction.atomic
def users_mark_email_verified(*, actor: Any, user_ids: list[int]) -> int:
    """Mark the email addresses of these users verified (operators only)."""
    require_operator(actor)
    now = timezone.now()
    users = list(
        User.objects.select_for_update().filter(pk__in=user_ids, email_verified_at__isnull=True)
    )
    for user in users:
        user.email_verified_at = now
        user.save(update_fields=["email_verified_at"])
        audit_record(
            actor=actor,
            action="user.verify-email",
            target=user,
            label=user.email,
            changes={"email_verified_at": [None, str(now)]},
        )
    return len(users)


@transaction.atomic
def tokens_revoke_by_operator(*, actor: Any, token_ids: list[int]) -> int:
    """Revoke any users' API tokens (operators only); returns how many were still active."""
    require_operator(actor)
    now = timezone.now()
    tokens = list(
        ApiToken.objects.select_for_update()
        .select_related("user")
        .filter(pk__in=token_ids, revoked_at__isnull=True)
    )
    for token in tokens:
        token.revoked_at = now
        token.save(update_fields=["revoked_at"])
        audit_record(
            actor=actor,
            action="token.revoke",
            target=token,
            label=f"{token.user.email}: {token.name} ({token.prefix})",
            changes={"revoked_at": [None, str(now)]},
        )
    return len(tokens)


@transaction.atomic
def operator_grant(*, actor: Any, email: str, password: str | None) -> tuple[User, bool]:
    """Make `email` an operator (a staff superuser with a verified address), creating the
    account when there is none; `actor` is None on the command line. Returns the user and
    whether it was created."""
    address = _clean_email(email)
    existing = User.objects.select_for_update().filter(email__iexact=address).first()
    if password is not None:
        _check_password(password, user=existing or User(email=address))
    if existing is None:
        if password is None:
            raise AccountError(
                AccountErrorCode.PASSWORD_REQUIRED, _("Choose a password."), field="password"
            )
        user = User.objects.create_superuser(address, password)
        created = True
        changes = {"is_staff": [False, True], "is_superuser": [False, True]}
    else:
        user, created = existing, False
        changes = {
            name: [getattr(user, name), True]
            for name in ("is_staff", "is_superuser", "is_active")
            if getattr(user, name) is not True
        }
        user.is_staff = user.is_superuser = user.is_active = True
        if user.email_verified_at is None:
            user.email_verified_at = timezone.now()
        if password is not None:
            user.set_password(password)
        user.save()
    audit_record(
        actor=actor,
        action="operator.create" if created else "operator.grant",
        target=user,
        label=user.email,
        changes=changes,
    )
    return user, created


#: Fields of a user whose changes by an operator are audited (never the password hash).
AUDITED_USER_FIELDS = (
    "email",
    "full_name",
    "preferred_language",
    "email_verified_at",
    "is_active",
    "is_staff",
    "is_superuser",
)


@transaction.atomic
def user_save_by_operator(*, actor: Any, user: User, fields: list[str]) -> User:
    """Save the back office's edit of `user` (its form already checked the values)."""
    require_operator(actor)
    audited = [name for name in fields if name in AUDITED_USER_FIELDS]
    stored = User.objects.select_for_update().filter(pk=user.pk).first()
    before = snapshot(stored, audited) if stored is not None else {}
    user.save()
    changes = field_changes(before, snapshot(user, audited), audited)
    if "password" in fields:
        changes["password"] = ["…", "(changed)"]
    audit_record(
        actor=actor,
        action="user.change" if stored is not None else "user.create",
        target=user,
        label=user.email,
        changes=changes,
    )
    return user
