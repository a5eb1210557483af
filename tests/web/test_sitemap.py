"""/sitemap.xml: categories, companies with published products, published products, in
every language with hreflang alternates."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.conf import settings

from tests.factories import make_company, make_product
from tests.web.catalog_factories import make_tree
from tradepost.catalog.models import ProductStatus

pytestmark = pytest.mark.django_db

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


def sitemap(client) -> ET.Element:
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    return ET.fromstring(response.content)


def locations(root: ET.Element) -> set[str]:
    return {loc.text for loc in root.findall("s:url/s:loc", NS)}


def test_sitemap_lists_published_things_in_every_language(client):
    _root, _branch, leaf, _other = make_tree()
    company = make_company(slug="flask-maker")
    product = make_product(company=company, category=leaf, slug="flask")
    locs = locations(sitemap(client))
    for language in ("en", "zh-hans", "zh-hant"):
        assert f"{settings.SITE_URL}/{language}/products/{product.pk}-flask/" in locs
        assert f"{settings.SITE_URL}/{language}/companies/flask-maker/" in locs
        assert f"{settings.SITE_URL}/{language}/categories/{leaf.slug}/" in locs


def test_sitemap_has_alternates_x_default_and_lastmod(client):
    product = make_product(slug="flask")
    root = sitemap(client)
    url = next(
        u
        for u in root.findall("s:url", NS)
        if u.find("s:loc", NS).text == f"{settings.SITE_URL}/en/products/{product.pk}-flask/"
    )
    links = {link.get("hreflang"): link.get("href") for link in url.findall("x:link", NS)}
    assert links["zh-hans"] == f"{settings.SITE_URL}/zh-hans/products/{product.pk}-flask/"
    assert links["zh-hant"] == f"{settings.SITE_URL}/zh-hant/products/{product.pk}-flask/"
    assert links["x-default"] == f"{settings.SITE_URL}/products/{product.pk}-flask/"
    assert url.find("s:lastmod", NS).text.startswith(str(product.updated_at.date()))


@pytest.mark.parametrize(
    "status", [ProductStatus.DRAFT, ProductStatus.HIDDEN, ProductStatus.DELETED]
)
def test_unpublished_products_and_their_only_companies_are_absent(client, status):
    company = make_company(slug="quiet-company")
    product = make_product(company=company, slug="secret", status=status)
    text = "\n".join(locations(sitemap(client)))
    assert f"/products/{product.pk}-" not in text
    assert "/companies/quiet-company/" not in text


def test_sitemap_query_count_is_constant(client, django_assert_max_num_queries):
    for _n in range(12):
        make_product(company=make_company())
    with django_assert_max_num_queries(4):
        client.get("/sitemap.xml")
