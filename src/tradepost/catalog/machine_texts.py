"""Listings read in the viewer's language by machine translation (docs/adr/0036).

When a listing is published or edited, a background task (`catalog.tasks.translate_products`)
stores the machine translation of its title, description, keywords and attributes into each
interface language an engine writes (`translation.keys.machine_targets`). Pages and the API
read them back, one query a page, and show them only where the supplier gave no translation
into the viewer's language (a supplier's own translation always wins), labelled "machine
translation", with the original one click away. A text not translated yet shows as written.
The search index holds the translated titles too (`catalog.search`), so a listing is found
by the words a reader of another language types.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.html import linebreaks

from tradepost.catalog.models import Product, ProductStatus
from tradepost.core.chinese_scripts import other_script
from tradepost.core.html import html_to_paragraphs
from tradepost.core.languages import UI_LANGUAGES, normalise_ui_language
from tradepost.core.queueing import enqueue_in_chunks
from tradepost.search.outbox import OutboxKind, record_changes
from tradepost.translation.engines import Kind
from tradepost.translation.keys import Wanted, machine_targets, wanted_for
from tradepost.translation.selectors import MachineText, stored_translations
from tradepost.translation.services import translations_ensure


@dataclass(frozen=True)
class MachineListing:
    """The machine translation of one listing into one language, as far as it is stored."""

    language: str
    title: str
    #: HTML: the translated text escaped, its lines as paragraphs ("" when not stored).
    description_html: str
    keywords: str
    #: (name, value) rows, each translated where stored and kept as written otherwise.
    attributes: list[tuple[str, str]]


def _attribute_texts(product: Any) -> list[tuple[str, str]]:
    from tradepost.catalog.selectors import product_attributes

    return product_attributes(product.attributes)


def _parts(product: Any, targets: list[str] | None, *, whole: bool) -> dict[str, list[Wanted]]:
    """What of the listing is translated, per part: "title" only for a card, everything
    for a page or the background task."""
    source = (product.original_language or "en").lower()
    parts = {"title": wanted_for(product.title, source, Kind.TITLE, targets)}
    if whole:
        parts["description"] = wanted_for(
            html_to_paragraphs(product.description), source, Kind.DESCRIPTION, targets
        )
        parts["keywords"] = wanted_for(product.keywords, source, Kind.KEYWORDS, targets)
        for name, value in _attribute_texts(product):
            parts.setdefault("attributes", []).extend(
                wanted_for(name, source, Kind.ATTRIBUTE, targets)
                + wanted_for(value, source, Kind.ATTRIBUTE, targets)
            )
    return parts


def product_translations_wanted(product: Product) -> list[Wanted]:
    """Every machine translation the listing should have stored."""
    return [item for items in _parts(product, None, whole=True).values() for item in items]


def _listing(
    product: Any,
    language: str,
    found: dict[Wanted, MachineText],
    *,
    whole: bool,
    paragraphs: str = "",
) -> MachineListing | None:
    """The listing's stored translation into `language`; `paragraphs`: its description as
    the translations were asked for (`html_to_paragraphs`, read once per product)."""
    source = (product.original_language or "en").lower()

    def read(text: str, kind: Kind) -> MachineText | None:
        return found.get(Wanted(text, source, language, kind)) if text and text.strip() else None

    title = read(product.title, Kind.TITLE)
    if title is None:
        return None
    if not whole:
        return MachineListing(language, title.text, "", "", [])
    description = read(paragraphs, Kind.DESCRIPTION)
    keywords = read(product.keywords, Kind.KEYWORDS)
    attributes = []
    for name, value in _attribute_texts(product):
        name_read, value_read = read(name, Kind.ATTRIBUTE), read(value, Kind.ATTRIBUTE)
        attributes.append(
            (name_read.text if name_read else name, value_read.text if value_read else value)
        )
    return MachineListing(
        language=language,
        title=title.text,
        description_html=linebreaks(description.text, autoescape=True) if description else "",
        keywords=keywords.text if keywords else "",
        attributes=attributes,
    )


def _read(
    products: list[Any], languages: list[str], *, whole: bool
) -> list[dict[str, MachineListing]]:
    """Per product, its stored machine translations into those of `languages` it needs, in
    one query (none when no product on the page needs one)."""
    needed = [_needed(product, languages) for product in products]
    wanted: list[Wanted] = []
    for product, targets in zip(products, needed, strict=True):
        if targets:
            for items in _parts(product, targets, whole=whole).values():
                wanted.extend(items)
    found = stored_translations(wanted) if wanted else {}
    listings = []
    for product, targets in zip(products, needed, strict=True):
        by_language = {}
        paragraphs = html_to_paragraphs(product.description) if whole and targets else ""
        for language in targets:
            listing = _listing(product, language, found, whole=whole, paragraphs=paragraphs)
            if listing is not None:
                by_language[language] = listing
        listings.append(by_language)
    return listings


def _needed(product: Any, languages: list[str]) -> list[str]:
    """The languages among `languages` a reader of the product needs a machine translation
    into (`_languages_needed`)."""
    loaded = getattr(product, "viewer_translations", None)
    if loaded is None:
        loaded = product.translations.all()  # prefetched by the pages and the API
    supplied = {t.language for t in loaded if t.title}
    return _languages_needed(product.original_language, supplied, languages)


def _languages_needed(
    original_language: str, supplied: Iterable[str], languages: Iterable[str]
) -> list[str]:
    """The languages among `languages` a reader of a listing written in `original_language`
    needs a machine translation into: not the listing's own, not the other Chinese script of
    it (converted instead), and none of `supplied`, those the supplier translated it into
    (theirs wins)."""
    source = (original_language or "en").lower()
    given = {language.lower() for language in supplied}
    return [
        language
        for language in languages
        if language != source
        and language not in given
        and other_script(language) not in ({source} | given)
    ]


def indexed_title_translations_wanted(
    title: str, original_language: str, supplied: Iterable[str]
) -> list[Wanted]:
    """The machine translations of a listing's title that the search index holds
    (`catalog.search`): those `product_translations_wanted` asks for, into the languages a
    reader needs one in (`supplied`: the languages the supplier translated it into)."""
    source = (original_language or "en").lower()
    targets = _languages_needed(source, supplied, machine_targets(source))
    return wanted_for(title, source, Kind.TITLE, targets) if targets else []


def attach_machine_listings(products: Iterable[Any], language: str, *, whole: bool) -> None:
    """Give each product `machine_listing`: its machine translation into `language` (None
    when none is stored or none is needed), read in one query for all of them. `whole`: the
    description, keywords and attributes too (a product page), else the title (a card)."""
    language = normalise_ui_language(language)
    products = list(products)
    for product, listings in zip(products, _read(products, [language], whole=whole), strict=True):
        product.machine_listing = listings.get(language)


def attach_all_machine_listings(products: Iterable[Any]) -> None:
    """Give each product `machine_listings`: its whole machine translations into every
    interface language, by language (the API), read in one query for all of them."""
    products = list(products)
    for product, listings in zip(
        products, _read(products, list(UI_LANGUAGES), whole=True), strict=True
    ):
        product.machine_listings = listings


#: Products translated per query and per stored batch.
TRANSLATE_CHUNK = 200


def products_translate(product_ids: Iterable[int]) -> int:
    """Store the missing machine translations of the published products among
    `product_ids` (the background task's work; idempotent); answers how many were written.
    The search index holds the translated titles (`catalog.search`), so the products whose
    titles lacked one are queued for it (its outbox) once they are written."""
    ids = sorted(set(product_ids))
    written = 0
    for start in range(0, len(ids), TRANSLATE_CHUNK):
        products = Product.objects.filter(
            pk__in=ids[start : start + TRANSLATE_CHUNK], status=ProductStatus.PUBLISHED
        ).only("title", "description", "keywords", "attributes", "original_language")
        parts = {product.pk: _parts(product, None, whole=True) for product in products}
        titles = [item for found in parts.values() for item in found["title"]]
        stored = stored_translations(titles) if titles else {}
        retitled = [
            product_id
            for product_id, found in parts.items()
            if any(item not in stored for item in found["title"])
        ]
        wanted = [item for found in parts.values() for items in found.values() for item in items]
        written_now = translations_ensure(wanted)
        if written_now and retitled:
            with transaction.atomic():
                record_changes(kind=OutboxKind.PRODUCT, object_ids=retitled)
        written += written_now
    return written


def published_listings_wanted() -> Iterator[list[Wanted]]:
    """Every machine translation the published listings ask for, `TRANSLATE_CHUNK` listings
    at a time (the clean-up of `tradepost translate --prune`)."""
    ids = list(
        Product.objects.filter(status=ProductStatus.PUBLISHED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for start in range(0, len(ids), TRANSLATE_CHUNK):
        products = Product.objects.filter(
            pk__in=ids[start : start + TRANSLATE_CHUNK], status=ProductStatus.PUBLISHED
        ).only("title", "description", "keywords", "attributes", "original_language")
        yield [item for product in products for item in product_translations_wanted(product)]


def translate_in_background() -> int:
    """Queue the machine translation of every published listing, `TRANSLATE_CHUNK` a task
    (after the demo is loaded, or a catalogue written without the services); answers how
    many listings were queued. Listings already translated cost one query a chunk."""
    from tradepost.catalog.tasks import translate_products

    ids = list(
        Product.objects.filter(status=ProductStatus.PUBLISHED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return enqueue_in_chunks(translate_products, ids, TRANSLATE_CHUNK)
