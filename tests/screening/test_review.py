"""The operators' review of held listings: approve publishes, reject sends the listing back to
the drafts with a reason told to the company in its language; both audited; only operators
decide, and only what is held."""

from __future__ import annotations

import pytest

from tests.factories.screening import held_product
from tradepost.accounts.errors import AccountError
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.listing_screening import access_held_product, held_listings, review
from tradepost.catalog.models import ProductStatus
from tradepost.catalog.selectors import get_published_product
from tradepost.companies.models import Standing

pytestmark = pytest.mark.django_db


def test_approving_publishes_and_is_audited(cast, mailoutbox, django_capture_on_commit_callbacks):
    product = held_product(cast.member, cast.company)
    with django_capture_on_commit_callbacks(execute=True):
        approved = catalog_services.product_review_approve(actor=cast.operator, product=product)
    assert approved.status == ProductStatus.PUBLISHED and approved.published_at is not None
    assert get_published_product(product.pk) is not None
    (entry,) = AuditEntry.objects.filter(action="product.review_approve")
    assert entry.actor == cast.operator
    assert entry.changes == {"status": ["held", "published"], "banned_terms": [None, ["ivory"]]}
    assert sorted(mail.to[0] for mail in mailoutbox) == sorted([cast.owner.email, cast.admin.email])
    assert mailoutbox[0].subject == "Your listing is published after review"


REJECTED_MAIL = {  # the subject and a sentence of the mail, by the company's language
    "en": ("Your listing was not approved for publication", "did not approve it"),
    "zh-hans": ("您的产品未获准发布", "未批准其发布"),
    "zh-hant": ("您的產品未獲准發佈", "未核准其發佈"),
}


def test_rejecting_returns_it_to_the_drafts_and_tells_why_in_the_companys_language(
    cast, mailoutbox, django_capture_on_commit_callbacks, company_language
):
    language = company_language
    subject, sentence = REJECTED_MAIL[language]
    cast.owner.preferred_language = "en"  # the company's language, not the reader's
    cast.owner.save()
    product = held_product(cast.member, cast.company)
    with django_capture_on_commit_callbacks(execute=True):
        rejected = catalog_services.product_review_reject(
            actor=cast.operator, product=product, reason="不得销售象牙制品。"
        )
    assert rejected.status == ProductStatus.DRAFT
    assert get_published_product(product.pk) is None
    (entry,) = AuditEntry.objects.filter(action="product.review_reject")
    assert entry.changes["status"] == ["held", "draft"]
    assert entry.changes["reason"] == [None, "不得销售象牙制品。"]
    mail = next(m for m in mailoutbox if m.to == [cast.owner.email])
    assert mail.subject == subject
    assert sentence in mail.body and "不得销售象牙制品。" in mail.body
    assert f"/{language}/dashboard/products/{product.pk}/update/" in mail.body


def test_a_rejected_listing_published_again_is_held_again(cast):
    product = held_product(cast.member, cast.company)
    catalog_services.product_review_reject(actor=cast.operator, product=product, reason="No.")
    again = catalog_services.product_publish(actor=cast.member, product=product)
    assert again.status == ProductStatus.HELD


@pytest.mark.parametrize("reason", ["", "   ", None, 42, "x" * 1001])
def test_a_rejection_needs_a_reason(cast, reason):
    product = held_product(cast.member, cast.company)
    with pytest.raises(ProductError) as refused:
        catalog_services.product_review_reject(actor=cast.operator, product=product, reason=reason)
    assert refused.value.code == ProductErrorCode.INVALID and "reason" in refused.value.message_dict
    product.refresh_from_db()
    assert product.status == ProductStatus.HELD


@pytest.mark.parametrize("who", ["owner", "admin", "member", "outsider"])
def test_only_operators_decide(cast, who):
    product = held_product(cast.member, cast.company)
    actor = cast.user(who)
    with pytest.raises(AccountError):
        catalog_services.product_review_approve(actor=actor, product=product)
    with pytest.raises(AccountError):
        catalog_services.product_review_reject(actor=actor, product=product, reason="No.")
    product.refresh_from_db()
    assert product.status == ProductStatus.HELD
    assert not AuditEntry.objects.filter(action__startswith="product.review").exists()
    with pytest.raises(ProductNotFound):
        access_held_product(user=actor, product_id=product.pk)


def test_a_listing_no_longer_held_is_not_decided_again(cast):
    product = held_product(cast.member, cast.company)
    catalog_services.product_review_approve(actor=cast.operator, product=product)
    with pytest.raises(ProductError) as refused:
        catalog_services.product_review_reject(actor=cast.operator, product=product, reason="No.")
    assert refused.value.code == ProductErrorCode.NOT_HELD
    with pytest.raises(ProductNotFound):
        access_held_product(user=cast.operator, product_id=product.pk)


def test_a_suspended_companys_listing_is_not_approved(cast):
    product = held_product(cast.member, cast.company)
    cast.company.standing = Standing.SUSPENDED
    cast.company.save()
    with pytest.raises(ProductError) as refused:
        catalog_services.product_review_approve(actor=cast.operator, product=product)
    assert refused.value.code == ProductErrorCode.COMPANY_SUSPENDED


def test_the_queue_shows_each_term_in_its_context(cast):
    product = held_product(
        cast.member,
        cast.company,
        title="Carved ivory figurine",
        description="<p>" + "Fine work. " * 20 + "Real IVORY &amp; jade base.</p>",
        attributes=[{"name": "Material", "value": "Ivory"}],
    )
    (listing,) = held_listings()
    found = review(listing)
    assert listing.pk == product.pk and [term.term for term in found.terms] == ["ivory"]
    by_part = {finding.part: finding for finding in found.findings}
    assert set(by_part) == {"title", "description", "attributes"}
    (excerpt,) = by_part["description"].excerpts
    assert excerpt.cut_before and not excerpt.cut_after
    assert ("IVORY", True) in excerpt.parts
    assert by_part["description"].matched == ["IVORY"]
    assert "&amp;" not in "".join(text for text, _mark in excerpt.parts)
    assert str(by_part["title"].label) == "Title"
