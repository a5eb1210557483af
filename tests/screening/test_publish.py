"""Publishing screens a listing: a banned term in its title, description, keywords,
attributes or translations holds it for review instead (not public, not in search); the
company is told in its language, without the term; the audit log keeps the term. Editing a
held listing and publishing it again screens it again."""

from __future__ import annotations

import pytest
from django.utils import translation

from tests.factories.catalog import product_fields, translate
from tests.factories.screening import ban, held_product
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.listing_screening import screen_listing
from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.selectors import get_published_product
from tradepost.screening import services
from tradepost.search.indexer import apply_outbox
from tradepost.search.selectors import search_products

pytestmark = pytest.mark.django_db


def draft(cast, **fields) -> Product:
    return catalog_services.product_create(
        actor=cast.member, company=cast.company, **product_fields(**fields)
    )


def publish(cast, product: Product) -> Product:
    return catalog_services.product_publish(actor=cast.member, product=product)


@pytest.mark.parametrize(
    "fields",
    [
        {"title": "Hand-carved IVORY chopsticks"},
        {"description": "<p>Made of <strong>ivory</strong>, 20 cm.</p>"},
        {"keywords": "chopsticks, Ivory, gift"},
        {"attributes": [{"name": "Material", "value": "Ivory"}]},
        {"title": "天然象牙筷子", "original_language": "zh-hans"},
        {"title": "天然象牙筷子", "original_language": "zh-hant"},
        {"title": "天然象 牙筷子", "original_language": "zh-hans"},
    ],
    ids=["title", "description", "keywords", "attributes", "chinese", "traditional", "spaced"],
)
def test_a_banned_term_anywhere_holds_the_listing(cast, fields):
    ban("ivory", actor=cast.operator)
    ban("象牙", actor=cast.operator)
    product = publish(cast, draft(cast, **fields))
    assert product.status == ProductStatus.HELD
    product.refresh_from_db()
    assert product.status == ProductStatus.HELD and product.published_at is None
    assert get_published_product(product.pk) is None


def test_a_term_in_a_translation_holds_the_listing(cast):
    ban("象牙", language="zh-hans", actor=cast.operator)
    product = draft(cast, title="Bone chopsticks")
    translate(product, "zh-hant", "象牙筷子")  # traditional text, a simplified term
    assert publish(cast, product).status == ProductStatus.HELD


def test_a_clean_listing_is_published_and_words_inside_words_do_not_count(cast):
    ban("gun", actor=cast.operator)
    product = publish(cast, draft(cast, title="It has begun: burgundy glue-free mugs"))
    assert product.status == ProductStatus.PUBLISHED


def test_a_term_of_one_language_screens_only_texts_in_it(cast):
    ban("gift", language="de", actor=cast.operator)  # German for poison
    english = publish(cast, draft(cast, title="Gift box", original_language="en"))
    german = publish(cast, draft(cast, title="Gift für Ratten", original_language="de"))
    assert english.status == ProductStatus.PUBLISHED
    assert german.status == ProductStatus.HELD


def test_an_inactive_term_holds_nothing(cast):
    term = ban("ivory", actor=cast.operator)
    services.banned_term_update(actor=cast.operator, banned_term=term, active=False)
    assert publish(cast, draft(cast, title="Ivory chopsticks")).status == ProductStatus.PUBLISHED


def test_a_held_listing_is_not_in_search(cast):
    ban("ivory", actor=cast.operator)
    held = publish(cast, draft(cast, title="Ivory chopsticks"))
    clean = publish(cast, draft(cast, title="Bamboo chopsticks"))
    apply_outbox()
    found = {hit.product.pk for hit in search_products(query="chopsticks", language="en").hits}
    assert clean.pk in found and held.pk not in found


def test_the_hold_is_audited_with_the_terms(cast):
    ban("ivory", actor=cast.operator)
    product = publish(cast, draft(cast, title="Ivory chopsticks"))
    (entry,) = AuditEntry.objects.filter(action="product.hold")
    assert entry.actor == cast.member and entry.target_id == str(product.pk)
    assert entry.changes == {"status": ["draft", "held"], "banned_terms": [None, ["ivory"]]}


HELD_MAIL = {  # the subject and a sentence of the mail, by the company's language
    "en": ("Your listing is held for review on Tradepost", "held for review"),
    "zh-hans": ("您的产品在 Tradepost 上待审核", "待审核"),
    "zh-hant": ("您的產品在 Tradepost 上待審核", "待審核"),
}


def test_the_company_is_told_in_its_language_without_the_term(
    cast, mailoutbox, django_capture_on_commit_callbacks, company_language
):
    language = company_language
    subject, sentence = HELD_MAIL[language]
    ban("ivory", actor=cast.operator)
    product = draft(cast, title="Ivory chopsticks")
    with django_capture_on_commit_callbacks(execute=True):
        publish(cast, product)
    # The owner and the admin, and the member who published.
    assert sorted(mail.to[0] for mail in mailoutbox) == sorted(
        [cast.owner.email, cast.admin.email, cast.member.email]
    )
    mail = mailoutbox[0]
    assert mail.subject == subject
    assert sentence in mail.body and "Ivory chopsticks" in mail.body
    assert "ivory" not in mail.body.replace("Ivory chopsticks", "")
    assert f"/{language}/dashboard/products/{product.pk}/update/" in mail.body


def test_publishing_a_held_listing_again_screens_it_again(
    cast, mailoutbox, django_capture_on_commit_callbacks
):
    product = held_product(cast.member, cast.company)
    with django_capture_on_commit_callbacks(execute=True):
        again = publish(cast, product)  # unchanged: still held, nobody told twice
    assert again.status == ProductStatus.HELD and mailoutbox == []
    catalog_services.product_update(actor=cast.member, product=product, title="Bone figurine")
    assert Product.objects.get(pk=product.pk).status == ProductStatus.HELD  # editing keeps it
    assert publish(cast, product).status == ProductStatus.PUBLISHED
    assert AuditEntry.objects.filter(action="product.hold").count() == 1


def test_a_held_listing_can_be_withdrawn_to_the_drafts(cast):
    product = held_product(cast.member, cast.company)
    withdrawn = catalog_services.product_unpublish(actor=cast.member, product=product)
    assert withdrawn.status == ProductStatus.DRAFT


def test_a_change_to_the_list_is_seen_at_the_next_publish(cast):
    """The list is compiled once per version: adding, editing and deactivating a term
    change the version, without anything else being told."""
    product = draft(cast, title="Ivory chopsticks")
    assert not screen_listing(product).held
    term = ban("ivory", actor=cast.operator)
    assert screen_listing(product).held
    services.banned_term_update(actor=cast.operator, banned_term=term, term="tusk")
    assert not screen_listing(product).held
    services.banned_term_update(actor=cast.operator, banned_term=term, term="ivory")
    assert screen_listing(product).held
    services.banned_term_delete(actor=cast.operator, banned_term=term)
    assert not screen_listing(product).held


def test_operators_publishing_are_screened_too(cast):
    ban("ivory", actor=cast.operator)
    product = draft(cast, title="Ivory chopsticks")
    held = catalog_services.product_publish(actor=cast.operator, product=product)
    assert held.status == ProductStatus.HELD


def test_the_supplier_page_explains_the_hold(cast, client):
    product = held_product(cast.member, cast.company)
    client.force_login(cast.member)
    with translation.override("en"):
        page = client.get(f"/en/dashboard/products/{product.pk}/update/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Held for review" in text and "Withdraw from review" in text
    assert "ivory" not in text.lower().replace("carved ivory figurine", "")


def test_an_edit_that_brings_a_term_into_a_published_listing_holds_it(cast):
    ban("ivory", actor=cast.operator)
    product = publish(cast, draft(cast, title="Bone chopsticks"))
    assert product.status == ProductStatus.PUBLISHED
    catalog_services.product_update(actor=cast.member, product=product, keywords="bamboo")
    assert Product.objects.get(pk=product.pk).status == ProductStatus.PUBLISHED
    edited = catalog_services.product_update(
        actor=cast.member, product=product, description="<p>Real ivory tips.</p>"
    )
    assert edited.status == ProductStatus.HELD
    assert get_published_product(product.pk) is None


def test_a_translation_that_brings_a_term_holds_the_listing(cast):
    ban("象牙", actor=cast.operator)
    product = publish(cast, draft(cast, title="Bone chopsticks"))
    catalog_services.product_translation_set(
        actor=cast.member, product=product, language="zh-hant", title="象牙筷子"
    )
    assert Product.objects.get(pk=product.pk).status == ProductStatus.HELD


def test_an_approved_listing_stays_published_when_edited_without_new_terms(cast):
    product = held_product(cast.member, cast.company)
    catalog_services.product_review_approve(actor=cast.operator, product=product)
    edited = catalog_services.product_update(actor=cast.member, product=product, moq="50")
    assert edited.status == ProductStatus.PUBLISHED
    ban("figurine", actor=cast.operator)  # a term added to the list later: not brought by an edit
    edited = catalog_services.product_update(actor=cast.member, product=product, moq="60")
    assert edited.status == ProductStatus.PUBLISHED
