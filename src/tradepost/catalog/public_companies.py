"""Public reads of companies: profiles, the supplier directory and featured suppliers.

Only what any visitor may see; reads on a member's behalf live in `companies/selectors.py`.
It belongs to the catalogue: a company is public through its published products.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, TextField
from django.db.models.functions import Cast

from tradepost.catalog.models import Product, ProductStatus
from tradepost.catalog.selectors import LocalisedText, choice_labels, language_tag
from tradepost.companies.models import BusinessType, Company, EmployeeRange, Market, Standing
from tradepost.core.chinese_scripts import is_convertible
from tradepost.core.countries import country_name, is_country
from tradepost.core.languages import normalise_ui_language

COMPANIES_PER_PAGE = 24

_PUBLISHED = Q(products__status=ProductStatus.PUBLISHED)


def _has_published_products() -> Exists:
    return Exists(Product.objects.filter(company_id=OuterRef("pk"), status=ProductStatus.PUBLISHED))


def public_companies() -> QuerySet[Company]:
    """Every company in good standing has a public profile; a suspended or banned one has
    none while it is."""
    return Company.objects.filter(standing=Standing.ACTIVE)


def get_public_company(slug: str) -> Company | None:
    return public_companies().filter(slug=slug).first()


def companies_with_published_products() -> QuerySet[Company]:
    return public_companies().filter(_has_published_products())


def with_business_type(companies: QuerySet[Company], business_type: str) -> QuerySet[Company]:
    """Companies whose `business_types` list holds `business_type`.

    The JSON list is matched as text ('"manufacturer"' inside '["manufacturer", ...]'), which
    works on SQLite and PostgreSQL alike; values are checked against BusinessType first, so
    the quoted value cannot match part of another one.
    """
    if business_type not in BusinessType.values:
        return companies.none()
    return companies.alias(business_types_text=Cast("business_types", TextField())).filter(
        business_types_text__contains=f'"{business_type}"'
    )


@dataclass(frozen=True)
class DirectoryFilters:
    country: str  # "" when not filtered
    business_type: str
    is_valid: bool  # False when a given value is unknown: the result is then empty


def directory_filters(country: Any, business_type: Any) -> DirectoryFilters:
    """Validate the directory's query parameters; unknown values give an empty result."""
    country = str(country or "").strip().upper()[:10]
    business_type = str(business_type or "").strip()[:40]
    valid = (not country or is_country(country)) and (
        not business_type or business_type in BusinessType.values
    )
    return DirectoryFilters(country=country, business_type=business_type, is_valid=valid)


def company_directory(filters: DirectoryFilters) -> QuerySet[Company]:
    """Companies for the directory, each annotated with `published_count`, by name."""
    if not filters.is_valid:
        return public_companies().none()
    companies = public_companies()
    if filters.country:
        companies = companies.filter(country=filters.country)
    if filters.business_type:
        companies = with_business_type(companies, filters.business_type)
    return companies.annotate(published_count=Count("products", filter=_PUBLISHED)).order_by(
        "legal_name", "id"
    )


def directory_countries(language: str) -> list[tuple[str, str]]:
    """(code, name) of the countries that have at least one company, by name."""
    language = normalise_ui_language(language)
    codes = public_companies().order_by().values_list("country", flat=True).distinct()
    return sorted(((c, country_name(c, language)) for c in codes if c), key=lambda c: c[1])


def featured_companies(*, limit: int = 8) -> list[Company]:
    """Featured suppliers first, then those with the most published products."""
    return list(
        public_companies()
        .annotate(published_count=Count("products", filter=_PUBLISHED))
        .filter(Q(is_featured=True) | Q(published_count__gt=0))
        .order_by("-is_featured", "-published_count", "legal_name", "id")[:limit]
    )


@dataclass(frozen=True)
class CompanyProfile:
    company: Company
    name: str
    country_name: str
    business_types: list[str]
    markets: list[str]
    employees: str
    certifications: list[str]
    location: str
    name_lang: str  # BCP 47 tag of the name shown
    text_lang: str  # BCP 47 tag of the profile's own texts (description, main products)
    #: The profile's texts as written (never translated): their language, for the page's
    #: "original in ..." badge when it is not the viewer's.
    text: LocalisedText
    #: The Chinese script the legal name is written in when `name` is its conversion into
    #: the viewer's script; "" otherwise.
    name_converted_from: str = ""


def certification_names(raw: Any) -> list[str]:
    """Certificate names whether stored as strings or as {"name": ...} objects."""
    if not isinstance(raw, list):
        return []
    names = []
    for item in raw:
        if isinstance(item, dict):
            item = item.get("name") or item.get("title") or ""
        if isinstance(item, str) and item.strip():
            names.append(item.strip())
    return names


def business_type_labels(values: Any) -> list[str]:
    return choice_labels(values, BusinessType)


def company_profile(company: Company, *, language: str) -> CompanyProfile:
    language = normalise_ui_language(language)
    country = country_name(company.country, language)
    place = ", ".join(p for p in (company.city, company.province, country) if p)
    written_in = company.name_script()
    text_lang = language_tag(written_in)
    name = company.name_for(language)
    converted = name != company.legal_name and is_convertible(written_in, language)
    if language == "en" and company.english_name:
        name_lang = "en"
    else:
        name_lang = language_tag(language) if converted else text_lang
    return CompanyProfile(
        company=company,
        name=name,
        country_name=country,
        business_types=business_type_labels(company.business_types),
        markets=choice_labels(company.main_markets, Market),
        employees=str(dict(EmployeeRange.choices).get(company.employee_range, "")),
        certifications=certification_names(company.certifications),
        location=place,
        name_lang=name_lang,
        text_lang=text_lang,
        text=LocalisedText(
            title=company.legal_name,
            written_description=company.description,
            language=written_in,
            original_language=written_in,
            viewer_language=language,
            is_translation=False,
        ),
        name_converted_from=written_in if converted else "",
    )


def api_companies(
    *, country: str | None = None, business_type: str | None = None
) -> QuerySet[Company]:
    """Companies for the API, newest id first."""
    companies = public_companies()
    if country:
        companies = companies.filter(country=country)
    if business_type:
        companies = with_business_type(companies, business_type)
    return companies.order_by("-id")
