"""The error classes of the apps that answer users, as the error-family tests and the API's
problem-document tests both walk them (docs/adr/0017-one-error-family.md)."""

from __future__ import annotations

from tradepost.accounts import errors as accounts
from tradepost.alerts import errors as alerts
from tradepost.catalog import errors as catalog
from tradepost.companies import errors as companies
from tradepost.imports import errors as imports
from tradepost.membership import errors as membership
from tradepost.messaging import errors as messaging
from tradepost.money import errors as money
from tradepost.reviews import errors as reviews
from tradepost.screening import errors as screening
from tradepost.sourcing import errors as sourcing
from tradepost.trust import errors as trust
from tradepost.webhooks import errors as webhooks

#: Every exception class an app's `errors` module defines (the demo loader's errors are for
#: the person running the command, not for users, and stay outside).
APP_ERRORS = {
    "accounts": {accounts.AccountError},
    "catalog": {catalog.ProductError, catalog.ProductNotFound},
    "imports": {imports.ImportJobError, imports.ImportNotFound},
    "companies": {
        companies.CompanyError,
        companies.CompanyNotFound,
        companies.CompanyPermissionDenied,
    },
    "messaging": {messaging.MessagingError, messaging.ConversationNotFound, messaging.RateLimited},
    "membership": {membership.MembershipError, membership.PlanNotFound, membership.InvoiceNotFound},
    "money": {money.MoneyError},
    "sourcing": {
        sourcing.SourcingError,
        sourcing.RequestNotFound,
        sourcing.QuotationNotFound,
        sourcing.AttachmentNotFound,
    },
    "trust": {trust.TrustError, trust.VerificationNotFound, trust.ReportNotFound},
    "reviews": {reviews.ReviewError, reviews.ReviewNotFound},
    "screening": {screening.ScreeningError, screening.BannedTermNotFound},
    "webhooks": {webhooks.WebhookError, webhooks.WebhookNotFound},
    "alerts": {alerts.AlertError, alerts.AlertNotFound},
}
#: Each app's error class and the codes it is raised with.
APP_CODES = {
    "accounts": (accounts.AccountError, accounts.AccountErrorCode),
    "catalog": (catalog.ProductError, catalog.ProductErrorCode),
    "imports": (imports.ImportJobError, imports.ImportErrorCode),
    "companies": (companies.CompanyError, companies.CompanyErrorCode),
    "messaging": (messaging.MessagingError, messaging.MessagingErrorCode),
    "membership": (membership.MembershipError, membership.MembershipErrorCode),
    "money": (money.MoneyError, money.MoneyErrorCode),
    "sourcing": (sourcing.SourcingError, sourcing.SourcingErrorCode),
    "trust": (trust.TrustError, trust.TrustErrorCode),
    "reviews": (reviews.ReviewError, reviews.ReviewErrorCode),
    "screening": (screening.ScreeningError, screening.ScreeningErrorCode),
    "webhooks": (webhooks.WebhookError, webhooks.WebhookErrorCode),
    "alerts": (alerts.AlertError, alerts.AlertErrorCode),
}
#: The not-found classes, each with what it is raised with.
NOT_FOUND = {
    catalog.ProductNotFound: (),
    sourcing.RequestNotFound: (),
    sourcing.QuotationNotFound: (),
    sourcing.AttachmentNotFound: (),
    membership.PlanNotFound: (),
    membership.InvoiceNotFound: (),
    trust.VerificationNotFound: (),
    trust.ReportNotFound: (),
    reviews.ReviewNotFound: (),
    imports.ImportNotFound: (),
    screening.BannedTermNotFound: (),
    webhooks.WebhookNotFound: (),
    alerts.AlertNotFound: (),
    companies.CompanyNotFound: (companies.CompanyErrorCode.MEMBER_NOT_FOUND, "No such member."),
    messaging.ConversationNotFound: (
        messaging.MessagingErrorCode.NOT_FOUND,
        "No such conversation.",
    ),
}
#: One instance of each special class of the family.
SPECIAL_ERRORS = [
    *(cls(*arguments) for cls, arguments in NOT_FOUND.items()),
    companies.CompanyPermissionDenied(companies.CompanyErrorCode.PERMISSION_DENIED, "Owners only."),
    messaging.RateLimited(messaging.MessagingErrorCode.MESSAGE_RATE_LIMIT, "Slow down."),
]
