"""Membership: /api/v1/plans (public), /api/v1/me/subscription, /api/v1/me/invoices, and the
operators' /api/v1/operator/invoices and /api/v1/operator/membership/analytics.

A user without a company gets 404 from the /me endpoints. Changing the subscription or the
billing details needs the company's owner or an admin (403 otherwise); another company's
invoice answers like a missing one (404). Confirming a payment and the renewal analytics are
for operators only (403).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from django.utils.translation import get_language
from ninja import Query, Router, Schema
from pydantic import Field

from tradepost.api.auth import API_AUTH, PUBLIC_AUTH, PUBLIC_OPENAPI, caller, caller_actor
from tradepost.api.bodies import JsonBody, QueryInt
from tradepost.api.pagination import Rows, paged
from tradepost.companies.models import Company
from tradepost.core.downloads import pdf_response
from tradepost.core.languages import normalise_ui_language
from tradepost.membership import selectors, services
from tradepost.membership.analytics import (
    FIRST_YEAR,
    LAST_YEAR,
    MembershipAnalytics,
    PlanRow,
    Renewals,
    membership_analytics,
)
from tradepost.membership.badges import badge_standing
from tradepost.membership.invoices import invoice_pdf, pdf_file_name
from tradepost.membership.models import Invoice, Plan, Subscription

plans_router = Router(tags=["membership"])
router = Router(auth=API_AUTH, tags=["membership"])
invoices_router = Router(auth=API_AUTH, tags=["membership"])
operator_router = Router(auth=API_AUTH, tags=["operators"])


# --- schemas ---------------------------------------------------------------------------------


class PlanOut(Schema):
    id: int
    code: str
    name: dict[str, str] = Field(description="The plan's name in en, zh-hans and zh-hant")
    price: Decimal
    currency: str
    term_months: int | None = Field(description="Null for the free plan (forever)")
    monthly_quotation_quota: int = Field(description="Quotations a month on this plan")
    showcase_slots: int
    early_look_minutes: int = Field(description="First look at new matching buying requests")
    deeper_statistics: bool
    verified_badge_eligible: bool
    is_default: bool = Field(description="The plan of every company without a paid period")


class PeriodOut(Schema):
    id: int
    plan_id: int
    kind: str = Field(description="new, renewal, upgrade or downgrade")
    status: str = Field(description="pending, active, replaced, ended, expired or cancelled")
    starts_on: date
    last_day: date
    renews: bool
    invoice_id: int | None


class BillingOut(Schema):
    legal_name: str
    address: str
    country: str
    tax_id: str
    email: str


class BadgeOut(Schema):
    shown: bool = Field(
        description="The Gold Supplier badge shows on the company's page, its listings and in "
        "search results"
    )
    plan_gives_badge: bool = Field(description="The plan gives the badge once verified")
    verified: bool = Field(description="The company passed verification (GET /me/verification)")


class SubscriptionOut(Schema):
    plan: PlanOut
    current: PeriodOut | None = Field(description="The paid period covering today, if any")
    next: PeriodOut | None = Field(description="The period paid to follow it, if any")
    pending: PeriodOut | None = Field(description="The change waiting for its payment, if any")
    in_grace: bool = Field(description="The period is over and its renewal is not paid yet")
    holds_until: date | None = Field(description="The plan's last day if nothing is paid")
    billing: BillingOut
    badge: BadgeOut = Field(
        description="The Gold Supplier badge: shown when the plan gives it and the company is "
        "verified; a company on such a plan that is not verified yet should send its documents"
    )


class SubscriptionChange(JsonBody):
    action: Literal["subscribe", "upgrade", "downgrade", "cancel"] = Field(
        description="subscribe (from the free plan), upgrade (from today, with a credit for "
        "the unused days), downgrade (from the end of what is paid), or cancel (no renewal)"
    )
    plan_id: int | None = Field(None, description="The plan (not for cancel)")


class BillingWrite(JsonBody):
    """The company's details for its next invoices."""

    legal_name: str = ""
    address: str = ""
    country: str = Field("", description="ISO 3166 alpha-2 code")
    tax_id: str = ""
    email: str = ""


class InvoiceOut(Schema):
    id: int
    number: str
    status: str = Field(description="open (awaiting payment), paid or void")
    issued_on: date
    due_on: date
    period_start: date
    period_end: date
    currency: str
    price: Decimal
    credit: Decimal
    total: Decimal
    plan_code: str
    buyer: dict[str, str]
    seller: dict[str, str]
    payment_method: str
    payment_reference: str = Field(description="Quote it with the bank transfer")
    paid_at: datetime | None
    company_id: int


# --- rendering -------------------------------------------------------------------------------


def _plan_out(plan: Plan) -> dict[str, Any]:
    return {
        "id": plan.pk,
        "code": plan.code,
        "name": {"en": plan.name_en, "zh-hans": plan.name_zh_hans, "zh-hant": plan.name_zh_hant},
        "price": plan.price,
        "currency": plan.currency,
        "term_months": plan.term_months,
        "monthly_quotation_quota": selectors.quota_of(plan),
        "showcase_slots": plan.showcase_slots,
        "early_look_minutes": plan.early_look_minutes,
        "deeper_statistics": plan.deeper_statistics,
        "verified_badge_eligible": plan.verified_badge_eligible,
        "is_default": plan.is_default,
    }


def _period_out(period: Subscription | None) -> dict[str, Any] | None:
    if period is None:
        return None
    invoice = Invoice.objects.filter(subscription_id=period.pk).values_list("pk", flat=True)
    return {
        "id": period.pk,
        "plan_id": period.plan_id,
        "kind": period.kind,
        "status": period.status,
        "starts_on": period.starts_on,
        "last_day": period.last_day,
        "renews": period.auto_renew,
        "invoice_id": invoice.first(),
    }


def _company(request: HttpRequest) -> Company:
    return caller_actor(request).require_company()


def _subscription_out(company: Company) -> dict[str, Any]:
    state = selectors.overview(company)
    billing = selectors.billing_details(company)
    badge = badge_standing(company)
    return {
        "plan": _plan_out(state.plan),
        "current": _period_out(state.subscription),
        "next": _period_out(state.following),
        "pending": _period_out(state.pending),
        "in_grace": state.in_grace,
        "holds_until": state.holds_until,
        "billing": {name: getattr(billing, name) for name in BillingOut.model_fields},
        "badge": {
            "shown": badge.shown,
            "plan_gives_badge": badge.plan_gives_badge,
            "verified": badge.verified,
        },
    }


# --- endpoints -------------------------------------------------------------------------------


@plans_router.get(
    "",
    response=list[PlanOut],
    auth=PUBLIC_AUTH,
    openapi_extra=PUBLIC_OPENAPI,
    summary="The membership plans on offer (public)",
)
@paged()
def list_plans(request: HttpRequest) -> Rows:
    return Rows(selectors.offered_plans(), render=_plan_out)


@router.get("", response=SubscriptionOut, summary="My company's plan, period and renewal")
def my_subscription(request: HttpRequest) -> dict[str, Any]:
    return _subscription_out(_company(request))


@router.post(
    "",
    response=SubscriptionOut,
    summary="Subscribe, upgrade, downgrade or cancel at the term's end (owner or admin)",
)
def change_subscription(request: HttpRequest, payload: SubscriptionChange) -> dict[str, Any]:
    company = _company(request)
    if payload.action == "cancel":
        services.subscription_cancel(actor=caller(request), company=company)
    else:
        services.plan_change(
            actor=caller(request), company=company, plan_id=payload.plan_id, action=payload.action
        )
    return _subscription_out(company)


@router.put("/billing", response=BillingOut, summary="My company's details for its invoices")
def set_billing(request: HttpRequest, payload: BillingWrite) -> dict[str, Any]:
    details = services.billing_details_set(
        actor=caller(request), company=_company(request), **payload.dict()
    )
    return {name: getattr(details, name) for name in BillingOut.model_fields}


@invoices_router.get("", response=list[InvoiceOut], summary="My company's invoices, newest first")
@paged()
def my_invoices(request: HttpRequest) -> Any:
    return selectors.invoices_of(_company(request))


@invoices_router.get("/{int:invoice_id}", response=InvoiceOut, summary="One of my invoices")
def my_invoice(request: HttpRequest, invoice_id: int) -> Invoice:
    return selectors.access_invoice(user=caller(request), invoice_id=invoice_id)


@invoices_router.get(
    "/{int:invoice_id}/pdf",
    response={200: None},
    summary="One of my invoices as a PDF (A4, in the request's language)",
    openapi_extra={
        "responses": {
            "200": {
                "description": "The invoice as a PDF file, named after its number "
                '(Content-Disposition: attachment; filename="TP-2026-000001.pdf")',
                "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
            }
        }
    },
)
def my_invoice_pdf(request: HttpRequest, invoice_id: int) -> HttpResponse:
    """Operators get any invoice; a company's members their company's; others 404."""
    invoice = selectors.access_invoice(user=caller(request), invoice_id=invoice_id)
    language = normalise_ui_language(get_language())
    return pdf_response(invoice_pdf(invoice, language=language), pdf_file_name(invoice))


@operator_router.get(
    "/invoices/awaiting",
    response=list[InvoiceOut],
    summary="Invoices waiting for their transfer (operators)",
)
@paged()
def awaiting_invoices(request: HttpRequest) -> Any:
    return selectors.invoices_awaiting_payment(user=caller(request))


@operator_router.post(
    "/invoices/{int:invoice_id}/payment",
    response=InvoiceOut,
    summary="Confirm that an invoice's transfer arrived (operators)",
)
def confirm_payment(request: HttpRequest, invoice_id: int) -> Invoice:
    return services.invoice_confirm_payment(actor=caller(request), invoice_id=invoice_id)


# --- renewal analytics (operators) -----------------------------------------------------------


class RenewalsOut(Schema):
    came_up: int = Field(description="Paid periods that came up for renewal (grace period over)")
    renewed: int = Field(description="Of them, followed by a paid period by the grace's end")
    churned: int = Field(description="came_up - renewed")
    rate: float | None = Field(description="renewed / came_up, 0-1; null when nothing came up")
    churn_rate: float | None


class YearRenewalsOut(RenewalsOut):
    year: int = Field(description="The year the periods ended in")


class CohortOut(Schema):
    cohort: int = Field(description="The year the companies' first paid period started")
    by_year: list[YearRenewalsOut]
    total: RenewalsOut


class PlanRenewalsOut(Schema):
    plan: str = Field(description="The plan's code")
    by_year: list[YearRenewalsOut]
    total: RenewalsOut


class MonthMembersOut(Schema):
    month: str = Field(description="YYYY-MM")
    by_plan: dict[str, int] = Field(description="Companies with a paid period of the plan")
    total: int = Field(description="Companies with any paid period covering a day of the month")


class CountryMembersOut(Schema):
    country: str = Field(description="ISO 3166 alpha-2 code of the company's country")
    by_plan: dict[str, int]
    total: int


class MonthRevenueOut(Schema):
    month: str = Field(description="YYYY-MM, the month the invoices were paid in")
    by_plan: dict[str, Decimal] = Field(description="US dollars, by plan code")
    total: Decimal


class AnalyticsOut(Schema):
    today: date
    plan: str | None = Field(description="The plan filter (a code), if any")
    year: int | None = Field(description="The year filter, if any")
    grace_days: int
    plans: list[str] = Field(description="The plans counted (codes)")
    headline: RenewalsOut = Field(description="Periods that ended in `headline_span`")
    headline_span: list[date] = Field(description="First and last end date the headline counts")
    undecided: int = Field(description="Ended periods still in their grace period (not counted)")
    by_year: list[YearRenewalsOut] = Field(description="Renewals and churn by year")
    by_cohort: list[CohortOut]
    by_plan: list[PlanRenewalsOut]
    members_by_month: list[MonthMembersOut]
    members_month: str | None = Field(description="The month members_by_country counts")
    members_by_country: list[CountryMembersOut]
    revenue_by_month: list[MonthRevenueOut]
    revenue_total: Decimal = Field(description="US dollars over the months given")
    missing_currencies: list[str] = Field(description="Left out: no exchange rate")


def _renewals_out(cell: Renewals, year: int | None = None) -> dict[str, Any]:
    out = {
        "came_up": cell.came_up,
        "renewed": cell.renewed,
        "churned": cell.churned,
        "rate": cell.rate,
        "churn_rate": cell.churn_rate,
    }
    return out if year is None else {**out, "year": year}


def _analytics_out(found: MembershipAnalytics) -> dict[str, Any]:
    codes = [plan.code for plan in found.plans]

    def years(cells: list[Renewals]) -> list[dict[str, Any]]:
        return [_renewals_out(cell, year) for year, cell in zip(found.years, cells, strict=True)]

    def plan_row(row: PlanRow[Any], key: str) -> dict[str, Any]:
        """A month's (YYYY-MM) or a country's numbers, by plan code and in all."""
        label = f"{row.key:%Y-%m}" if key == "month" else row.key
        return {
            key: label,
            "by_plan": dict(zip(codes, row.by_plan, strict=True)),
            "total": row.total,
        }

    return {
        "today": found.today,
        "plan": found.plan.code if found.plan is not None else None,
        "year": found.year,
        "grace_days": found.grace_days,
        "plans": codes,
        "headline": _renewals_out(found.headline),
        "headline_span": list(found.headline_span),
        "undecided": found.undecided,
        "by_year": [_renewals_out(cell, year) for year, cell in found.by_year],
        "by_cohort": [
            {"cohort": row.key, "by_year": years(row.by_year), "total": _renewals_out(row.total)}
            for row in found.by_cohort
        ],
        "by_plan": [
            {"plan": row.key.code, "by_year": years(row.by_year), "total": _renewals_out(row.total)}
            for row in found.by_plan
        ],
        "members_by_month": [plan_row(row, "month") for row in found.actives_by_month],
        "members_month": f"{found.country_month:%Y-%m}" if found.country_month else None,
        "members_by_country": [plan_row(row, "country") for row in found.actives_by_country],
        "revenue_by_month": [plan_row(row, "month") for row in found.revenue_by_month],
        "revenue_total": found.revenue_total,
        "missing_currencies": found.missing_currencies,
    }


@operator_router.get(
    "/membership/analytics",
    response=AnalyticsOut,
    summary="Renewal rate by cohort and plan, churn, paying members, revenue (operators)",
)
def renewal_analytics(
    request: HttpRequest,
    plan: str | None = Query(None, max_length=40, description="Only this plan (its code)"),
    year: QueryInt | None = Query(None, ge=FIRST_YEAR, le=LAST_YEAR, description="Only this year"),  # noqa: B008
) -> dict[str, Any]:
    """The definitions are those of the operator's page (docs/operations.md)."""
    return _analytics_out(membership_analytics(user=caller(request), plan_code=plan, year=year))
