"""The home page, and the header's choice of the currency prices are shown in."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from tradepost.accounts import services as accounts
from tradepost.accounts.errors import AccountError
from tradepost.catalog import public_companies as companies
from tradepost.catalog import selectors as catalog
from tradepost.catalog.showcase_selectors import home_showcase
from tradepost.core.languages import normalise_ui_language
from tradepost.money.forms import DisplayCurrencyForm
from tradepost.web.addresses import on_this_site
from tradepost.web.badges import gold_ids
from tradepost.web.display_currency import remember_display_currency
from tradepost.web.refusals import flash_form_errors

HOME_PRODUCTS = 12
HOME_SUPPLIERS = 8


def home(request: HttpRequest) -> HttpResponse:
    language = normalise_ui_language(get_language())
    suppliers = companies.featured_companies(limit=HOME_SUPPLIERS)
    cards = catalog.newest_product_cards(language=language, limit=HOME_PRODUCTS)
    profiles = [companies.company_profile(c, language=language) for c in suppliers]
    # The paid showcase, in its own labelled block (ADR 0026).
    showcase_cards = home_showcase(language=language)
    context = {
        "categories": catalog.category_tree(language=language, max_depth=0),
        "cards": cards,
        "suppliers": profiles,
        "showcase_cards": showcase_cards,
        "gold_ids": gold_ids(cards=[*cards, *showcase_cards], profiles=profiles),
    }
    return render(request, "web/home.html", context)


def _return_address(request: HttpRequest, asked: str) -> str:
    """Where to go back to: the form's `next` when it is on this site, else the page the
    form was sent from when that is, else the home page."""
    for address in (asked, request.headers.get("referer", "")):
        if on_this_site(request, address):
            return address
    return reverse("web:home")


# No CSRF token, like the language form: a forged post could only change the currency a
# visitor reads prices in, and a token in the header's form would set a cookie on every
# public page and keep them out of the page cache (`tradepost.config.page_cache`).
@csrf_exempt
@require_POST
def display_currency_set(request: HttpRequest) -> HttpResponse:
    """Keep the currency chosen in the header (in a cookie, and in a signed-in person's
    settings) and go back to the page it was chosen on. A choice the list does not hold is
    refused with a message, and nothing changes."""
    form = DisplayCurrencyForm(request.POST)
    valid = form.is_valid()
    response = HttpResponseRedirect(_return_address(request, form.cleaned_data.get("next", "")))
    if not valid:
        flash_form_errors(request, form)
        return response
    choice = form.cleaned_data["currency"]
    if request.user.is_authenticated:
        try:
            accounts.user_display_currency_set(user=request.user, display_currency=choice)
        except AccountError as error:  # the table changed since the form was read
            messages.error(request, error.message)
            return response
    remember_display_currency(response, choice)
    return response
