"""Writes on buying requests and quotations: one function per use case, one transaction each.

Every function takes keyword arguments only, re-checks that the actor may do what it asks,
validates everything before writing anything, and raises `SourcingError` (a
`core.errors.DomainError` with messages per field) when refused: nothing is saved then.
Counters (quotations per request, quotations per company per month) move with conditional
`F()` updates that refuse at the limit, so concurrent writers cannot pass it; awarding locks
the request row (the lock order: `_common`).

By concern: `requests` (post, change, close), `moderation` (operators: hide, restore),
`expiry` (deadlines passed and near), `quotations` (submit, revise, quota), `decisions`
(the buyer's shortlist, decline, award), `questions`, `attachments`; `_common` holds what
several of them share, `sourcing.notices` the notifications and emails. Callers use this
package (`from tradepost.sourcing import services`), which names them all.
"""

from tradepost.sourcing.services.attachments import (
    ATTACHMENTS_MAX_PER_OBJECT,
    attachment_add_to_quotation,
    attachment_add_to_request,
    attachment_remove,
)
from tradepost.sourcing.services.decisions import (
    quotation_award,
    quotation_decline,
    quotation_shortlist,
)
from tradepost.sourcing.services.expiry import request_expire_due, requests_notify_expiring
from tradepost.sourcing.services.moderation import request_hide, request_restore
from tradepost.sourcing.services.questions import quotation_question
from tradepost.sourcing.services.quotations import (
    QUOTATION_FIELDS,
    QuotationFields,
    monthly_quote_quota,
    quotation_submit,
)
from tradepost.sourcing.services.requests import (
    FIELDS_EDITABLE_AFTER_QUOTES,
    REQUEST_FIELDS,
    RequestFields,
    request_close,
    request_create,
    request_update,
)

__all__ = [
    "ATTACHMENTS_MAX_PER_OBJECT",
    "FIELDS_EDITABLE_AFTER_QUOTES",
    "QUOTATION_FIELDS",
    "REQUEST_FIELDS",
    "QuotationFields",
    "RequestFields",
    "attachment_add_to_quotation",
    "attachment_add_to_request",
    "attachment_remove",
    "monthly_quote_quota",
    "quotation_award",
    "quotation_decline",
    "quotation_question",
    "quotation_shortlist",
    "quotation_submit",
    "request_close",
    "request_create",
    "request_expire_due",
    "request_hide",
    "request_restore",
    "request_update",
    "requests_notify_expiring",
]
