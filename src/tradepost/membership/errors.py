"""Errors raised by the membership services and access helpers (a `core.errors` family)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind, NotFound


class MembershipErrorCode(ErrorCode):
    """Why a request on a plan, a subscription or an invoice was refused."""

    INVALID = "invalid", ErrorKind.INVALID
    PLAN_NOT_FOUND = "plan-not-found", ErrorKind.NOT_FOUND
    INVOICE_NOT_FOUND = "invoice-not-found", ErrorKind.NOT_FOUND
    NO_COMPANY = "no-company", ErrorKind.FORBIDDEN, gettext_lazy("You do not act for a company")
    NOT_ALLOWED = (
        "membership-not-allowed",
        ErrorKind.FORBIDDEN,
        gettext_lazy("Only the company's owner and admins can do this"),
    )
    WRONG_ACTION = (
        "wrong-action",
        ErrorKind.CONFLICT,
        gettext_lazy("The change is not what was asked"),
    )
    SAME_PLAN = "same-plan", ErrorKind.CONFLICT, gettext_lazy("Already on this plan")
    NOTHING_TO_CANCEL = "nothing-to-cancel", ErrorKind.CONFLICT
    NO_EXCHANGE_RATE = "no-exchange-rate", ErrorKind.CONFLICT
    INVOICE_NOT_OPEN = (
        "invoice-not-open",
        ErrorKind.CONFLICT,
        gettext_lazy("The invoice is not awaiting payment"),
    )


class MembershipError(DomainError):
    """A refused request on a plan, a subscription or an invoice."""

    code: MembershipErrorCode


class PlanNotFound(MembershipError, NotFound):
    """No such plan, or one not offered: both look the same (404)."""

    not_found_code = MembershipErrorCode.PLAN_NOT_FOUND


class InvoiceNotFound(MembershipError, NotFound):
    """No such invoice, or another company's: both look the same (404)."""

    not_found_code = MembershipErrorCode.INVOICE_NOT_FOUND
