"""The trade-alert pages (docs/adr/0037): "Alert me" on each tab of the search results, the
alerts page with its plan count, one alert's matches, edit, pause, resume and delete (another
company's alert is not found), and the emailed unsubscribe link (forged, expired, used twice,
RFC 8058 one-click), in the three languages; bad input is refused with a message and saves
nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from tests.factories.accounts import make_user
from tests.factories.catalog import make_category, make_product
from tests.factories.companies import add_member, make_trader
from tests.pages import page_url
from tradepost.alerts import services
from tradepost.alerts.models import AlertMatch, SavedSearch
from tradepost.search.engine import clear_caches

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "zh-hans", "zh-hant")


@pytest.fixture
def trader(client):
    user, company = make_trader()
    client.force_login(user)
    return user, company


def save(user, **fields):
    fields.setdefault("kind", "product")
    fields.setdefault("language", "en")
    return services.saved_search_create(actor=user, **fields)


def create_url(query_string: str = "", language: str = "en") -> str:
    url = page_url("alerts:create", language)
    return f"{url}?{query_string}" if query_string else url


def flashed(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def text_of(response) -> str:
    """The page's main text, tags removed."""
    html = response.content.decode()
    main = html.split('<main class="wrap" id="content">', 1)[1].split("</main>", 1)[0]
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main)))


# --- "Alert me" on the search results ---------------------------------------------------------


@pytest.mark.parametrize("tab", ["products", "companies", "requests"])
def test_every_tab_offers_alert_me_with_its_kind_and_filters(client, trader, tab):
    response = client.get(f"/en/search/?q=flask&tab={tab}&country=CN")
    html = response.content.decode()
    form = html.split('class="alert-me"', 1)[1].split("</form>", 1)[0]
    kind = {"products": "product", "companies": "company", "requests": "request"}[tab]
    assert f'action="/en/dashboard/alerts/create/?q=flask&amp;tab={tab}&amp;country=CN"' in form
    assert 'name="csrfmiddlewaretoken"' in form
    assert '<input type="hidden" name="query" value="flask">' in form
    assert f'<input type="hidden" name="kind" value="{kind}">' in form
    for frequency in ("instant", "daily", "weekly"):
        assert f'<option value="{frequency}"' in form


def test_a_visitor_is_asked_to_log_in_and_comes_back_to_the_search(client):
    response = client.get("/zh-hans/search/?q=flask&tab=companies&country=DE")
    html = response.content.decode()
    box = html.split('class="alert-me"', 1)[1].split("</div>", 1)[0]
    assert "<form" not in box and "csrfmiddlewaretoken" not in box
    assert (
        'href="/zh-hans/accounts/login/?next=/zh-hans/search/%3Fq%3Dflask%26tab%3Dcompanies'
        '%26country%3DDE"' in box
    )
    # Nor can a visitor post one.
    response = client.post(create_url("q=flask"), {"query": "flask", "kind": "product"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not SavedSearch.objects.exists()


@pytest.mark.parametrize("signed_in", [True, False])
def test_alert_me_survives_a_hostile_query_string(client, signed_in):
    if signed_in:
        client.force_login(make_trader()[0])
    names = ("q", "tab", "country", "category", "price_min", "verified", "page", "next")
    for hostile in ("x%FF%FEy<script>%22'", "9" * 40, "%E4%BF%9D" * 150):
        query = "&".join(f"{name}={hostile}" for name in names)
        response = client.get(f"/zh-hans/search/?{query}&q=flask")
        assert response.status_code == 200
        box = response.content.decode().split('class="alert-me"', 1)[1].split("</div>", 1)[0]
        assert "<script>" not in box


def test_a_search_without_words_or_filters_offers_no_alert(client, trader):
    html = client.get("/en/search/?tab=products").content.decode()
    assert 'class="alert-me"' not in html


@pytest.mark.parametrize(
    ("kind", "query_string", "params"),
    [
        (
            "product",
            "q=vacuum+flask&tab=products&country=CN,TW&verified=1&incoterm=FOB&price_min=1"
            "&price_max=5&sort=newest&page=2",
            {
                "country": ["CN", "TW"],
                "verified": ["1"],
                "incoterm": ["FOB"],
                "price_min": ["1"],
                "price_max": ["5"],
            },
        ),
        (
            "company",
            "q=vacuum+flask&tab=companies&country=DE&business_type=manufacturer",
            {"country": ["DE"], "business_type": ["manufacturer"]},
        ),
        (
            "request",
            "q=vacuum+flask&tab=requests&destination=NL&quantity_min=100",
            {"destination": ["NL"], "quantity_min": ["100"]},
        ),
    ],
)
def test_alert_me_saves_the_search_of_each_tab(client, trader, kind, query_string, params):
    user, company = trader
    response = client.post(
        create_url(query_string, "zh-hant"),
        {"query": "vacuum flask", "kind": kind, "frequency": "weekly"},
    )
    assert response.status_code == 302
    assert response["Location"] == page_url("alerts:list", "zh-hant")
    alert = SavedSearch.objects.get()
    assert (alert.company, alert.user, alert.kind) == (company, user, kind)
    assert (alert.query, alert.params) == ("vacuum flask", params)
    assert (alert.language, alert.frequency, alert.paused) == ("zh-hant", "weekly", False)
    with translation.override("zh-hant"):
        assert flashed(response) == [
            translation.gettext("The alert is saved: Tradepost emails you what newly matches it.")
        ]


def test_someone_without_a_company_is_sent_to_create_one(client):
    client.force_login(make_user())
    response = client.post(create_url("q=flask"), {"query": "flask", "kind": "product"})
    assert response.status_code == 302
    assert response["Location"] == page_url("companies:create")
    assert not SavedSearch.objects.exists()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_plans_limit_is_a_message_in_the_users_language(client, trader, language):
    user, _company = trader
    for number in range(10):
        save(user, query=f"cups {number}")
    response = client.post(
        create_url("q=flask&tab=products", language),
        {"query": "flask", "kind": "product", "frequency": "daily"},
        follow=True,
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == f"/{language}/search/?q=flask&tab=products"
    expected = {
        "en": "Your plan keeps 10 alerts. Delete one, or choose a plan with more.",
        "zh-hans": "您的方案最多保留 10 个提醒。请删除一个，或选择可保留更多提醒的方案。",
    }[language]
    assert expected in text_of(response)
    assert SavedSearch.objects.count() == 10


BAD_INPUT = [
    ("nul-in-words", {"query": "flask\x00cups"}, ""),
    ("overlong-words", {"query": "f" * 300}, ""),
    ("unknown-frequency", {"frequency": "hourly"}, ""),
    ("unknown-kind", {"kind": "ships"}, ""),
    ("nul-in-frequency", {"frequency": "x\x00y"}, ""),
    ("unknown-filter-value", {}, "&country=ZZ"),
    ("nothing-to-look-for", {"query": ""}, ""),
]


@pytest.mark.parametrize(("name", "fields", "extra"), BAD_INPUT, ids=[b[0] for b in BAD_INPUT])
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_bad_input_is_a_message_and_saves_nothing(client, trader, name, fields, extra, language):
    data = {"query": "flask", "kind": "product", "frequency": "daily", **fields}
    response = client.post(create_url(f"tab=products{extra}", language), data)
    assert response.status_code == 302
    assert response["Location"].startswith(f"/{language}/search/?tab=products")
    shown = flashed(response)
    assert shown and all(text.strip() for text in shown)
    if language == "zh-hans":
        assert all(re.search(r"[\u4e00-\u9fff]", text) for text in shown), shown
    assert not SavedSearch.objects.exists()


def test_a_get_does_not_save(client, trader):
    response = client.get(create_url("q=flask"))
    assert response.status_code == 405
    assert not SavedSearch.objects.exists()


# --- the alerts page --------------------------------------------------------------------------


def test_the_alerts_page_shows_each_alert_with_its_latest_matches_and_the_plan_count(
    client, trader
):
    user, _company = trader
    flask = save(
        user, query="vacuum flask", params={"country": ["CN"], "verified": ["1"]}, language="en"
    )
    save(user, kind="company", query="", params={"business_type": ["manufacturer"]})
    paused = save(user, kind="request", query="mugs", frequency="weekly")
    services.saved_search_update(actor=user, alert=paused, paused=True)
    now = timezone.now()
    products = [make_product(title=f"Steel flask {n}") for n in range(4)]
    for n, product in enumerate(products):
        AlertMatch.objects.create(
            alert=flask, object_id=product.pk, matched_at=now - timedelta(minutes=10 - n)
        )
    AlertMatch.objects.create(alert=flask, object_id=10**9, matched_at=now)

    response = client.get(page_url("alerts:list"))

    assert response.status_code == 200
    text = text_of(response)
    assert "3 of 10 alerts" in text
    assert "“vacuum flask”" in text and "“mugs”" in text and "Any words" in text
    assert "Supplier country: China" in text
    assert "Verified supplier: Verified suppliers only" in text
    assert "Business type: Manufacturer" in text
    assert "Matches 5" in text
    assert "Weekly" in text and "paused" in text
    card = text.split("“vacuum flask”", 1)[1].split("Open the search", 1)[0]
    # The newest three: the one no longer shown, then the last two products.
    assert "No longer shown" in card
    assert "Steel flask 3" in card and "Steel flask 2" in card
    assert "Steel flask 1" not in card and "Steel flask 0" not in card
    html = response.content.decode()
    assert (
        'href="/en/search/?q=vacuum+flask&amp;tab=products&amp;country=CN&amp;verified=1"' in html
    )
    assert f'action="/en/dashboard/alerts/{paused.pk}/resume/"' in html
    assert f'action="/en/dashboard/alerts/{flask.pk}/pause/"' in html


def test_the_alerts_page_reads_no_more_for_more_alerts_without_matches(client, trader):
    user, _company = trader
    save(user, query="flask 0", params={"country": ["CN"]})
    client.get(page_url("alerts:list"))  # the category tree and the sessions, warmed
    with CaptureQueriesContext(connection) as few:
        client.get(page_url("alerts:list"))
    for number in range(1, 6):
        save(user, query=f"flask {number}", params={"country": ["CN"], "verified": ["1"]})
    with CaptureQueriesContext(connection) as many:
        response = client.get(page_url("alerts:list"))
    assert "6 of 10 alerts" in text_of(response)
    assert len(many) == len(few)


def test_every_member_of_the_company_keeps_its_alerts(client):
    owner, company = make_trader()
    alert = save(owner, query="flask")
    client.force_login(add_member(company))
    assert client.get(page_url("alerts:detail", alert_id=alert.pk)).status_code == 200
    client.post(page_url("alerts:pause", alert_id=alert.pk))
    alert.refresh_from_db()
    assert alert.paused


def test_an_alert_on_a_removed_category_says_so(client, trader):
    user, _company = trader
    category = make_category()
    alert = save(user, query="", params={"category": [str(category.pk)]})
    category.delete()
    clear_caches()
    response = client.get(page_url("alerts:list"))
    assert "no longer exists" in text_of(response)
    assert alert.pk


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_open_in_each_language(client, trader, language):
    user, _company = trader
    alert = save(user, query="flask", params={"country": ["CN"]})
    AlertMatch.objects.create(alert=alert, object_id=make_product().pk, matched_at=timezone.now())
    with translation.override(language):
        title = translation.gettext("Trade alerts")
        edit_title = translation.gettext("Edit the trade alert")
        delete_title = translation.gettext("Delete the trade alert?")
    if language != "en":
        assert title != "Trade alerts"
    pages = {
        page_url("alerts:list", language): title,
        page_url("alerts:detail", language, alert_id=alert.pk): "",
        page_url("alerts:update", language, alert_id=alert.pk): edit_title,
        page_url("alerts:delete", language, alert_id=alert.pk): delete_title,
    }
    for url, heading in pages.items():
        response = client.get(url)
        assert response.status_code == 200, url
        assert f'<html lang="{language}">' in response.content.decode()
        assert heading in text_of(response)
    dashboard = client.get(page_url("accounts:dashboard", language)).content.decode()
    assert f'href="{page_url("alerts:list", language)}"' in dashboard


def test_the_matches_page_is_paged(client, trader):
    user, _company = trader
    alert = save(user, query="flask")
    now = timezone.now()
    for n in range(25):
        AlertMatch.objects.create(
            alert=alert, object_id=10**9 + n, matched_at=now - timedelta(minutes=n)
        )
    url = page_url("alerts:detail", alert_id=alert.pk)
    first = client.get(url)
    assert first.status_code == 200
    assert first.content.decode().count("No longer shown") == 20
    assert "25 matches" in text_of(first) and "Page 1 of 2" in text_of(first)
    second = client.get(f"{url}?page=2")
    assert second.content.decode().count("No longer shown") == 5
    past = client.get(f"{url}?page=9")
    assert past.status_code == 200 and "past the end" in text_of(past)


# --- edit, pause, resume, delete ---------------------------------------------------------------


def test_edit_changes_the_words_and_the_frequency(client, trader):
    user, _company = trader
    alert = save(user, query="flask", params={"country": ["CN"]})
    url = page_url("alerts:update", alert_id=alert.pk)
    assert 'value="flask"' in client.get(url).content.decode()
    response = client.post(url, {"query": "thermos", "frequency": "instant"})
    assert response.status_code == 302 and response["Location"] == page_url("alerts:list")
    alert.refresh_from_db()
    assert (alert.query, alert.frequency, alert.params) == (
        "thermos",
        "instant",
        {"country": ["CN"]},
    )


@pytest.mark.parametrize(
    "data",
    [
        {"query": "f" * 300, "frequency": "daily"},
        {"query": "flask", "frequency": "hourly"},
        {"query": "a\x00b", "frequency": "daily"},
    ],
    ids=["overlong", "unknown-frequency", "nul"],
)
def test_a_refused_edit_shows_the_form_again_in_the_users_language(client, trader, data):
    user, _company = trader
    alert = save(user, query="flask")
    response = client.post(page_url("alerts:update", "zh-hans", alert_id=alert.pk), data)
    assert response.status_code == 400
    errors = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode())
    assert errors and all(re.search(r"[\u4e00-\u9fff]", e) for e in errors), errors
    alert.refresh_from_db()
    assert (alert.query, alert.frequency) == ("flask", "daily")


def test_pause_and_resume(client, trader):
    user, _company = trader
    alert = save(user, query="flask")
    response = client.post(page_url("alerts:pause", alert_id=alert.pk))
    assert response.status_code == 302
    alert.refresh_from_db()
    assert alert.paused
    client.post(page_url("alerts:resume", alert_id=alert.pk))
    alert.refresh_from_db()
    assert not alert.paused
    assert client.get(page_url("alerts:pause", alert_id=alert.pk)).status_code == 405


def test_delete_asks_first_then_deletes(client, trader):
    user, _company = trader
    alert = save(user, query="flask")
    confirm = client.get(page_url("alerts:delete", alert_id=alert.pk))
    assert confirm.status_code == 200
    assert f'action="/en/dashboard/alerts/{alert.pk}/delete/"' in confirm.content.decode()
    assert SavedSearch.objects.filter(pk=alert.pk).exists()
    response = client.post(page_url("alerts:delete", alert_id=alert.pk))
    assert response.status_code == 302
    assert not SavedSearch.objects.filter(pk=alert.pk).exists()


def test_another_companys_alert_is_not_found_and_stays_as_it_was(client, trader):
    owner, _company = make_trader()
    alert = save(owner, query="flask")
    before = SavedSearch.objects.values().get(pk=alert.pk)
    gets = ("alerts:detail", "alerts:update", "alerts:delete")
    posts = ("alerts:update", "alerts:pause", "alerts:resume", "alerts:delete")
    for name in gets:
        assert client.get(page_url(name, alert_id=alert.pk)).status_code == 404, name
    for name in posts:
        data = {"query": "mine now", "frequency": "weekly"}
        assert client.post(page_url(name, alert_id=alert.pk), data).status_code == 404, name
    assert client.get(page_url("alerts:detail", alert_id=10**12)).status_code == 404
    assert SavedSearch.objects.values().get(pk=alert.pk) == before
    assert "flask" not in text_of(client.get(page_url("alerts:list")))


def test_the_pages_need_a_login(client):
    response = client.get(page_url("alerts:list"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


# --- the unsubscribe link ---------------------------------------------------------------------


def emailed_alert():
    user, _company = make_trader()
    alert = save(user, query="vacuum flask")
    token = services.unsubscribe_token(alert)
    return alert, page_url("alerts:unsubscribe", "zh-hans", token=token)


def test_the_link_shows_the_alert_then_the_button_pauses_it():
    alert, url = emailed_alert()
    http = Client(enforce_csrf_checks=True)
    page = http.get(url)
    assert page.status_code == 200
    assert "“vacuum flask”" in text_of(page)
    assert "<form" in page.content.decode()
    alert.refresh_from_db()
    assert not alert.paused
    done = http.post(url)
    assert done.status_code == 200
    alert.refresh_from_db()
    assert alert.paused
    with translation.override("zh-hans"):
        paused = translation.gettext(
            "The alert is paused: it sends you no more emails. Sign in to resume it or delete it."
        )
    assert paused != "The alert is paused: it sends you no more emails." and paused in text_of(done)
    # Used again: already paused, said plainly.
    again = http.post(url)
    assert again.status_code == 200
    with translation.override("zh-hans"):
        assert translation.gettext("This alert is already paused: it sends you no emails.") in (
            text_of(again)
        )
    assert http.get(url).status_code == 200


def test_one_click_unsubscribe_needs_no_csrf_token():
    alert, url = emailed_alert()
    http = Client(enforce_csrf_checks=True)
    response = http.post(
        url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    alert.refresh_from_db()
    assert alert.paused


@pytest.mark.parametrize(
    "token",
    ["not-a-token", "eyJhIjoxLCJ1IjoxfQ:1vSx7Q:forged-signature-forged-signature", "x" * 301],
)
def test_a_forged_link_is_refused_in_the_users_language(token):
    alert, _url = emailed_alert()
    http = Client(enforce_csrf_checks=True)
    url = page_url("alerts:unsubscribe", "zh-hans", token=token)
    with translation.override("zh-hans"):
        message = translation.gettext(
            "This link is not valid. Open the latest alert email you received, or sign in and "
            "pause the alert on your trade alerts page."
        )
    for response in (
        http.get(url),
        http.post(
            url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
        ),
    ):
        assert response.status_code == 400
        assert message in text_of(response) and re.search(r"[\u4e00-\u9fff]", message)
    alert.refresh_from_db()
    assert not alert.paused


def test_a_link_to_a_deleted_alert_is_not_valid():
    alert, url = emailed_alert()
    alert.delete()
    assert Client().post(url).status_code == 400


def test_an_expired_link_says_so(monkeypatch):
    alert, url = emailed_alert()
    monkeypatch.setattr(services, "UNSUBSCRIBE_MAX_AGE", -1)
    with translation.override("zh-hans"):
        message = translation.gettext(
            "This link has expired. Sign in and pause the alert on your trade alerts page."
        )
    for response in (Client().get(url), Client().post(url)):
        assert response.status_code == 400
        assert message in text_of(response)
    alert.refresh_from_db()
    assert not alert.paused
