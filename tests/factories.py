"""Factories shared by the tests: users, companies with members, categories, products."""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

from django.utils import timezone

from tradepost.accounts.models import User
from tradepost.catalog.models import Category, Product, ProductStatus
from tradepost.companies.models import Company, Membership, Role

_seq = itertools.count(1)

PASSWORD = "correct-horse-battery-9"


def make_user(*, email: str | None = None, verified: bool = True, **extra: Any) -> User:
    n = next(_seq)
    user = User.objects.create_user(
        email or f"user{n}@example.com",
        PASSWORD,
        email_verified_at=timezone.now() if verified else None,
        **extra,
    )
    return user


def make_operator(**extra: Any) -> User:
    return make_user(is_staff=True, is_superuser=True, **extra)


def make_company(*, owner: User | None = None, country: str = "CN", **fields: Any) -> Company:
    n = next(_seq)
    company = Company.objects.create(
        slug=fields.pop("slug", f"company-{n}"),
        legal_name=fields.pop("legal_name", f"Company {n} Co., Ltd."),
        country=country,
        business_types=fields.pop("business_types", ["manufacturer"]),
        **fields,
    )
    if owner is not None:
        Membership.objects.create(user=owner, company=company, role=Role.OWNER)
    return company


def add_member(company: Company, *, role: str = Role.MEMBER, user: User | None = None) -> User:
    user = user or make_user()
    Membership.objects.create(user=user, company=company, role=role)
    return user


def make_category(*, parent: Category | None = None, **fields: Any) -> Category:
    n = next(_seq)
    path = f"{parent.path}.{n:04d}" if parent else f"9{n:03d}"
    if parent is not None and parent.is_leaf:
        parent.is_leaf = False
        parent.save(update_fields=["is_leaf"])
    return Category.objects.create(
        slug=fields.pop("slug", f"test-category-{n}"),
        parent=parent,
        path=path,
        depth=(parent.depth + 1) if parent else 0,
        name_en=fields.pop("name_en", f"Test category {n}"),
        name_zh_hans=fields.pop("name_zh_hans", f"测试类目{n}"),
        name_zh_hant=fields.pop("name_zh_hant", f"測試類目{n}"),
        **fields,
    )


def leaf_category() -> Category:
    """A leaf of the shipped tree when it is loaded, else a fresh test leaf."""
    leaf = Category.objects.filter(is_leaf=True, depth__gt=0).order_by("path").first()
    return leaf or make_category(parent=make_category())


def make_product(
    *, company: Company | None = None, status: str = ProductStatus.PUBLISHED, **fields: Any
) -> Product:
    company = company or make_company()
    product = Product.objects.create(
        company=company,
        slug=fields.pop("slug", "product"),
        title=fields.pop("title", f"Stainless steel vacuum flask {next(_seq)}"),
        category=fields.pop("category", None) or leaf_category(),
        moq=fields.pop("moq", Decimal("100")),
        moq_unit=fields.pop("moq_unit", "pieces"),
        price_min=fields.pop("price_min", Decimal("2.50")),
        price_max=fields.pop("price_max", Decimal("3.80")),
        currency=fields.pop("currency", "USD"),
        status=status,
        published_at=timezone.now() if status == ProductStatus.PUBLISHED else None,
        **fields,
    )
    return product
