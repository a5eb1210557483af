"""Operators hide and restore listings; suppliers cannot undo a moderation hide."""

import pytest
from django.urls import reverse

from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tradepost.accounts.errors import AccountError
from tradepost.catalog import services
from tradepost.catalog.errors import ProductError
from tradepost.catalog.models import ProductStatus
from tradepost.search.models import IndexOutbox

pytestmark = pytest.mark.django_db


def test_operator_hides_a_listing_and_the_supplier_cannot_publish_it_again():
    owner = make_user()
    product = make_product(company=make_company(owner=owner))
    outbox_before = IndexOutbox.objects.count()

    services.product_hide(actor=make_operator(), product=product)

    product.refresh_from_db()
    assert product.status == ProductStatus.HIDDEN
    assert IndexOutbox.objects.count() == outbox_before + 1
    with pytest.raises(ProductError):
        services.product_publish(actor=owner, product=product)
    product.refresh_from_db()
    assert product.status == ProductStatus.HIDDEN


def test_restore_returns_a_hidden_listing_to_draft():
    product = make_product(status=ProductStatus.HIDDEN)
    services.product_restore(actor=make_operator(), product=product)
    product.refresh_from_db()
    assert product.status == ProductStatus.DRAFT


@pytest.mark.parametrize("role", ["owner", "stranger"])
def test_non_operators_cannot_moderate(role):
    owner = make_user()
    product = make_product(company=make_company(owner=owner))
    actor = owner if role == "owner" else make_user()
    with pytest.raises(AccountError):
        services.product_hide(actor=actor, product=product)
    product.refresh_from_db()
    assert product.status == ProductStatus.PUBLISHED


def test_admin_action_hides_the_selected_products_and_the_public_page_is_gone(client):
    product = make_product()
    client.force_login(make_operator())
    response = client.post(
        reverse("admin:catalog_product_changelist"),
        {"action": "hide_by_moderation", "_selected_action": [product.pk]},
    )
    assert response.status_code == 302
    product.refresh_from_db()
    assert product.status == ProductStatus.HIDDEN
    page = client.get(
        reverse("catalog:product_detail", kwargs={"pk": product.pk, "slug": product.slug})
    )
    assert page.status_code == 404
