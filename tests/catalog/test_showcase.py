"""The paid showcase (ADR 0026): a company chooses up to its plan's slots of its published
products; the oldest choices show when the plan gives fewer; what may show is never a
draft, a held or hidden listing, or a suspended company's; a page's block matches its words
or its category; nothing in the catalogue is deleted."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product, make_tree, showcase, translate
from tests.factories.companies import add_member, make_cast, make_trader
from tests.factories.membership import gold, make_plan, set_period, subscribe
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.models import Product, ProductStatus, Showcase
from tradepost.catalog.showcase_selectors import (
    HOME_ITEMS,
    PAGE_ITEMS,
    ShowcaseState,
    category_showcase,
    company_showcase,
    forget_showcase_cache,
    home_showcase,
    query_matcher,
    search_showcase,
    showcase_candidates,
)
from tradepost.catalog.showcase_services import showcase_add, showcase_remove
from tradepost.companies.models import Role, Standing
from tradepost.core.errors import ErrorKind
from tradepost.membership.models import Plan
from tradepost.membership.services import plan_save_by_operator

pytestmark = pytest.mark.django_db


def _gold_supplier(**company_fields):
    owner, company = make_trader(**company_fields)
    subscribe(company, gold(), actor=owner)
    return owner, company


def _ids(cards) -> list[int]:
    return [card.product.pk for card in cards]


def _home_ids() -> set[int]:
    forget_showcase_cache()
    return set(_ids(home_showcase(language="en")))


# --- slots by plan ------------------------------------------------------------------------------


def test_the_free_plan_has_no_slots_and_is_refused_clearly():
    owner, company = make_trader()
    product = make_product(company=company)
    with pytest.raises(ProductError) as refused:
        showcase(product, actor=owner)
    assert refused.value.code == ProductErrorCode.SHOWCASE_NO_SLOTS
    assert refused.value.kind is ErrorKind.FORBIDDEN
    assert "no showcase slots" in refused.value.message
    assert "Gold Supplier" in refused.value.message
    assert not Showcase.objects.exists()


def test_gold_gives_its_slots_and_one_more_is_refused():
    owner, company = _gold_supplier()
    slots = gold().showcase_slots
    assert slots == 3
    products = [make_product(company=company) for _ in range(slots + 1)]
    for product in products[:slots]:
        showcase(product, actor=owner)
    with pytest.raises(ProductError) as refused:
        showcase(products[-1], actor=owner)
    assert refused.value.code == ProductErrorCode.SHOWCASE_FULL
    assert refused.value.kind is ErrorKind.CONFLICT
    assert "3" in refused.value.message
    assert Showcase.objects.filter(company=company).count() == slots
    state = company_showcase(company)
    assert (state.slots, state.used, state.free, state.showing) == (3, 3, 0, 3)
    assert [entry.product for entry in state.entries] == products[:slots]
    assert products[-1] in state.choices


def test_choosing_a_showcased_product_again_changes_nothing():
    owner, company = _gold_supplier()
    product = make_product(company=company)
    first = showcase(product, actor=owner)
    assert showcase(product, actor=owner) == first
    assert Showcase.objects.count() == 1


@pytest.mark.parametrize("status", [ProductStatus.DRAFT, ProductStatus.HELD, ProductStatus.HIDDEN])
def test_only_a_published_product_can_be_chosen(status):
    owner, company = _gold_supplier()
    product = make_product(company=company, status=status)
    with pytest.raises(ProductError) as refused:
        showcase(product, actor=owner)
    assert refused.value.code == ProductErrorCode.SHOWCASE_NOT_PUBLISHED
    assert not Showcase.objects.exists()


def test_a_suspended_company_cannot_choose():
    owner, company = _gold_supplier()
    product = make_product(company=company)
    company.standing = Standing.SUSPENDED
    company.save(update_fields=["standing"])
    with pytest.raises(ProductError) as refused:
        showcase(product, actor=owner)
    assert refused.value.code == ProductErrorCode.COMPANY_SUSPENDED
    assert not Showcase.objects.exists()


def test_a_deleted_product_frees_its_slot():
    owner, company = _gold_supplier()
    products = [make_product(company=company) for _ in range(4)]
    for product in products[:3]:
        showcase(product, actor=owner)
    catalog_services.product_delete(actor=owner, product=products[0])
    showcase(products[3], actor=owner)
    assert company_showcase(company).used == 3


# --- who may ------------------------------------------------------------------------------------


def _cast_on_gold():
    cast = make_cast()
    subscribe(cast.company, gold(), actor=cast.owner)
    return cast


#: (who, may choose): owners and admins choose; a plain member reads but may not; another
#: company's owner and a visitor are told the product does not exist; operators may.
MATRIX = [
    ("owner", True),
    ("admin", True),
    ("member", False),
    ("other_company", False),
    ("anonymous", False),
    ("operator", True),
]


@pytest.mark.parametrize(("who", "allowed"), MATRIX)
def test_who_may_choose(who, allowed):
    cast = _cast_on_gold()
    product = make_product(company=cast.company)
    actor = cast.actor(who)
    if allowed:
        showcase_add(actor=actor, product_id=product.pk)
        assert Showcase.objects.filter(product=product).exists()
        return
    expected = ProductErrorCode.SHOWCASE_MANAGERS_ONLY if who == "member" else None
    with pytest.raises(ProductError) as refused:
        showcase_add(actor=actor, product_id=product.pk)
    if expected is None:
        assert isinstance(refused.value, ProductNotFound)
    else:
        assert refused.value.code == expected
        assert refused.value.kind is ErrorKind.FORBIDDEN
    assert not Showcase.objects.exists()


@pytest.mark.parametrize(("who", "allowed"), MATRIX)
def test_who_may_remove(who, allowed):
    cast = _cast_on_gold()
    product = make_product(company=cast.company)
    showcase(product, actor=cast.owner)
    actor = cast.actor(who)
    if allowed:
        showcase_remove(actor=actor, product_id=product.pk)
        assert not Showcase.objects.exists()
        assert Product.objects.get(pk=product.pk).status == ProductStatus.PUBLISHED
        return
    with pytest.raises(ProductError):
        showcase_remove(actor=actor, product_id=product.pk)
    assert Showcase.objects.filter(product=product).exists()


@pytest.mark.parametrize("bad_id", ["abc", "", None, 0, -1, 2**63, 10**9, True, 1.5])
def test_nonsense_and_missing_product_ids_are_not_found(bad_id):
    owner, _company = _gold_supplier()
    with pytest.raises(ProductNotFound):
        showcase_add(actor=owner, product_id=bad_id)
    with pytest.raises(ProductNotFound):
        showcase_remove(actor=owner, product_id=bad_id)


def test_another_companys_product_id_is_not_found_even_on_gold():
    owner, _company = _gold_supplier()
    _other_owner, other = _gold_supplier()
    theirs = make_product(company=other)
    with pytest.raises(ProductNotFound):
        showcase_add(actor=owner, product_id=theirs.pk)
    showcase(theirs, actor=_other_owner)
    with pytest.raises(ProductNotFound):
        showcase_remove(actor=owner, product_id=theirs.pk)
    assert Showcase.objects.filter(product=theirs).exists()


def test_removing_a_product_that_is_not_showcased_is_not_found():
    owner, company = _gold_supplier()
    product = make_product(company=company)
    with pytest.raises(ProductNotFound):
        showcase_remove(actor=owner, product_id=product.pk)


def test_an_operators_choices_are_audited():
    owner, company = _gold_supplier()
    product = make_product(company=company)
    operator = make_operator()
    showcase_add(actor=operator, product_id=product.pk)
    showcase_remove(actor=operator, product_id=product.pk)
    actions = list(
        AuditEntry.objects.filter(
            target_type="catalog.product", target_id=str(product.pk)
        ).values_list("action", flat=True)
    )
    assert sorted(actions) == ["showcase.add", "showcase.remove"]
    # The company's own choices are its business.
    showcase(product, actor=owner)
    assert AuditEntry.objects.filter(action="showcase.add").count() == 1


def test_a_member_may_read_the_showcase():
    cast = _cast_on_gold()
    product = make_product(company=cast.company)
    showcase(product, actor=cast.admin)
    add_member(cast.company, role=Role.MEMBER)
    assert company_showcase(cast.company).used == 1


# --- fewer slots: the oldest keep showing, nothing is deleted -------------------------------------


def test_fewer_slots_keep_the_oldest_choices_and_delete_nothing():
    owner, company = _gold_supplier()
    products = [make_product(company=company) for _ in range(3)]
    for product in products:
        showcase(product, actor=owner)
    assert _home_ids() == {p.pk for p in products}

    # The operator gives Gold one slot: the oldest choice keeps showing, the others wait.
    plan = Plan.objects.get(code="gold")
    plan.showcase_slots = 1
    plan_save_by_operator(actor=make_operator(), plan=plan)
    states = [entry.state for entry in company_showcase(company).entries]
    assert states == [ShowcaseState.SHOWING, ShowcaseState.WAITING, ShowcaseState.WAITING]
    assert _home_ids() == {products[0].pk}
    # No room for a new choice while three wait for one slot.
    with pytest.raises(ProductError) as refused:
        showcase(make_product(company=company), actor=owner)
    assert refused.value.code == ProductErrorCode.SHOWCASE_FULL

    # More slots again: they show again, as they were.
    plan.showcase_slots = 3
    plan_save_by_operator(actor=make_operator(), plan=plan)
    assert _home_ids() == {p.pk for p in products}


def test_the_end_of_the_plan_stops_the_showcase_and_keeps_the_listings():
    owner, company = _gold_supplier()
    products = [make_product(company=company) for _ in range(2)]
    for product in products:
        showcase(product, actor=owner)
    period = company.subscriptions.get(status="active")
    today = timezone.localdate()
    # Ended and not renewed (cancelled at its term's end): back on Free.
    period.auto_renew = False
    period.save(update_fields=["auto_renew"])
    set_period(period, today - timedelta(days=400), today - timedelta(days=30))
    state = company_showcase(company)
    assert state.slots == 0
    assert [entry.state for entry in state.entries] == [ShowcaseState.WAITING] * 2
    assert _home_ids() == set()
    assert Showcase.objects.filter(company=company).count() == 2
    assert Product.objects.filter(company=company, status=ProductStatus.PUBLISHED).count() == 2

    # Back on a paid plan with one slot: the oldest choice shows again.
    one_slot = make_plan(showcase_slots=1, price=Decimal("600.00"))
    subscribe(company, one_slot, actor=owner)
    assert _home_ids() == {products[0].pk}


# --- what never shows ---------------------------------------------------------------------------


def test_hidden_held_unpublished_and_suspended_never_show():
    owner, company = _gold_supplier()
    products = [make_product(company=company) for _ in range(3)]
    for product in products:
        showcase(product, actor=owner)
    assert _home_ids() == {p.pk for p in products}

    catalog_services.product_hide(actor=make_operator(), product=products[0])
    catalog_services.product_unpublish(actor=owner, product=products[1])
    Product.objects.filter(pk=products[2].pk).update(status=ProductStatus.HELD)
    # Even before the cached list is refreshed: the cards are checked again when loaded.
    assert _ids(home_showcase(language="en")) == []
    assert _home_ids() == set()
    states = {entry.product.pk: entry.state for entry in company_showcase(company).entries}
    assert set(states.values()) == {ShowcaseState.NOT_LISTED}

    other_owner, other = _gold_supplier()
    theirs = make_product(company=other)
    showcase(theirs, actor=other_owner)
    assert _home_ids() == {theirs.pk}
    other.standing = Standing.SUSPENDED
    other.save(update_fields=["standing"])
    assert _ids(home_showcase(language="en")) == []  # cached list, checked again
    assert _home_ids() == set()


# --- where it shows -------------------------------------------------------------------------------


@pytest.fixture
def showcased():
    """Three Gold suppliers: a Chinese flask maker, an English one, a pen maker."""
    root, branch, leaf, other_leaf = make_tree()
    owner_a, a = _gold_supplier()
    flask_cn = make_product(
        company=a, title="不锈钢保温杯", original_language="zh-hans", category=leaf
    )
    owner_b, b = _gold_supplier()
    flask_en = make_product(company=b, title="Stainless steel vacuum flask", category=leaf)
    owner_c, c = _gold_supplier()
    pen = make_product(company=c, title="Ballpoint pen, blue ink", category=other_leaf)
    translate(pen, "zh-hans", "圆珠笔")
    for product, owner in ((flask_cn, owner_a), (flask_en, owner_b), (pen, owner_c)):
        showcase(product, actor=owner)
    return {
        "root": root,
        "branch": branch,
        "leaf": leaf,
        "other_leaf": other_leaf,
        "flask_cn": flask_cn,
        "flask_en": flask_en,
        "pen": pen,
    }


def _search(query: str, category=None) -> set[int]:
    cards = search_showcase(
        language="en", query=query, category_id=category.pk if category else None
    )
    return set(_ids(cards))


def test_a_search_shows_the_showcased_products_its_words_match(showcased):
    assert _search("vacuum flask") == {showcased["flask_en"].pk, showcased["flask_cn"].pk}
    assert _search("保温杯") == {showcased["flask_cn"].pk, showcased["flask_en"].pk}
    assert _search("ballpoint pens") == {showcased["pen"].pk}
    assert _search("圆珠笔") == {showcased["pen"].pk}
    assert _search("towels") == set()
    assert _search("") == set()  # no words and no category: no block


def test_a_category_shows_the_showcased_products_filed_under_it(showcased):
    leaf_ids = {showcased["flask_en"].pk, showcased["flask_cn"].pk}
    assert set(_ids(category_showcase(language="en", category=showcased["leaf"]))) == leaf_ids
    assert set(_ids(category_showcase(language="en", category=showcased["branch"]))) == leaf_ids
    everything = set(_ids(category_showcase(language="en", category=showcased["root"])))
    assert everything == leaf_ids | {showcased["pen"].pk}
    # A search within a category: both must match.
    assert _search("", showcased["other_leaf"]) == {showcased["pen"].pk}
    assert _search("vacuum flask", showcased["other_leaf"]) == set()


def test_at_most_a_few_one_per_company_first_in_todays_order():
    suppliers = [_gold_supplier() for _ in range(3)]
    for owner, company in suppliers:
        for n in range(3):
            showcase(make_product(company=company, title=f"Vacuum flask {n}"), actor=owner)
    home = home_showcase(language="en")
    assert len(home) == HOME_ITEMS
    # The first three are three companies; the fourth repeats one.
    assert len({card.product.company_id for card in home[:3]}) == 3
    found = search_showcase(language="en", query="vacuum flask")
    assert len(found) == PAGE_ITEMS
    assert len({card.product.company_id for card in found}) == PAGE_ITEMS
    # The same all day; another day draws another order.
    assert _ids(search_showcase(language="en", query="vacuum flask")) == _ids(found)
    today = timezone.localdate()
    orders = {
        tuple(_ids(home_showcase(language="en", today=today + timedelta(days=n)))) for n in range(6)
    }
    assert len(orders) > 1


def test_a_page_pays_one_query_once_the_list_is_cached(showcased):
    search_showcase(language="en", query="vacuum flask")  # fills the cache
    with CaptureQueriesContext(connection) as queries:
        cards = search_showcase(language="zh-hant", query="保溫杯")
    # The cards' statement, and the machine-translated titles of the cards written in
    # another language (one read for all of them; docs/adr/0036).
    assert len(queries) <= 2, [q["sql"] for q in queries]
    assert all("translation_storedtranslation" in q["sql"] for q in queries[1:])
    assert len(cards) == 2
    with CaptureQueriesContext(connection) as queries:
        assert search_showcase(language="en", query="towels") == []
    assert len(queries) == 0


def test_a_change_of_choice_is_seen_at_once(showcased, django_capture_on_commit_callbacks):
    assert len(showcase_candidates()) == 3
    owner = showcased["pen"].company.memberships.get().user
    with django_capture_on_commit_callbacks(execute=True):
        showcase_remove(actor=owner, product_id=showcased["pen"].pk)
    assert len(showcase_candidates()) == 2
    with django_capture_on_commit_callbacks(execute=True):
        showcase(showcased["pen"], actor=owner)
    assert len(showcase_candidates()) == 3


def test_the_query_matcher_needs_most_of_a_longer_query(showcased):
    matches = query_matcher("stainless steel vacuum flask with handle and lid")
    assert matches is not None
    candidates = {c.product_id: c for c in showcase_candidates()}
    assert matches(candidates[showcased["flask_en"].pk])
    assert not matches(candidates[showcased["pen"].pk])
    assert query_matcher("   ") is None


# --- the operators' admin -------------------------------------------------------------------------


def test_operators_read_the_choices_and_may_take_one_out(client):
    owner, company = _gold_supplier()
    product = make_product(company=company, title="Vacuum flask for the admin")
    chosen = showcase(product, actor=owner)
    client.force_login(make_operator())
    listing = client.get("/admin/catalog/showcase/")
    assert listing.status_code == 200 and "Vacuum flask for the admin" in listing.text
    assert client.get(f"/admin/catalog/showcase/{chosen.pk}/change/").status_code == 200
    response = client.post(
        "/admin/catalog/showcase/",
        {"action": "remove_from_showcase", "_selected_action": [chosen.pk]},
    )
    assert response.status_code == 302
    assert not Showcase.objects.exists()
    assert Product.objects.get(pk=product.pk).status == ProductStatus.PUBLISHED
    assert AuditEntry.objects.filter(action="showcase.remove").count() == 1
