"""The sitemap: /sitemap.xml is an index of pages (/sitemap-<section>.xml?p=N) listing the
categories, the companies with published products and the published products, each in every
interface language with hreflang alternates (x-default is the unprefixed address, as on the
pages themselves).

URLs are written against SITE_URL, like the canonical links of the pages themselves.

Built for a million listings, where Django's sitemap views are too slow: they count and load
every item of a section to paginate it, and render each URL through a template (30,000 URLs
took 4.6 s to render alone). Here:

- a page is a range of primary keys (`IDS_PER_PAGE` ids, so at most `URLS_PER_PAGE` URLs,
  below the protocol's 50,000), read with one query on the primary key, no OFFSET and no
  count; the index lists the ranges that hold something (one short query each);
- each page reverses each URL pattern once per language and fills in the ids and slugs, and
  writes the XML directly, the alternates of an item once for its URLs in every language.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

from django.conf import settings
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import translation

from tradepost.catalog.public_companies import companies_with_published_products
from tradepost.catalog.selectors import all_categories, published_products
from tradepost.web.templatetags.tradepost_i18n import HREFLANG

#: The most URLs a sitemap page holds (the protocol allows 50,000).
URLS_PER_PAGE = 30_000
#: Characters reverse() leaves as they are in a path argument (Django's own choice).
_PATH_SAFE = "!$&'()*+,;=~:@"
_INT_MARK = 918_273_645_019
_TEXT_MARK = "tpsitemapmark"


def _languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def ids_per_page() -> int:
    """Items per page: every item is listed once per language."""
    return max(1, URLS_PER_PAGE // len(_languages()))


def _path_filler(url_name: str, kinds: tuple[type, ...]) -> Callable[[tuple[Any, ...]], str]:
    """The path of `url_name` in the active language for given arguments, with the pattern
    reversed once: marks are reversed, then replaced by each item's (quoted) values."""
    marks = [
        str(_INT_MARK + n) if kind is int else f"{_TEXT_MARK}{n}" for n, kind in enumerate(kinds)
    ]
    template = reverse(url_name, args=marks).replace("{", "{{").replace("}", "}}")
    for n, mark in enumerate(marks):
        if template.count(mark) != 1:  # a pattern that does not take the marks as they are
            return lambda args: reverse(url_name, args=args)
        template = template.replace(mark, f"{{{n}}}")

    def fill(args: tuple[Any, ...]) -> str:
        return template.format(*(quote(str(value), safe=_PATH_SAFE) for value in args))

    return fill


@dataclass(frozen=True)
class Section:
    """One kind of public page: the rows to list and how each becomes an address."""

    name: str
    url_name: str
    changefreq: str
    priority: str
    #: The published rows, as a queryset of the section's model.
    rows: Callable[[], QuerySet[Any]]
    #: The fields read for a URL, the last change last when `has_lastmod`.
    fields: tuple[str, ...]
    #: The URL's arguments from a row of `fields`, and their types.
    arguments: Callable[[tuple[Any, ...]], tuple[Any, ...]]
    kinds: tuple[type, ...]
    has_lastmod: bool = False

    def page_count(self) -> int:
        """The pages of id ranges up to the highest id (some may be empty)."""
        model = self.rows().model
        last = model.objects.order_by("-pk").values_list("pk", flat=True).first()
        return 0 if last is None else (last - 1) // ids_per_page() + 1

    def _page_rows(self, page: int) -> QuerySet[Any]:
        first = (page - 1) * ids_per_page() + 1
        return self.rows().filter(pk__gte=first, pk__lt=first + ids_per_page())

    def pages(self) -> list[int]:
        """The pages that hold at least one row."""
        return [page for page in range(1, self.page_count() + 1) if self._page_rows(page).exists()]

    def page_values(self, page: int) -> list[tuple[Any, ...]]:
        return list(self._page_rows(page).order_by("pk").values_list(*self.fields))


SECTIONS: dict[str, Section] = {
    section.name: section
    for section in (
        Section(
            name="categories",
            url_name="catalog:category_detail",
            changefreq="daily",
            priority="0.6",
            rows=all_categories,
            fields=("slug",),
            arguments=lambda row: (row[0],),
            kinds=(str,),
        ),
        Section(
            name="companies",
            url_name="catalog:company_detail",
            changefreq="weekly",
            priority="0.5",
            rows=companies_with_published_products,
            fields=("slug", "updated_at"),
            arguments=lambda row: (row[0],),
            kinds=(str,),
            has_lastmod=True,
        ),
        Section(
            name="products",
            url_name="catalog:product_detail",
            changefreq="weekly",
            priority="0.8",
            rows=published_products,
            fields=("pk", "slug", "updated_at"),
            # Product.get_absolute_url: a product without a slug is at <id>-item.
            arguments=lambda row: (row[0], row[1] or "item"),
            kinds=(int, str),
            has_lastmod=True,
        ),
    )
}


def _site_base() -> str:
    return settings.SITE_URL.rstrip("/")


def section_location(section: str, page: int) -> str:
    """The absolute address of one page of a section."""
    path = reverse("sitemap_section", kwargs={"section": section})
    return f"{_site_base()}{path}" + (f"?p={page}" if page > 1 else "")


def index_xml() -> str:
    """/sitemap.xml: every page of every section that lists something."""
    entries = [
        f"<sitemap><loc>{escape(section_location(name, page))}</loc></sitemap>\n"
        for name, section in SECTIONS.items()
        for page in section.pages()
    ]
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(entries)
        + "</sitemapindex>\n"
    )


def _lastmod(value: datetime | None) -> str:
    return f"<lastmod>{value.date().isoformat()}</lastmod>" if value is not None else ""


def _page_urls(section: Section, rows: list[tuple[Any, ...]]) -> Iterator[str]:
    base = _site_base()
    languages = _languages()
    locations: dict[str, list[str]] = {}
    for language in languages:
        with translation.override(language):
            fill = _path_filler(section.url_name, section.kinds)
            locations[language] = [base + fill(section.arguments(row)) for row in rows]
    default = settings.LANGUAGE_CODE
    hreflangs = {language: quoteattr(HREFLANG.get(language, language)) for language in languages}
    tail = f"<changefreq>{section.changefreq}</changefreq><priority>{section.priority}</priority>"
    for n, row in enumerate(rows):
        alternates = "".join(
            f'<xhtml:link rel="alternate" hreflang={hreflangs[language]}'
            f" href={quoteattr(locations[language][n])}/>"
            for language in languages
        )
        if default in locations:
            x_default = locations[default][n].replace(f"/{default}/", "/", 1)
            alternates += (
                f'<xhtml:link rel="alternate" hreflang="x-default" href={quoteattr(x_default)}/>'
            )
        lastmod = _lastmod(row[-1]) if section.has_lastmod else ""
        for language in languages:
            loc = escape(locations[language][n])
            yield f"<url><loc>{loc}</loc>{lastmod}{tail}{alternates}</url>\n"


def page_xml(section_name: str, page: int) -> str | None:
    """One page of a section, or None when there is no such page or it lists nothing."""
    section = SECTIONS.get(section_name)
    if section is None or not 1 <= page <= section.page_count():
        return None
    rows = section.page_values(page)
    if not rows:
        return None
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        + "".join(_page_urls(section, rows))
        + "</urlset>\n"
    )
