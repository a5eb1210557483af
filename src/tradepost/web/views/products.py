"""The supplier's product dashboard: list, create, edit, photos, translations, publishing.

Views parse the request, fetch the product through `access_product` (another company's product
is a 404, like a missing one), call one service and render.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tradepost.accounts.selectors import is_operator
from tradepost.catalog import services
from tradepost.catalog.category_picker import category_options, suggest_categories
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.catalog.forms import (
    ProductForm,
    ProductImageForm,
    ProductPublishForm,
    ProductTranslationForm,
)
from tradepost.catalog.models import Product, ProductStatus, ProductTranslation
from tradepost.catalog.permissions import access_product, managed_products
from tradepost.companies.models import Company
from tradepost.core.languages import LISTING_LANGUAGES, UI_LANGUAGES
from tradepost.web.guards import NAMED_BY_OPERATORS, company_required
from tradepost.web.pagination import paginate
from tradepost.web.refusals import flash_refusal, show_on_form

PRODUCTS_PER_PAGE = 20
LISTED_STATUSES = [
    (ProductStatus.DRAFT, ProductStatus.DRAFT.label),
    (ProductStatus.PUBLISHED, ProductStatus.PUBLISHED.label),
    (ProductStatus.HIDDEN, ProductStatus.HIDDEN.label),
    (ProductStatus.HELD, ProductStatus.HELD.label),
]
_LANGUAGE_NAMES = dict(LISTING_LANGUAGES)


def _company_param(request: HttpRequest) -> int | None:
    """`?company=<id>`: the company an operator works on; ignored when it is not a number."""
    raw = request.GET.get("company", "")
    return int(raw) if raw.isdigit() and len(raw) < 19 else None


def _update_url(product: Product) -> str:
    return reverse("products:update", kwargs={"pk": product.pk})


@company_required(
    gettext_lazy("Create your company profile before adding products."), named=NAMED_BY_OPERATORS
)
def product_list(request: HttpRequest, company: Company) -> HttpResponse:
    status = request.GET.get("status", "")
    if status not in dict(LISTED_STATUSES):
        status = ""
    products = managed_products(company, status=status or None)
    page = paginate(request, products, PRODUCTS_PER_PAGE)
    language = get_language()
    for product in page.object_list:
        product.category_name = product.category.name_for(language)  # type: ignore[attr-defined]
    counts = dict(
        Product.objects.filter(company=company)
        .exclude(status=ProductStatus.DELETED)
        .values_list("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )
    company_query = {"company": company.pk} if is_operator(request.user) else {}
    filters = [
        {
            "status": "",
            "label": _("All"),
            "count": sum(counts.values()),
            "query": urlencode(company_query),
        }
    ] + [
        {
            "status": code,
            "label": label,
            "count": counts.get(code, 0),
            "query": urlencode({**company_query, "status": code}),
        }
        for code, label in LISTED_STATUSES
    ]
    return render(
        request,
        "products/list.html",
        {
            "company": company,
            "company_name": company.name_for(language),
            "page": page,
            "status": status,
            "filters": filters,
            "create_query": urlencode(company_query),
        },
    )


@company_required(
    gettext_lazy("Create your company profile before adding products."), named=NAMED_BY_OPERATORS
)
@require_http_methods(["GET", "POST"])
def product_create(request: HttpRequest, company: Company) -> HttpResponse:
    language = get_language()
    if request.method == "POST":
        form = ProductForm(request.POST, language=language)
        if form.is_valid():
            try:
                product = services.product_create(
                    actor=request.user,  # type: ignore[arg-type]
                    company=company,
                    **form.service_fields(),
                )
            except ProductError as error:
                show_on_form(form, error)
            else:
                messages.success(
                    request, _("The product was saved as a draft. Add photos, then publish it.")
                )
                return redirect(_update_url(product))
    else:
        form = ProductForm(
            language=language, initial={"original_language": _listing_default(company)}
        )
    return render(
        request,
        "products/form.html",
        {"form": form, "company": company, "product": None, "create_query": _query(request)},
    )


def _query(request: HttpRequest) -> str:
    company_id = _company_param(request) if is_operator(request.user) else None
    return urlencode({"company": company_id}) if company_id else ""


def _listing_default(company: Company) -> str:
    """A new listing is written, most likely, in the company's own language; else in the
    language of the page."""
    if company.original_language in _LANGUAGE_NAMES:
        return company.original_language
    language = get_language() or "en"
    return language if language in _LANGUAGE_NAMES else "en"


def _image_rows(product: Product) -> list[dict[str, Any]]:
    images = list(product.images.all())
    ids = [image.pk for image in images]
    rows = []
    for index, image in enumerate(images):
        earlier = None
        later = None
        if index > 0:
            order = ids.copy()
            order[index - 1], order[index] = order[index], order[index - 1]
            earlier = ",".join(map(str, order))
        if index < len(ids) - 1:
            order = ids.copy()
            order[index + 1], order[index] = order[index], order[index + 1]
            later = ",".join(map(str, order))
        rows.append({"image": image, "order_earlier": earlier, "order_later": later})
    return rows


def _translation_rows(product: Product) -> list[dict[str, Any]]:
    existing = {t.language: t for t in ProductTranslation.objects.filter(product=product)}
    return [
        {"language": code, "name": _LANGUAGE_NAMES[code], "translation": existing.get(code)}
        for code in UI_LANGUAGES
        if code != product.original_language
    ]


def _edit_page(
    request: HttpRequest,
    product: Product,
    form: ProductForm,
    image_form: ProductImageForm | None = None,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "products/form.html",
        {
            "form": form,
            "product": product,
            "company": product.company,
            "image_form": image_form or ProductImageForm(),
            "images": _image_rows(product),
            "max_images": settings.TRADEPOST_PRODUCT_MAX_IMAGES,
            "translations": _translation_rows(product),
            "language_name": _LANGUAGE_NAMES.get(
                product.original_language, product.original_language
            ),
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def product_update(request: HttpRequest, pk: int) -> HttpResponse:
    product = access_product(user=request.user, product_id=pk)
    language = get_language()
    if request.method == "POST":
        form = ProductForm(request.POST, language=language)
        if form.is_valid():
            try:
                product = services.product_update(
                    actor=request.user,  # type: ignore[arg-type]
                    product=product,
                    **form.service_fields(),
                )
            except ProductError as error:
                show_on_form(form, error)
            else:
                messages.success(request, _("Your changes were saved."))
                return redirect(_update_url(product))
    else:
        form = ProductForm(language=language, initial=ProductForm.initial_for(product))
    return _edit_page(request, product, form)


def _run_action(
    request: HttpRequest, pk: int, action: Any, success: str, held: str = "", **options: Any
) -> HttpResponse:
    """`held`: what to say when the product ends up held for review (banned terms);
    `options`: the action's other arguments."""
    product = access_product(user=request.user, product_id=pk)
    try:
        done = action(actor=request.user, product=product, **options)
    except ProductError as error:
        if error.code is ProductErrorCode.LIKELY_DUPLICATE:
            return _likely_duplicate_page(request, product, error)
        flash_refusal(request, error)
    else:
        if held and getattr(done, "status", None) == ProductStatus.HELD:
            messages.warning(request, held)
        else:
            messages.success(request, success)
    return redirect(_update_url(product))


def _likely_duplicate_page(
    request: HttpRequest, product: Product, error: ProductError
) -> HttpResponse:
    """The company's published listings much like the product being published, each with
    a link to its page and to edit it instead, and a button to publish anyway (ADR 0024)."""
    duplicates = [
        {**duplicate, "percent": round(duplicate["similarity"] * 100)}
        for duplicate in error.extensions.get("duplicates", [])
    ]
    return render(
        request,
        "products/publish_duplicate.html",
        {"product": product, "duplicates": duplicates, "message": error.message},
        status=409,
    )


@login_required
@require_POST
def product_publish(request: HttpRequest, pk: int) -> HttpResponse:
    form = ProductPublishForm(request.POST)
    allow_duplicate = form.is_valid() and form.cleaned_data["allow_duplicate"]
    return _run_action(
        request,
        pk,
        services.product_publish,
        _("The product is published and listed."),
        held=_(
            "The product is held for review: it contains wording our team checks before such "
            "a listing goes public. It is not public until then; you will get an email when it "
            "is decided. You can still edit it and publish it again."
        ),
        allow_duplicate=allow_duplicate,
    )


@login_required
@require_POST
def product_unpublish(request: HttpRequest, pk: int) -> HttpResponse:
    return _run_action(
        request, pk, services.product_unpublish, _("The product is no longer listed.")
    )


@login_required
@require_http_methods(["GET", "POST"])
def product_delete(request: HttpRequest, pk: int) -> HttpResponse:
    product = access_product(user=request.user, product_id=pk)
    if request.method == "POST":
        services.product_delete(actor=request.user, product=product)  # type: ignore[arg-type]
        messages.success(request, _("The product was deleted."))
        list_url = reverse("products:list")
        if is_operator(request.user):
            list_url += "?" + urlencode({"company": product.company_id})
        return HttpResponseRedirect(list_url)
    return render(request, "products/delete.html", {"product": product})


@login_required
@require_POST
def product_image_add(request: HttpRequest, pk: int) -> HttpResponse:
    product = access_product(user=request.user, product_id=pk)
    image_form = ProductImageForm(request.POST, request.FILES)
    if image_form.is_valid():
        try:
            services.product_image_add(
                actor=request.user,  # type: ignore[arg-type]
                product=product,
                upload=image_form.cleaned_data["image"],
            )
        except ProductError as error:
            show_on_form(image_form, error)
        else:
            messages.success(request, _("The photo was added."))
            return redirect(_update_url(product) + "#photos")
    form = ProductForm(language=get_language(), initial=ProductForm.initial_for(product))
    # The page comes back with the form's action anchor (#photos) in view, where the reason
    # is; a banner at the top says it too.
    return _edit_page(request, product, form, image_form)


@login_required
@require_GET
def category_picker_options(request: HttpRequest) -> JsonResponse:
    """Every leaf category with its full path in the page's language, for the picker."""
    options = category_options(language=get_language())
    response = JsonResponse(
        {"categories": [{"id": o.id, "path": o.path, "terms": o.terms} for o in options]}
    )
    response["Cache-Control"] = "private, max-age=300"
    return response


@login_required
@require_GET
def category_picker_suggestions(request: HttpRequest) -> JsonResponse:
    """The leaf categories that fit `?title=` best, for the picker's suggestions."""
    suggestions = suggest_categories(
        title=request.GET.get("title", "")[:200], language=get_language()
    )
    return JsonResponse({"suggestions": [{"id": s.id, "path": s.path} for s in suggestions]})


@login_required
@require_POST
def product_image_remove(request: HttpRequest, pk: int, image_id: int) -> HttpResponse:
    product = access_product(user=request.user, product_id=pk)
    services.product_image_remove(
        actor=request.user,  # type: ignore[arg-type]
        product=product,
        image_id=image_id,
    )
    messages.success(request, _("The photo was removed."))
    return redirect(_update_url(product) + "#photos")


@login_required
@require_POST
def product_image_reorder(request: HttpRequest, pk: int) -> HttpResponse:
    product = access_product(user=request.user, product_id=pk)
    raw = request.POST.get("order", "")
    order = [int(part) for part in raw.split(",") if part.strip().isdigit() and len(part) < 19]
    try:
        services.product_image_reorder(
            actor=request.user,  # type: ignore[arg-type]
            product=product,
            image_ids=order,
        )
    except ProductError as error:
        flash_refusal(request, error)
    return redirect(_update_url(product) + "#photos")


@login_required
@require_http_methods(["GET", "POST"])
def product_translation(request: HttpRequest, pk: int, language: str) -> HttpResponse:
    product = access_product(user=request.user, product_id=pk)
    if language not in UI_LANGUAGES or language == product.original_language:
        raise ProductNotFound()  # no translation of it into this language can be written
    translation = ProductTranslation.objects.filter(product=product, language=language).first()
    if request.method == "POST":
        form = ProductTranslationForm(request.POST)
        if form.is_valid():
            try:
                services.product_translation_set(
                    actor=request.user,  # type: ignore[arg-type]
                    product=product,
                    language=language,
                    title=form.cleaned_data["title"],
                    description=form.cleaned_data["description"],
                )
            except ProductError as error:
                show_on_form(form, error)
            else:
                messages.success(request, _("The translation was saved."))
                return redirect(_update_url(product) + "#translations")
    else:
        initial = (
            {"title": translation.title, "description": translation.description}
            if translation
            else {}
        )
        form = ProductTranslationForm(initial=initial)
    return render(
        request,
        "products/translation.html",
        {
            "product": product,
            "form": form,
            "language": language,
            "language_name": _LANGUAGE_NAMES[language],
            "translation": translation,
        },
    )


@login_required
@require_POST
def product_translation_remove(request: HttpRequest, pk: int, language: str) -> HttpResponse:
    product = access_product(user=request.user, product_id=pk)
    if services.product_translation_remove(
        actor=request.user,  # type: ignore[arg-type]
        product=product,
        language=language,
    ):
        messages.success(request, _("The translation was removed."))
    return redirect(_update_url(product) + "#translations")
