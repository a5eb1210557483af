"""The operators' banned-term pages and review queue as people use them: who may open them
(a visitor signs in, a member of any company gets the 404 page, an operator the page), adding
one term and many, editing, deactivating and deleting, the queue with the terms highlighted
in context, approve and reject; the supplier's publish message; the operator desk's link."""

from __future__ import annotations

import pytest

from tests.factories.catalog import product_fields
from tests.factories.screening import ban, held_product
from tests.pages import page_url
from tests.test_translations import compiled_catalogues  # noqa: F401 (a fixture)
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.models import Product, ProductStatus
from tradepost.screening.models import BannedTerm

pytestmark = pytest.mark.django_db


def _pages(term, product) -> dict[str, str]:
    return {
        "terms": page_url("screening:terms"),
        "update": page_url("screening:term_update", banned_term_id=term.pk),
        "delete": page_url("screening:term_delete", banned_term_id=term.pk),
        "held": page_url("screening:held"),
    }


def _posts(term, product) -> dict[str, tuple[str, dict]]:
    return {
        "add": (page_url("screening:terms"), {"term": "gun", "language": "any"}),
        "bulk": (page_url("screening:terms_bulk"), {"terms": "gun\nknife", "language": "any"}),
        "update": (
            page_url("screening:term_update", banned_term_id=term.pk),
            {"term": "tusk", "language": "any"},
        ),
        "deactivate": (page_url("screening:term_deactivate", banned_term_id=term.pk), {}),
        "activate": (page_url("screening:term_activate", banned_term_id=term.pk), {}),
        "delete": (page_url("screening:term_delete", banned_term_id=term.pk), {}),
        "approve": (page_url("screening:held_approve", product_id=product.pk), {}),
        "reject": (
            page_url("screening:held_reject", product_id=product.pk),
            {"reason": "Not allowed."},
        ),
    }


@pytest.mark.parametrize("who", ["owner", "admin", "member", "outsider", "loner"])
def test_nobody_but_an_operator_opens_or_posts_to_the_pages(cast, client, who):
    product = held_product(cast.member, cast.company)
    term = BannedTerm.objects.get()
    client.force_login(cast.user(who))
    for name, url in _pages(term, product).items():
        assert client.get(url).status_code == 404, name
    for name, (url, data) in _posts(term, product).items():
        assert client.post(url, data).status_code == 404, name
    assert list(BannedTerm.objects.values_list("term", "active")) == [("ivory", True)]
    assert Product.objects.get(pk=product.pk).status == ProductStatus.HELD


def test_a_visitor_is_sent_to_sign_in(cast, client):
    response = client.get(page_url("screening:terms"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_an_operator_manages_the_list(cast, client):
    client.force_login(cast.operator)
    response = client.post(
        page_url("screening:terms"), {"term": "Ivory", "language": "any", "note": "CITES"}
    )
    assert response.status_code == 302
    term = BannedTerm.objects.get()
    assert (term.normalized, term.note, term.active) == ("ivory", "CITES", False)  # unticked
    client.post(page_url("screening:term_activate", banned_term_id=term.pk))
    term.refresh_from_db()
    assert term.active
    response = client.post(
        page_url("screening:terms_bulk"),
        {"terms": "gun\n象牙\nIVORY", "language": "any", "note": ""},
        follow=True,
    )
    html = response.content.decode()
    assert "2 terms added to the list." in html and "IVORY" in html
    listing = client.get(page_url("screening:terms"), {"q": "象"}).content.decode()
    assert "象牙" in listing and ">gun<" not in listing
    client.post(
        page_url("screening:term_update", banned_term_id=term.pk),
        {"term": "ivory tusk", "language": "en", "note": "", "active": "on"},
    )
    client.post(page_url("screening:term_deactivate", banned_term_id=term.pk))
    term.refresh_from_db()
    assert (term.normalized, term.language, term.active) == ("ivory tusk", "en", False)
    assert (
        "Delete"
        in client.get(page_url("screening:term_delete", banned_term_id=term.pk)).content.decode()
    )
    client.post(page_url("screening:term_delete", banned_term_id=term.pk))
    assert not BannedTerm.objects.filter(pk=term.pk).exists()
    actions = list(AuditEntry.objects.order_by("id").values_list("action", flat=True))
    assert actions == [
        "banned_term.create",
        "banned_term.update",
        "banned_term.create",
        "banned_term.create",
        "banned_term.update",
        "banned_term.update",
        "banned_term.delete",
    ]


@pytest.mark.usefixtures("compiled_catalogues")
def test_bad_input_shows_the_form_again_in_the_operators_language(cast, client):
    ban("ivory", actor=cast.operator)
    client.force_login(cast.operator)
    url = page_url("screening:terms", "zh-hans")
    response = client.post(url, {"term": "ＩＶＯＲＹ", "language": "any"})
    assert response.status_code == 400 and "已在列表中" in response.content.decode()
    bulk = client.post(
        page_url("screening:terms_bulk", "zh-hans"), {"terms": "gun\n!!!", "language": "any"}
    )
    assert bulk.status_code == 400 and "第 2 行" in bulk.content.decode()
    assert BannedTerm.objects.count() == 1


def test_the_queue_highlights_the_terms_and_the_operator_decides(cast, client):
    product = held_product(
        cast.member, cast.company, description="<p>Hand-carved <em>ivory</em>, 12 cm.</p>"
    )
    other = held_product(cast.member, cast.company, title="Ivory bangle")
    client.force_login(cast.operator)
    html = client.get(page_url("screening:held")).content.decode()
    assert "<mark>ivory</mark>" in html and "<mark>Ivory</mark> bangle" in html
    assert "Carved <mark>ivory</mark> figurine" in html
    response = client.post(page_url("screening:held_approve", product_id=product.pk), follow=True)
    assert "The listing is published." in response.content.decode()
    assert Product.objects.get(pk=product.pk).status == ProductStatus.PUBLISHED
    refused = client.post(
        page_url("screening:held_reject", product_id=other.pk), {"reason": ""}, follow=True
    )
    assert Product.objects.get(pk=other.pk).status == ProductStatus.HELD
    assert "This field is required." in refused.content.decode()
    client.post(page_url("screening:held_reject", product_id=other.pk), {"reason": "No ivory."})
    assert Product.objects.get(pk=other.pk).status == ProductStatus.DRAFT
    # Decided: no longer in the queue.
    assert client.post(page_url("screening:held_approve", product_id=other.pk)).status_code == 404
    assert (
        "No listing is held for review." in client.get(page_url("screening:held")).content.decode()
    )


@pytest.mark.usefixtures("compiled_catalogues")
def test_the_supplier_is_told_the_listing_is_held_in_their_language(cast, client):
    ban("ivory", actor=cast.operator)
    product = catalog_services.product_create(
        actor=cast.member, company=cast.company, **product_fields(title="Ivory comb")
    )
    client.force_login(cast.member)
    response = client.post(page_url("products:publish", "zh-hans", pk=product.pk), follow=True)
    html = response.content.decode()
    assert "该产品待审核" in html and "ivory" not in html.lower().replace("ivory comb", "")
    listed = client.get(page_url("products:list", "zh-hans"), {"status": "held"}).content.decode()
    assert "Ivory comb" in listed and "撤回审核" in listed


def test_the_operator_desk_links_the_queue_and_the_list(cast, client):
    held_product(cast.member, cast.company)
    client.force_login(cast.operator)
    html = client.get(page_url("insights:operator_desk")).content.decode()
    assert page_url("screening:held") in html and page_url("screening:terms") in html
    assert "1 listing held for review" in html


def test_the_queue_reads_the_same_number_of_queries_for_more_listings(cast, client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    held_product(cast.member, cast.company)
    client.force_login(cast.operator)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(page_url("screening:held")).status_code == 200
        return len(queries)

    count()  # the first page load fills the per-process caches (exchange rates)
    few = count()
    for number in range(4):
        held_product(cast.member, cast.company, title=f"Ivory comb {number}")
    assert count() == few
