"""The demo marketplace's word lists, read from the JSON files in demo/data/.

products.json    product templates (names in six languages, modifiers, specifications, terms)
vocabulary.json  attribute names and values, colours, units, markets, sentence templates
countries.json   countries with their regions, ports, currencies, legal forms and name stems
names.json       trade names, industry words and people's names

Lists of six words are in the order of LANGUAGES.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"

# Languages the demo writes listings in; a product or company uses one of them.
LANGUAGES = ("en", "zh-hans", "zh-hant", "es", "vi", "tr")
LANGUAGE_INDEX = {language: index for index, language in enumerate(LANGUAGES)}
CHINESE = ("zh-hans", "zh-hant")


def pick(words: list[str] | tuple[str, ...], language: str) -> str:
    """The word for a language from a list of six (or of three: en, zh-hans, zh-hant)."""
    index = LANGUAGE_INDEX[language]
    if index < len(words) and words[index]:
        return words[index]
    return words[0]


@dataclass(frozen=True)
class Template:
    key: str
    top: str
    keywords: tuple[str, ...]
    shape: str
    names: tuple[str, ...]
    modifiers: tuple[tuple[str, ...], ...]
    extras: tuple[tuple[str, ...], ...]
    specs: tuple[tuple[str, ...], ...]  # each in one language-neutral form or six
    spec_attribute: str
    attributes: tuple[tuple[str, tuple[str, ...]], ...]
    colours: tuple[str, ...]
    unit: str
    price: tuple[float, float]
    moq: tuple[int, int]
    hs_code: str


@dataclass(frozen=True)
class Region:
    province: tuple[str, str]
    cities: tuple[tuple[str, str], ...]
    ports: tuple[str, ...]


@dataclass(frozen=True)
class LegalForm:
    local: str
    english: str
    business_type: str


@dataclass(frozen=True)
class Country:
    code: str
    language: str
    style: str
    people: str
    weight: float
    buyer_share: float
    currencies: tuple[tuple[str, float], ...]
    industries: tuple[str, ...]
    forms: tuple[LegalForm, ...]
    regions: tuple[Region, ...]
    stems: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Vocabulary:
    templates: tuple[Template, ...]
    countries: tuple[Country, ...]
    attribute_names: dict[str, list[str]]
    values: dict[str, list[str]]
    colours: dict[str, list[str]]
    units: dict[str, list[str]]
    markets: dict[str, list[str]]
    business_types: dict[str, list[str]]
    list_separator: list[str]
    list_and: list[str]
    selling_points: dict[str, list[str]]
    sentences: dict[str, dict[str, list[str]]]
    certifications: dict[str, list[str]]
    port_names: dict[str, list[str]]
    fx: dict[str, float]
    names: dict[str, Any]

    @property
    def industries(self) -> tuple[str, ...]:
        """Top-level category slugs that have product templates, in file order."""
        seen: dict[str, None] = {}
        for template in self.templates:
            seen.setdefault(template.top, None)
        return tuple(seen)

    def country(self, code: str) -> Country:
        for country in self.countries:
            if country.code == code:
                return country
        raise KeyError(code)

    def value(self, key: str, language: str) -> str:
        """An attribute value in a language; keys not in the vocabulary are literal text."""
        if key in self.values:
            return pick(self.values[key], language)
        if key in self.colours:
            return pick(self.colours[key][1:], language)
        return key

    def colour_name(self, key: str, language: str) -> str:
        return pick(self.colours[key][1:], language)

    def colour_hex(self, key: str) -> str:
        return self.colours[key][0]


def _read(name: str) -> Any:
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


def _template(raw: dict[str, Any]) -> Template:
    return Template(
        key=raw["k"],
        top=raw["t"],
        keywords=tuple(raw["kw"].lower().split()),
        shape=raw["sh"],
        names=tuple(raw["n"]),
        modifiers=tuple(tuple(m) for m in raw.get("m", [])),
        extras=tuple(tuple(x) for x in raw.get("x", [])),
        specs=tuple((spec,) if isinstance(spec, str) else tuple(spec) for spec in raw["s"]),
        spec_attribute=raw.get("sa", "model"),
        attributes=tuple((name, tuple(values)) for name, values in raw.get("a", {}).items()),
        colours=tuple(raw.get("c", ["grey"])),
        unit=raw["u"],
        price=(float(raw["p"][0]), float(raw["p"][1])),
        moq=(int(raw["q"][0]), int(raw["q"][1])),
        hs_code=raw.get("hs", ""),
    )


def _country(raw: dict[str, Any]) -> Country:
    stems = []
    for stem in raw.get("stems", []):
        stems.append((stem, stem) if isinstance(stem, str) else (stem[0], stem[1]))
    return Country(
        code=raw["code"],
        language=raw["lang"],
        style=raw["style"],
        people=raw["people"],
        weight=float(raw["weight"]),
        buyer_share=float(raw["buyer"]),
        currencies=tuple((code, float(weight)) for code, weight in raw["currencies"]),
        industries=tuple(raw.get("industries", [])),
        forms=tuple(LegalForm(*form) for form in raw["forms"]),
        regions=tuple(
            Region(
                province=(region["p"][0], region["p"][1]),
                cities=tuple((city[0], city[1]) for city in region["c"]),
                ports=tuple(region["ports"]),
            )
            for region in raw["regions"]
        ),
        stems=tuple(stems),
    )


@cache
def load_vocabulary() -> Vocabulary:
    products = _read("products.json")
    words = _read("vocabulary.json")
    countries = _read("countries.json")
    names = _read("names.json")
    return Vocabulary(
        templates=tuple(_template(raw) for raw in products["templates"]),
        countries=tuple(_country(raw) for raw in countries["countries"]),
        attribute_names=words["attribute_names"],
        values=words["values"],
        colours=words["colours"],
        units=words["units"],
        markets=words["markets"],
        business_types=words["business_types"],
        list_separator=words["list_separator"],
        list_and=words["list_and"],
        selling_points=words["selling_points"],
        sentences={
            key: words[key]
            for key in (
                "product_intro",
                "product_custom",
                "product_shipping",
                "company_description",
                "buyer_description",
            )
        },
        certifications=words["certifications"],
        port_names=countries["port_names"],
        fx={code: float(rate) for code, rate in countries["fx"].items()},
        names=names,
    )
