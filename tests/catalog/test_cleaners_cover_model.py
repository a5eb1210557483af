"""The model's own validation skips the product fields whose cleaner covers it
(`catalog.services.fields._CLEANER_COVERED`): every value such a cleaner accepts, the model field
accepts too. Fed the same hostile values, a cleaner made laxer than its model field (a longer
limit, a choice the field lacks) fails here."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from tests.factories.catalog import product_fields
from tests.factories.companies import make_trader
from tradepost.catalog import services as catalog
from tradepost.catalog.errors import ProductError
from tradepost.catalog.models import Category, Product
from tradepost.catalog.services import fields
from tradepost.core.cleaning import FieldInvalid

pytestmark = pytest.mark.django_db


def _texts(limit: int) -> list[Any]:
    return [
        "",
        " ",
        "a",
        "x" * (limit - 1),
        "x" * limit,
        "x" * (limit + 1),
        "é" * limit,
        "漢" * (limit + 1),
        " " + "x" * limit + " ",
        "a\nb",
        "a\x00b",
        "\ud800",
        "<script>alert(1)</script>",
        "USD",
        "usd",
        "CN",
        "cn",
        "zh-hans",
        "zh-Hans",
        "en",
        "pieces",
        "sets",
        "FOB",
        "tt",
        "9403.20",
        "940320",
        "94",
        12,
        -1,
        0,
        3650,
        3651,
        1.5,
        True,
        None,
        Decimal("7"),
        ["FOB", "CIF"],
        ["FOB", "nope"],
        ["fob"],
        [["Material", "steel"]],
        [{"name": "Colour", "value": "x" * 400}],
        [{"name": "", "value": ""}],
        {"a": 1},
    ]


def _values(target: str) -> list[Any]:
    field = Product._meta.get_field(target)
    limit = getattr(field, "max_length", None) or 300
    values = _texts(limit)
    if target == "category":
        leaf = Category.objects.filter(is_leaf=True).first()
        branch = Category.objects.filter(is_leaf=False).first()
        values += [leaf.pk, str(leaf.pk), branch.pk, leaf, branch, 10**9]
    return values


def test_every_field_the_model_skips_has_a_cleaner_and_no_number_is_among_them():
    assert fields._CLEANER_COVERED
    assert not fields._CLEANER_COVERED & fields._DECIMAL_FIELDS
    for target in fields._CLEANER_COVERED:
        assert not isinstance(Product._meta.get_field(target), type(Product._meta.get_field("moq")))


@pytest.mark.parametrize(
    "name",
    sorted(
        name
        for name, (target, _cleaner, _options) in fields._FIELD_CLEANERS.items()
        if target in fields._CLEANER_COVERED
    ),
)
def test_what_a_covering_cleaner_accepts_the_model_field_accepts(name):
    target, cleaner, options = fields._FIELD_CLEANERS[name]
    field = Product._meta.get_field(target)
    instance = Product()
    accepted = 0
    for value in _values(target):
        try:
            clean = cleaner(value, **options)
        except (FieldInvalid, UnicodeError):
            # (The HTML sanitiser cannot encode a lone surrogate: none reaches a cleaner,
            # the request guard and the import's reader replace or refuse them before.)
            continue
        accepted += 1
        if field.is_relation:
            clean = clean.pk
        try:
            field.clean(clean, instance)
        except ValidationError as refusal:
            pytest.fail(
                f"{name}: the cleaner takes {value!r} ({clean!r}), the model not: {refusal}"
            )
    assert accepted, f"{name}: no value accepted, the test checks nothing"


def test_a_number_with_too_many_decimal_places_is_still_refused_by_the_model():
    owner, company = make_trader()
    with pytest.raises(ProductError) as refused:
        catalog.product_create(actor=owner, company=company, **product_fields(moq="1.23456"))
    assert set(refused.value.message_dict) == {"moq"}
    with pytest.raises(ProductError) as refused:
        catalog.product_draft_check(company=company, **product_fields(price_max="1" * 20))
    assert set(refused.value.message_dict) == {"price_max"}
