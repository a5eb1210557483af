"""ISO 3166 countries with names in the interface languages (names from Babel's CLDR data)."""

from __future__ import annotations

from functools import cache

import pycountry
from babel import Locale

from tradepost.core.languages import babel_locale

COUNTRY_CODES: frozenset[str] = frozenset(c.alpha_2 for c in pycountry.countries)


@cache
def _locale(language: str) -> Locale:
    return Locale.parse(babel_locale(language))


def country_name(code: str, language: str = "en") -> str:
    code = (code or "").upper()
    name = _locale(language).territories.get(code)
    if name:
        return str(name)
    country = pycountry.countries.get(alpha_2=code)
    return country.name if country else code


@cache
def country_choices(language: str = "en") -> list[tuple[str, str]]:
    return sorted(
        ((code, country_name(code, language)) for code in COUNTRY_CODES), key=lambda c: c[1]
    )


def is_country(code: str) -> bool:
    return (code or "").upper() in COUNTRY_CODES
