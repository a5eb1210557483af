from django.conf import settings
from django.http import HttpRequest

from tradepost.accounts.selectors import is_operator
from tradepost.companies.selectors import standing_refusal
from tradepost.web.display_currency import viewer_display_currency


def site(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    membership = None
    if user is not None and user.is_authenticated:
        membership = getattr(user, "membership", None)
    company = membership.company if membership else None
    return {
        "SITE_NAME": "Tradepost",
        "SITE_URL": settings.SITE_URL,
        "current_membership": membership,
        "current_company": company,
        # Why the members of a suspended or banned company cannot act (a banner on every page).
        "standing_notice": standing_refusal(company),
        "is_operator": is_operator(user),
    }


def display_currency(request: HttpRequest) -> dict:
    """The viewer's display currency: prices are shown in it (`viewer_price_range`), and the
    header's currency form has it selected (`display_currency_choices`)."""
    return {"display_currency": viewer_display_currency(request)}
