"""Companies and memberships; a company with one person in each role (`Cast`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import factory
from django.contrib.auth.models import AnonymousUser

from tests.factories.accounts import UserFactory, make_operator, make_user
from tradepost.accounts.models import User
from tradepost.companies.models import Company, Membership, Role


class CompanyFactory(factory.django.DjangoModelFactory):
    """A Chinese manufacturer; `owner=user` also makes that user its owner."""

    class Meta:
        model = Company
        skip_postgeneration_save = True

    slug = factory.Sequence(lambda n: f"company-{n}")
    legal_name = factory.Sequence(lambda n: f"Company {n} Co., Ltd.")
    country = "CN"
    business_types = factory.LazyFunction(lambda: ["manufacturer"])

    @factory.post_generation
    def owner(company: Company, create: bool, extracted: User | None, **kwargs: Any) -> None:
        if create and extracted is not None:
            MembershipFactory(company=company, user=extracted, role=Role.OWNER)


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    company = factory.SubFactory(CompanyFactory)
    role = Role.MEMBER


def make_company(**fields: Any) -> Company:
    return CompanyFactory(**fields)


def add_member(company: Company, *, role: str = Role.MEMBER, user: User | None = None) -> User:
    """A new user (or `user`) joins `company` in `role`; answers the user."""
    return MembershipFactory(company=company, role=role, user=user or make_user()).user


def make_trader(*, country: str = "CN", **company_fields: Any) -> tuple[User, Company]:
    """A verified user who owns a fresh company."""
    user = make_user()
    return user, make_company(owner=user, country=country, **company_fields)


#: Who tries, and whether they may manage the company's products (the catalogue's matrix).
ROLES = ["anonymous", "other_company", "member", "admin", "owner", "operator"]
ALLOWED_ROLES = {"member", "admin", "owner", "operator"}


@dataclass
class Cast:
    """A company with an owner, an admin and a member; the owner of another company; an
    operator; a signed-in user with no company."""

    company: Company
    owner: User
    admin: User
    member: User
    outsider: User  # owner of another company
    other_company: Company
    operator: User
    loner: User  # signed in, no company

    def user(self, who: str) -> User | None:
        """The user called `who` (an attribute name), None for "anonymous"."""
        return None if who == "anonymous" else getattr(self, who)

    def actor(self, role: str) -> User | AnonymousUser:
        """The user in one of `ROLES` ("other_company" is the outsider)."""
        if role == "anonymous":
            return AnonymousUser()
        return self.outsider if role == "other_company" else getattr(self, role)


def make_cast() -> Cast:
    owner = make_user(full_name="Olivia Owner")
    company = make_company(owner=owner, legal_name="Acme Trading", english_name="Acme Trading")
    outsider, other_company = make_trader()
    return Cast(
        company=company,
        owner=owner,
        admin=add_member(company, role=Role.ADMIN),
        member=add_member(company, role=Role.MEMBER),
        outsider=outsider,
        other_company=other_company,
        operator=make_operator(),
        loner=make_user(),
    )
