"""Writes of the companies app: profiles, logos, members and invitations.

Every function checks the actor's right itself (so web pages, the API and commands behave the
same), runs in one transaction, calls `full_clean()` before saving and queues emails on commit.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any, Unpack

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts.models import User
from tradepost.accounts.selectors import is_operator, require_operator
from tradepost.audit.services import audit_record, field_changes, snapshot
from tradepost.companies.actors import actor_for
from tradepost.companies.errors import (
    CompanyError,
    CompanyErrorCode,
    CompanyNotFound,
    CompanyPermissionDenied,
)
from tradepost.companies.models import Company, Invitation, Membership, Role, Standing
from tradepost.companies.selectors import (
    hash_invitation_token,
    invitation_problem,
)
from tradepost.companies.validation import CompanyFields, clean_company_profile
from tradepost.core.cleaning import FieldErrors, clean_choice, clean_text
from tradepost.core.images import ImageRejected, process_image
from tradepost.core.languages import LISTING_LANGUAGE_CODES, normalise_ui_language
from tradepost.notify.services import link_in, queue_email
from tradepost.search.outbox import OutboxKind, record_change, record_changes

INVITATION_LIFETIME = timedelta(days=7)
#: Invitations a company may have waiting at once.
MAX_PENDING_INVITATIONS = 50
SLUG_BASE_MAX = 60


# --- permissions ---------------------------------------------------------------------------


def _require_manager(actor: User, company: Company) -> None:
    if not actor_for(actor).manages(company):
        raise CompanyPermissionDenied(
            CompanyErrorCode.PERMISSION_DENIED,
            _("Only the owner and the admins of a company may do this."),
        )


def _require_owner(actor: User, company: Company) -> None:
    if is_operator(actor):
        return
    if not Membership.objects.filter(user_id=actor.pk, company=company, role=Role.OWNER).exists():
        raise CompanyPermissionDenied(
            CompanyErrorCode.PERMISSION_DENIED, _("Only the owner of the company may do this.")
        )


def _full_clean(obj: Any, *, validate_unique: bool = True) -> None:
    CompanyError.clean_model(obj, code=CompanyErrorCode.INVALID, validate_unique=validate_unique)


def _already_in_company() -> CompanyError:
    return CompanyError(
        CompanyErrorCode.ALREADY_IN_COMPANY,
        _(
            "You already belong to a company. A person acts for one company at a time: leave "
            "your current company first."
        ),
    )


def _join(membership: Membership) -> None:
    """Save a new membership; the unique user constraint refuses a second company."""
    _full_clean(membership, validate_unique=False)
    try:
        with transaction.atomic():
            membership.save()
    except IntegrityError:
        raise _already_in_company() from None


# --- profile -------------------------------------------------------------------------------


def _slug_base(*names: str) -> str:
    for name in names:
        base = slugify(name or "")[:SLUG_BASE_MAX].strip("-")
        if base:
            return base
    return ""


def _unique_slug(base: str) -> str:
    """`base`, or `base-2`, `base-3`…; names without Latin letters get `company-<random>`."""
    if not base:
        while True:
            candidate = f"company-{secrets.token_hex(3)}"
            if not Company.objects.filter(slug=candidate).exists():
                return candidate
    taken = set(Company.objects.filter(slug__startswith=base).values_list("slug", flat=True)[:1000])
    if base not in taken:
        return base
    for n in range(2, 1000):
        candidate = f"{base}-{n}"
        if candidate not in taken:
            return candidate
    return f"{base}-{secrets.token_hex(3)}"


@transaction.atomic
def company_create(*, actor: User, **data: Unpack[CompanyFields]) -> Company:
    """Create a company with `actor` as its owner. A person belongs to at most one company."""
    # Lock the actor so two parallel requests cannot both create a company for them.
    User.objects.select_for_update(no_key=True).filter(pk=actor.pk).first()
    if Membership.objects.filter(user_id=actor.pk).exists():
        raise _already_in_company()
    fields = clean_company_profile(data, partial=False)
    if "original_language" not in fields:
        language = actor.preferred_language or "en"
        fields["original_language"] = language if language in LISTING_LANGUAGE_CODES else "en"
    company = Company(**fields)
    for _attempt in range(5):
        company.slug = _unique_slug(_slug_base(company.english_name, company.legal_name))
        _full_clean(company)
        try:
            with transaction.atomic():
                company.save()
            break
        except IntegrityError:
            company.pk = None  # a parallel request took the slug: pick another
    else:
        raise CompanyError(
            CompanyErrorCode.INVALID,
            _("Could not save the company; try again."),
            field="legal_name",
        )
    membership = Membership(user=actor, company=company, role=Role.OWNER)
    _join(membership)
    record_change(kind=OutboxKind.COMPANY, object_id=company.pk)
    return company


@transaction.atomic
def company_update(*, actor: User, company: Company, **data: Unpack[CompanyFields]) -> Company:
    """Change the profile fields present in `data` (owner, admin or operator)."""
    _require_manager(actor, company)
    fields = clean_company_profile(data, partial=True)
    locked = Company.objects.select_for_update().get(pk=company.pk)
    for name, value in fields.items():
        setattr(locked, name, value)
    _full_clean(locked)
    locked.save(update_fields=[*fields, "updated_at"])
    record_change(kind=OutboxKind.COMPANY, object_id=locked.pk)
    for name, value in fields.items():
        setattr(company, name, value)
    company.updated_at = locked.updated_at
    return locked


@transaction.atomic
def company_logo_set(*, actor: User, company: Company, upload: UploadedFile) -> Company:
    """Replace the logo with a re-encoded copy of the uploaded image."""
    _require_manager(actor, company)
    try:
        processed = process_image(upload)
    except ImageRejected as exc:
        raise CompanyError(CompanyErrorCode.LOGO_REJECTED, str(exc), field="logo") from None
    locked = Company.objects.select_for_update().get(pk=company.pk)
    old_name = (locked.logo.name or "") if locked.logo else ""
    locked.logo.save(processed.image.name or "logo.jpg", processed.image, save=False)
    _full_clean(locked)
    locked.save(update_fields=["logo", "updated_at"])
    _delete_file_on_commit(locked, old_name)
    company.logo = locked.logo
    return locked


@transaction.atomic
def company_logo_remove(*, actor: User, company: Company) -> Company:
    _require_manager(actor, company)
    locked = Company.objects.select_for_update().get(pk=company.pk)
    old_name = (locked.logo.name or "") if locked.logo else ""
    locked.logo = ""  # type: ignore[assignment]
    locked.save(update_fields=["logo", "updated_at"])
    _delete_file_on_commit(locked, old_name)
    company.logo = locked.logo
    return locked


def _delete_file_on_commit(company: Company, name: str) -> None:
    if not name:
        return
    storage = company.logo.storage
    transaction.on_commit(lambda: storage.delete(name))


# --- invitations ---------------------------------------------------------------------------


def _clean_invitation_email(email: str) -> str:
    email = (email or "").strip().lower()
    try:
        if not email or len(email) > 254:
            raise ValidationError("")
        validate_email(email)
    except ValidationError:
        raise CompanyError(
            CompanyErrorCode.INVALID, _("Enter a valid email address."), field="email"
        ) from None
    return email


@transaction.atomic
def invitation_create(
    *, actor: User, company: Company, email: str, role: str
) -> tuple[Invitation, str]:
    """Invite `email` to join as admin or member; email them a link that works for 7 days.

    Returns the invitation and its secret token (only its hash is stored). A new invitation to
    the same address replaces a pending one.
    """
    _require_manager(actor, company)
    if role not in (Role.ADMIN, Role.MEMBER):
        raise CompanyError(
            CompanyErrorCode.INVALID_ROLE, _("Invite as an admin or a member."), field="role"
        )
    email = _clean_invitation_email(email)
    Company.objects.select_for_update().filter(pk=company.pk).first()
    if Membership.objects.filter(company=company, user__email__iexact=email).exists():
        raise CompanyError(
            CompanyErrorCode.ALREADY_MEMBER,
            _("%(email)s is already a member of this company.") % {"email": email},
            field="email",
        )
    now = timezone.now()
    pending = Invitation.objects.filter(
        company=company, accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
    )
    pending.filter(email__iexact=email).update(revoked_at=now)
    if pending.count() >= MAX_PENDING_INVITATIONS:
        raise CompanyError(
            CompanyErrorCode.INVITATION_LIMIT,
            _("This company has %(max)d invitations waiting. Revoke some first.")
            % {"max": MAX_PENDING_INVITATIONS},
        )
    secret = secrets.token_urlsafe(32)
    invitation = Invitation(
        company=company,
        email=email,
        role=role,
        token_hash=hash_invitation_token(secret),
        invited_by=actor,
        expires_at=now + INVITATION_LIFETIME,
    )
    _full_clean(invitation)
    invitation.save()
    _queue_invitation_email(invitation=invitation, secret=secret, actor=actor)
    return invitation, secret


def _queue_invitation_email(*, invitation: Invitation, secret: str, actor: User) -> None:
    recipient = User.objects.filter(email__iexact=invitation.email).first()
    language = normalise_ui_language(
        recipient.preferred_language
        if recipient is not None
        else (actor.preferred_language or translation.get_language())
    )
    company = invitation.company
    with translation.override(language):
        link = link_in(language, "companies:invitation_accept", kwargs={"token": secret})
        role_label = str(Role(invitation.role).label)
        company_name = company.name_for(language)
    queue_email(
        to=invitation.email,
        subject=gettext_lazy("You are invited to join a company on Tradepost"),
        template="invitation",
        context={
            "link": link,
            "email": invitation.email,
            "inviter_name": actor.get_full_name(),
            "company_name": company_name,
            "role_label": role_label,
            "expires_days": INVITATION_LIFETIME.days,
        },
        language=language,
    )


def invitation_error(code: CompanyErrorCode) -> CompanyError:
    messages = {
        CompanyErrorCode.INVITATION_INVALID: _(
            "This invitation is not valid: it was withdrawn or the link is incomplete."
        ),
        CompanyErrorCode.INVITATION_EXPIRED: _(
            "This invitation has expired. Ask the company to invite you again."
        ),
        CompanyErrorCode.INVITATION_USED: _("This invitation has already been accepted."),
        CompanyErrorCode.INVITATION_WRONG_USER: _(
            "This invitation was sent to another email address. Sign in with the address that "
            "received it."
        ),
    }
    return CompanyError(code, messages[code])


@transaction.atomic
def invitation_accept(*, user: User, token: str) -> Membership:
    """Join the invitation's company with its role, if the invitation is for `user`'s email."""
    if not token or len(token) > 200:
        raise invitation_error(CompanyErrorCode.INVITATION_INVALID)
    invitation = (
        Invitation.objects.select_for_update()
        .select_related("company")
        .filter(token_hash=hash_invitation_token(token))
        .first()
    )
    problem = invitation_problem(invitation)
    if problem is not None:
        raise invitation_error(problem)
    assert invitation is not None
    if invitation.email.lower() != user.email.lower():
        raise invitation_error(CompanyErrorCode.INVITATION_WRONG_USER)
    User.objects.select_for_update(no_key=True).filter(pk=user.pk).first()
    current = Membership.objects.filter(user_id=user.pk).first()
    if current is not None:
        if current.company_id == invitation.company_id:
            raise CompanyError(
                CompanyErrorCode.ALREADY_MEMBER, _("You are already a member of this company.")
            )
        raise _already_in_company()
    membership = Membership(user=user, company=invitation.company, role=invitation.role)
    _join(membership)
    invitation.accepted_at = timezone.now()
    invitation.save(update_fields=["accepted_at"])
    if user.email_verified_at is None:
        # The link reached this address, which proves the user reads it.
        user.email_verified_at = invitation.accepted_at
        user.save(update_fields=["email_verified_at"])
    return membership


@transaction.atomic
def invitation_revoke(*, actor: User, company: Company, invitation_id: int) -> Invitation:
    _require_manager(actor, company)
    invitation = (
        Invitation.objects.select_for_update()
        .filter(pk=invitation_id, company=company, accepted_at__isnull=True)
        .first()
    )
    if invitation is None:
        raise CompanyNotFound(CompanyErrorCode.NOT_FOUND, _("No such invitation."))
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


# --- members -------------------------------------------------------------------------------


def _member_of(company: Company, membership_id: int) -> Membership:
    membership = (
        Membership.objects.select_for_update()
        .select_related("user")
        .filter(pk=membership_id, company=company)
        .first()
    )
    if membership is None:
        raise CompanyNotFound(CompanyErrorCode.MEMBER_NOT_FOUND, _("No such member."))
    return membership


def _owner_untouchable() -> CompanyError:
    return CompanyError(
        CompanyErrorCode.CANNOT_CHANGE_OWNER,
        _("The owner cannot be removed or given another role. The owner can hand over first."),
    )


@transaction.atomic
def member_remove(*, actor: User, company: Company, membership_id: int) -> None:
    """Remove a member or an admin (owner, admins, operators); the owner cannot be removed."""
    _require_manager(actor, company)
    membership = _member_of(company, membership_id)
    if membership.role == Role.OWNER:
        raise _owner_untouchable()
    membership.delete()


@transaction.atomic
def member_role_change(
    *, actor: User, company: Company, membership_id: int, role: str
) -> Membership:
    """Make a member an admin or an admin a member (owner or operator only)."""
    _require_owner(actor, company)
    if role not in (Role.ADMIN, Role.MEMBER):
        raise CompanyError(
            CompanyErrorCode.INVALID_ROLE, _("Choose admin or member."), field="role"
        )
    membership = _member_of(company, membership_id)
    if membership.role == Role.OWNER:
        raise _owner_untouchable()
    if membership.role != role:
        membership.role = role
        _full_clean(membership, validate_unique=False)
        membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def ownership_transfer(*, actor: User, company: Company, membership_id: int) -> Membership:
    """Make another member the owner; the previous owner becomes an admin."""
    _require_owner(actor, company)
    membership = _member_of(company, membership_id)
    if membership.role == Role.OWNER:
        return membership
    Membership.objects.select_for_update().filter(company=company, role=Role.OWNER).update(
        role=Role.ADMIN
    )
    membership.role = Role.OWNER
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def membership_leave(*, user: User) -> None:
    """Leave one's company. The owner must hand over ownership first."""
    membership = Membership.objects.select_for_update().filter(user_id=user.pk).first()
    if membership is None:
        raise CompanyNotFound(CompanyErrorCode.NOT_FOUND, _("You do not belong to a company."))
    if membership.role == Role.OWNER:
        raise CompanyError(
            CompanyErrorCode.CANNOT_CHANGE_OWNER,
            _("The owner cannot leave the company. Make another member the owner first."),
        )
    membership.delete()


# --- the operator's back office ------------------------------------------------------------
# Each change is written to the audit log (who, what, when, before → after) in its transaction.

#: The company fields the back office shows and may change.
OPERATOR_FIELDS = (
    "slug",
    "legal_name",
    "english_name",
    "country",
    "city",
    "is_verified",
    "is_featured",
)
#: The longest reason a suspension or a ban keeps (what the company was told).
STANDING_REASON_MAX_LENGTH = 2000
_STANDING_ACTIONS: dict[str, str] = {
    Standing.ACTIVE: "company.reinstate",
    Standing.SUSPENDED: "company.suspend",
    Standing.BANNED: "company.ban",
}


@transaction.atomic
def companies_mark(
    *,
    actor: Any,
    company_ids: list[int],
    is_verified: bool | None = None,
    is_featured: bool | None = None,
) -> int:
    """Set or clear the verified and featured marks of several companies; returns how many
    changed."""
    require_operator(actor)
    marks = {
        name: value
        for name, value in (("is_verified", is_verified), ("is_featured", is_featured))
        if value is not None
    }
    changed = []
    for company in Company.objects.select_for_update().filter(pk__in=company_ids).order_by("pk"):
        before = snapshot(company, marks)
        changes = field_changes(before, marks)
        if not changes:
            continue
        for name, value in marks.items():
            setattr(company, name, value)
        company.save(update_fields=[*marks, "updated_at"])
        audit_record(actor=actor, action="company.mark", target=company, changes=changes)
        changed.append(company.pk)
    record_changes(kind=OutboxKind.COMPANY, object_ids=changed)
    return len(changed)


@transaction.atomic
def company_save_by_operator(*, actor: Any, company: Company, fields: list[str]) -> Company:
    """Save the back office's edit of `company` (its form already checked the values):
    `fields` are the ones the form changed."""
    require_operator(actor)
    stored = Company.objects.select_for_update().filter(pk=company.pk).first()
    before = snapshot(stored, fields) if stored is not None else {}
    if stored is not None:  # the review totals as they are now, not as the form read them
        company.review_count = stored.review_count
        company.review_rating_sum = stored.review_rating_sum
    company.save()
    audit_record(
        actor=actor,
        action="company.change" if stored is not None else "company.create",
        target=company,
        changes=field_changes(before, snapshot(company, fields), fields),
    )
    record_change(kind=OutboxKind.COMPANY, object_id=company.pk)
    return company


@transaction.atomic
def company_delete_by_operator(*, actor: Any, company: Company) -> None:
    """Delete a company with its products, members and conversations (operators only)."""
    require_operator(actor)
    company_id = company.pk
    audit_record(
        actor=actor,
        action="company.delete",
        target=company,
        changes=field_changes(snapshot(company, OPERATOR_FIELDS), {}, OPERATOR_FIELDS),
    )
    company.delete()
    record_change(kind=OutboxKind.COMPANY, object_id=company_id)


@transaction.atomic
def company_standing_set(
    *, actor: Any, company: Company, standing: str, reason: str = "", until: Any = None
) -> tuple[Company, bool]:
    """Suspend or ban a company, or lift that (operators only): a suspended or banned
    company's profile, listings and buying requests leave the public pages and the search
    index (re-indexed through the outbox), and its members cannot act for it. `reason` (what
    the company is told, required unless lifting) is kept; `until` (a moment, suspensions
    only) is when the worker's timer lifts a suspension by itself (`suspensions_due`).
    Answers the company, locked and fresh, and whether its standing changed (nothing is
    written when it did not)."""
    require_operator(actor)
    errors = FieldErrors()
    target = errors.clean(
        "standing", clean_choice, standing, allowed=Standing.values, required=True
    )
    lifting = target == Standing.ACTIVE
    cleaned = errors.clean(
        "reason",
        clean_text,
        "" if lifting else reason,
        max_length=STANDING_REASON_MAX_LENGTH,
        required=not lifting,
        single_line=False,
    )
    if until is not None and target != Standing.SUSPENDED:
        errors.add("until", _("Only a suspension can end by itself."))
    elif until is not None and until <= timezone.now():
        errors.add("until", _("The end of a suspension must be in the future."))
    errors.raise_if_any(CompanyError, CompanyErrorCode.INVALID)
    return _set_standing(actor, company, target or Standing.ACTIVE, cleaned or "", until)


def _set_standing(
    actor: Any, company: Company, target: str, reason: str, until: Any
) -> tuple[Company, bool]:
    locked = Company.objects.select_for_update().filter(pk=company.pk).first()
    if locked is None:
        raise CompanyNotFound(CompanyErrorCode.NOT_FOUND, _("No such company."))
    if locked.standing == target and locked.standing_until == until:
        return locked, False
    changes = field_changes(
        {"standing": locked.standing, "standing_until": locked.standing_until},
        {"standing": target, "standing_reason": reason, "standing_until": until},
    )
    locked.standing = target
    locked.standing_reason = reason
    locked.standing_until = until
    locked.standing_changed_at = timezone.now()
    locked.save(
        update_fields=[
            "standing",
            "standing_reason",
            "standing_until",
            "standing_changed_at",
            "updated_at",
        ]
    )
    audit_record(
        actor=actor, action=_STANDING_ACTIONS[locked.standing], target=locked, changes=changes
    )
    record_change(kind=OutboxKind.COMPANY, object_id=locked.pk)
    return locked, True


def suspension_end(*, company_id: int, now: Any = None) -> Company | None:
    """Lift one suspension whose time is up (the worker's timer, no operator: audited as
    the system's `company.reinstate`). Answers the company lifted, or None when it is no longer
    suspended for a time that has passed (an operator acted first)."""
    moment = now or timezone.now()
    locked = Company.objects.select_for_update().filter(pk=company_id).first()
    if (
        locked is None
        or locked.standing != Standing.SUSPENDED
        or locked.standing_until is None
        or locked.standing_until > moment
    ):
        return None
    lifted, _changed = _set_standing(None, locked, Standing.ACTIVE, "", None)
    return lifted


def companies_lock_for_reviews(*, company_ids: Iterable[int]) -> dict[int, Company]:
    """Lock the companies' rows (in id order) for the change of their review totals: the
    reviews app holds them while it writes reviews and counts them again. `FOR NO KEY UPDATE`
    on PostgreSQL, so new rows that refer to the companies are not blocked. Companies that
    are gone are absent."""
    locked = Company.objects.select_for_update(no_key=True).filter(pk__in=sorted(set(company_ids)))
    return {company.pk: company for company in locked.order_by("pk")}


def companies_review_totals_set(*, totals: Mapping[int, tuple[int, int]]) -> None:
    """Store each company's number of published reviews and the sum of their ratings
    (`{company id: (count, rating sum)}`), as the reviews app counted them under
    `companies_lock_for_reviews` in the same transaction. Nothing the search index holds
    changes: result cards read the totals with the company's row."""
    if len(totals) == 1:
        ((company_id, (count, rating_sum)),) = totals.items()
        Company.objects.filter(pk=company_id).update(
            review_count=count, review_rating_sum=rating_sum
        )
        return
    rows = [
        Company(pk=company_id, review_count=count, review_rating_sum=rating_sum)
        for company_id, (count, rating_sum) in sorted(totals.items())
    ]
    Company.objects.bulk_update(rows, ["review_count", "review_rating_sum"])
