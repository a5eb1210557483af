"""Public reads of the catalogue: the category tree and published products.

Everything here is what an anonymous visitor may see. Product text is given in the viewer's
language when the supplier (or a translator) wrote a translation in that language, else in its
original language, marked as such so the page can label it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from django.db.models import Count, F, Prefetch, Q, QuerySet, TextField
from django.db.models.functions import Cast

from tradepost.catalog.machine_texts import attach_machine_listings
from tradepost.catalog.models import (
    Category,
    HSCode,
    PaymentTerm,
    Product,
    ProductImage,
    ProductStatus,
    ProductTranslation,
)
from tradepost.companies.selectors import suspended_company_ids
from tradepost.core.chinese_scripts import convert_script, is_convertible, other_script
from tradepost.core.countries import country_name
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language

PRODUCTS_PER_PAGE = 24
MAX_ID = 2**63 - 1  # larger numbers in a URL cannot be ids (and overflow SQLite)

#: Sorts a visitor may choose on a category page; anything else falls back to "newest".
PRODUCT_SORTS = ("newest", "price_asc", "price_desc")

_BCP47 = {"zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}
# Each language's name written in that language (used on the "original language" badge, which
# must be readable by someone who reads the original).
_AUTONYMS = {
    "en": "English",
    "zh-hans": "简体中文",
    "zh-hant": "繁體中文",
    "es": "Español",
    "vi": "Tiếng Việt",
    "tr": "Türkçe",
    "de": "Deutsch",
    "fr": "Français",
    "pt": "Português",
    "ru": "Русский",
    "ar": "العربية",
    "ja": "日本語",
    "ko": "한국어",
    "id": "Bahasa Indonesia",
    "th": "ไทย",
    "hi": "हिन्दी",
}


def language_tag(code: str) -> str:
    """The BCP 47 tag for an HTML `lang` attribute ("zh-hans" -> "zh-Hans")."""
    code = (code or "en").lower()
    return _BCP47.get(code, code)


def language_autonym(code: str) -> str:
    code = (code or "en").lower()
    return _AUTONYMS.get(code, code)


# --- categories ---------------------------------------------------------------------------


def subtree_q(category: Category, *, prefix: str = "") -> Q:
    """A filter for rows whose category (reached through `prefix`) is in the subtree."""
    return Q(**{f"{prefix}path": category.path}) | Q(
        **{f"{prefix}path__startswith": f"{category.path}."}
    )


def get_category(slug: str) -> Category | None:
    return Category.objects.filter(slug=slug).first()


def category_ancestors(category: Category) -> list[Category]:
    """The categories above `category`, root first (one query)."""
    parts = category.path.split(".")
    prefixes = [".".join(parts[:i]) for i in range(1, len(parts))]
    if not prefixes:
        return []
    return list(Category.objects.filter(path__in=prefixes).order_by("depth"))


@dataclass
class CategoryNode:
    category: Category
    name: str
    product_count: int = 0
    children: list[CategoryNode] = field(default_factory=list)


def _published_counts_by_path(within: Category | None = None) -> dict[str, int]:
    rows = published_products()
    if within is not None:
        rows = rows.filter(subtree_q(within, prefix="category__"))
    return dict(
        rows.order_by()
        .values("category__path")
        .annotate(n=Count("id"))
        .values_list("category__path", "n")
    )


def _roll_up(counts: dict[str, int], depth: int) -> dict[str, int]:
    """Sum product counts per ancestor path at `depth` (0 = top level)."""
    totals: dict[str, int] = defaultdict(int)
    for path, n in counts.items():
        parts = path.split(".")
        if len(parts) > depth:
            totals[".".join(parts[: depth + 1])] += n
    return totals


def category_tree(*, language: str, max_depth: int = 1) -> list[CategoryNode]:
    """Top-level categories (and their descendants to `max_depth`) with published product
    counts of their whole subtrees. Two queries."""
    language = normalise_ui_language(language)
    categories = list(Category.objects.filter(depth__lte=max_depth).order_by("path"))
    counts = _published_counts_by_path()
    per_depth = {d: _roll_up(counts, d) for d in range(max_depth + 1)}
    nodes: dict[int, CategoryNode] = {}
    roots: list[CategoryNode] = []
    for category in categories:
        node = CategoryNode(
            category=category,
            name=category.name_for(language),
            product_count=per_depth[category.depth].get(category.path, 0),
        )
        nodes[category.pk] = node
        if category.parent_id is None:
            roots.append(node)
        elif category.parent_id in nodes:
            nodes[category.parent_id].children.append(node)
    return roots


def subcategory_nodes(category: Category, *, language: str) -> list[CategoryNode]:
    """The children of `category` with product counts of their subtrees. Two queries."""
    language = normalise_ui_language(language)
    children = list(category.children.order_by("path"))
    if not children:
        return []
    totals = _roll_up(_published_counts_by_path(category), category.depth + 1)
    return [
        CategoryNode(category=c, name=c.name_for(language), product_count=totals.get(c.path, 0))
        for c in children
    ]


def all_categories() -> QuerySet[Category]:
    return Category.objects.order_by("path")


# --- products -----------------------------------------------------------------------------


def published_products() -> QuerySet[Product]:
    """Products anyone may see: published (not drafts, hidden by moderation or deleted), of
    a company in good standing (a suspended or banned company's listings are kept as they
    are and come back when the suspension is lifted)."""
    return Product.objects.filter(status=ProductStatus.PUBLISHED).exclude(
        company_id__in=suspended_company_ids()
    )


def fallback_languages(language: str) -> tuple[str, ...]:
    """The languages a viewer is shown a product's text in, best first: their own, the other
    Chinese script (converted into theirs for display), English. The original comes last."""
    language = normalise_ui_language(language)
    other = other_script(language)
    return tuple(code for code in (language, other, "en") if code) if language != "en" else ("en",)


def _with_listing_relations(products: QuerySet[Product], language: str) -> QuerySet[Product]:
    """Everything a product card needs in three queries, whatever the number of cards."""
    return products.select_related("company", "category").prefetch_related(
        Prefetch("images", queryset=ProductImage.objects.order_by("position", "id")),
        Prefetch(
            "translations",
            queryset=ProductTranslation.objects.filter(language__in=fallback_languages(language)),
            to_attr="viewer_translations",
        ),
    )


@dataclass(frozen=True)
class LocalisedText:
    """A product's title and description as one viewer reads them."""

    title: str
    written_description: str  # HTML sanitised when written, in the script it was written in
    language: str  # the language of this text (the viewer's when converted for display)
    original_language: str
    viewer_language: str
    is_translation: bool
    #: The Chinese script the text was written in when it is shown converted into the
    #: viewer's ("zh-hans" on a zh-Hant page, "zh-hant" on a zh-Hans page); "" otherwise.
    converted_from: str = ""
    #: A machine translation (`catalog.machine_texts`), not the supplier's own.
    machine: bool = False

    @cached_property
    def description(self) -> str:
        """The description as shown (converted only when read: a card never reads it)."""
        return convert_script(
            self.written_description, written_in=self.converted_from, reader=self.language
        )

    @property
    def is_converted(self) -> bool:
        return bool(self.converted_from)

    @property
    def lang_tag(self) -> str:
        return language_tag(self.language)

    @property
    def original_lang_tag(self) -> str:
        return language_tag(self.original_language)

    @property
    def language_name(self) -> str:
        return language_autonym(self.language)

    @property
    def original_language_name(self) -> str:
        return language_autonym(self.original_language)

    @property
    def original_language_label(self) -> str:
        """The original's language named in the active language ("英文" on a Chinese page),
        for the sentences that say what a translation was made from."""
        code = (self.original_language or "en").lower()
        return str(dict(LISTING_LANGUAGES).get(code, language_autonym(code)))

    @property
    def in_other_language(self) -> bool:
        """True when the text is not in the viewer's language (the page marks it)."""
        return self.language != self.viewer_language


def in_reader_script(text: LocalisedText) -> LocalisedText:
    """`text` converted into the viewer's Chinese script when written in the other one."""
    if not is_convertible(text.language, text.viewer_language):
        return text
    return replace(
        text,
        title=convert_script(text.title, written_in=text.language, reader=text.viewer_language),
        language=text.viewer_language,
        converted_from=text.language,
    )


def localised_text(product: Product, language: str) -> LocalisedText:
    """The product's text for a viewer of `language`: the supplier's translation into their
    language, else the text in the other Chinese script (converted into theirs), else the
    machine translation into their language where one is attached (`machine_listing`,
    `catalog.machine_texts`), else the supplier's English, else the original (marked with its
    language by the page). The candidates are the product's
    `viewer_translations` when loaded (`fallback_languages`), else all its translations."""
    language = normalise_ui_language(language)
    original = (product.original_language or "en").lower()
    candidates = getattr(product, "viewer_translations", None)
    if candidates is None:
        candidates = list(product.translations.all())
    by_language = {t.language.lower(): t for t in candidates if t.title}
    machine = getattr(product, "machine_listing", None)
    for wanted in fallback_languages(language):
        if wanted == original:
            break
        if machine is not None and wanted == "en" != language:
            break  # the viewer's own language, translated by machine, before English
        translation = by_language.get(wanted)
        if translation is not None:
            return in_reader_script(
                LocalisedText(
                    title=translation.title,
                    written_description=translation.description or product.description,
                    language=wanted,
                    original_language=original,
                    viewer_language=language,
                    is_translation=True,
                )
            )
    if machine is not None:
        return LocalisedText(
            title=machine.title,
            written_description=machine.description_html or product.description,
            language=machine.language,
            original_language=original,
            viewer_language=language,
            is_translation=True,
            machine=True,
        )
    return in_reader_script(original_text(product, language))


def original_text(product: Product, language: str) -> LocalisedText:
    """The product's text as the supplier wrote it."""
    original = (product.original_language or "en").lower()
    return LocalisedText(
        title=product.title,
        written_description=product.description,
        language=original,
        original_language=original,
        viewer_language=normalise_ui_language(language),
        is_translation=False,
    )


@dataclass(frozen=True)
class ProductCard:
    product: Product
    text: LocalisedText
    thumbnail_url: str
    company_name: str
    company_country: str
    category_name: str


def _first_thumbnail_url(product: Product) -> str:
    for image in product.images.all():
        if image.thumbnail:
            return image.thumbnail.url
        if image.image:
            return image.image.url
    return ""


def product_cards(products: Any, *, language: str) -> list[ProductCard]:
    """Cards for products loaded through `_with_listing_relations` (one more query: their
    machine-translated titles)."""
    language = normalise_ui_language(language)
    products = list(products)
    attach_machine_listings(products, language, whole=False)
    return [
        ProductCard(
            product=p,
            text=localised_text(p, language),
            thumbnail_url=_first_thumbnail_url(p),
            company_name=p.company.name_for(language),
            company_country=country_name(p.company.country, language),
            category_name=p.category.name_for(language),
        )
        for p in products
    ]


def newest_product_cards(*, language: str, limit: int = 12) -> list[ProductCard]:
    language = normalise_ui_language(language)
    products = _with_listing_relations(published_products(), language).order_by(
        "-published_at", "-id"
    )[:limit]
    return product_cards(products, language=language)


def _sorted(products: QuerySet[Product], sort: str) -> QuerySet[Product]:
    if sort == "price_asc":
        return products.order_by(F("price_min").asc(nulls_last=True), "-id")
    if sort == "price_desc":
        return products.order_by(F("price_max").desc(nulls_last=True), "-id")
    return products.order_by("-published_at", "-id")


def normalise_sort(sort: str | None) -> str:
    return sort if sort in PRODUCT_SORTS else "newest"


def category_products(*, category: Category, language: str, sort: str) -> QuerySet[Product]:
    """Published products anywhere in the subtree of `category`, in the order of `sort`,
    loaded for `product_cards`. The page views cut one page of it (`PRODUCTS_PER_PAGE`)."""
    language = normalise_ui_language(language)
    products = published_products().filter(subtree_q(category, prefix="category__"))
    return _with_listing_relations(_sorted(products, normalise_sort(sort)), language)


def company_products(*, company_id: int, language: str) -> QuerySet[Product]:
    """The company's published products, newest first, loaded for `product_cards`."""
    language = normalise_ui_language(language)
    products = published_products().filter(company_id=company_id).order_by("-published_at", "-id")
    return _with_listing_relations(products, language)


def get_published_product(pk: int) -> Product | None:
    """A published product with its company, category, images and every translation."""
    if not 0 < pk <= MAX_ID:
        return None
    return (
        published_products()
        .select_related("company", "category")
        .prefetch_related(
            Prefetch("images", queryset=ProductImage.objects.order_by("position", "id")),
            "translations",
        )
        .filter(pk=pk)
        .first()
    )


@dataclass(frozen=True)
class ProductDetail:
    product: Product
    text: LocalisedText
    original: LocalisedText | None  # the original text when `text` is a translation
    images: list[ProductImage]
    breadcrumbs: list[CategoryNode]
    category_name: str
    company_name: str
    company_country: str
    origin_country: str
    hs_description: str
    hs_heading: HSHeading
    payment_terms: list[str]
    incoterms: list[str]
    attributes: list[tuple[str, str]]
    #: The text as the supplier wrote it: the language of the attributes as written, for
    #: their `lang` and "original in ..." badge.
    as_written: LocalisedText
    #: The attributes machine-translated into the viewer's language, when `text` is a machine
    #: translation (the originals then show with the original listing); else empty.
    translated_attributes: list[tuple[str, str]] = field(default_factory=list)


def product_attributes(raw: Any) -> list[tuple[str, str]]:
    """Attribute rows as (name, value), whatever shape the JSON was stored in:
    [{"name": ..., "value": ...}], [[name, value]] or {name: value}."""
    rows: list[tuple[str, str]] = []
    if isinstance(raw, dict):
        items: list[Any] = list(raw.items())
    elif isinstance(raw, list):
        items = raw
    else:
        return rows
    for item in items:
        if isinstance(item, dict):
            name, value = item.get("name"), item.get("value")
        elif isinstance(item, list | tuple) and len(item) == 2:
            name, value = item
        else:
            continue
        if name in (None, "") or value in (None, ""):
            continue
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        rows.append((str(name), str(value)))
    return rows


def choice_labels(codes: Any, choices: Any) -> list[str]:
    """The labels, in the active language, of a stored list of codes of `choices` (a
    `TextChoices` class), in the stored order; codes it no longer knows are left out."""
    if not isinstance(codes, list):
        return []
    labels = dict(choices.choices)
    return [str(labels[code]) for code in codes if isinstance(code, str) and code in labels]


def payment_term_labels(codes: Any) -> list[str]:
    return choice_labels(codes, PaymentTerm)


def incoterm_codes(codes: Any) -> list[str]:
    if not isinstance(codes, list):
        return []
    return [c for c in codes if isinstance(c, str) and c.isalpha() and len(c) == 3]


def hs_code_description(code: str) -> str:
    if not code:
        return ""
    row = HSCode.objects.filter(code=code).values_list("description", flat=True).first()
    return row or ""


@dataclass(frozen=True)
class HSHeading:
    """What an HS code stands for, as a viewer reads it.

    The project ships the HS 2022 descriptions in English only (the official text, which
    customs brokers quote). A Chinese reader is shown the name, in their script, of the
    category of the tree filed under the code (its subheading, else its heading, else its
    chapter), with the official English text after it, marked as English; an English reader
    the official text alone.
    """

    code: str
    official: str  # the HS 2022 description, in English
    local_name: str  # a category name in the viewer's language ("" when none is shown)


def hs_heading(code: str, *, language: str, category: Category | None = None) -> HSHeading:
    """The HS code's description for a viewer of `language` (one query, two for Chinese
    viewers). Among categories filed under the code, the longest matching code wins, then
    `category` (the product's own) or one of its ancestors, then the deepest."""
    language = normalise_ui_language(language)
    official = hs_code_description(code)
    if not code or language == "en":
        return HSHeading(code=code, official=official, local_name="")
    prefixes = [code[:n] for n in (6, 4, 2) if len(code) >= n]
    as_text = Cast("hs_codes", TextField())
    matches = Q()
    for prefix in prefixes:
        matches |= Q(hs_codes_text__contains=f'"{prefix}"')
    found = list(Category.objects.alias(hs_codes_text=as_text).filter(matches))
    own_paths = set()
    if category is not None:
        parts = category.path.split(".")
        own_paths = {".".join(parts[:n]) for n in range(1, len(parts) + 1)}

    def rank(candidate: Category) -> tuple[int, bool, int, str]:
        codes = candidate.hs_codes if isinstance(candidate.hs_codes, list) else []
        longest = max((len(p) for p in prefixes if p in codes), default=0)
        return (-longest, candidate.path not in own_paths, -candidate.depth, candidate.path)

    best = min(found, key=rank, default=None)
    return HSHeading(
        code=code, official=official, local_name=best.name_for(language) if best else ""
    )


def product_detail(product: Product, *, language: str) -> ProductDetail:
    """Everything the product page shows (three more queries: its machine translation into
    the viewer's language where it needs one, ancestors and HS code; on Chinese pages a
    fourth: the categories filed under the HS code)."""
    language = normalise_ui_language(language)
    attach_machine_listings([product], language, whole=True)
    text = localised_text(product, language)
    machine = getattr(product, "machine_listing", None) if text.machine else None
    ancestors = [*category_ancestors(product.category), product.category]
    heading = hs_heading(product.hs_code, language=language, category=product.category)
    return ProductDetail(
        product=product,
        text=text,
        original=original_text(product, language)
        if text.is_translation or text.is_converted
        else None,
        images=list(product.images.all()),
        breadcrumbs=[CategoryNode(category=c, name=c.name_for(language)) for c in ancestors],
        category_name=product.category.name_for(language),
        company_name=product.company.name_for(language),
        company_country=country_name(product.company.country, language),
        origin_country=country_name(product.origin_country, language)
        if product.origin_country
        else "",
        hs_description=heading.official,
        hs_heading=heading,
        payment_terms=payment_term_labels(product.payment_terms),
        incoterms=incoterm_codes(product.incoterms),
        attributes=product_attributes(product.attributes),
        as_written=original_text(product, language),
        translated_attributes=machine.attributes if machine is not None else [],
    )


# --- the API's reads ----------------------------------------------------------------------


def api_products(
    *,
    category: Category | None = None,
    country: str | None = None,
    company_id: int | None = None,
) -> QuerySet[Product]:
    """Published products, newest id first, with every relation the API writes out."""
    products = published_products()
    if category is not None:
        products = products.filter(subtree_q(category, prefix="category__"))
    if country:
        products = products.filter(company__country=country)
    if company_id is not None:
        products = products.filter(company_id=company_id)
    return (
        products.select_related("company", "category")
        .prefetch_related(
            Prefetch("images", queryset=ProductImage.objects.order_by("position", "id")),
            Prefetch("translations", queryset=ProductTranslation.objects.order_by("language")),
        )
        .order_by("-id")
    )


def product_counts_by_status(*, company_id: int) -> dict[str, int]:
    """How many of the company's products are in each status (one query; a status without
    products is absent)."""
    rows = (
        Product.objects.filter(company_id=company_id)
        .order_by()
        .values_list("status")
        .annotate(count=Count("id"))
    )
    return {status: count for status, count in rows}
