"""The membership pages in the three languages, and the links that lead to them."""

from __future__ import annotations

import pytest

from tests.factories.membership import gold, subscribe
from tests.pages import log_in, page_url
from tests.test_translations import compiled_catalogues  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

TITLES = {"en": "Membership plans", "zh-hans": "会员方案", "zh-hant": "會員方案"}
GOLD = {"en": "Gold Supplier", "zh-hans": "金牌供应商", "zh-hant": "金牌供應商"}


@pytest.mark.usefixtures("compiled_catalogues")
@pytest.mark.parametrize("language", sorted(TITLES))
def test_the_plans_page_in_each_language(client, language):
    html = client.get(page_url("membership:plans", language)).content.decode()
    assert TITLES[language] in html and GOLD[language] in html
    assert "2,000.00" in html


@pytest.mark.usefixtures("compiled_catalogues")
@pytest.mark.parametrize("language", sorted(TITLES))
def test_the_membership_page_in_each_language(client, cast, language):
    subscribe(cast.company, gold(), actor=cast.owner)
    log_in(client, cast.owner)
    html = client.get(page_url("membership:overview", language)).content.decode()
    assert GOLD[language] in html
    assert page_url("membership:cancel", language) in html


def test_the_dashboard_and_the_operator_desk_link_here(client, cast):
    log_in(client, cast.owner)
    dashboard = client.get(page_url("accounts:dashboard")).content.decode()
    assert page_url("membership:overview") in dashboard and "Membership: Free" in dashboard
    log_in(client, cast.operator)
    desk = client.get(page_url("insights:operator_desk")).content.decode()
    assert page_url("membership:payments") in desk


def test_a_change_asks_for_confirmation_first(client, cast):
    log_in(client, cast.owner)
    page = client.get(page_url("membership:change", plan_id=gold().pk)).content.decode()
    assert 'name="action" value="subscribe"' in page and "US$2,000.00" in page
