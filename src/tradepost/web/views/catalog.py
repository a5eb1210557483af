"""Public catalogue pages: categories, products, the supplier directory and company profiles."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language

from tradepost.catalog import public_companies as companies
from tradepost.catalog import selectors as catalog
from tradepost.catalog.showcase_selectors import category_showcase
from tradepost.companies.models import BusinessType
from tradepost.core.html import html_to_text
from tradepost.core.languages import normalise_ui_language
from tradepost.insights.counting import mark_product_view
from tradepost.membership.badges import shows_gold_badge
from tradepost.reviews.selectors import latest_reviews
from tradepost.sourcing.responsiveness import supplier_responsiveness
from tradepost.trust.selectors import public_verification
from tradepost.web.badges import gold_ids
from tradepost.web.pagination import paginate
from tradepost.web.templatetags.tradepost_catalog import (
    absolute_url,
    product_structured_data,
)

META_DESCRIPTION_LENGTH = 160


def _language() -> str:
    return normalise_ui_language(get_language())


def _summary(html: str, limit: int = META_DESCRIPTION_LENGTH) -> str:
    text = html_to_text(html)
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def category_list(request: HttpRequest) -> HttpResponse:
    tree = catalog.category_tree(language=_language(), max_depth=1)
    return render(request, "catalog/category_list.html", {"tree": tree})


def category_detail(request: HttpRequest, slug: str) -> HttpResponse:
    language = _language()
    category = catalog.get_category(slug)
    if category is None:
        raise Http404
    sort = catalog.normalise_sort(request.GET.get("sort"))
    products = catalog.category_products(category=category, language=language, sort=sort)
    page = paginate(request, products, catalog.PRODUCTS_PER_PAGE)
    cards = catalog.product_cards(page.object_list, language=language)
    # The paid showcase of this category, in its own labelled block (ADR 0026).
    showcase_cards = (
        category_showcase(language=language, category=category) if page.number == 1 else []
    )
    context = {
        "category": category,
        "category_name": category.name_for(language),
        "breadcrumbs": [
            catalog.CategoryNode(category=c, name=c.name_for(language))
            for c in [*catalog.category_ancestors(category), category]
        ],
        "subcategories": catalog.subcategory_nodes(category, language=language),
        "page": page,
        "cards": cards,
        "sort": sort,
        "showcase_cards": showcase_cards,
        "gold_ids": gold_ids(cards=[*cards, *showcase_cards]),
    }
    return render(request, "catalog/category_detail.html", context)


def product_redirect(request: HttpRequest, pk: int) -> HttpResponse:
    product = catalog.get_published_product(pk)
    if product is None:
        raise Http404
    return redirect(product.get_absolute_url(), permanent=True)


def product_detail(request: HttpRequest, pk: int, slug: str) -> HttpResponse:
    product = catalog.get_published_product(pk)
    if product is None:
        raise Http404
    if slug != product.url_slug:
        return redirect(product.get_absolute_url(), permanent=True)
    detail = catalog.product_detail(product, language=_language())
    url = absolute_url(product.get_absolute_url())
    image_urls = [absolute_url(image.image.url) for image in detail.images if image.image]
    company_url = absolute_url(reverse("catalog:company_detail", args=[product.company.slug]))
    description = _summary(detail.text.description) or detail.text.title
    context = {
        "detail": detail,
        "product": product,
        "canonical_url": url,
        "image_urls": image_urls,
        "meta_description": description,
        "responsiveness": supplier_responsiveness(product.company),
        "gold_badge": shows_gold_badge(product.company),
        "structured_data": product_structured_data(
            detail,
            url=url,
            image_urls=image_urls,
            company_url=company_url,
            description=_summary(detail.text.description, 5000),
        ),
    }
    response = render(request, "catalog/product_detail.html", context)
    mark_product_view(response, product_id=product.pk, company_id=product.company_id)
    return response


def company_directory(request: HttpRequest) -> HttpResponse:
    language = _language()
    filters = companies.directory_filters(request.GET.get("country"), request.GET.get("type"))
    page = paginate(request, companies.company_directory(filters), companies.COMPANIES_PER_PAGE)
    profiles = [companies.company_profile(c, language=language) for c in page.object_list]
    context = {
        "filters": filters,
        "page": page,
        "profiles": profiles,
        "gold_ids": gold_ids(profiles=profiles),
        "countries": companies.directory_countries(language),
        "business_types": BusinessType.choices,
    }
    return render(request, "catalog/company_directory.html", context)


def company_detail(request: HttpRequest, slug: str) -> HttpResponse:
    language = _language()
    company = companies.get_public_company(slug)
    if company is None:
        raise Http404
    reviews = latest_reviews(company=company)
    for review in reviews:
        review.buyer_name = review.buyer.name_for(language) if review.buyer else ""  # type: ignore[attr-defined]
    products = catalog.company_products(company_id=company.pk, language=language)
    page = paginate(request, products, catalog.PRODUCTS_PER_PAGE)
    cards = catalog.product_cards(page.object_list, language=language)
    context = {
        "profile": companies.company_profile(company, language=language),
        "company": company,
        "meta_description": _summary(company.description),
        "responsiveness": supplier_responsiveness(company),
        "verification": public_verification(company),
        "gold_badge": shows_gold_badge(company),
        "page": page,
        "cards": cards,
        "reviews": reviews,
    }
    return render(request, "catalog/company_detail.html", context)
