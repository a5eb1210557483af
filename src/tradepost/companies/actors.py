"""Who is acting, and may they? The one answer: `actor_for(user)`.

An `Actor` is the user, the company they act for (a person belongs to at most one), their role
in it and whether they are an operator, read in one query. Pages and the API resolve it once per
request (`web.guards.actor`, `api.auth.caller_actor`); services that are handed a user ask
`actor_for` and check their own rule with its methods. Operators act for their own company, if
any; the pages that let them work on another company name it explicitly (`?company=<id>`,
checked by an `access_*` helper with `Actor.manages` or `Actor.works_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator
from tradepost.companies.errors import CompanyError, CompanyErrorCode
from tradepost.companies.models import MANAGING_ROLES, Company, Membership


@dataclass(frozen=True, slots=True)
class Actor:
    """The user of a request (an anonymous visitor too), with their membership."""

    user: Any
    membership: Membership | None
    is_operator: bool

    @property
    def is_authenticated(self) -> bool:
        return bool(getattr(self.user, "is_authenticated", False))

    @property
    def company(self) -> Company | None:
        """The company the user acts for, or None."""
        return self.membership.company if self.membership is not None else None

    @property
    def company_id(self) -> int | None:
        return self.membership.company_id if self.membership is not None else None

    @property
    def role(self) -> str | None:
        """The user's role in their company (`Role`), or None."""
        return self.membership.role if self.membership is not None else None

    @property
    def managed_company(self) -> Company | None:
        """Their company when they are its owner or an admin, else None."""
        return self.company if self.role in MANAGING_ROLES else None

    @property
    def managed_company_id(self) -> int | None:
        return self.company_id if self.role in MANAGING_ROLES else None

    def require_company(self) -> Company:
        """The company the user acts for; without one, `CompanyError` (403 `no-company`).
        The one rule of the API's endpoints on the caller's own company (the pages send such
        a user to create one: `web.guards.company_required`)."""
        company = self.company
        if company is None:
            raise CompanyError(CompanyErrorCode.NO_COMPANY, _("You do not belong to a company."))
        return company

    def role_in(self, company: Company) -> str | None:
        """The user's role in `company`, or None when they are not its member."""
        return self.role if self.company_id == company.pk else None

    def manages(self, company: Company) -> bool:
        """Owners and admins of `company`, and operators, may edit it and manage its members,
        membership and webhooks."""
        return self.is_operator or self.role_in(company) in MANAGING_ROLES

    def works_for(self, company: Company) -> bool:
        """Every member of `company` (any role), and operators, may manage its products,
        requests, quotations and messages."""
        return self.is_operator or self.role_in(company) is not None


def actor_for(user: Any) -> Actor:
    """The actor `user` is: their membership (with its company) in one query; none for
    anonymous and deactivated users and for people who belong to no company."""
    active = user is not None and getattr(user, "is_authenticated", False) and user.is_active
    membership = (
        Membership.objects.select_related("company").filter(user_id=user.pk).first()
        if active
        else None
    )
    return Actor(user=user, membership=membership, is_operator=is_operator(user))


def actor_of_request(request: Any, user: Any) -> Actor:
    """`actor_for(user)`, kept on `request` so that pages and endpoints resolve it once per
    request (`web.guards.actor`, `api.auth.caller_actor`); again only if the user changes."""
    cached: Actor | None = getattr(request, "_tradepost_actor", None)
    if cached is None or cached.user is not user:
        cached = actor_for(user)
        request._tradepost_actor = cached
    return cached
