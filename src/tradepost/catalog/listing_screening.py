"""The catalogue's side of the banned-term screening (docs/adr/0023-banned-terms.md).

`screen_listing` hands the screening app every text of a listing, each in its language: the
title, the description (as plain text), the keywords, the attributes, and the title and
description of each translation. `catalog.services.product_publish` holds a listing for
review when it finds a term; the operators' queue reads `held_listings` and
`held_reviews` (the terms found, shown in their context) and fetches a held listing by id
through `access_held_product` only.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext_lazy as _

from tradepost.accounts.selectors import is_operator
from tradepost.catalog.errors import ProductNotFound
from tradepost.catalog.models import Product, ProductStatus, ProductTranslation
from tradepost.core.html import html_to_text
from tradepost.core.ids import parse_id
from tradepost.core.languages import LISTING_LANGUAGES
from tradepost.screening.models import BannedTerm
from tradepost.screening.selectors import (
    Excerpt,
    ScreenedText,
    Verdict,
    excerpts,
    screen,
    screen_each,
)

#: The parts of a listing that are screened, as the review queue names them.
PART_LABELS = {
    "title": _("Title"),
    "description": _("Description"),
    "keywords": _("Keywords"),
    "attributes": _("Attributes"),
}
_LANGUAGE_NAMES = dict(LISTING_LANGUAGES)


def _plain(description: str) -> str:
    return html.unescape(html_to_text(description)) if description else ""


def listing_texts(product: Product) -> list[ScreenedText]:
    """Every text of `product` that is screened, in its language (translations read from
    the prefetched `translations` when there)."""
    language = product.original_language
    texts = [
        ScreenedText("title", language, product.title),
        ScreenedText("description", language, _plain(product.description)),
        ScreenedText("keywords", language, product.keywords),
    ]
    for row in product.attributes or []:
        if isinstance(row, dict):
            line = f"{row.get('name', '')}: {row.get('value', '')}"
            texts.append(ScreenedText("attributes", language, line))
    translations = sorted(product.translations.all(), key=lambda t: t.language)
    for translation in translations:
        texts.append(ScreenedText("title", translation.language, translation.title))
        texts.append(
            ScreenedText("description", translation.language, _plain(translation.description))
        )
    return [text for text in texts if text.text]


def screen_listing(product: Product) -> Verdict:
    """The active banned terms in the listing's texts."""
    return screen(listing_texts(product))


# --- the operators' review queue -------------------------------------------------------------


def held_listings() -> QuerySet[Product]:
    """Listings held for review, the longest waiting first (by their last change)."""
    return (
        Product.objects.filter(status=ProductStatus.HELD)
        .select_related("company", "category")
        .prefetch_related(
            Prefetch("translations", queryset=ProductTranslation.objects.order_by("language"))
        )
        .order_by("updated_at", "id")
    )


def held_count() -> int:
    return Product.objects.filter(status=ProductStatus.HELD).count()


def access_held_product(*, user: Any, product_id: Any) -> Product:
    """The listing `product_id` held for review, for an operator; else `ProductNotFound`
    (a listing not held answers so too: there is nothing to review)."""
    pk = parse_id(product_id)
    if pk is None or not is_operator(user):
        raise ProductNotFound()
    product = held_listings().filter(pk=pk).first()
    if product is None:
        raise ProductNotFound()
    return product


@dataclass(frozen=True)
class Finding:
    """The terms found in one text of a held listing, in their context."""

    part: str  # a `PART_LABELS` key
    language: str
    translated: bool  # a translation's text, not the original's
    excerpts: list[Excerpt]
    matched: list[str]  # the words as the supplier wrote them

    @property
    def label(self) -> str:
        name = str(PART_LABELS.get(self.part, self.part))
        if not self.translated:
            return name
        language = str(_LANGUAGE_NAMES.get(self.language, self.language))
        return str(_("%(part)s (translation, %(language)s)")) % {
            "part": name,
            "language": language,
        }


@dataclass(frozen=True)
class HeldListing:
    """A held listing and what screening finds in it now (nothing when the terms were
    deactivated or deleted since, or the supplier changed the words)."""

    product: Product
    terms: list[BannedTerm]
    findings: list[Finding]


def review(product: Product, verdict: Verdict | None = None) -> HeldListing:
    """What screening finds in a held listing (`verdict`, when screened already)."""
    verdict = verdict or screen_listing(product)
    by_text: dict[int, list[tuple[int, int]]] = {}
    for hit in verdict.hits:
        by_text.setdefault(hit.text_index, []).append((hit.start, hit.end))
    findings = []
    for index, spans in by_text.items():
        text = verdict.texts[index]
        findings.append(
            Finding(
                part=text.part,
                language=text.language,
                translated=text.language != product.original_language,
                excerpts=excerpts(text.text, spans),
                matched=list(dict.fromkeys(text.text[start:end] for start, end in spans)),
            )
        )
    return HeldListing(product=product, terms=verdict.terms, findings=findings)


def held_reviews(products: Iterable[Product]) -> list[HeldListing]:
    """Each listing of a page of the queue with what screening finds in it."""
    listed = list(products)
    verdicts = screen_each(listing_texts(product) for product in listed)
    return [review(product, verdict) for product, verdict in zip(listed, verdicts, strict=True)]
