"""Reads of the companies app; `access_*` are the only way to fetch a company for a user."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.companies.actors import actor_for
from tradepost.companies.errors import CompanyErrorCode, CompanyNotFound
from tradepost.companies.models import (
    MANAGING_ROLES,
    BusinessType,
    Company,
    Invitation,
    Membership,
    Role,
    Standing,
)
from tradepost.core.countries import country_name
from tradepost.core.ids import parse_id


def suspended_company_ids() -> QuerySet[Any, Any]:
    """The ids of the suspended and banned companies, as a subquery: public reads leave out
    what these companies own (`.exclude(company_id__in=suspended_company_ids())`)."""
    return Company.objects.exclude(standing=Standing.ACTIVE).values("pk")


def suspensions_due(now: datetime | None = None) -> list[int]:
    """The ids of the companies suspended for a time that is up (`standing_until` passed)."""
    return list(
        Company.objects.filter(
            standing=Standing.SUSPENDED, standing_until__lte=now or timezone.now()
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def standing_refusal(company: Company | None) -> str | None:
    """Why the members of `company` cannot act for it now (in the user's language), or None
    when it is in good standing. Each app's services raise it as their own error."""
    if company is None or company.standing == Standing.ACTIVE:
        return None
    if company.standing == Standing.BANNED:
        return _("Your company is banned from Tradepost: its members can no longer act for it.")
    if company.standing_until is not None:
        return _(
            "Your company is suspended until %(date)s: it cannot publish, quote or send "
            "messages until then."
        ) % {"date": date_format(timezone.localtime(company.standing_until), "DATETIME_FORMAT")}
    return _(
        "Your company is suspended: it cannot publish, quote or send messages until "
        "the suspension is lifted."
    )


def _not_found() -> CompanyNotFound:
    return CompanyNotFound(CompanyErrorCode.NOT_FOUND, _("No such company."))


def _company(company_id: Any) -> Company | None:
    pk = parse_id(company_id)
    return Company.objects.filter(pk=pk).first() if pk is not None else None


def access_company_for_edit(*, user: Any, company_id: Any) -> Company:
    """The company if `user` may edit it (owner, admin, operator); CompanyNotFound otherwise."""
    company = _company(company_id)
    if company is None or not user or not getattr(user, "is_authenticated", False):
        raise _not_found()
    if not actor_for(user).manages(company):
        raise _not_found()
    return company


def access_company_for_view(*, user: Any, company_id: Any) -> Company:
    """The company if `user` is any member of it or an operator; CompanyNotFound otherwise."""
    company = _company(company_id)
    if company is None or not user or not getattr(user, "is_authenticated", False):
        raise _not_found()
    if not actor_for(user).works_for(company):
        raise _not_found()
    return company


def members_of(company: Company) -> QuerySet[Membership]:
    """Members with their users: the owner first, then admins, then members, by join date."""
    rank = Case(
        When(role=Role.OWNER, then=Value(0)),
        When(role=Role.ADMIN, then=Value(1)),
        default=Value(2),
        output_field=IntegerField(),
    )
    return (
        Membership.objects.filter(company=company)
        .select_related("user")
        .annotate(role_rank=rank)
        .order_by("role_rank", "created_at", "id")
    )


def company_managers(company_id: int) -> QuerySet[User]:
    """The company's active owner and admins, oldest account first: whom the decisions about
    the company (verification, screening, plans, webhooks) are told."""
    return User.objects.filter(
        membership__company_id=company_id,
        membership__role__in=MANAGING_ROLES,
        is_active=True,
    ).order_by("pk")


def pending_invitations(company: Company) -> QuerySet[Invitation]:
    """Invitations that can still be accepted, newest first."""
    return (
        Invitation.objects.filter(
            company=company,
            accepted_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        )
        .select_related("invited_by")
        .order_by("-created_at", "-id")
    )


def invitation_by_token(token: str) -> Invitation | None:
    """The invitation a link's token points to (in any state), with its company."""
    if not token or len(token) > 200:
        return None
    return (
        Invitation.objects.select_related("company", "invited_by")
        .filter(token_hash=hash_invitation_token(token))
        .first()
    )


def hash_invitation_token(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def invitation_problem(
    invitation: Invitation | None, *, now: datetime | None = None
) -> CompanyErrorCode | None:
    """Why an invitation cannot be accepted, or None when it still can."""
    now = now or timezone.now()
    if invitation is None or invitation.revoked_at is not None:
        return CompanyErrorCode.INVITATION_INVALID
    if invitation.accepted_at is not None:
        return CompanyErrorCode.INVITATION_USED
    if invitation.expires_at <= now:
        return CompanyErrorCode.INVITATION_EXPIRED
    return None


def company_described(company: Company, language: str) -> str:
    """A company described without its name, for a viewer who may not read the name (a buyer
    that keeps its name to itself): its kind and country, "A trading company in Netherlands",
    in `language`."""
    kinds = dict(BusinessType.choices)
    with translation.override(language):
        kind = next(
            (str(kinds[code]).lower() for code in company.business_types or [] if code in kinds),
            _("company"),
        )
        return _("A %(kind)s in %(country)s") % {
            "kind": kind,
            "country": country_name(company.country, language),
        }
