"""`tradepost bench hydration`: the ORM reading it times the hand-built path against gives the
same cards, and the command reports both."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench import hydration_bench
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tradepost.catalog.models import ProductImage, ProductStatus, ProductTranslation

pytestmark = pytest.mark.django_db


def _card(card):
    product = card.product
    return (
        card.text,
        card.thumbnail_url,
        card.company_name,
        card.company_country,
        card.category_name,
        product.status,
        product.price_min,
        product.published_at,
        product.incoterms,
        product.company.is_verified,
        product.category.path,
    )


def test_the_orm_reference_gives_the_hand_built_cards():
    translated = make_product(
        company=make_company(country="TW", english_name="Formosa Trading"),
        title="不鏽鋼保溫杯",
        original_language="zh-hant",
    )
    ProductTranslation.objects.create(product=translated, language="en", title="Steel flask")
    ProductImage.objects.create(product=translated, image="", thumbnail="", position=0)
    ProductImage.objects.create(
        product=translated, image="products/a.jpg", thumbnail="", position=1, width=9, height=9
    )
    hidden = make_product(title="Hidden mug")
    hidden.status = ProductStatus.DRAFT
    hidden.save(update_fields=["status"])
    ids = [translated.id, hidden.id, make_product(title="Plain mug").id, 10**9]
    for language in ("en", "zh-hans", "zh-hant"):
        hand = hydration_bench.hand_built_cards(ids, language=language)
        orm = hydration_bench.orm_cards(ids, language=language)
        assert set(hand) == set(orm) == set(ids[:3])
        assert {pk: _card(card) for pk, card in hand.items()} == {
            pk: _card(card) for pk, card in orm.items()
        }
    assert orm[translated.id].thumbnail_url.endswith("products/a.jpg")


def test_the_command_reports_both_ways(capsys):
    for number in range(21):
        make_product(title=f"Mug {number}")
    call_command("bench", "hydration")
    out = capsys.readouterr().out
    assert "hand-built p50" in out and "ORM p50" in out and "21 products" in out


def test_the_command_needs_a_page_of_products():
    with pytest.raises(CommandError, match="Fewer published products"):
        call_command("bench", "hydration")
