"""The 404 and 500 pages: the site's layout (header, navigation, search box, footer) in the
visitor's language, with a way on; the 500 page with a signed-in person's own header, and a
visitor's when the session or the database is what failed. The API keeps its problem documents
(tests/api/test_api_problems.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories.accounts import make_user
from tradepost.catalog import public_companies

pytestmark = pytest.mark.django_db

SEARCH_BOX = 'id="site-search-q"'


def assert_site_layout(html: str, language: str) -> None:
    assert f'<html lang="{language}">' in html
    assert 'class="site-header"' in html and 'class="main-nav"' in html
    assert SEARCH_BOX in html and f'action="/{language}/search/"' in html
    assert 'class="site-footer"' in html
    assert '<meta name="robots" content="noindex">' in html
    assert 'rel="canonical"' not in html  # no canonical or hreflang links for an error


@pytest.mark.parametrize(
    ("language", "heading", "home"),
    [
        ("en", "Page not found", "Go to the home page"),
        ("zh-hans", "页面不存在", "返回首页"),
        ("zh-hant", "頁面不存在", "返回首頁"),
    ],
)
def test_an_unknown_address_is_a_404_page_in_the_language_of_the_address(
    client, language, heading, home
):
    response = client.get(f"/{language}/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert_site_layout(html, language)
    assert f"<h1>{heading}</h1>" in html
    assert f'<a href="/{language}/">{home}</a>' in html
    assert 'id="error-search-q"' in html  # a search right on the page


def test_a_missing_product_is_the_same_404_page(client):
    response = client.get("/zh-hant/products/999999-gone/")
    assert response.status_code == 404
    assert "<h1>頁面不存在</h1>" in response.content.decode()


def test_a_signed_in_visitor_sees_their_own_header_on_the_404_page(client):
    client.force_login(make_user())
    html = client.get("/en/no-such-page/").content.decode()
    assert "Log out" in html


@pytest.fixture
def broken_home(monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("boom: internal detail")

    # The home page's first read fails before any query.
    monkeypatch.setattr(public_companies, "featured_companies", broken)


@pytest.mark.parametrize(
    ("language", "heading"),
    [
        ("en", "Something went wrong on our side"),
        ("zh-hans", "我们这边出了问题"),
        ("zh-hant", "我們這邊出了問題"),
    ],
)
def test_an_unexpected_error_is_a_500_page_in_the_visitors_language(broken_home, language, heading):
    response = Client(raise_request_exception=False).get(f"/{language}/")
    assert response.status_code == 500
    html = response.content.decode()
    assert_site_layout(html, language)
    assert f"<h1>{heading}</h1>" in html
    assert f'href="/{language}/"' in html
    assert "boom" not in html  # nothing of the error leaks


def test_a_signed_in_person_keeps_their_header_on_the_500_page(broken_home):
    client = Client(raise_request_exception=False)
    client.force_login(make_user())
    response = client.get("/zh-hant/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "<h1>我們這邊出了問題</h1>" in html
    header = html.split("</header>")[0]
    assert "登出" in header and "登入" not in header


def test_when_the_session_cannot_be_read_the_500_page_has_a_visitors_header(
    broken_home, monkeypatch
):
    """The session store or the database may be what failed: the page is then rendered
    without the request."""
    from django.contrib import auth

    client = Client(raise_request_exception=False)
    client.force_login(make_user())

    def unreadable(request):
        raise ConnectionError("the session store is gone")

    monkeypatch.setattr(auth, "get_user", unreadable)
    response = client.get("/en/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "<h1>Something went wrong on our side</h1>" in html
    header = html.split("</header>")[0]
    assert "Log in" in header and "Log out" not in header
    assert_site_layout(html, "en")


def test_the_500_page_answers_even_when_its_template_fails(broken_home, monkeypatch):
    from tradepost.web.views import errors

    def failing(*args, **kwargs):
        raise ValueError("missing static file")

    monkeypatch.setattr(errors, "render_to_string", failing)
    response = Client(raise_request_exception=False).get("/zh-hans/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "<h1>我们这边出了问题</h1>" in html and '<html lang="zh-hans">' in html


@pytest.mark.parametrize("path", ["/api/v1/nothing-here", "/api/"])
def test_api_addresses_keep_their_problem_documents(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
