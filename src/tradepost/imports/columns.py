"""The catalogue file's columns: their names in English, Simplified and Traditional Chinese,
and how a cell becomes what the catalogue's services take (and a product becomes cells again,
for the export).

The names are part of the file format, not of the interface: they are written here, not in
the translation catalogues, so that a translator's edit never breaks a supplier's file. A
heading is recognised in any of the three languages, whatever the case or the spaces, and
also as the service's own field name (`moq_unit`), for programs. Each cell is only parsed
here (text, lists, a unit's or a country's name to its code); what a value may be is decided
by `catalog.services` alone (docs/adr/0020-one-input-layer.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from tradepost.catalog.models import Category, PaymentTerm, Product, ProductStatus, Unit
from tradepost.core.countries import country_choices
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import LISTING_LANGUAGES, UI_LANGUAGES

#: The languages column names are written in.
HEADER_LANGUAGES = UI_LANGUAGES


@dataclass(frozen=True)
class Column:
    key: str  # a `ProductFields` name, or one of the import's own (sku is both)
    names: tuple[str, str, str]  # English, Simplified Chinese, Traditional Chinese
    example: str = ""  # the template's sample row

    def name(self, language: str) -> str:
        return self.names[HEADER_LANGUAGES.index(language)]


def _translation_columns() -> list[Column]:
    names = {
        "en": (("English", "英文", "英文"), "Stainless steel vacuum flask, 500 ml"),
        "zh-hans": (("Simplified Chinese", "简体中文", "簡體中文"), "不锈钢保温杯 500毫升"),
        "zh-hant": (("Traditional Chinese", "繁体中文", "繁體中文"), "不鏽鋼保溫杯 500毫升"),
    }
    columns = []
    for language, ((en, hans, hant), example) in names.items():
        suffix = language.replace("-", "_")
        columns.append(
            Column(
                f"title_{suffix}",
                (f"Title ({en})", f"标题（{hans}）", f"標題（{hant}）"),
                "" if language == "en" else example,
            )
        )
        columns.append(
            Column(
                f"description_{suffix}",
                (f"Description ({en})", f"描述（{hans}）", f"描述（{hant}）"),
            )
        )
    return columns


#: Every column, in the order of the template and the export.
COLUMNS: tuple[Column, ...] = (
    Column("sku", ("SKU", "货号", "貨號"), "VF-500-BLK"),
    Column("title", ("Title", "标题", "標題"), "Stainless steel vacuum flask, 500 ml"),
    Column("original_language", ("Listing language", "刊登语言", "刊登語言"), "en"),
    Column("category", ("Category", "类目", "類目"), "home-garden-vacuum-flasks"),
    Column(
        "description",
        ("Description", "描述", "描述"),
        "<p>Double wall, keeps drinks hot for 12 hours.</p>",
    ),
    Column("keywords", ("Keywords", "关键词", "關鍵詞"), "thermos, travel mug"),
    Column(
        "attributes",
        ("Attributes", "属性", "屬性"),
        "Material: 304 stainless steel\nCapacity: 500 ml",
    ),
    Column("moq", ("Minimum order quantity", "最小起订量", "最小起訂量"), "500"),
    Column("moq_unit", ("Unit", "单位", "單位"), "pieces"),
    Column("price_min", ("Lowest unit price", "最低单价", "最低單價"), "2.50"),
    Column("price_max", ("Highest unit price", "最高单价", "最高單價"), "3.80"),
    Column("currency", ("Currency", "币种", "幣別"), "USD"),
    Column("incoterms", ("Incoterms", "贸易术语", "貿易條件"), "FOB, CIF"),
    Column("port_of_loading", ("Port of loading", "装运港", "裝運港"), "Ningbo"),
    Column("payment_terms", ("Payment terms", "付款方式", "付款方式"), "tt, lc"),
    Column("lead_time_days", ("Lead time (days)", "交货期（天）", "交貨期（天）"), "30"),
    Column(
        "supply_capacity",
        ("Supply capacity per month", "月供应能力", "月供應能力"),
        "20000",
    ),
    Column(
        "supply_capacity_unit",
        ("Supply capacity unit", "供应能力单位", "供應能力單位"),
        "pieces",
    ),
    Column("hs_code", ("HS code", "海关编码", "海關編碼"), "961700"),
    Column("origin_country", ("Country of origin", "原产国", "原產國"), "CN"),
    Column("status", ("Status", "状态", "狀態"), "published"),
    Column("pictures", ("Pictures", "图片", "圖片"), "VF-500-BLK-1.jpg; VF-500-BLK-2.jpg"),
    *_translation_columns(),
)
#: The column of the file of rejected rows that says why; ignored when the file comes back.
REASON = Column("reason", ("Reason", "原因", "原因"))
#: Where each translation goes: (title column, description column) per language.
TRANSLATION_KEYS = {
    language: (f"title_{language.replace('-', '_')}", f"description_{language.replace('-', '_')}")
    for language in UI_LANGUAGES
}
#: Columns whose empty cell leaves the field as it is (their field has a default and no
#: "empty" value); every other column's empty cell empties the field.
EMPTY_KEEPS = frozenset({"currency", "original_language", "status", "pictures"})
#: Columns given to the product services as they are (the service's own name).
PLAIN_FIELDS = (
    "sku",
    "title",
    "description",
    "keywords",
    "moq",
    "price_min",
    "price_max",
    "currency",
    "port_of_loading",
    "lead_time_days",
    "supply_capacity",
    "hs_code",
)
_BY_KEY = {column.key: column for column in (*COLUMNS, REASON)}


def column(key: str) -> Column:
    return _BY_KEY[key]


def heading_key(text: str) -> str:
    """A heading as it is compared: NFKC (full-width brackets are brackets), case folded,
    without spaces, underscores, hyphens or asterisks."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s_*\-]+", "", folded)


@cache
def _headings() -> dict[str, tuple[str, str | None]]:
    """Every accepted heading (compared by `heading_key`): its column key and its language
    (None for the field name, or a name the same in both Chinese scripts)."""
    found: dict[str, tuple[str, str | None]] = {}
    for item in (*COLUMNS, REASON):
        found[heading_key(item.key)] = (item.key, None)
        for language, name in zip(HEADER_LANGUAGES, item.names, strict=True):
            key = heading_key(name)
            shared = key in found and found[key][0] == item.key
            found[key] = (item.key, None if shared else language)
    found[heading_key("MOQ")] = ("moq", "en")
    found[heading_key("category_id")] = ("category", None)
    return found


def read_heading(text: str) -> tuple[str, str | None] | None:
    """The column a heading names and the heading's language, or None for an unknown one."""
    return _headings().get(heading_key(text))


# --- cells to the services' values ----------------------------------------------------------

_LIST_SEPARATORS = re.compile(r"[,;，；、\n\r\t]+")
_PICTURE_SEPARATORS = re.compile(r"[;；\n\r]+")
_ATTRIBUTE_LINES = re.compile(r"[\n\r]+")
_ATTRIBUTE_SEPARATOR = re.compile(r"[:：]")
_SEMICOLONS = re.compile(r"[;；]")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold()


@cache
def _aliases(kind: str) -> dict[str, str]:
    """Each accepted way to write a choice (its code, its name in the three interface
    languages), folded, to its code."""
    choices: list[tuple[str, Any]]
    if kind == "unit":
        choices = list(Unit.choices)
    elif kind == "payment_term":
        choices = list(PaymentTerm.choices)
        choices += [("tt", "T/T"), ("lc", "L/C"), ("dp", "D/P"), ("da", "D/A")]
    elif kind == "incoterm":
        choices = list(Incoterm.choices)
    elif kind == "language":
        choices = list(LISTING_LANGUAGES)
    elif kind == "status":
        choices = [
            (ProductStatus.DRAFT, ProductStatus.DRAFT.label),
            (ProductStatus.PUBLISHED, ProductStatus.PUBLISHED.label),
            (ProductStatus.PUBLISHED, "已发布"),
            (ProductStatus.PUBLISHED, "已發佈"),
            (ProductStatus.PUBLISHED, "上架"),
            (ProductStatus.DRAFT, "下架"),
        ]
    else:  # country
        choices = []
        for language in UI_LANGUAGES:
            choices += country_choices(language)
    aliases: dict[str, str] = {}
    for language in UI_LANGUAGES:
        with translation.override(language):
            for code, label in choices:
                aliases.setdefault(_fold(str(label)), str(code))
    for code, _label in choices:
        aliases[_fold(str(code))] = str(code)
    return aliases


def choice_code(kind: str, text: str) -> str:
    """The code of a choice written as its code or its name; the text itself when unknown
    (the service then says what to choose)."""
    return _aliases(kind).get(_fold(text), text.strip())


def choice_codes(kind: str, text: str) -> list[str]:
    return [choice_code(kind, part) for part in _LIST_SEPARATORS.split(text) if part.strip()]


class Categories:
    """The category tree, to find a leaf by its id, its slug or its name in any of the three
    languages (a name two leaves share finds neither)."""

    def __init__(self) -> None:
        self.by_text: dict[str, Category | None] = {}
        self.slug_of: dict[int, str] = {}
        for category in Category.objects.only(
            "id", "slug", "is_leaf", "name_en", "name_zh_hans", "name_zh_hant"
        ):
            self.slug_of[category.pk] = category.slug
            self.by_text[str(category.pk)] = category
            self.by_text[_fold(category.slug)] = category
            for name in (category.name_en, category.name_zh_hans, category.name_zh_hant):
                key = _fold(name)
                if key in self.by_text and self.by_text[key] != category:
                    self.by_text[key] = None  # ambiguous
                else:
                    self.by_text[key] = category

    def find(self, text: str) -> Category | str:
        """The category the text names; the text itself when none (the service refuses it)."""
        found = self.by_text.get(_fold(text)) or self.by_text.get(text.strip())
        return found if found is not None else text


class AttributeLineError(ValueError):
    """An attribute line without a name and a value; the message says which, to the user."""


def parse_attributes(text: str) -> list[tuple[str, str]]:
    """`name: value` lines (or, on one line, separated by semicolons) as pairs."""
    lines = [line for line in _ATTRIBUTE_LINES.split(text) if line.strip()]
    if len(lines) == 1 and _SEMICOLONS.search(lines[0]):
        parts = [part for part in _SEMICOLONS.split(lines[0]) if part.strip()]
        if all(_ATTRIBUTE_SEPARATOR.search(part) for part in parts):
            lines = parts
    pairs = []
    for number, line in enumerate(lines, start=1):
        parts = _ATTRIBUTE_SEPARATOR.split(line, maxsplit=1)
        if len(parts) != 2:
            raise AttributeLineError(
                _('Line %(number)d: write each attribute as "name: value".') % {"number": number}
            )
        pairs.append((parts[0].strip(), parts[1].strip()))
    return pairs


def picture_names(text: str) -> list[str]:
    """The picture file names of a cell, in order, each once."""
    names: list[str] = []
    for part in _PICTURE_SEPARATORS.split(text):
        name = part.strip().replace("\\", "/").rsplit("/", 1)[-1]
        if name and name not in names:
            names.append(name)
    return names


# --- products to cells (the export) ---------------------------------------------------------


def plain_number(value: Decimal | int | None) -> Decimal | int | str:
    """A stored number as a person writes it (100.000 -> 100, 2.5000 -> 2.5), kept a number
    so that a spreadsheet sums it."""
    if value is None:
        return ""
    if isinstance(value, int):
        return value
    normal = value.normalize()
    return int(normal) if normal == normal.to_integral_value() else normal


def product_cells(
    product: Product,
    *,
    category_slug: str,
    translations: Mapping[str, tuple[str, str]],
    pictures: Iterable[str],
) -> dict[str, Any]:
    """The cells of one product, by column key: codes for choices, the category's slug,
    attributes one a line, the stored HTML of descriptions."""
    cells: dict[str, Any] = {
        "sku": product.sku,
        "title": product.title,
        "original_language": product.original_language,
        "category": category_slug,
        "description": product.description,
        "keywords": product.keywords,
        "attributes": "\n".join(
            f"{item.get('name', '')}: {item.get('value', '')}"
            for item in product.attributes or []
            if isinstance(item, dict)
        ),
        "moq": plain_number(product.moq),
        "moq_unit": product.moq_unit,
        "price_min": plain_number(product.price_min),
        "price_max": plain_number(product.price_max),
        "currency": product.currency,
        "incoterms": ", ".join(product.incoterms or []),
        "port_of_loading": product.port_of_loading,
        "payment_terms": ", ".join(product.payment_terms or []),
        "lead_time_days": "" if product.lead_time_days is None else product.lead_time_days,
        "supply_capacity": plain_number(product.supply_capacity),
        "supply_capacity_unit": product.supply_capacity_unit,
        "hs_code": product.hs_code,
        "origin_country": product.origin_country,
        "status": product.status,
        "pictures": "; ".join(pictures),
    }
    for language, (title_key, description_key) in TRANSLATION_KEYS.items():
        title, description = translations.get(language, ("", ""))
        cells[title_key] = title
        cells[description_key] = description
    return cells
