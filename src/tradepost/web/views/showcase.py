"""The paid showcase: the company's page where its owner or an admin chooses which published
products show in the labelled "Sponsored" block (within the plan's slots), and the public
page that explains paid placement (docs/adr/0026-showcase-and-first-look.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tradepost.catalog.errors import ProductError
from tradepost.catalog.forms import ShowcaseForm
from tradepost.catalog.showcase_selectors import HOME_ITEMS, PAGE_ITEMS, company_showcase
from tradepost.catalog.showcase_services import showcase_add, showcase_remove
from tradepost.companies.models import Company
from tradepost.core.languages import normalise_ui_language
from tradepost.membership.selectors import offered_plans
from tradepost.sourcing.first_look import first_look_minutes
from tradepost.web.guards import actor, company_required
from tradepost.web.refusals import flash_refusal, show_on_form

NO_COMPANY = gettext_lazy("Create your company profile before choosing a showcase.")


def _page(request: HttpRequest, company: Company, form: ShowcaseForm) -> HttpResponse:
    language = normalise_ui_language(get_language())
    showcase = company_showcase(company)
    return render(
        request,
        "products/showcase.html",
        {
            "company_name": company.name_for(language),
            "showcase": showcase,
            "form": form,
            "can_choose": actor(request).manages(company),
        },
    )


@company_required(NO_COMPANY)
@require_GET
def showcase_page(request: HttpRequest, company: Company) -> HttpResponse:
    return _page(request, company, ShowcaseForm())


@company_required(NO_COMPANY)
@require_POST
def showcase_choose(request: HttpRequest, company: Company) -> HttpResponse:
    form = ShowcaseForm(request.POST)
    if form.is_valid():
        try:
            showcase_add(actor=request.user, product_id=form.cleaned_data["product_id"])
        except ProductError as error:
            show_on_form(form, error)
        else:
            messages.success(request, _("The product is in your showcase."))
            return redirect("products:showcase")
    return _page(request, company, form)


@login_required
@require_POST
def showcase_remove_product(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        showcase_remove(actor=request.user, product_id=pk)
    except ProductError as error:
        flash_refusal(request, error)
    else:
        messages.success(request, _("The product is out of your showcase; it stays listed."))
    return redirect("products:showcase")


@require_GET
def sponsored_info(request: HttpRequest) -> HttpResponse:
    """What "Sponsored" means on the site: which plans buy what, and what no plan buys."""
    language = normalise_ui_language(get_language())
    plans = [
        {"name": plan.name_for(language), "slots": plan.showcase_slots}
        for plan in offered_plans()
        if plan.showcase_slots
    ]
    return render(
        request,
        "web/sponsored.html",
        {
            "plans": plans,
            "home_items": HOME_ITEMS,
            "page_items": PAGE_ITEMS,
            "first_look_minutes": first_look_minutes(),
        },
    )
