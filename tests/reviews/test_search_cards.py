"""Search result cards (the products and the companies tabs) and the supplier directory show a
supplier's rating with the rows they already read: reviews add no query to a results page,
whatever the number of cards."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories.companies import add_member
from tests.factories.reviews import make_award
from tradepost.companies.models import Role
from tradepost.reviews import services

pytestmark = pytest.mark.django_db

URL = "/en/search/"
SEARCHES = [{"q": "flask"}, {"q": "", "tab": "companies"}, {"q": "drinkware", "tab": "companies"}]


def _review(company, *ratings: int) -> None:
    owner = add_member(company, role=Role.OWNER)
    for rating in ratings:
        buyer, _supplier, quotation = make_award(supplier=owner)
        services.review_create(actor=buyer, quotation=quotation, rating=rating, text="Good.")


def _queries(client, params) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(URL, params)
    assert response.status_code == 200
    return len(queries), re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_the_rating_is_on_the_cards_without_a_query_of_its_own(client, search_catalogue):
    for params in SEARCHES:
        client.get(URL, params)  # warm the category tree and the rates
    before = {str(params): _queries(client, params) for params in SEARCHES}
    assert all("★ (" not in text for _count, text in before.values())
    _review(search_catalogue.ningbo, 5, 4)
    _review(search_catalogue.taipei, 3)
    _review(search_catalogue.ohio, 5, 5, 4)
    for params in SEARCHES:
        count, text = _queries(client, params)
        assert count == before[str(params)][0], params
        assert "★ (" in text, params
    _count, products = _queries(client, {"q": "flask"})
    assert "4.5 ★ (2 reviews)" in products  # the Ningbo flask's card
    assert "3.0 ★ (1 review)" in products  # the Taipei flask's card
    assert "4.7 ★ (3 reviews)" in products  # Ohio's
    _count, companies = _queries(client, {"q": "", "tab": "companies"})
    assert "4.5 ★ (2 reviews)" in companies and "4.7 ★ (3 reviews)" in companies


def test_no_reviews_show_nothing(client, search_catalogue):
    _count, text = _queries(client, {"q": "flask"})
    assert "★" not in text and "review" not in text.lower()


def test_the_supplier_directory_card_shows_the_rating(client, search_catalogue):
    _review(search_catalogue.ohio, 4)
    html = client.get("/zh-hans/companies/").content.decode()
    assert "4.0 ★（1 条评价）" in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
