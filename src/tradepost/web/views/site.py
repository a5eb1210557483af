"""The home page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

from tradepost.catalog import company_selectors as companies
from tradepost.catalog import selectors as catalog
from tradepost.core.languages import normalise_ui_language

HOME_PRODUCTS = 12
HOME_SUPPLIERS = 8


def home(request: HttpRequest) -> HttpResponse:
    language = normalise_ui_language(get_language())
    suppliers = companies.featured_companies(limit=HOME_SUPPLIERS)
    context = {
        "categories": catalog.category_tree(language=language, max_depth=0),
        "cards": catalog.newest_product_cards(language=language, limit=HOME_PRODUCTS),
        "suppliers": [companies.company_profile(c, language=language) for c in suppliers],
    }
    return render(request, "web/home.html", context)
