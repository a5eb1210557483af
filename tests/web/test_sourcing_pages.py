from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories.accounts import make_user
from tests.factories.companies import make_trader
from tests.factories.sourcing import make_quotation, make_request
from tests.pages import log_in as _login
from tests.pages import page_url
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus, RequestStatus

pytestmark = pytest.mark.django_db

LANGUAGES = ["en", "zh-hans", "zh-hant"]


def _url(name, language="en", **kwargs):
    return page_url(f"sourcing:{name}", language, **kwargs)


def tier_rows(*rows, initial=0, deleted=()):
    """The volume-price rows of the quotation form, as the browser posts them."""
    data = {"tiers-TOTAL_FORMS": str(len(rows)), "tiers-INITIAL_FORMS": str(initial)}
    for index, (quantity, price) in enumerate(rows):
        data[f"tiers-{index}-min_quantity"] = quantity
        data[f"tiers-{index}-unit_price"] = price
        if index in deleted:
            data[f"tiers-{index}-DELETE"] = "on"
    return data


@pytest.mark.parametrize("language", LANGUAGES)
def test_board_and_detail_render_in_each_language(client, language):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer, title="Bamboo cutting boards")
    response = client.get(_url("board", language))
    assert response.status_code == 200
    assert "Bamboo cutting boards" in response.text
    assert buyer.membership.company.legal_name not in response.text  # hidden identity
    detail = client.get(_url("request_detail", language, pk=request.pk))
    assert detail.status_code == 200
    assert f'lang="{language}"' in detail.text or language == "en"


def test_board_query_count(client, django_assert_max_num_queries):
    for _ in range(5):
        make_request()
    with django_assert_max_num_queries(6):
        response = client.get(_url("board"))
    assert response.status_code == 200


def test_revealed_buyer_is_named(client):
    buyer, company = make_trader(country="NL")
    make_request(actor=buyer, reveal_identity=True)
    assert company.legal_name in client.get(_url("board")).text


@pytest.mark.parametrize("language", LANGUAGES)
def test_buyer_pages_render_in_each_language(client, language):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    make_quotation(request)
    _login(client, buyer)
    for name, kwargs in [
        ("create", {}),
        ("my_requests", {}),
        ("my_quotations", {}),
        ("update", {"pk": request.pk}),
        ("compare", {"pk": request.pk}),
    ]:
        response = client.get(_url(name, language, **kwargs))
        assert response.status_code == 200, name


def test_post_request_through_the_form(client):
    buyer, company = make_trader(country="NL")
    _login(client, buyer)
    from tests.factories.catalog import leaf_category

    data = {
        "title": "Ceramic mugs",
        "original_language": "en",
        "category_id": leaf_category().pk,
        "description": "<p>White</p><script>alert(1)</script>",
        "quantity": "2000",
        "unit": "pieces",
        "target_currency": "",
        "destination_country": "DE",
        "preferred_incoterm": "FOB",
        "required_certifications": "CE, LFGB",
        "deadline": (timezone.localdate() + timedelta(days=10)).isoformat(),
    }
    response = client.post(_url("create"), data)
    created = BuyingRequest.objects.get(buyer=company)
    assert response.status_code == 302
    assert created.required_certifications == ["CE", "LFGB"]
    assert "<script>" not in created.description
    page = client.get(_url("request_detail", pk=created.pk))
    assert "<script>alert(1)</script>" not in page.text


def test_form_errors_are_shown_next_to_fields_and_nothing_saved(client):
    buyer, _company = make_trader()
    _login(client, buyer)
    response = client.post(
        _url("create"),
        {
            "title": "<script>x</script>",
            "quantity": "-4",
            "deadline": (timezone.localdate() - timedelta(days=1)).isoformat(),
        },
    )
    assert response.status_code == 200
    # Each error is what its field's aria-describedby names.
    assert 'id="id_quantity_error"' in response.text
    assert 'aria-describedby="id_quantity_error"' in response.text
    assert 'id="id_deadline_error"' in response.text
    assert "<script>x</script>" not in response.text
    assert BuyingRequest.objects.count() == 0


def test_quote_through_the_form_and_buyer_awards(client):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, supplier_company = make_trader()
    _login(client, supplier)
    assert client.get(_url("quote", pk=request.pk)).status_code == 200
    response = client.post(
        _url("quote", pk=request.pk),
        {
            "unit_price": "3.2",
            "currency": "CNY",
            **tier_rows(("1000", "3.0"), ("5000", "2.8")),
            "moq": "500",
            "lead_time_days": "20",
            "incoterm": "FOB",
            "named_place": "Ningbo",
            "payment_terms": ["tt", "lc"],
            "valid_until": (timezone.localdate() + timedelta(days=30)).isoformat(),
            "message": "Hello",
        },
    )
    assert response.status_code == 302
    quotation = Quotation.objects.get(supplier=supplier_company)
    assert len(quotation.price_tiers) == 2
    client.logout()
    _login(client, buyer)
    compare = client.get(_url("compare", pk=request.pk))
    assert "CN¥3.20" in compare.text
    # Awarding takes a second step: the compare page links to a confirmation page.
    confirm_url = _url("award", pk=quotation.pk)
    assert f'href="{confirm_url}"' in compare.text
    assert client.get(confirm_url).status_code == 200
    assert client.post(confirm_url).status_code == 302  # without the confirmation: nothing
    request.refresh_from_db()
    assert request.status == RequestStatus.OPEN
    assert client.post(confirm_url, {"confirm": "yes"}).status_code == 302
    request.refresh_from_db()
    assert request.status == RequestStatus.AWARDED


def test_other_companies_get_404_and_nothing_changes(client):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    own_user, _c1 = make_trader()
    other_user, _c2 = make_trader()
    mine = make_quotation(request, actor=own_user)
    _login(client, other_user)
    assert client.get(_url("compare", pk=request.pk)).status_code == 404
    assert client.get(_url("update", pk=request.pk)).status_code == 404
    assert client.post(_url("close", pk=request.pk)).status_code == 404
    for name in ("shortlist", "award", "decline"):
        assert client.post(_url(name, pk=mine.pk), {"reason": "x"}).status_code == 404
        assert client.post(_url(name, pk=999_999), {"reason": "x"}).status_code == 404
    _login(client, own_user)  # the quoting supplier is not the buyer either
    assert client.post(_url("award", pk=mine.pk)).status_code == 404
    request.refresh_from_db()
    mine.refresh_from_db()
    assert request.status == RequestStatus.OPEN
    assert mine.status == QuotationStatus.SUBMITTED


def test_anonymous_is_sent_to_login(client):
    request = make_request()
    for name, kwargs in [("create", {}), ("quote", {"pk": request.pk}), ("my_requests", {})]:
        response = client.get(_url(name, **kwargs))
        assert response.status_code == 302
        assert "login" in response["Location"]


def test_sealed_count_hidden_on_detail(client):
    request = make_request(sealed=True)
    make_quotation(request)
    viewer = make_user()
    _login(client, viewer)
    page = client.get(_url("request_detail", pk=request.pk))
    assert "Sealed until the deadline" in page.text


def test_board_filters_through_the_page(client):
    from tests.factories.catalog import make_category

    leaf = make_category(parent=make_category(name_en="Kitchen"), name_en="Flasks")
    wanted = make_request(title="Flasks for Germany", category_id=leaf.pk, destination_country="DE")
    make_request(title="Something for France", destination_country="FR")
    response = client.get(_url("board"), {"category": leaf.pk, "destination": "DE"})
    assert wanted.title in response.text
    assert "Something for France" not in response.text
    assert f'<option value="{leaf.pk}" selected>' in response.text
    hostile = client.get(
        _url("board"),
        {
            "category": "<script>",
            "destination": "<x",
            "quantity_min": "NaN",
            "quantity_max": "1e999",
            "posted_within": "-1",
        },
    )
    assert hostile.status_code == 200


def test_board_filters_have_the_names_of_the_api_and_the_search(client):
    big = make_request(title="Twenty thousand flasks", quantity="20000")
    make_request(title="Fifty mugs", quantity="50")
    old = make_request(title="An old request", quantity="20000")
    BuyingRequest.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    response = client.get(
        _url("board"), {"quantity_min": "1000", "quantity_max": "50000", "posted_within": "30"}
    )
    assert big.title in response.text
    assert "Fifty mugs" not in response.text and old.title not in response.text
    for name in ("quantity_min", "quantity_max", "posted_within", "destination", "category"):
        assert f'name="{name}"' in response.text
    for name in ("min_quantity", "max_quantity", "posted", "destination_country"):
        assert f'name="{name}"' not in response.text
    # The spellings of old filter nothing.
    assert "Fifty mugs" in client.get(_url("board"), {"min_quantity": "1000"}).text


def test_decline_without_reason_is_refused_with_a_message(client):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    quotation = make_quotation(request)
    _login(client, buyer)
    response = client.post(_url("decline", pk=quotation.pk), {"reason": ""}, follow=True)
    assert "This field is required." in response.text
    quotation.refresh_from_db()
    assert quotation.status == QuotationStatus.SUBMITTED


def test_dashboard_lists_query_counts(client, django_assert_max_num_queries):
    buyer, _company = make_trader(country="NL")
    supplier, _c = make_trader()
    requests = [make_request(actor=buyer) for _ in range(4)]
    for item in requests:
        make_quotation(item, actor=supplier)
        make_quotation(item)
    _login(client, buyer)
    # Limits include the header's unread badge (up to 3 queries on every signed-in page).
    with django_assert_max_num_queries(13):
        assert client.get(_url("my_requests")).status_code == 200
    with django_assert_max_num_queries(15):
        assert client.get(_url("compare", pk=requests[0].pk)).status_code == 200
    client.logout()
    _login(client, supplier)
    with django_assert_max_num_queries(13):
        response = client.get(_url("my_quotations"))
    assert response.status_code == 200
    assert response.text.count("Submitted") == 4


@pytest.mark.parametrize("language", LANGUAGES)
def test_outcome_pages_after_award_in_each_language(client, language):
    from tradepost.sourcing import services

    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    winner, _c1 = make_trader()
    loser, _c2 = make_trader()
    won = make_quotation(request, actor=winner)
    make_quotation(request, actor=loser)
    services.quotation_award(actor=buyer, quotation=won)
    for user in (buyer, winner, loser):
        client.logout()
        _login(client, user)
        assert client.get(_url("request_detail", language, pk=request.pk)).status_code == 200
        assert client.get(_url("my_quotations", language)).status_code == 200
    assert client.get(_url("quote", language, pk=request.pk)).status_code == 302
    stranger, _c3 = make_trader()
    client.logout()
    _login(client, stranger)
    assert client.get(_url("request_detail", language, pk=request.pk)).status_code == 404


# --- volume prices as rows ------------------------------------------------------------------


def _quote_fields(**overrides):
    fields = {
        "unit_price": "3.2",
        "currency": "USD",
        "moq": "500",
        "lead_time_days": "20",
        "incoterm": "FOB",
        "named_place": "Ningbo",
        "payment_terms": ["tt"],
        "valid_until": (timezone.localdate() + timedelta(days=30)).isoformat(),
        "message": "Hello",
    }
    fields.update(overrides)
    return fields


@pytest.fixture
def quoting(client):
    buyer, _company = make_trader(country="NL")
    request = make_request(actor=buyer)
    supplier, supplier_company = make_trader()
    _login(client, supplier)
    return request, supplier_company


def test_the_quote_form_offers_volume_price_rows_not_a_hidden_syntax(client, quoting):
    request, _company = quoting
    html = client.get(_url("quote", pk=request.pk)).text
    assert 'name="price_tiers"' not in html
    assert 'name="tiers-TOTAL_FORMS"' in html
    assert 'name="tiers-0-min_quantity"' in html and 'name="tiers-1-unit_price"' in html
    assert "data-formset-add" in html and "<template data-formset-template>" in html
    assert 'name="tiers-__prefix__-min_quantity"' in html  # the row "Add a row" copies
    assert "tradepost/forms.js" in html


def test_volume_price_rows_are_saved_in_quantity_order_blank_and_removed_rows_skipped(
    client, quoting
):
    request, company = quoting
    rows = tier_rows(("5000", "2.8"), ("", ""), ("1000", "3.0"), ("2000", "9"), deleted=(3,))
    response = client.post(_url("quote", pk=request.pk), {**_quote_fields(), **rows})
    assert response.status_code == 302
    quotation = Quotation.objects.get(supplier=company)
    assert quotation.price_tiers == [
        {"min_quantity": "1000.000", "unit_price": "3.0000"},
        {"min_quantity": "5000.000", "unit_price": "2.8000"},
    ]
    # Revising shows the stored rows as numbers a person writes, and a blank row to add one.
    html = client.get(_url("quote", pk=request.pk)).text
    assert 'name="tiers-0-min_quantity" value="1000"' in html
    assert 'name="tiers-1-unit_price" value="2.8"' in html
    assert 'name="tiers-2-min_quantity"' in html


def test_each_bad_row_says_what_is_wrong_in_its_row_and_nothing_is_saved(client, quoting):
    request, company = quoting
    rows = tier_rows(("1000", ""), ("abc", "2.5"), ("-5", "2"), ("1000", "2.9"))
    response = client.post(_url("quote", pk=request.pk), {**_quote_fields(), **rows})
    assert response.status_code == 200
    html = response.text
    assert 'id="id_tiers-0-unit_price_error"' in html
    assert "Give the unit price from this quantity on." in html
    assert 'id="id_tiers-1-min_quantity_error"' in html and "Enter a number." in html
    assert 'id="id_tiers-2-min_quantity_error"' in html
    assert "Enter a number greater than zero." in html
    assert 'aria-describedby="id_tiers-1-min_quantity_error"' in html
    # The summary at the top names the row and links to its box.
    assert 'href="#id_tiers-1-min_quantity"' in html and "Row 2, From quantity" in html
    assert not Quotation.objects.filter(supplier=company).exists()


def test_two_rows_from_the_same_quantity_are_refused(client, quoting):
    request, company = quoting
    rows = tier_rows(("1000", "3"), ("1000", "2.9"))
    response = client.post(_url("quote", pk=request.pk), {**_quote_fields(), **rows})
    assert response.status_code == 200
    assert "Another row already starts from this quantity." in response.text
    assert 'id="id_tiers-1-min_quantity_error"' in response.text
    assert not Quotation.objects.filter(supplier=company).exists()


def test_more_rows_than_allowed_are_refused(client, quoting):
    request, company = quoting
    rows = tier_rows(*[(str(1000 * n), "2") for n in range(1, 13)])
    response = client.post(_url("quote", pk=request.pk), {**_quote_fields(), **rows})
    assert response.status_code == 200
    assert "error-summary" in response.text
    assert not Quotation.objects.filter(supplier=company).exists()


def test_a_post_without_the_rows_quotes_one_price(client, quoting):
    request, company = quoting
    response = client.post(_url("quote", pk=request.pk), _quote_fields())
    assert response.status_code == 302
    assert Quotation.objects.get(supplier=company).price_tiers == []


def test_row_errors_are_in_chinese_on_the_chinese_page(client, quoting):
    request, _company = quoting
    rows = tier_rows(("1000", ""))
    response = client.post(_url("quote", "zh-hans", pk=request.pk), {**_quote_fields(), **rows})
    assert response.status_code == 200
    assert "Give the unit price" not in response.text
    assert 'role="alert"' in response.text


@pytest.mark.parametrize("total", ["x", "-1", "99999999999999999999", "１"])
def test_tampered_row_counts_never_fail_the_page(client, quoting, total):
    request, company = quoting
    data = {**_quote_fields(), **tier_rows(("1000", "3")), "tiers-TOTAL_FORMS": total}
    response = client.post(_url("quote", pk=request.pk), data)
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert "error-summary" in response.text
        assert not Quotation.objects.filter(supplier=company).exists()
