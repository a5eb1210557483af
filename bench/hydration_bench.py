"""`tradepost bench hydration`: loading a page of search results by hand against the ORM.

`tradepost.catalog.hydration.load_products` builds the 20 products of a results page from one
hand-written statement. `orm_cards` below reads the same cards through the ORM (`only()`,
`select_related`, `values_list`): it is the reference the hand-built path must equal (the
tests compare the two on every field a card shows) and the one it must beat by more than a
fifth of the page time to be kept (docs/adr/0013-result-hydration.md). Both run here, in turn,
on the same random pages of published products, in the same process.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any


def _only_fields() -> list[str]:
    """What a card reads, as `QuerySet.only` names it: `hydration.CARD_FIELDS`."""
    from tradepost.catalog.hydration import CARD_FIELDS
    from tradepost.catalog.models import Category, Product
    from tradepost.companies.models import Company

    return [
        *(CARD_FIELDS[Product] or ()),
        *(f"company__{name}" for name in CARD_FIELDS[Company] or ()),
        *(f"category__{name}" for name in CARD_FIELDS[Category] or ()),
    ]


def orm_cards(ids: Iterable[int], *, language: str) -> dict[int, Any]:
    """{id: ProductCard} through the ORM: the products with company and category, their
    translations into the languages `language`'s viewer may be shown (theirs, the other
    Chinese script, English: `catalog.selectors.fallback_languages`), their pictures (the
    first with a file gives the thumbnail), their machine-translated titles. Three or four
    queries."""
    from tradepost.catalog.machine_texts import attach_machine_listings
    from tradepost.catalog.models import Product, ProductImage, ProductTranslation
    from tradepost.catalog.selectors import ProductCard, fallback_languages, localised_text
    from tradepost.core.countries import country_name
    from tradepost.core.languages import normalise_ui_language

    ids = [int(i) for i in ids]
    language = normalise_ui_language(language)
    translations: dict[int, list[Any]] = {}
    for pk, product_id, code, title, text in ProductTranslation.objects.filter(
        product_id__in=ids, language__in=fallback_languages(language)
    ).values_list("id", "product_id", "language", "title", "description"):
        translations.setdefault(product_id, []).append(
            ProductTranslation(
                id=pk, product_id=product_id, language=code, title=title, description=text
            )
        )
    urls: dict[int, str] = {}
    pictures = (
        ProductImage.objects.filter(product_id__in=ids)
        .order_by("product_id", "position", "id")
        .values_list("product_id", "thumbnail", "image")
    )
    for product_id, thumbnail, image in pictures:
        if product_id in urls or not (thumbnail or image):
            continue
        name, file = ("thumbnail", thumbnail) if thumbnail else ("image", image)
        urls[product_id] = str(ProductImage._meta.get_field(name).storage.url(file))  # type: ignore[attr-defined]
    cards = {}
    products = (
        Product.objects.filter(pk__in=ids)
        .select_related("company", "category")
        .only(*_only_fields())
    )
    products = list(products)
    for product in products:
        product.viewer_translations = translations.get(product.pk, [])  # type: ignore[attr-defined]
    attach_machine_listings(products, language, whole=False)  # as both readings must
    for product in products:
        cards[product.pk] = ProductCard(
            product=product,
            text=localised_text(product, language),
            thumbnail_url=urls.get(product.pk, ""),
            company_name=product.company.name_for(language),
            company_country=country_name(product.company.country, language),
            category_name=product.category.name_for(language),
        )
    return cards


def hand_built_cards(ids: Iterable[int], *, language: str) -> dict[int, Any]:
    """The same through `catalog.hydration` (what the search uses)."""
    from tradepost.catalog.hydration import load_products, product_card

    return {
        pk: product_card(product, url, language)
        for pk, (product, url) in load_products(list(ids), language).items()
    }


def _timed(function: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    started = time.perf_counter()
    function(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def run(*, pages: int = 400, page_size: int = 20, seed: int = 1) -> dict[str, Any]:
    """Both ways on the same random pages of published products, alternating which goes
    first; medians and 95th percentiles in ms, and their ratio."""
    from tradepost.catalog.models import Product, ProductStatus

    ids = list(Product.objects.filter(status=ProductStatus.PUBLISHED).values_list("id", flat=True))
    if len(ids) < page_size:
        raise RuntimeError("Fewer published products than a page: load the demo or generate.")
    rng = random.Random(seed)
    times: dict[str, list[float]] = {"hand": [], "orm": []}
    for turn in range(pages):
        page = rng.sample(ids, page_size)
        language = rng.choice(["en", "zh-hans", "zh-hant"])
        order = ("hand", "orm") if turn % 2 else ("orm", "hand")
        for way in order:
            function = hand_built_cards if way == "hand" else orm_cards
            times[way].append(_timed(function, page, language=language))

    def summary(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "p50_ms": round(statistics.median(ordered), 3),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
        }

    hand, orm = summary(times["hand"]), summary(times["orm"])
    return {
        "products": len(ids),
        "pages": pages,
        "page_size": page_size,
        "hand_built": hand,
        "orm": orm,
        "orm_over_hand_p50": round(orm["p50_ms"] / hand["p50_ms"], 2),
        "saved_p50_ms": round(orm["p50_ms"] - hand["p50_ms"], 3),
    }
