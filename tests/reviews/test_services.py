"""Who may review a supplier (only the buyer that awarded it, once per award), what a review
holds, and the refusals: each with its code, and nothing stored when refused."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone, translation

from tests.factories.companies import make_trader
from tests.factories.reviews import make_award, review_fields
from tests.factories.sourcing import make_quotation, make_request
from tradepost.accounts.errors import AccountError, AccountErrorCode
from tradepost.audit.models import AuditEntry
from tradepost.companies.models import Company, Standing
from tradepost.companies.services import company_standing_set
from tradepost.notify.models import Notification, NotificationKind
from tradepost.notify.selectors import notification_text
from tradepost.reviews import selectors, services
from tradepost.reviews.errors import ReviewError, ReviewErrorCode, ReviewNotFound
from tradepost.reviews.models import Review, ReviewStatus

pytestmark = pytest.mark.django_db


def _unchanged(supplier: Company) -> None:
    supplier.refresh_from_db()
    assert Review.objects.count() == 0
    assert (supplier.review_count, supplier.review_rating_sum) == (0, 0)


# --- who may review --------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["owner", "admin", "member"])
def test_any_member_of_the_awarding_buyer_may_review(award, who):
    actor = award.user(who)
    review = services.review_create(
        actor=actor, quotation=award.quotation, rating=5, text="  Excellent.\nOn time.  "
    )
    assert review.supplier == award.supplier
    assert review.buyer == award.cast.company
    assert review.author == actor
    assert review.quotation == award.quotation
    assert (review.rating, review.text) == (5, "Excellent.\nOn time.")
    assert review.request_title == award.quotation.request.title
    assert review.status == ReviewStatus.PUBLISHED
    award.supplier.refresh_from_db()
    assert (award.supplier.review_count, award.supplier.review_rating_sum) == (1, 5)


@pytest.mark.parametrize(
    ("who", "code"),
    [
        ("outsider", ReviewErrorCode.NOT_ALLOWED),  # another company: as if it did not exist
        ("operator", ReviewErrorCode.NO_COMPANY),  # operators do not act for the buyer
        ("loner", ReviewErrorCode.NO_COMPANY),
        ("supplier_owner", ReviewErrorCode.OWN_COMPANY),
        ("supplier_member", ReviewErrorCode.OWN_COMPANY),
    ],
)
def test_nobody_else_may_review(award, who, code):
    with pytest.raises(ReviewError) as refused:
        services.review_create(actor=award.user(who), quotation=award.quotation, **review_fields())
    assert refused.value.code == code
    assert refused.value.kind == code.kind
    _unchanged(award.supplier)


def test_the_refusals_say_why(award):
    with translation.override("en"), pytest.raises(ReviewError) as own:
        services.review_create(
            actor=award.supplier_owner, quotation=award.quotation, **review_fields()
        )
    assert own.value.kind == "forbidden"
    assert own.value.message == "A company cannot review its own quotation."
    with translation.override("zh-hans"), pytest.raises(ReviewError) as chinese:
        services.review_create(
            actor=award.supplier_owner, quotation=award.quotation, **review_fields()
        )
    assert chinese.value.message != own.value.message


@pytest.mark.parametrize("status", ["submitted", "shortlisted", "declined", "not_selected"])
def test_a_quotation_that_was_not_awarded_cannot_be_reviewed(cast, status):
    supplier, _company = make_trader()
    quotation = make_quotation(make_request(actor=cast.owner), actor=supplier)
    if status != "submitted":
        type(quotation).objects.filter(pk=quotation.pk).update(status=status)
    with pytest.raises(ReviewError) as refused:
        services.review_create(actor=cast.owner, quotation=quotation, **review_fields())
    assert refused.value.code == ReviewErrorCode.NOT_AWARDED
    assert refused.value.kind == "conflict"
    assert Review.objects.count() == 0


def test_the_losing_quotations_of_an_awarded_request_cannot_be_reviewed(cast):
    winner, _ = make_trader()
    loser, _ = make_trader()
    request = make_request(actor=cast.owner)
    won = make_quotation(request, actor=winner)
    lost = make_quotation(request, actor=loser)
    from tradepost.sourcing.services import quotation_award

    quotation_award(actor=cast.owner, quotation=won)
    lost.refresh_from_db()
    with pytest.raises(ReviewError) as refused:
        services.review_create(actor=cast.owner, quotation=lost, **review_fields())
    assert refused.value.code == ReviewErrorCode.NOT_AWARDED


def test_one_review_per_award(award):
    services.review_create(actor=award.cast.owner, quotation=award.quotation, **review_fields())
    for who in ("owner", "member"):
        with pytest.raises(ReviewError) as refused:
            services.review_create(
                actor=award.user(who), quotation=award.quotation, **review_fields(rating=1)
            )
        assert refused.value.code == ReviewErrorCode.REVIEW_EXISTS
        assert refused.value.kind == "conflict"
    assert Review.objects.count() == 1
    award.supplier.refresh_from_db()
    assert (award.supplier.review_count, award.supplier.review_rating_sum) == (1, 4)


def test_a_second_award_to_the_same_supplier_is_reviewed_again(award):
    services.review_create(actor=award.cast.owner, quotation=award.quotation, **review_fields())
    _buyer, _supplier, second = make_award(buyer=award.cast.owner, supplier=award.supplier_owner)
    services.review_create(actor=award.cast.member, quotation=second, **review_fields(rating=2))
    award.supplier.refresh_from_db()
    assert (award.supplier.review_count, award.supplier.review_rating_sum) == (2, 6)


def test_an_unverified_email_or_a_suspended_buyer_cannot_review(award):
    member = award.cast.member
    member.email_verified_at = None
    member.save(update_fields=["email_verified_at"])
    with pytest.raises(ReviewError) as unverified:
        services.review_create(actor=member, quotation=award.quotation, **review_fields())
    assert unverified.value.code == ReviewErrorCode.EMAIL_NOT_VERIFIED
    company_standing_set(
        actor=award.cast.operator,
        company=award.cast.company,
        standing=Standing.SUSPENDED,
        reason="Fraud.",
    )
    with pytest.raises(ReviewError) as suspended:
        services.review_create(actor=award.cast.owner, quotation=award.quotation, **review_fields())
    assert suspended.value.code == ReviewErrorCode.COMPANY_SUSPENDED
    _unchanged(award.supplier)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"rating": 0}, "rating"),
        ({"rating": 6}, "rating"),
        ({"rating": 4.5}, "rating"),
        ({"rating": "four"}, "rating"),
        ({"rating": True}, "rating"),
        ({"rating": None}, "rating"),
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 2001}, "text"),
        ({"text": ["a", "b"]}, "text"),
        ({"text": "bad \ud800 surrogate"}, "text"),
    ],
)
def test_bad_fields_are_refused_by_name(award, fields, field):
    with pytest.raises(ReviewError) as refused:
        services.review_create(
            actor=award.cast.owner, quotation=award.quotation, **review_fields(**fields)
        )
    assert refused.value.code == ReviewErrorCode.INVALID
    assert list(refused.value.field_errors) == [field]
    _unchanged(award.supplier)


def test_a_rating_given_as_text_and_the_longest_text_are_taken(award):
    review = services.review_create(
        actor=award.cast.owner, quotation=award.quotation, rating="3", text="y" * 2000
    )
    assert (review.rating, len(review.text)) == (3, 2000)


def test_an_unknown_field_is_refused_by_name(award):
    with pytest.raises(ReviewError) as refused:
        services.review_create(
            actor=award.cast.owner,
            quotation=award.quotation,
            **review_fields(),
            stars=5,  # type: ignore[call-arg]
        )
    assert "stars" in refused.value.message_dict


def test_the_supplier_managers_are_told_in_their_language(
    award, mailoutbox, django_capture_on_commit_callbacks
):
    award.supplier_admin.preferred_language = "zh-hant"
    award.supplier_admin.save(update_fields=["preferred_language"])
    with django_capture_on_commit_callbacks(execute=True):
        review = services.review_create(
            actor=award.cast.owner, quotation=award.quotation, **review_fields(rating=5)
        )
    told = Notification.objects.filter(kind=NotificationKind.REVIEW_RECEIVED)
    assert {n.recipient for n in told} == {award.supplier_owner, award.supplier_admin}
    assert all(n.link == f"/en/companies/{award.supplier.slug}/reviews/" for n in told)
    with translation.override("en"):
        text = notification_text(told.get(recipient=award.supplier_owner))
    title, buyer = award.quotation.request.title, award.cast.company.name_for("en")
    assert text == f"{buyer} reviewed your company for “{title}”: 5 out of 5."
    subjects = {message.to[0]: message.subject for message in mailoutbox}
    assert subjects[award.supplier_owner.email] == "A buyer has reviewed your company on Tradepost"
    assert subjects[award.supplier_admin.email] != subjects[award.supplier_owner.email]
    assert all(review.text in message.body for message in mailoutbox)
    chinese = next(m for m in mailoutbox if m.to == [award.supplier_admin.email])
    assert chinese.extra_headers["Content-Language"] == "zh-hant"
    assert f"/zh-hant/companies/{award.supplier.slug}/reviews/" in chinese.body


# --- replies ---------------------------------------------------------------------------------


@pytest.fixture
def review(award):
    return services.review_create(
        actor=award.cast.member, quotation=award.quotation, **review_fields()
    )


@pytest.mark.parametrize("who", ["supplier_owner", "supplier_admin"])
def test_the_suppliers_owner_and_admins_reply_once(award, review, who):
    replied = services.review_reply(
        actor=award.user(who), review=review, reply="Thank you, we will ship sooner."
    )
    assert replied.reply == "Thank you, we will ship sooner."
    assert replied.reply_author == award.user(who)
    assert replied.replied_at is not None and replied.reply_updated_at is None
    (told,) = Notification.objects.filter(kind=NotificationKind.REVIEW_REPLIED)
    assert told.recipient == award.cast.member  # the review's author


@pytest.mark.parametrize(
    ("who", "code"),
    [
        ("supplier_member", ReviewErrorCode.PERMISSION_DENIED),
        ("owner", ReviewErrorCode.NOT_ALLOWED),  # the buyer does not answer itself
        ("outsider", ReviewErrorCode.NOT_ALLOWED),
        ("operator", ReviewErrorCode.NOT_ALLOWED),
        ("loner", ReviewErrorCode.NOT_ALLOWED),
    ],
)
def test_nobody_else_replies(award, review, who, code):
    with pytest.raises(ReviewError) as refused:
        services.review_reply(actor=award.user(who), review=review, reply="Hello.")
    assert refused.value.code == code
    review.refresh_from_db()
    assert review.reply == "" and review.replied_at is None
    assert not Notification.objects.filter(kind=NotificationKind.REVIEW_REPLIED).exists()


def test_the_reply_may_change_for_48_hours_then_no_longer(award, review):
    first = services.review_reply(actor=award.supplier_owner, review=review, reply="Thanks.")
    changed = services.review_reply(
        actor=award.supplier_admin, review=review, reply="Thanks, see you soon."
    )
    assert changed.reply == "Thanks, see you soon."
    assert changed.replied_at == first.replied_at and changed.reply_updated_at is not None
    # The author is told of the first reply only.
    assert Notification.objects.filter(kind=NotificationKind.REVIEW_REPLIED).count() == 1
    later = first.replied_at + timedelta(hours=48, seconds=1)
    clock = mock.patch("tradepost.reviews.services.timezone.now", return_value=later)
    with clock, pytest.raises(ReviewError) as locked:
        services.review_reply(actor=award.supplier_owner, review=review, reply="Again.")
    assert locked.value.code == ReviewErrorCode.REPLY_LOCKED
    review.refresh_from_db()
    assert review.reply == "Thanks, see you soon."


@pytest.mark.parametrize("reply", ["", "  ", "x" * 2001, 42])
def test_a_bad_reply_is_refused_by_name(award, review, reply):
    with pytest.raises(ReviewError) as refused:
        services.review_reply(actor=award.supplier_owner, review=review, reply=reply)
    assert list(refused.value.field_errors) == ["reply"]


def test_only_the_reviewed_companys_members_fetch_a_review_to_reply(award, review):
    for who in ("supplier_owner", "supplier_member"):
        assert selectors.access_review_for_reply(user=award.user(who), review_id=review.pk)
    for who in ("owner", "outsider", "operator", "loner", "anonymous"):
        with pytest.raises(ReviewNotFound):
            selectors.access_review_for_reply(user=award.user(who), review_id=review.pk)


# --- moderation ------------------------------------------------------------------------------


def test_an_operator_hides_and_restores_a_review_audited(award, review):
    operator = award.cast.operator
    done = services.review_hide(actor=operator, review=review, reason="Insults.")
    assert done.changed and done.review.status == ReviewStatus.HIDDEN
    assert done.review.hidden_reason == "Insults." and done.review.hidden_by == operator
    award.supplier.refresh_from_db()
    assert (award.supplier.review_count, award.supplier.review_rating_sum) == (0, 0)
    again = services.review_hide(actor=operator, review=review, reason="Still.")
    assert not again.changed
    restored = services.review_restore(actor=operator, review=review)
    assert restored.changed and restored.review.status == ReviewStatus.PUBLISHED
    assert restored.review.hidden_reason == ""
    award.supplier.refresh_from_db()
    assert (award.supplier.review_count, award.supplier.review_rating_sum) == (1, 4)
    assert not services.review_restore(actor=operator, review=review).changed
    entries = AuditEntry.objects.filter(target_type="reviews.review", target_id=str(review.pk))
    assert [(e.action, e.actor) for e in entries.order_by("pk")] == [
        ("review.hide", operator),
        ("review.restore", operator),
    ]
    assert entries.order_by("pk").first().changes == {
        "status": ["published", "hidden"],
        "hidden_reason": [None, "Insults."],
    }


@pytest.mark.parametrize("who", ["owner", "supplier_owner", "outsider", "loner"])
def test_only_operators_moderate(award, review, who):
    with pytest.raises(AccountError) as refused:
        services.review_hide(actor=award.user(who), review=review, reason="No.")
    assert refused.value.code == AccountErrorCode.OPERATORS_ONLY
    with pytest.raises(AccountError):
        services.review_restore(actor=award.user(who), review=review)
    review.refresh_from_db()
    assert review.status == ReviewStatus.PUBLISHED
    assert not AuditEntry.objects.filter(action__startswith="review.").exists()


@pytest.mark.parametrize("reason", ["", "x" * 1001, None])
def test_hiding_needs_a_reason(award, review, reason):
    with pytest.raises(ReviewError) as refused:
        services.review_hide(actor=award.cast.operator, review=review, reason=reason)
    assert list(refused.value.field_errors) == ["reason"]
    review.refresh_from_db()
    assert review.status == ReviewStatus.PUBLISHED


def test_a_hidden_review_is_seen_only_by_the_two_companies_and_operators(award, review):
    services.review_hide(actor=award.cast.operator, review=review, reason="Off topic.")
    for who in ("owner", "member", "supplier_member", "operator"):
        assert selectors.access_review(user=award.user(who), review_id=review.pk) == review
    for who in ("outsider", "loner", "anonymous"):
        with pytest.raises(ReviewNotFound):
            selectors.access_review(user=award.user(who), review_id=review.pk)
    public = selectors.company_reviews(company=award.supplier)
    assert list(public) == []
    assert list(selectors.company_reviews(company=award.supplier, viewer=award.supplier_member))
    assert list(selectors.company_reviews(company=award.supplier, viewer=award.cast.operator))


def test_a_deleted_buyer_leaves_its_reviews_and_the_average(award, review):
    from tradepost.companies.services import company_delete_by_operator

    company_delete_by_operator(actor=award.cast.operator, company=award.cast.company)
    review.refresh_from_db()
    assert review.buyer is None and review.quotation is None
    award.supplier.refresh_from_db()
    assert award.supplier.review_count == 1


def test_the_reply_window_is_read_from_the_first_reply(award, review):
    assert selectors.reply_open(review)
    review.replied_at = timezone.now() - timedelta(hours=49)
    assert not selectors.reply_open(review)
