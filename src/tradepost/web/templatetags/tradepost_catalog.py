"""Template helpers for the public catalogue: prices, quantities, links, structured data."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.numbers import NumberPattern, format_percent, parse_pattern
from django import template
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, pgettext
from django.utils.translation import pgettext_lazy as _p

from tradepost.catalog.models import Product, Unit
from tradepost.catalog.ports import PortName, port_name
from tradepost.catalog.public_companies import business_type_labels
from tradepost.core.countries import country_name
from tradepost.core.currencies import currency_digits
from tradepost.core.languages import babel_date_locale, babel_locale, normalise_ui_language
from tradepost.core.numbers import decimal_text
from tradepost.money.display import (
    AS_LISTED,
    ConvertedPrice,
    converted_price,
    display_currency_options,
)

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


@cache
def _number_pattern(min_decimals: int) -> NumberPattern:
    decimals = "0" * min_decimals + "#" * max(0, 4 - min_decimals)
    return parse_pattern("#,##0" + (f".{decimals}" if decimals else ""))


@cache
def _number_locale(language: str) -> Locale:
    return Locale.parse(babel_locale(language))


def format_number(value: Decimal | int | float, *, min_decimals: int = 0) -> str:
    """Babel's `format_decimal` with the pattern and the locale parsed once (a page of cards
    formats a hundred numbers)."""
    return _number_pattern(min_decimals).apply(value, _number_locale(_language()))


def currency_symbol(code: str) -> str:
    code = (code or "").upper()
    return CURRENCY_SYMBOLS.get(code, f"{code}\u00a0")


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


def approximately(amount: str) -> str:
    """An amount marked as approximate (a converted price): "≈ €3.40"."""
    return pgettext("an approximate amount", "≈ %(amount)s") % {"amount": amount}


def format_price_range(
    price_min: Decimal | None,
    price_max: Decimal | None,
    currency: str,
    unit: str = "",
    *,
    approximate: bool = False,
) -> str:
    """ "US$2.50–3.80 / piece"; "From US$2.50 / piece"; "Price on request"; with
    `approximate`, the amounts marked so: "≈ €2.13–3.23 / piece"."""
    if price_min is None and price_max is None:
        return gettext("Price on request")

    def marked(amount: str) -> str:
        return approximately(amount) if approximate else amount

    if price_min is not None and price_max is not None and price_min != price_max:
        high = format_number(price_max, min_decimals=currency_digits(currency))
        price = marked(f"{format_price(price_min, currency)}–{high}")
    elif price_min is not None and price_max is not None:
        price = marked(format_price(price_min, currency))
    elif price_min is not None:
        price = gettext("From %(price)s") % {"price": marked(format_price(price_min, currency))}
    else:
        assert price_max is not None
        price = gettext("Up to %(price)s") % {"price": marked(format_price(price_max, currency))}
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


def _display_currency(context: template.Context) -> str:
    """The viewer's display currency, as the context processor put it in the context; a page
    rendered without a request (an email, the 500 page) shows prices as listed."""
    return str(context.get("display_currency") or AS_LISTED)


@lru_cache(maxsize=64)
def _conversion_note(language: str, as_of: date) -> str:
    """The same for every card of a page (its language is the active one)."""
    return gettext("Converted with the exchange rates of %(date)s; amounts are approximate.") % {
        "date": day(as_of)
    }


def _beside_listed(
    converted_text: str, listed_text: str, converted: ConvertedPrice, *, note: bool
) -> SafeString:
    """The converted price first, marked approximate and titled with the rates' date, then
    the listed one; with `note`, the rates' date also as text (for touch screens)."""
    explanation = _conversion_note(_language(), converted.as_of)
    return format_html(
        '<span class="price-converted" title="{}">{}</span> <span class="price-listed">{}</span>{}',
        explanation,
        converted_text,
        listed_text,
        format_html('<span class="price-note">{}</span>', explanation) if note else "",
    )


@register.simple_tag(takes_context=True)
def viewer_price_range(context: template.Context, product: Product, note: bool = False) -> str:
    """The product's price range for this viewer: in their display currency when it differs
    from the listing's ("≈ €2.13–3.23 / piece"), with the listed price beside it; the listed
    price alone when they are the same, the viewer chose "as listed" or a rate is missing."""
    listed = price_range(product)
    converted = converted_price(
        product.price_min,
        product.price_max,
        currency=product.currency,
        display=_display_currency(context),
    )
    if converted is None:
        return listed
    shown = format_price_range(
        converted.low, converted.high, converted.currency, product.moq_unit, approximate=True
    )
    return _beside_listed(shown, listed, converted, note=note)


@register.simple_tag(takes_context=True)
def viewer_money(
    context: template.Context, value: Decimal | int | str | None, currency: str
) -> str:
    """An amount (a buyer's target price) for this viewer, as `viewer_price_range` shows a
    product's price: converted first, marked approximate, then as written."""
    listed = money(value, currency)
    number = _decimal(value)
    if number is None:
        return listed
    converted = converted_price(
        number, number, currency=currency or "", display=_display_currency(context)
    )
    if converted is None or converted.low is None:
        return listed
    shown = approximately(format_price(converted.low, converted.currency))
    return _beside_listed(shown, listed, converted, note=False)


@lru_cache(maxsize=256)
def _currency_options(options: tuple[tuple[str, str], ...], selected: str) -> SafeString:
    return format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        ((code, " selected" if code == selected else "", label) for code, label in options),
    )


@register.simple_tag(takes_context=True)
def display_currency_choices(context: template.Context) -> SafeString:
    """The options of the header's currency form, the viewer's display currency selected
    (written once per set of choices, language and selection: every page has them)."""
    return _currency_options(tuple(display_currency_options()), _display_currency(context))


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


def _format_decimal(value: Any, formatter: Callable[[Decimal, str], str], code: str) -> str:
    """`value` formatted by `formatter` with `code` (a unit, a currency): "" when blank, the
    value as it is when it is not a number."""
    if value in (None, ""):
        return ""
    number = _decimal(value)
    if number is None:
        return str(value)
    return formatter(number, code or "")


@register.filter
def quantity(value: Decimal | int | str | None, unit: str) -> str:
    """A quantity with its unit in the viewer's language ("1 piece", "2,000 pieces", "1 件");
    every page that shows a quantity and its unit code goes through here."""
    return _format_decimal(value, format_quantity, unit)


@register.filter
def money(value: Decimal | int | str | None, currency: str) -> str:
    """An amount in its currency, with the currency's decimals and the viewer's separators
    ("US$3.90", "CN¥21.00", "US$12,500.00")."""
    return _format_decimal(value, format_price, currency)


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
