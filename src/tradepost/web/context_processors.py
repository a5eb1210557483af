from django.conf import settings
from django.http import HttpRequest

from tradepost.accounts.selectors import is_operator


def site(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    membership = None
    if user is not None and user.is_authenticated:
        membership = getattr(user, "membership", None)
    return {
        "SITE_NAME": "Tradepost",
        "SITE_URL": settings.SITE_URL,
        "current_membership": membership,
        "current_company": membership.company if membership else None,
        "is_operator": is_operator(user),
    }
