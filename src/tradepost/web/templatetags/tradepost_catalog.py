"""Template helpers for the public catalogue: prices, quantities, links, structured data."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from babel.dates import format_date
from babel.numbers import format_decimal, format_percent, get_currency_precision
from django import template
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, pgettext
from django.utils.translation import pgettext_lazy as _p

from tradepost.catalog.company_selectors import business_type_labels
from tradepost.catalog.models import Product, Unit
from tradepost.catalog.ports import PortName, port_name
from tradepost.core.countries import country_name
from tradepost.core.languages import babel_date_locale, babel_locale, normalise_ui_language
from tradepost.core.numbers import decimal_text

register = template.Library()

# Symbols that cannot be mistaken for another currency's ("$" alone could be USD, HKD, TWD...).
CURRENCY_SYMBOLS = {
    "USD": "US$",
    "CNY": "CN¥",
    "HKD": "HK$",
    "TWD": "NT$",
    "JPY": "JP¥",
    "EUR": "€",
    "GBP": "£",
    "INR": "₹",
    "VND": "₫",
    "KRW": "₩",
    "AUD": "A$",
    "CAD": "CA$",
    "SGD": "S$",
    "NZD": "NZ$",
    "MXN": "MX$",
    "BRL": "R$",
}

UNIT_SINGULAR = {
    Unit.PIECES: _p("unit, singular", "piece"),
    Unit.SETS: _p("unit, singular", "set"),
    Unit.PAIRS: _p("unit, singular", "pair"),
    Unit.BOXES: _p("unit, singular", "box"),
    Unit.CARTONS: _p("unit, singular", "carton"),
    Unit.DOZENS: _p("unit, singular", "dozen"),
    Unit.ROLLS: _p("unit, singular", "roll"),
    Unit.BAGS: _p("unit, singular", "bag"),
    Unit.KILOGRAMS: _p("unit, singular", "kilogram"),
    Unit.GRAMS: _p("unit, singular", "gram"),
    Unit.TONNES: _p("unit, singular", "tonne"),
    Unit.METRES: _p("unit, singular", "metre"),
    Unit.SQUARE_METRES: _p("unit, singular", "square metre"),
    Unit.CUBIC_METRES: _p("unit, singular", "cubic metre"),
    Unit.LITRES: _p("unit, singular", "litre"),
    Unit.BARRELS: _p("unit, singular", "barrel"),
    Unit.CONTAINERS_20: _p("unit, singular", "20-foot container"),
    Unit.CONTAINERS_40: _p("unit, singular", "40-foot container"),
    Unit.UNITS: _p("unit, singular", "unit"),
}

OG_LOCALES = {"en": "en_US", "zh-hans": "zh_CN", "zh-hant": "zh_TW"}


def _language() -> str:
    return normalise_ui_language(get_language())


def format_number(value: Decimal | int | float, *, min_decimals: int = 0) -> str:
    decimals = "0" * min_decimals + "#" * max(0, 4 - min_decimals)
    pattern = "#,##0" + (f".{decimals}" if decimals else "")
    return format_decimal(value, format=pattern, locale=babel_locale(_language()))


def currency_symbol(code: str) -> str:
    code = (code or "").upper()
    return CURRENCY_SYMBOLS.get(code, f"{code}\u00a0")


def currency_digits(currency: str) -> int:
    try:
        return int(get_currency_precision((currency or "").upper()))
    except (KeyError, ValueError, TypeError):  # an unknown code: show two decimals
        return 2


def format_price(value: Decimal, currency: str) -> str:
    return currency_symbol(currency) + format_number(value, min_decimals=currency_digits(currency))


def unit_label(unit: str, quantity: Decimal | int | None = None) -> str:
    """The unit's name in the viewer's language: singular for one, else plural (Chinese
    has one form for both)."""
    if quantity is not None and quantity == 1 and unit in UNIT_SINGULAR:
        return str(UNIT_SINGULAR[Unit(unit)])
    try:
        return str(Unit(unit).label)
    except ValueError:
        return unit


def unit_singular(unit: str) -> str:
    try:
        return str(UNIT_SINGULAR[Unit(unit)])
    except (ValueError, KeyError):
        return unit


def format_quantity(quantity: Decimal | int | None, unit: str) -> str:
    if quantity is None:
        return ""
    return pgettext("quantity with its unit", "%(quantity)s %(unit)s") % {
        "quantity": format_number(quantity),
        "unit": unit_label(unit, quantity),
    }


def format_price_range(
    price_min: Decimal | None, price_max: Decimal | None, currency: str, unit: str = ""
) -> str:
    """ "US$2.50–3.80 / piece"; "From US$2.50 / piece"; "Price on request"."""
    if price_min is None and price_max is None:
        return gettext("Price on request")
    if price_min is not None and price_max is not None and price_min != price_max:
        high = format_number(price_max, min_decimals=currency_digits(currency))
        price = f"{format_price(price_min, currency)}–{high}"
    elif price_min is not None and price_max is not None:
        price = format_price(price_min, currency)
    elif price_min is not None:
        price = gettext("From %(price)s") % {"price": format_price(price_min, currency)}
    else:
        assert price_max is not None
        price = gettext("Up to %(price)s") % {"price": format_price(price_max, currency)}
    if not unit:
        return price
    return pgettext("price per unit", "%(price)s / %(unit)s") % {
        "price": price,
        "unit": unit_singular(unit),
    }


@register.filter
def price_range(product: Product) -> str:
    return format_price_range(
        product.price_min, product.price_max, product.currency, product.moq_unit
    )


@register.filter
def moq(product: Product) -> str:
    return format_quantity(product.moq, product.moq_unit)


def _decimal(value: Any) -> Decimal | None:
    """A number stored as text (volume prices are JSON strings) as a Decimal; None for
    anything that is not a finite number."""
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


@register.filter
def quantity(value: Decimal | int | str | None, unit: str) -> str:
    """A quantity with its unit in the viewer's language ("1 piece", "2,000 pieces", "1 件");
    every page that shows a quantity and its unit code goes through here."""
    if value in (None, ""):
        return ""
    number = _decimal(value)
    if number is None:
        return str(value)
    return format_quantity(number, unit or "")


@register.filter
def money(value: Decimal | int | str | None, currency: str) -> str:
    """An amount in its currency, with the currency's decimals and the viewer's separators
    ("US$3.90", "CN¥21.00", "US$12,500.00")."""
    if value in (None, ""):
        return ""
    number = _decimal(value)
    if number is None:
        return str(value)
    return format_price(number, currency or "")


@register.filter
def day(value: date | datetime | None) -> str:
    """A date (a moment: its day in the site's time zone) in the viewer's language, in the one
    style every page uses: "17 Dec 2026", "2026年12月17日"."""
    if not value:
        return ""
    if isinstance(value, datetime):
        value = timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
    return format_date(value, "medium", locale=babel_date_locale(_language()))


@register.filter
def port_of_loading(product: Product) -> PortName:
    """The product's port of loading in the viewer's language when it is a known port, else
    as written (with the language to mark it with)."""
    return port_name(
        product.port_of_loading,
        language=_language(),
        listing_language=product.original_language,
    )


@register.filter
def supply_capacity(product: Product) -> str:
    if product.supply_capacity is None:
        return ""
    return gettext("%(quantity)s per month") % {
        "quantity": format_quantity(
            product.supply_capacity, product.supply_capacity_unit or product.moq_unit
        )
    }


@register.filter
def country(code: str) -> str:
    return country_name(code, _language()) if code else ""


@register.filter
def business_types(values: Any) -> list[str]:
    return business_type_labels(values)


@register.filter
def number(value: Any) -> str:
    if value in (None, ""):
        return ""
    return format_number(value)


@register.filter
def percent(value: float | Decimal | None) -> str:
    """A share (0-1) as a whole percentage in the viewer's locale ("85%")."""
    if value is None or value == "":
        return ""
    return format_percent(value, locale=babel_locale(_language()))


@register.simple_tag
def product_url(product: Product) -> str:
    return product.get_absolute_url()


def absolute_url(path_or_url: str) -> str:
    if not path_or_url or path_or_url.startswith(("http://", "https://")):
        return path_or_url
    return settings.SITE_URL + path_or_url


@register.filter
def absolute(path_or_url: str) -> str:
    return absolute_url(path_or_url)


@register.simple_tag
def og_locale() -> str:
    return OG_LOCALES[_language()]


@register.simple_tag
def og_locale_alternates() -> list[str]:
    current = _language()
    return [locale for code, locale in OG_LOCALES.items() if code != current]


_JSON_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def json_ld_script(data: dict[str, Any]) -> SafeString:
    """A `<script type="application/ld+json">` whose content cannot close the script
    element: <, > and & are written as JSON unicode escapes."""
    payload = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False).translate(
        _JSON_SCRIPT_ESCAPES
    )
    return format_html('<script type="application/ld+json">{}</script>', SafeString(payload))


@register.simple_tag
def json_ld(data: dict[str, Any]) -> SafeString:
    return json_ld_script(data)


def product_structured_data(
    detail: Any, *, url: str, image_urls: list[str], company_url: str, description: str
) -> dict[str, Any]:
    """schema.org Product with its Offer (or AggregateOffer for a price range)."""
    product: Product = detail.product
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": detail.text.title,
        "url": url,
        "sku": str(product.pk),
        "category": detail.category_name,
    }
    if description:
        data["description"] = description
    if image_urls:
        data["image"] = image_urls
    if product.origin_country:
        data["countryOfOrigin"] = {"@type": "Country", "name": product.origin_country}
    if product.price_min is not None or product.price_max is not None:
        digits = currency_digits(product.currency)
        low = decimal_text(product.price_min or product.price_max, min_decimals=digits)
        high = decimal_text(product.price_max or product.price_min, min_decimals=digits)
        offer: dict[str, Any] = {"priceCurrency": product.currency, "url": url}
        if low == high:
            offer.update({"@type": "Offer", "price": low})
        else:
            offer.update({"@type": "AggregateOffer", "lowPrice": low, "highPrice": high})
        offer["availability"] = "https://schema.org/InStock"
        offer["eligibleQuantity"] = {
            "@type": "QuantitativeValue",
            "minValue": int(product.moq)
            if product.moq == product.moq.to_integral_value()
            else float(product.moq),
            "unitText": product.moq_unit,
        }
        offer["seller"] = {"@type": "Organization", "name": detail.company_name, "url": company_url}
        data["offers"] = offer
    return data
