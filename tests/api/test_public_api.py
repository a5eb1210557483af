"""The public read API: categories, companies, published products, pages, problems."""

from __future__ import annotations

import pytest

from tests.factories.catalog import add_image, make_product, make_tree, translate
from tests.factories.companies import make_company
from tradepost.catalog.models import ProductStatus

pytestmark = pytest.mark.django_db


def assert_problem(response, status):
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/problem+json")
    return response.json()


def walk(client, path, page_size):
    """Every item of a paged list, following `next_page`, and the number of pages."""
    items, pages, page = [], 0, 1
    while page:
        body = client.get(path, {"page": page, "page_size": page_size}).json()
        items.extend(body["items"])
        pages += 1
        page = body["next_page"]
    return items, pages


# --- categories ---------------------------------------------------------------------------


def test_categories_list_has_parents_and_names_in_three_languages(client):
    root, branch, leaf, _other = make_tree()
    body = client.get("/api/v1/categories").json()
    by_slug = {c["slug"]: c for c in body["items"]}
    assert by_slug[leaf.slug]["parent_id"] == branch.pk
    assert by_slug[root.slug]["parent_id"] is None
    assert by_slug[root.slug]["names"] == {
        "en": "Home and Garden",
        "zh-hans": "家居园艺",
        "zh-hant": "家居園藝",
    }


def test_category_detail_counts_its_subtree(client):
    root, branch, leaf, _other = make_tree()
    make_product(category=leaf)
    make_product(category=leaf, status=ProductStatus.HIDDEN)
    body = client.get(f"/api/v1/categories/{branch.slug}").json()
    assert body["product_count"] == 1
    assert [a["slug"] for a in body["ancestors"]] == [root.slug]
    assert [c["slug"] for c in body["children"]] == [leaf.slug]


def test_unknown_category_is_a_404_problem(client):
    body = assert_problem(client.get("/api/v1/categories/nope"), 404)
    assert body["type"].endswith("/not-found")


# --- companies ----------------------------------------------------------------------------


def test_companies_filter_by_country_and_business_type(client):
    maker = make_company(country="CN", business_types=["manufacturer"])
    make_company(country="CN", business_types=["trading_company"])
    make_company(country="VN", business_types=["manufacturer"])
    body = client.get("/api/v1/companies?country=cn&business_type=manufacturer").json()
    assert [c["slug"] for c in body["items"]] == [maker.slug]
    assert body["count"] == 1 and body["next_page"] is None


def test_companies_pagination_visits_each_once(client):
    slugs = {make_company().slug for _ in range(7)}
    items, pages = walk(client, "/api/v1/companies", 3)
    assert pages == 3
    assert [c["slug"] for c in items] == sorted(slugs, key=lambda s: -int(s.split("-")[1]))
    assert len({c["slug"] for c in items}) == 7


def test_company_detail_and_404(client):
    company = make_company(website="https://example.com", certifications=["ISO 9001"])
    body = client.get(f"/api/v1/companies/{company.slug}").json()
    assert body["website"] == "https://example.com"
    assert body["certifications"] == ["ISO 9001"]
    assert body["url"].endswith(f"/companies/{company.slug}/")
    assert_problem(client.get("/api/v1/companies/nobody"), 404)


# --- products -----------------------------------------------------------------------------


def test_products_are_published_only(client):
    shown = make_product()
    for status in (ProductStatus.DRAFT, ProductStatus.HIDDEN, ProductStatus.DELETED):
        hidden = make_product(status=status)
        assert_problem(client.get(f"/api/v1/products/{hidden.pk}"), 404)
    body = client.get("/api/v1/products").json()
    assert [p["id"] for p in body["items"]] == [shown.pk]


def test_product_has_language_translations_images_and_terms(client, media_root):
    product = make_product(
        title="保温杯",
        original_language="zh-hans",
        incoterms=["FOB"],
        payment_terms=["tt"],
        lead_time_days=20,
        origin_country="CN",
        attributes=[{"name": "Material", "value": "Steel"}],
    )
    translate(product, "en", "Vacuum cup", "<p>Hot</p>")
    add_image(product)
    body = client.get(f"/api/v1/products/{product.pk}").json()
    assert body["original_language"] == "zh-hans"
    assert body["title"] == "保温杯"
    assert body["translations"] == [
        {
            "language": "en",
            "title": "Vacuum cup",
            "description": "<p>Hot</p>",
            "machine_translated": False,
            "keywords": "",
            "attributes": [],
        }
    ]
    assert body["images"][0]["url"].startswith("http://testserver/media/products/")
    assert body["images"][0]["thumbnail_url"].startswith("http://testserver/media/")
    terms = body["terms"]
    assert terms["moq"] == "100"
    assert terms["price_min"] == "2.50" and terms["price_max"] == "3.80"
    assert terms["currency"] == "USD"
    assert terms["incoterms"] == ["FOB"] and terms["payment_terms"] == ["tt"]
    assert body["attributes"] == [{"name": "Material", "value": "Steel"}]
    assert body["company"]["slug"] == product.company.slug


def test_products_filter_by_category_subtree_country_and_company(client):
    root, branch, leaf, other_leaf = make_tree()
    cn = make_company(country="CN")
    vn = make_company(country="VN")
    a = make_product(category=leaf, company=cn)
    b = make_product(category=other_leaf, company=vn)
    make_product(category=make_tree()[2], company=cn)

    def ids(query):
        return {p["id"] for p in client.get(f"/api/v1/products?{query}").json()["items"]}

    assert ids(f"category={root.slug}") == {a.pk, b.pk}
    assert ids(f"category={branch.slug}") == {a.pk}
    assert ids(f"category={root.slug}&country=VN") == {b.pk}
    assert ids(f"category={root.slug}&company={cn.slug}") == {a.pk}


def test_products_pagination(client):
    company = make_company()
    made = [make_product(company=company).pk for _ in range(11)]
    items, pages = walk(client, "/api/v1/products", 4)
    assert pages == 3
    assert [p["id"] for p in items] == sorted(made, reverse=True)
    first = client.get("/api/v1/products?page_size=4").json()
    assert first["count"] == 11 and first["next_page"] == 2 and first["previous_page"] is None
    second = client.get("/api/v1/products?page_size=4&page=2").json()
    assert second["items"][0]["id"] == sorted(made, reverse=True)[4]
    past = client.get("/api/v1/products?page_size=4&page=9").json()
    assert past["items"] == [] and past["count"] == 11 and past["next_page"] is None


@pytest.mark.parametrize(
    "query",
    [
        "cursor=garbage",  # the spelling of old: not a parameter now
        "limit=10",
        "page=0",
        "page=-1",
        "page=abc",
        "page=10001",
        "page=99999999999999999999999",
        "page_size=0",
        "page_size=101",
        "page_size=10000",
        "page_size=1.5",
        "country=%3Cscript%3E",
        "country=XX",
        "category=no-such-category",
        "company=no-such-company",
    ],
)
def test_hostile_product_params_are_422_problems(client, query):
    make_product()
    body = assert_problem(client.get(f"/api/v1/products?{query}"), 422)
    assert body["errors"]


@pytest.mark.parametrize("query", ["cursor=garbage", "country=<script>", "business_type=alien"])
def test_hostile_company_params_are_422_problems(client, query):
    assert_problem(client.get(f"/api/v1/companies?{query}"), 422)


@pytest.mark.parametrize("path", ["abc", "-1", "0", "99999999999999999999999"])
def test_bad_product_ids_are_problems_not_500(client, path):
    response = client.get(f"/api/v1/products/{path}")
    assert response.status_code in (404, 422)
    assert response["Content-Type"].startswith("application/problem+json")


def test_product_list_query_count(client, django_assert_max_num_queries, media_root):
    _root, _branch, leaf, _other = make_tree()
    for n in range(12):
        product = make_product(category=leaf, company=make_company())
        add_image(product)
        translate(product, "en", f"Item {n}")
    # Five, and one more: the page's machine translations (docs/adr/0036), whatever its size.
    with django_assert_max_num_queries(6):
        body = client.get(f"/api/v1/products?category={leaf.slug}&page_size=100").json()
    assert len(body["items"]) == 12


def test_openapi_schema_and_docs(client):
    schema = client.get("/api/v1/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in (
        "/api/v1/categories",
        "/api/v1/categories/{slug}",
        "/api/v1/companies",
        "/api/v1/companies/{slug}",
        "/api/v1/products",
        "/api/v1/products/{product_id}",
    ):
        assert path in paths
    assert client.get("/api/v1/docs").status_code == 200
