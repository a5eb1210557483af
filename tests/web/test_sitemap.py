"""/sitemap.xml: an index of pages listing categories, companies with published products and
published products, in every language with hreflang alternates; pages of at most 50,000 URLs
read by ranges of ids."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from tests.factories.catalog import make_product, make_tree
from tests.factories.companies import make_company
from tradepost.catalog.models import ProductStatus
from tradepost.web import sitemaps

pytestmark = pytest.mark.django_db

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


def fetch(client, url: str) -> ET.Element:
    response = client.get(url)
    assert response.status_code == 200, url
    assert response["Content-Type"].startswith("application/xml")
    return ET.fromstring(response.content)


def page_addresses(client) -> list[str]:
    """The pages the index at /sitemap.xml names, as absolute SITE_URL addresses."""
    index = fetch(client, "/sitemap.xml")
    assert index.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"
    return [loc.text for loc in index.findall("s:sitemap/s:loc", NS)]


def sitemap(client) -> ET.Element:
    """Every page of the index merged into one urlset."""
    merged = ET.Element("{http://www.sitemaps.org/schemas/sitemap/0.9}urlset")
    for address in page_addresses(client):
        assert address.startswith(settings.SITE_URL + "/sitemap-")
        parts = urlsplit(address)
        merged.extend(fetch(client, f"{parts.path}?{parts.query}"))
    return merged


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
    # hreflang as the pages write it (BCP 47: zh-Hans, zh-Hant).
    assert links["en"] == f"{settings.SITE_URL}/en/products/{product.pk}-flask/"
    assert links["zh-Hans"] == f"{settings.SITE_URL}/zh-hans/products/{product.pk}-flask/"
    assert links["zh-Hant"] == f"{settings.SITE_URL}/zh-hant/products/{product.pk}-flask/"
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


def test_sitemap_page_query_count_is_constant(client, django_assert_max_num_queries):
    for _n in range(12):
        make_product(company=make_company())
    # Pages are ranges of ids; on PostgreSQL ids do not start again at 1 for each test.
    for address in page_addresses(client):
        parts = urlsplit(address)
        with django_assert_max_num_queries(2):
            assert client.get(f"{parts.path}?{parts.query}").status_code == 200


def test_the_index_names_each_page_of_at_most_the_limit_of_urls(client, monkeypatch):
    """Three languages, a page of 7 URLs: two products a page, by ranges of ids."""
    monkeypatch.setattr(sitemaps, "URLS_PER_PAGE", 7)
    company = make_company(slug="maker")
    products = [make_product(company=company, slug=f"p{n}") for n in range(5)]
    products[2].status = ProductStatus.DRAFT  # one fewer on its page
    products[2].save(update_fields=["status"])
    addresses = page_addresses(client)
    product_pages = [a for a in addresses if "/sitemap-products.xml" in a]
    # A page is a range of ids (on PostgreSQL ids do not start again at 1 for each test).
    per_page = sitemaps.ids_per_page()
    numbers = sorted({(p.pk - 1) // per_page + 1 for n, p in enumerate(products) if n != 2})
    assert product_pages == [
        f"{settings.SITE_URL}/sitemap-products.xml" + ("" if n == 1 else f"?p={n}") for n in numbers
    ]
    listed = []
    for address in product_pages:
        parts = urlsplit(address)
        page = fetch(client, f"{parts.path}?{parts.query}")
        urls = page.findall("s:url/s:loc", NS)
        assert 0 < len(urls) <= 7
        listed.extend(url.text for url in urls)
    expected = {
        f"{settings.SITE_URL}/{language}/products/{p.pk}-p{n}/"
        for n, p in enumerate(products)
        if n != 2
        for language in ("en", "zh-hans", "zh-hant")
    }
    assert set(listed) == expected and len(listed) == len(expected)


@pytest.mark.parametrize("query", ["?p=0", "?p=99", "?p=abc", "?p=-1", "?p=１"])
def test_a_page_that_does_not_exist_is_a_404(client, query):
    make_product()
    assert client.get(f"/sitemap-products.xml{query}").status_code == 404
    assert client.get("/sitemap-nothing.xml").status_code == 404


def test_an_empty_range_of_ids_is_left_out_of_the_index(client, monkeypatch):
    monkeypatch.setattr(sitemaps, "URLS_PER_PAGE", 3)  # one product a page
    company = make_company()
    first, hidden, last = (make_product(company=company) for _n in range(3))
    hidden.status = ProductStatus.HIDDEN
    hidden.save(update_fields=["status"])
    pages = [a for a in page_addresses(client) if "/sitemap-products.xml" in a]
    numbers = [int(a.rsplit("=", 1)[1]) if "?p=" in a else 1 for a in pages]
    assert numbers == [first.pk, last.pk]
    assert client.get(f"/sitemap-products.xml?p={hidden.pk}").status_code == 404


def test_a_product_without_a_slug_is_listed_at_its_item_address(client):
    product = make_product(slug="")
    assert product.get_absolute_url() == f"/en/products/{product.pk}-item/"
    assert f"{settings.SITE_URL}/en/products/{product.pk}-item/" in locations(sitemap(client))
