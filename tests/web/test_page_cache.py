"""Public pages for visitors who are not signed in come from the cache for a short while;
signed-in people, other pages, errors and answers that set cookies never do."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from tests.factories.catalog import make_product
from tests.factories.companies import add_member, make_company

pytestmark = pytest.mark.django_db


@pytest.fixture
def page_cache(settings):
    settings.TRADEPOST_PAGE_CACHE_SECONDS = 30
    cache.clear()
    yield
    cache.clear()


def _url(product, language="en"):
    return f"/{language}/products/{product.pk}-{product.slug}/"


def test_a_visitor_gets_the_kept_page_and_a_signed_in_supplier_the_fresh_one(page_cache):
    company = make_company()
    product = make_product(company=company, title="Insulated lunch box")
    visitor = Client()
    first = visitor.get(_url(product))
    assert first["X-Cache"] == "miss"
    assert "Insulated lunch box" in first.content.decode()

    product.title = "Insulated lunch box, 2 compartments"
    product.save(update_fields=["title"])

    again = Client().get(_url(product))
    assert again["X-Cache"] == "hit"
    assert again.content == first.content
    assert again["Content-Security-Policy"] == first["Content-Security-Policy"]
    assert again["Content-Language"] == "en"

    supplier = Client()
    supplier.force_login(add_member(company))
    fresh = supplier.get(_url(product))
    assert "X-Cache" not in fresh
    assert "Insulated lunch box, 2 compartments" in fresh.content.decode()


def test_each_language_and_query_is_kept_apart(page_cache):
    product = make_product(title="Bamboo cutting board")
    assert Client().get(_url(product, "en"))["X-Cache"] == "miss"
    zh = Client().get(_url(product, "zh-hans"))
    assert zh["X-Cache"] == "miss"
    assert '<html lang="zh-hans">' in zh.content.decode()
    assert Client().get("/en/search/?q=bamboo")["X-Cache"] == "miss"
    assert Client().get("/en/search/?q=bamboo&page=2")["X-Cache"] == "miss"
    assert Client().get("/en/search/?q=bamboo")["X-Cache"] == "hit"


def test_public_pages_set_no_cookie_for_a_visitor(page_cache):
    """A cookie set for a visitor (a CSRF token in the language form, say) would make every
    page unshareable: none of the cached pages sets one."""
    product = make_product()
    for url in ("/en/", _url(product), f"/en/companies/{product.company.slug}/", "/en/requests/"):
        response = Client().get(url)
        assert response.status_code == 200, url
        assert not response.cookies, (url, list(response.cookies))
        assert response["X-Cache"] == "miss", url


def test_the_language_form_works_without_a_csrf_token():
    client = Client(enforce_csrf_checks=True)
    response = client.post("/i18n/setlang/", {"language": "zh-hant", "next": "/en/requests/"})
    assert response.status_code == 302
    assert response["Location"] == "/zh-hant/requests/"


def test_private_pages_errors_and_writes_are_never_kept(page_cache):
    make_product()
    for _ in range(2):
        missing = Client().get("/en/products/999999-nothing/")
        assert missing.status_code == 404
        assert "X-Cache" not in missing
        login = Client().get("/en/accounts/login/")
        assert "X-Cache" not in login
        signup = Client().post("/en/accounts/signup/", {"email": "x"})
        assert "X-Cache" not in signup
    assert Client().get("/en/dashboard/products/").status_code == 302


def test_a_visitor_with_pending_messages_or_a_token_is_not_served_from_the_cache(page_cache):
    product = make_product()
    Client().get(_url(product))
    with_messages = Client()
    with_messages.cookies["messages"] = "something"
    assert "X-Cache" not in with_messages.get(_url(product))
    assert "X-Cache" not in Client().get(_url(product), HTTP_AUTHORIZATION="Bearer x")


def test_the_cache_can_be_turned_off(settings):
    settings.TRADEPOST_PAGE_CACHE_SECONDS = 0
    product = make_product()
    assert "X-Cache" not in Client().get(_url(product))
    assert "X-Cache" not in Client().get(_url(product))
