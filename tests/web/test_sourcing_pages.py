from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from tests.factories import PASSWORD, make_user
from tests.sourcing.factories import make_quotation, make_request, make_trader
from tradepost.sourcing.models import BuyingRequest, Quotation, QuotationStatus, RequestStatus

pytestmark = pytest.mark.django_db

LANGUAGES = ["en", "zh-hans", "zh-hant"]


def _url(name, language="en", **kwargs):
    with translation.override(language):
        return reverse(f"sourcing:{name}", kwargs=kwargs or None)


def _login(client, user):
    assert client.login(email=user.email, password=PASSWORD)


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
    from tests.factories import leaf_category

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
    assert 'id="id_quantity_errors"' in response.text
    assert 'id="id_deadline_errors"' in response.text
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
            "price_tiers": "1000, 3.0\n5000, 2.8",
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
    assert "3.2 CNY" in compare.text
    assert client.post(_url("award", pk=quotation.pk)).status_code == 302
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
    from tests.factories import make_category

    leaf = make_category(parent=make_category(name_en="Kitchen"), name_en="Flasks")
    wanted = make_request(title="Flasks for Germany", category_id=leaf.pk, destination_country="DE")
    make_request(title="Something for France", destination_country="FR")
    response = client.get(_url("board"), {"category": leaf.pk, "destination": "DE"})
    assert wanted.title in response.text
    assert "Something for France" not in response.text
    assert f'<option value="{leaf.pk}" selected>' in response.text
    hostile = client.get(
        _url("board"),
        {"category": "<script>", "destination": "<x", "min_quantity": "NaN", "posted": "-1"},
    )
    assert hostile.status_code == 200


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
