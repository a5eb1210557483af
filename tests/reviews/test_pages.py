"""The review pages as people use them: the buyer's form from an awarded request, the company
page's rating and latest reviews in three languages, the reviews page with its replies, the
supplier's reply form, the operators' hide and restore, and who is refused."""

from __future__ import annotations

import re

import pytest

from tests.factories.companies import make_trader
from tests.factories.reviews import make_award, review_fields
from tests.factories.sourcing import make_quotation, make_request
from tests.pages import page_url
from tradepost.reviews import services
from tradepost.reviews.models import Review, ReviewStatus

pytestmark = pytest.mark.django_db


def _create_url(quotation, language: str = "en") -> str:
    return page_url("reviews:create", language, quotation_id=quotation.pk)


def _reviews_url(company, language: str = "en") -> str:
    return page_url("reviews:company_reviews", language, slug=company.slug)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_buyer_reviews_the_awarded_supplier_from_the_request(award, client):
    client.force_login(award.cast.member)
    detail = client.get(page_url("sourcing:request_detail", pk=award.quotation.request_id))
    assert _create_url(award.quotation) in detail.content.decode()
    compare = client.get(page_url("sourcing:compare", pk=award.quotation.request_id))
    assert _create_url(award.quotation) in compare.content.decode()
    form = client.get(_create_url(award.quotation))
    assert form.status_code == 200
    assert 'name="rating"' in form.content.decode() and 'name="text"' in form.content.decode()
    response = client.post(
        _create_url(award.quotation), {"rating": "5", "text": "Perfect <b>flasks</b>."}
    )
    assert response.status_code == 302
    assert response["Location"] == _reviews_url(award.supplier)
    review = Review.objects.get()
    assert (review.rating, review.text, review.author) == (
        5,
        "Perfect <b>flasks</b>.",
        award.cast.member,
    )
    page = client.get(response["Location"]).content.decode()
    assert "Perfect &lt;b&gt;flasks&lt;/b&gt;." in page  # stored as typed, escaped when shown
    assert "5.0 ★ (1 review)" in _text(page)
    # The form now shows the review instead.
    again = client.get(_create_url(award.quotation)).content.decode()
    assert 'name="text"' not in again and "Perfect &lt;b&gt;flasks" in again


def test_a_refused_review_says_why_and_stores_nothing(award, client):
    client.force_login(award.cast.owner)
    response = client.post(_create_url(award.quotation), {"rating": "9", "text": ""})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Give a rating from 1 to 5 stars." in html and "This field is required." in html
    services.review_create(actor=award.cast.owner, quotation=award.quotation, **review_fields())
    twice = client.post(_create_url(award.quotation), {"rating": "1", "text": "Again."})
    assert twice.status_code == 409
    assert Review.objects.count() == 1


def test_the_supplier_and_other_companies_cannot_review(award, client):
    client.force_login(award.supplier_owner)
    own = client.get(_create_url(award.quotation))
    assert own.status_code == 200
    assert "A company cannot review its own quotation." in own.content.decode()
    assert 'name="text"' not in own.content.decode()
    posted = client.post(_create_url(award.quotation), {"rating": "5", "text": "We are great."})
    assert posted.status_code == 403
    client.force_login(award.cast.outsider)
    assert client.get(_create_url(award.quotation)).status_code == 404
    assert client.post(_create_url(award.quotation), review_fields()).status_code == 404
    client.logout()
    assert client.get(_create_url(award.quotation)).status_code == 302  # to the login page
    assert Review.objects.count() == 0


def test_a_quotation_not_awarded_cannot_be_reviewed_yet(cast, client):
    supplier, _company = make_trader()
    quotation = make_quotation(make_request(actor=cast.owner), actor=supplier)
    client.force_login(cast.owner)
    html = client.get(_create_url(quotation)).content.decode()
    assert "Only the supplier whose quotation you awarded can be reviewed" in html
    response = client.post(_create_url(quotation), {"rating": "4", "text": "Quick."})
    assert response.status_code == 409
    assert Review.objects.count() == 0


def _reviewed(award, *ratings: int) -> list[Review]:
    """Reviews of `award.supplier`: the first on the award, the others on new awards."""
    reviews = [
        services.review_create(
            actor=award.cast.owner, quotation=award.quotation, rating=ratings[0], text="First."
        )
    ]
    for number, rating in enumerate(ratings[1:], start=2):
        buyer, _supplier, quotation = make_award(supplier=award.supplier_owner)
        reviews.append(
            services.review_create(
                actor=buyer, quotation=quotation, rating=rating, text=f"Review {number}."
            )
        )
    return reviews


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "4.5 ★ (2 reviews)"),
        ("zh-hans", "4.5 ★（2 条评价）"),
        ("zh-hant", "4.5 ★（2 則評價）"),
    ],
)
def test_the_company_page_shows_the_rating_in_each_language(award, client, language, expected):
    profile = page_url("catalog:company_detail", language, slug=award.supplier.slug)
    before = client.get(profile).content.decode()
    assert "★" not in before and "company-reviews" not in before
    _reviewed(award, 5, 4)
    html = client.get(profile).content.decode()
    assert expected in _text(html)
    assert "First." in html and "Review 2." in html
    assert _reviews_url(award.supplier, language) in html


def test_one_review_reads_in_the_singular(award, client):
    _reviewed(award, 3)
    html = client.get(page_url("catalog:company_detail", slug=award.supplier.slug))
    assert "3.0 ★ (1 review)" in _text(html.content.decode())


def test_the_reviews_page_is_paged_newest_first(award, client, django_assert_max_num_queries):
    reviews = _reviewed(award, *([4] * 11))
    with django_assert_max_num_queries(8):
        first = client.get(_reviews_url(award.supplier))
    ids = [int(i) for i in re.findall(r'id="review-(\d+)"', first.content.decode())]
    newest = sorted((r for r in reviews), key=lambda r: (r.created_at, r.pk), reverse=True)
    assert ids == [r.pk for r in newest[:10]]
    second = client.get(_reviews_url(award.supplier), {"page": 2}).content.decode()
    assert [int(i) for i in re.findall(r'id="review-(\d+)"', second)] == [newest[10].pk]


def test_the_owner_and_admins_reply_under_a_review(award, client):
    (review,) = _reviewed(award, 2)
    for who, offered in (
        ("supplier_owner", True),
        ("supplier_admin", True),
        ("supplier_member", False),
        ("owner", False),
        ("operator", False),
    ):
        client.force_login(award.user(who))
        html = client.get(_reviews_url(award.supplier)).content.decode()
        form = page_url("reviews:reply", review_id=review.pk)
        assert (form in html) is offered, who
    client.force_login(award.supplier_admin)
    response = client.post(
        page_url("reviews:reply", review_id=review.pk),
        {"reply": "Sorry for the delay: the next order ships first."},
        follow=True,
    )
    assert "Your reply is published under the review." in response.content.decode()
    client.logout()
    public = client.get(_reviews_url(award.supplier)).content.decode()
    assert "Sorry for the delay: the next order ships first." in public
    assert "The supplier's reply" in public


def test_a_plain_member_or_another_company_cannot_reply(award, client):
    (review,) = _reviewed(award, 2)
    url = page_url("reviews:reply", review_id=review.pk)
    client.force_login(award.supplier_member)
    response = client.post(url, {"reply": "Not my place."}, follow=True)
    assert "Only the owner and the admins of the company may reply" in response.content.decode()
    client.force_login(award.cast.outsider)
    assert client.post(url, {"reply": "Hi."}).status_code == 404
    client.force_login(award.cast.owner)  # the reviewing buyer
    assert client.post(url, {"reply": "Hi."}).status_code == 404
    review.refresh_from_db()
    assert review.reply == ""


def test_operators_hide_and_restore_on_the_reviews_page(award, client):
    (review,) = _reviewed(award, 1)
    client.force_login(award.cast.operator)
    html = client.get(_reviews_url(award.supplier)).content.decode()
    assert page_url("reviews:hide", review_id=review.pk) in html
    client.post(page_url("reviews:hide", review_id=review.pk), {"reason": "Insults."})
    review.refresh_from_db()
    assert review.status == ReviewStatus.HIDDEN
    award.supplier.refresh_from_db()
    assert award.supplier.review_count == 0
    html = client.get(_reviews_url(award.supplier)).content.decode()
    assert "Hidden by the operators: Insults." in html
    assert page_url("reviews:restore", review_id=review.pk) in html
    client.logout()
    public = client.get(_reviews_url(award.supplier)).content.decode()
    assert f'id="review-{review.pk}"' not in public and "No reviews yet." in public
    client.force_login(award.supplier_member)  # the company sees it, and why
    assert (
        "Hidden by the operators: Insults."
        in client.get(_reviews_url(award.supplier)).content.decode()
    )
    client.force_login(award.cast.operator)
    client.post(page_url("reviews:restore", review_id=review.pk))
    review.refresh_from_db()
    assert review.status == ReviewStatus.PUBLISHED


@pytest.mark.parametrize("who", ["supplier_owner", "owner", "outsider"])
def test_only_operators_reach_hide_and_restore(award, client, who):
    (review,) = _reviewed(award, 1)
    client.force_login(award.user(who))
    assert (
        client.post(page_url("reviews:hide", review_id=review.pk), {"reason": "x"}).status_code
        == 404
    )
    assert client.post(page_url("reviews:restore", review_id=review.pk)).status_code == 404
    review.refresh_from_db()
    assert review.status == ReviewStatus.PUBLISHED


def test_a_suspended_suppliers_reviews_page_is_gone(award, client):
    from tradepost.companies.models import Standing
    from tradepost.companies.services import company_standing_set

    _reviewed(award, 5)
    company_standing_set(
        actor=award.cast.operator, company=award.supplier, standing=Standing.SUSPENDED, reason="x"
    )
    assert client.get(_reviews_url(award.supplier)).status_code == 404


def test_the_review_form_in_traditional_chinese(award, client):
    client.force_login(award.cast.owner)
    html = client.get(_create_url(award.quotation, "zh-hant")).content.decode()
    assert "評價" in html and "發布評價" in html


def test_the_company_page_reads_its_reviews_in_one_query(award, client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    profile = page_url("catalog:company_detail", slug=award.supplier.slug)
    client.get(profile)  # warm what is read once a minute
    with CaptureQueriesContext(connection) as without:
        client.get(profile)
    _reviewed(award, 5, 4, 3, 2)
    with CaptureQueriesContext(connection) as with_reviews:
        html = client.get(profile).content.decode()
    assert len(with_reviews) == len(without) + 1
    assert html.count('class="review card') == 3  # the newest three
