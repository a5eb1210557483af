"""The Gold Supplier badge: Gold's benefit "verified badge once verification passes".

A verified Gold company shows the Gold Supplier badge beside the Verified one (company page,
product page, search result cards, category, directory and home page cards, the API); a Gold
company not verified yet shows none and its desk tells it to send its documents; a verified
Free company shows only Verified; when the membership ends the badge goes. Search cards read
the badge from the index, kept current through the search outbox."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from freezegun import freeze_time

from tests.api_client import ApiClient
from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.membership import free, gold, make_plan, set_period, subscribe
from tests.factories.search import index
from tests.factories.trust import submit_verification
from tests.pages import log_in, page_url
from tests.test_translations import compiled_catalogues  # noqa: F401 (a fixture)
from tradepost.companies.models import Company
from tradepost.companies.services import companies_mark
from tradepost.membership import selectors, services
from tradepost.membership.badges import (
    badge_standing,
    gold_badge_companies,
    gold_badge_until,
    shows_gold_badge,
)
from tradepost.membership.models import Plan
from tradepost.search.indexer import apply_outbox
from tradepost.search.models import IndexOutbox
from tradepost.trust import services as trust_services

pytestmark = pytest.mark.django_db

GOLD_MARK = 'class="badge gold"'
VERIFIED_MARK = 'class="badge verified"'
TITLE = "Insulated steel flask"


def verify(company: Company) -> None:
    """An operator approves the company's documents (trust's queue)."""
    owner = company.memberships.get(role="owner").user
    request = submit_verification(owner)
    trust_services.verification_approve(
        actor=make_operator(), verification=request, checked=["legal_name"]
    )
    company.refresh_from_db()


def unverify(company: Company) -> None:
    companies_mark(actor=make_operator(), company_ids=[company.pk], is_verified=False)
    company.refresh_from_db()


@pytest.fixture
def supplier():
    """A company with one published listing, indexed."""
    owner, company = make_trader(legal_name="Ningbo Flask Works", english_name="Ningbo Flask")
    product = make_product(company=company, title=TITLE)
    index(product, company)
    return owner, company, product


_seen = {"last": 0}


def outbox_companies() -> set[int]:
    """The companies recorded in the outbox since the last look (applied rows stay in the
    table for a while), then applied so that the index knows."""
    rows = IndexOutbox.objects.filter(kind="company", pk__gt=_seen["last"])
    ids = set(rows.values_list("object_id", flat=True))
    _seen["last"] = IndexOutbox.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    apply_outbox()
    return ids


@pytest.fixture(autouse=True)
def _outbox_watermark():
    _seen["last"] = IndexOutbox.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def public_marks(client, company: Company, product) -> dict[str, tuple[bool, bool]]:
    """(Gold badge, Verified badge) on each public place the supplier shows."""
    pages = {
        "company page": client.get(page_url("catalog:company_detail", slug=company.slug)),
        "product page": client.get(product.get_absolute_url()),
        "product card": client.get("/en/search/", {"q": "flask"}),
        "company card": client.get("/en/search/", {"q": "Ningbo", "tab": "companies"}),
        "category card": client.get(
            page_url("catalog:category_detail", slug=product.category.slug)
        ),
        "directory card": client.get(page_url("catalog:company_directory")),
        "home card": client.get(page_url("web:home")),
    }
    lists = {
        "product card": 'class="search-results"',
        "company card": 'class="search-results"',
        "category card": 'class="grid products"',
        "directory card": 'class="grid companies"',
        "home card": 'class="grid products"',
    }
    marks = {}
    for name, answer in pages.items():
        assert answer.status_code == 200, name
        html = answer.content.decode()
        if name in lists:
            html = html.split(lists[name], 1)[1]
        marks[name] = (GOLD_MARK in html, VERIFIED_MARK in html)
    return marks


def api_marks(company: Company, product) -> dict[str, bool]:
    api = ApiClient(base="/api/v1")
    products = api.get("/search/products", q="flask").json()["items"]
    companies = api.get("/search/companies", q="Ningbo").json()["items"]
    return {
        "company": api.get(f"/companies/{company.slug}").json()["gold_supplier"],
        "company list": next(
            c["gold_supplier"]
            for c in api.get("/companies").json()["items"]
            if c["slug"] == company.slug
        ),
        "product": api.get(f"/products/{product.pk}").json()["company"]["gold_supplier"],
        "product list": api.get("/products").json()["items"][0]["company"]["gold_supplier"],
        "product search": products[0]["supplier"]["gold_supplier"],
        "company search": companies[0]["gold_supplier"],
    }


def everywhere(value: bool, verified: bool) -> dict[str, tuple[bool, bool]]:
    return dict.fromkeys(
        (
            "company page",
            "product page",
            "product card",
            "company card",
            "category card",
            "directory card",
            "home card",
        ),
        (value, verified),
    )


# --- the states ----------------------------------------------------------------------------------


def test_a_verified_gold_company_shows_the_gold_badge_everywhere(client, supplier):
    owner, company, product = supplier
    subscribe(company, gold(), actor=owner)
    verify(company)
    assert company.pk in outbox_companies()  # applied: the cards know
    assert shows_gold_badge(company)
    assert public_marks(client, company, product) == everywhere(True, True)
    assert set(api_marks(company, product).values()) == {True}


def test_a_gold_company_not_verified_shows_no_gold_badge_and_is_told_to_verify(client, supplier):
    owner, company, product = supplier
    subscribe(company, gold(), actor=owner)
    apply_outbox()
    assert not shows_gold_badge(company)
    assert public_marks(client, company, product) == everywhere(False, False)
    assert set(api_marks(company, product).values()) == {False}
    # Its desk and its membership page tell it how to get the badge.
    log_in(client, owner)
    verification_page = page_url("trust:verification")
    for name in ("insights:supplier_desk", "membership:overview"):
        html = client.get(page_url(name)).content.decode()
        assert "It shows once your company passes verification" in html, name
        assert f'href="{verification_page}"' in html, name
    subscription = ApiClient(owner, base="/api/v1").get("/me/subscription").json()
    assert subscription["badge"] == {"shown": False, "plan_gives_badge": True, "verified": False}
    # Once the documents are sent, the desk says they are being reviewed.
    submit_verification(owner)
    html = client.get(page_url("insights:supplier_desk")).content.decode()
    assert "Your documents are waiting for an operator's review." in html
    assert (
        f'href="{verification_page}"'
        not in html.split("badge-standing", 1)[1].split("</div>", 1)[0]
    )


def test_a_verified_free_company_shows_only_verified(client, supplier):
    owner, company, product = supplier
    verify(company)
    apply_outbox()
    assert selectors.current_plan(company).is_default and not shows_gold_badge(company)
    assert public_marks(client, company, product) == everywhere(False, True)
    assert set(api_marks(company, product).values()) == {False}
    log_in(client, owner)
    desk = client.get(page_url("insights:supplier_desk")).content.decode()
    assert "badge-standing" not in desk


def test_the_badge_goes_when_the_membership_ends(client, supplier):
    owner, company, product = supplier
    verify(company)
    subscription = subscribe(company, gold(), actor=owner)
    services.subscription_cancel(actor=owner, company=company)
    apply_outbox()
    assert public_marks(client, company, product) == everywhere(True, True)
    # The day after the paid period: the cards drop the badge that day, before the timer
    # has run (the index keeps the badge's last day).
    with freeze_time(subscription.ends_on + timedelta(hours=12)):
        assert not shows_gold_badge(company)
        assert public_marks(client, company, product) == everywhere(False, True)
        # The timer closes the period and records the company for the index.
        assert services.subscriptions_expire_due() == 1
        assert company.pk in outbox_companies()
        assert public_marks(client, company, product) == everywhere(False, True)
        assert set(api_marks(company, product).values()) == {False}


def test_losing_the_verified_mark_takes_the_gold_badge_off(client, supplier):
    owner, company, product = supplier
    subscribe(company, gold(), actor=owner)
    verify(company)
    apply_outbox()
    unverify(company)
    assert company.pk in outbox_companies()
    assert public_marks(client, company, product) == everywhere(False, False)


# --- the outbox ----------------------------------------------------------------------------------


def test_every_change_of_plan_or_verification_records_the_company(supplier):
    owner, company, _product = supplier
    outbox_companies()
    subscription = subscribe(company, gold(), actor=owner, paid=False)
    assert outbox_companies() == set()  # an unpaid invoice changes nothing yet
    services.invoice_confirm_payment(actor=make_operator(), invoice_id=subscription.invoice.pk)
    assert outbox_companies() == {company.pk}
    services.subscription_cancel(actor=owner, company=company)
    assert outbox_companies() == {company.pk}
    subscribe(company, gold(), actor=owner)  # asked for again: renews again, nothing to pay
    assert outbox_companies() == {company.pk}
    verify(company)
    assert outbox_companies() == {company.pk}


def test_an_operator_changing_whether_a_plan_gives_the_badge_reindexes_its_members(supplier):
    owner, company, _product = supplier
    plan = make_plan(verified_badge_eligible=False)
    subscribe(company, plan, actor=owner)
    verify(company)
    other_owner, other = make_trader()
    subscribe(other, plan, actor=other_owner)  # not verified: no badge either way
    outbox_companies()
    assert not shows_gold_badge(company)
    plan.verified_badge_eligible = True
    services.plan_save_by_operator(actor=make_operator(), plan=plan)
    assert outbox_companies() == {company.pk}
    assert shows_gold_badge(company)


def test_reindexing_shows_the_badge_on_the_cards(client, supplier):
    """The badge is in the stored documents: a card shows it only once the index knows."""
    owner, company, product = supplier
    verify(company)
    apply_outbox()
    with transaction.atomic():
        subscribe(company, gold(), actor=owner)
    assert public_marks(client, company, product)["product card"] == (False, True)
    apply_outbox()
    assert public_marks(client, company, product)["product card"] == (True, True)


def test_cards_read_the_badge_from_the_index_not_the_database(client):
    gold_plan = gold()
    products = []
    for n in range(8):
        owner, company = make_trader(legal_name=f"Flask Maker {n}")
        subscribe(company, gold_plan, actor=owner)
        verify(company)
        products.append(make_product(company=company, title=f"{TITLE} {n}"))
    index(*products)
    for params in (
        {"q": "flask"},
        {"q": "flask", "sort": "newest"},
        {"q": "maker", "tab": "companies"},
    ):
        with CaptureQueriesContext(connection) as queries:
            answer = client.get("/en/search/", params)
        assert answer.content.decode().count(GOLD_MARK) == 8, params
        assert not [q["sql"] for q in queries if "membership_" in q["sql"]], params


# --- the last day ---------------------------------------------------------------------------------


def test_the_last_day_follows_the_periods(supplier, settings):
    owner, company, _product = supplier
    verify(company)
    today = timezone.localdate()
    grace = timedelta(days=settings.TRADEPOST_MEMBERSHIP_GRACE_DAYS)
    assert gold_badge_until([company.pk]) == {}
    subscription = subscribe(company, gold(), actor=owner)
    # Renewing: the plan holds through the grace period.
    assert gold_badge_until([company.pk]) == {
        company.pk: subscription.ends_on + grace - timedelta(1)
    }
    # Cancelled: it ends with the paid period.
    services.subscription_cancel(actor=owner, company=company)
    assert gold_badge_until([company.pk]) == {company.pk: subscription.last_day}
    # A cheaper plan without the badge paid to follow it: the badge ends where it starts.
    services.plan_change(actor=owner, company=company, plan_id=gold().pk, action="subscribe")
    silver = make_plan(price=100, verified_badge_eligible=False)
    subscribe(company, silver, actor=owner, action="downgrade")
    assert gold_badge_until([company.pk]) == {company.pk: subscription.last_day}
    assert gold_badge_until([company.pk], today=subscription.ends_on) == {}
    assert gold_badge_until([company.pk], today=today) == {company.pk: subscription.last_day}


def test_a_renewal_paid_ahead_extends_the_badge(supplier, settings):
    owner, company, _product = supplier
    verify(company)
    subscription = subscribe(company, gold(), actor=owner)
    today = timezone.localdate()
    set_period(subscription, today - timedelta(days=340), today + timedelta(days=25))
    assert services.renewals_issue_due() == 1
    renewal = selectors.pending_change(company)
    services.invoice_confirm_payment(actor=make_operator(), invoice_id=renewal.invoice.pk)
    renewal.refresh_from_db()
    grace = timedelta(days=settings.TRADEPOST_MEMBERSHIP_GRACE_DAYS)
    assert gold_badge_until([company.pk]) == {company.pk: renewal.ends_on + grace - timedelta(1)}


def test_a_default_plan_that_gives_the_badge_gives_it_to_every_verified_company(supplier):
    _owner, company, _product = supplier
    _unverified_owner, unverified = make_trader()
    Plan.objects.filter(pk=free().pk).update(verified_badge_eligible=True)
    verify(company)
    assert gold_badge_until([company.pk, unverified.pk]) == {company.pk: date.max}
    assert gold_badge_companies([company, unverified]) == {company.pk}


def test_the_page_and_the_bulk_answers_agree(supplier):
    owner, company, _product = supplier
    others = [make_trader()[1] for _ in range(3)]
    verify(company)
    verify(others[0])
    subscribe(company, gold(), actor=owner)
    subscribe(others[1], gold(), actor=others[1].memberships.get(role="owner").user)
    every = [company, *others]
    for one in every:
        one.refresh_from_db()
    assert (
        gold_badge_companies(every) == {c.pk for c in every if shows_gold_badge(c)} == {company.pk}
    )
    standing = badge_standing(others[1])
    assert standing.needs_verification and not standing.shown


@pytest.mark.usefixtures("compiled_catalogues")
@pytest.mark.parametrize(
    ("language", "badge", "legend"),
    [
        ("en", "Gold Supplier", "What the badges mean"),
        ("zh-hans", "金牌供应商", "徽章的含义"),
        ("zh-hant", "金牌供應商", "徽章的含義"),
    ],
)
def test_the_badge_is_explained_in_each_language(client, supplier, language, badge, legend):
    owner, company, _product = supplier
    subscribe(company, gold(), actor=owner)
    verify(company)
    html = client.get(
        page_url("catalog:company_detail", language, slug=company.slug)
    ).content.decode()
    mark = html.split(GOLD_MARK, 1)[1].split("</a>", 1)[0]
    assert badge in mark and 'title="' in mark
    assert f'href="{page_url("membership:plans", language)}#badges"' in html
    plans = client.get(page_url("membership:plans", language)).content.decode()
    assert 'id="badges"' in plans and legend in plans
