"""Who may manage which products: the access helpers and every service, role by role."""

from __future__ import annotations

import pytest

from tests.factories.accounts import make_user
from tests.factories.catalog import make_product, product_fields, snapshot
from tests.factories.companies import ALLOWED_ROLES, ROLES
from tests.factories.images import image_upload
from tradepost.catalog import services
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.permissions import (
    access_product,
    access_product_image,
    products_company,
)
from tradepost.companies.actors import actor_for

pytestmark = pytest.mark.django_db


def _product_with_image(cast, status=ProductStatus.DRAFT):
    product = make_product(company=cast.company, status=status)
    image = services.product_image_add(
        actor=cast.actor("owner"), product=product, upload=image_upload()
    )
    return product, image


ACTIONS = {
    "update": lambda actor, product, image: services.product_update(
        actor=actor, product=product, title="Changed"
    ),
    "publish": lambda actor, product, image: services.product_publish(actor=actor, product=product),
    "unpublish": lambda actor, product, image: services.product_unpublish(
        actor=actor, product=product
    ),
    "delete": lambda actor, product, image: services.product_delete(actor=actor, product=product),
    "image_add": lambda actor, product, image: services.product_image_add(
        actor=actor, product=product, upload=image_upload()
    ),
    "image_remove": lambda actor, product, image: services.product_image_remove(
        actor=actor, product=product, image_id=image.pk
    ),
    "image_reorder": lambda actor, product, image: services.product_image_reorder(
        actor=actor, product=product, image_ids=[image.pk]
    ),
    "translation_set": lambda actor, product, image: services.product_translation_set(
        actor=actor, product=product, language="zh-hans", title="标题"
    ),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_service_permission_matrix(cast, role, action):
    status = ProductStatus.PUBLISHED if action == "unpublish" else ProductStatus.DRAFT
    product, image = _product_with_image(cast, status=status)
    before = snapshot(product)
    actor = cast.actor(role)
    if role in ALLOWED_ROLES:
        ACTIONS[action](actor, product, image)
        assert snapshot(product) != before
    else:
        with pytest.raises(ProductError) as caught:
            ACTIONS[action](actor, product, image)
        assert caught.value.code == ProductErrorCode.NOT_ALLOWED
        assert snapshot(product) == before


@pytest.mark.parametrize("role", ROLES)
def test_create_permission_matrix(cast, role):
    actor = cast.actor(role)
    if role in ALLOWED_ROLES:
        product = services.product_create(actor=actor, company=cast.company, **product_fields())
        assert product.company == cast.company
    else:
        with pytest.raises(ProductError):
            services.product_create(actor=actor, company=cast.company, **product_fields())
        assert not Product.objects.filter(company=cast.company).exists()


@pytest.mark.parametrize("role", ROLES)
def test_access_product(cast, role):
    product, image = _product_with_image(cast)
    actor = cast.actor(role)
    if role in ALLOWED_ROLES:
        assert access_product(user=actor, product_id=product.pk) == product
        assert access_product_image(user=actor, product_id=product.pk, image_id=image.pk) == image
        assert actor_for(actor).works_for(cast.company)
    else:
        with pytest.raises(ProductNotFound):
            access_product(user=actor, product_id=product.pk)
        with pytest.raises(ProductNotFound):
            access_product_image(user=actor, product_id=product.pk, image_id=image.pk)
        assert not actor_for(actor).works_for(cast.company)


@pytest.mark.parametrize("bad_id", [None, "", "abc", -1, 0, 2**64, "1; DROP TABLE"])
def test_access_product_with_nonsense_ids_is_not_found(cast, bad_id):
    with pytest.raises(ProductNotFound):
        access_product(user=cast.actor("owner"), product_id=bad_id)


def test_deleted_products_are_not_found(cast):
    product = make_product(company=cast.company, status=ProductStatus.DELETED)
    with pytest.raises(ProductNotFound):
        access_product(user=cast.actor("owner"), product_id=product.pk)
    with pytest.raises(ProductNotFound):
        access_product(user=cast.actor("operator"), product_id=product.pk)


def test_image_of_another_product_is_not_found(cast):
    product, _image = _product_with_image(cast)
    _other, other_image = _product_with_image(cast)
    with pytest.raises(ProductNotFound):
        access_product_image(
            user=cast.actor("owner"), product_id=product.pk, image_id=other_image.pk
        )


def test_inactive_member_manages_nothing(cast):
    member = cast.actor("member")
    member.is_active = False
    member.save()
    assert not actor_for(member).works_for(cast.company)


def test_the_company_of_new_products(cast):
    owner, stranger, operator = (
        cast.actor("owner"),
        cast.actor("other_company"),
        cast.actor("operator"),
    )
    assert products_company(user=owner) == cast.company
    assert products_company(user=owner, company_id=cast.company.pk) == cast.company
    assert products_company(user=operator, company_id=cast.company.pk) == cast.company
    # Naming another company looks like naming a company that does not exist.
    for user, company_id in ((stranger, cast.company.pk), (owner, 987654), (owner, "x")):
        with pytest.raises(ProductNotFound):
            products_company(user=user, company_id=company_id)
    # Without a company of their own (an operator too), nobody adds products.
    for user in (operator, make_user()):
        with pytest.raises(ProductError) as refused:
            products_company(user=user)
        assert refused.value.code == ProductErrorCode.NO_COMPANY
