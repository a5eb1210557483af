"""/sitemap.xml: categories, companies with published products and published products, each
in every interface language with hreflang alternates (x-default is English).

URLs are written against SITE_URL, like the canonical links of the pages themselves.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.db.models import QuerySet
from django.urls import reverse

from tradepost.catalog.company_selectors import companies_with_published_products
from tradepost.catalog.models import Category, Product
from tradepost.catalog.selectors import all_categories, published_products
from tradepost.companies.models import Company


class _SiteSitemap(Sitemap):
    i18n = True
    alternates = True
    x_default = True

    def get_protocol(self, protocol: str | None = None) -> str:
        return urlsplit(settings.SITE_URL).scheme or "https"

    def get_domain(self, site: Any = None) -> str:
        parts = urlsplit(settings.SITE_URL)
        return parts.netloc + parts.path.rstrip("/")


class CategorySitemap(_SiteSitemap):
    changefreq = "daily"
    priority = 0.6

    def items(self) -> QuerySet[Category]:
        return all_categories().only("id", "slug", "path")

    def location(self, item: Category) -> str:
        return reverse("catalog:category_detail", args=[item.slug])


class CompanySitemap(_SiteSitemap):
    changefreq = "weekly"
    priority = 0.5

    def items(self) -> QuerySet[Company]:
        return companies_with_published_products().only("id", "slug", "updated_at").order_by("id")

    def location(self, item: Company) -> str:
        return reverse("catalog:company_detail", args=[item.slug])

    def lastmod(self, item: Company) -> Any:
        return item.updated_at


class ProductSitemap(_SiteSitemap):
    changefreq = "weekly"
    priority = 0.8

    def items(self) -> QuerySet[Product]:
        return published_products().only("id", "slug", "updated_at").order_by("id")

    def location(self, item: Product) -> str:
        return item.get_absolute_url()

    def lastmod(self, item: Product) -> Any:
        return item.updated_at


SITEMAPS: dict[str, type[Sitemap]] = {
    "categories": CategorySitemap,
    "companies": CompanySitemap,
    "products": ProductSitemap,
}
