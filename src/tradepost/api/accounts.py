"""The signed-in user: GET /api/v1/me and PATCH /api/v1/me/company.

PATCH changes only the fields sent. Refused input answers 422 with one entry per field in
`errors`; a member who is not the owner or an admin gets 403.
"""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import ConfigDict, Field

from tradepost.accounts.models import User
from tradepost.accounts.selectors import is_operator, user_can_publish
from tradepost.api.auth import API_AUTH, caller, caller_actor
from tradepost.api.bodies import JsonBody
from tradepost.api.profiles import CompanyProfileOut
from tradepost.companies import services
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company

router = Router(auth=API_AUTH, tags=["me"])


class UserOut(Schema):
    id: int
    email: str
    full_name: str
    preferred_language: str
    email_verified: bool
    can_publish: bool
    is_operator: bool


class CompanyOut(CompanyProfileOut):
    id: int
    is_verified: bool
    created_at: datetime
    updated_at: datetime


class MeOut(Schema):
    user: UserOut
    company: CompanyOut | None
    role: str | None = Field(description="owner, admin or member; null without a company")


class CompanyPatch(JsonBody):
    """Profile fields of the company. Only the fields sent are changed."""

    model_config = ConfigDict(extra="forbid")

    legal_name: str | None = None
    english_name: str | None = None
    original_language: str | None = Field(None, description="Language code, e.g. en, zh-hans")
    business_types: list[str] | None = Field(
        None, description="manufacturer, trading_company, wholesaler, retailer, service"
    )
    country: str | None = Field(None, description="ISO 3166 alpha-2 code")
    province: str | None = None
    city: str | None = None
    year_established: int | None = None
    employee_range: str | None = None
    main_markets: list[str] | None = None
    main_products: str | None = None
    certifications: list[str] | None = None
    export_share: int | None = Field(None, description="Percent of sales exported, 0–100")
    website: str | None = Field(None, description="http:// or https:// address")
    description: str | None = Field(None, description="HTML; scripts and styles are removed")


def _user_out(user: User) -> dict:
    return {
        "id": user.pk,
        "email": user.email,
        "full_name": user.full_name,
        "preferred_language": user.preferred_language,
        "email_verified": user.email_verified_at is not None,
        "can_publish": user_can_publish(user),
        "is_operator": is_operator(user),
    }


def _company_out(request: HttpRequest, company: Company) -> dict:
    return {
        "id": company.pk,
        "slug": company.slug,
        "legal_name": company.legal_name,
        "english_name": company.english_name,
        "original_language": company.original_language,
        "business_types": list(company.business_types or []),
        "country": company.country,
        "province": company.province,
        "city": company.city,
        "year_established": company.year_established,
        "employee_range": company.employee_range,
        "main_markets": list(company.main_markets or []),
        "main_products": company.main_products,
        "certifications": list(company.certifications or []),
        "export_share": company.export_share,
        "website": company.website,
        "logo_url": request.build_absolute_uri(company.logo.url) if company.logo else None,
        "description": company.description,
        "is_verified": company.is_verified,
        "created_at": company.created_at,
        "updated_at": company.updated_at,
    }


@router.get("", response=MeOut, summary="The signed-in user, their company and role")
def me(request: HttpRequest):
    user = caller(request)
    assert isinstance(user, User)
    membership = actor_for(user).membership
    return {
        "user": _user_out(user),
        "company": _company_out(request, membership.company) if membership else None,
        "role": membership.role if membership else None,
    }


@router.patch("/company", response=CompanyOut, summary="Update your company's profile")
def company_update(request: HttpRequest, payload: CompanyPatch):
    user = caller(request)
    assert isinstance(user, User)
    company = services.company_update(
        actor=user,
        company=caller_actor(request).require_company(),
        **payload.model_dump(exclude_unset=True),
    )
    return _company_out(request, company)
