"""One input per use case (docs/adr/0020-one-input-layer.md): the service's fields type names
what a use case takes; the web form and the API body send exactly those names, so a field added
to one of the three and not the others fails here instead of being dropped on one path."""

from __future__ import annotations

import inspect
from typing import Unpack, get_args, get_origin, get_type_hints

import pytest

from tests.factories.sourcing import request_fields
from tradepost.api.accounts import CompanyPatch
from tradepost.api.products import ProductCreate, ProductPublish, ProductWrite
from tradepost.api.reports import ReportIn
from tradepost.api.reviews import ReplyIn, ReviewIn
from tradepost.api.screening import BannedTermIn, BannedTermPatch
from tradepost.api.showcase import ShowcaseIn
from tradepost.api.sourcing import QuotationWrite, RequestWrite
from tradepost.api.webhooks import EndpointIn, EndpointPatch
from tradepost.catalog import services as catalog_services
from tradepost.catalog.forms import ProductForm, ProductPublishForm, ShowcaseForm
from tradepost.catalog.showcase_services import SHOWCASE_FIELDS
from tradepost.companies import services as companies_services
from tradepost.companies.forms import CompanyCreateForm, CompanyProfileForm
from tradepost.companies.validation import PROFILE_FIELDS, CompanyFields
from tradepost.reviews import services as reviews_services
from tradepost.reviews.forms import ReplyForm as ReviewReplyForm
from tradepost.reviews.forms import ReviewForm
from tradepost.screening import services as screening_services
from tradepost.screening.forms import BannedTermForm
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.errors import SourcingError
from tradepost.sourcing.forms import BuyingRequestForm, PriceTierForm, QuotationForm
from tradepost.trust import services as trust_services
from tradepost.trust.forms import ReportForm
from tradepost.webhooks import services as webhooks_services
from tradepost.webhooks.forms import EndpointForm

#: (use case, the fields the service takes, the web form, the API body)
USE_CASES = [
    ("product", catalog_services.PRODUCT_FIELDS, ProductForm, ProductWrite),
    ("publish", catalog_services.PUBLISH_FIELDS, ProductPublishForm, ProductPublish),
    ("request", sourcing_services.REQUEST_FIELDS, BuyingRequestForm, RequestWrite),
    # The quotation form's price tiers are rows of their own form (PriceTierForm).
    ("quotation", sourcing_services.QUOTATION_FIELDS, QuotationForm, QuotationWrite),
    ("company profile", frozenset(PROFILE_FIELDS), CompanyProfileForm, CompanyPatch),
    ("report", trust_services.REPORT_FIELDS, ReportForm, ReportIn),
    ("banned term", screening_services.BANNED_TERM_FIELDS, BannedTermForm, BannedTermIn),
    (
        "banned term change",
        screening_services.BANNED_TERM_FIELDS,
        BannedTermForm,
        BannedTermPatch,
    ),
    ("showcase", SHOWCASE_FIELDS, ShowcaseForm, ShowcaseIn),
    ("review", reviews_services.REVIEW_FIELDS, ReviewForm, ReviewIn),
    ("review reply", reviews_services.REPLY_FIELDS, ReviewReplyForm, ReplyIn),
    ("webhook endpoint", webhooks_services.ENDPOINT_FIELDS, EndpointForm, EndpointIn),
    ("webhook endpoint change", webhooks_services.ENDPOINT_FIELDS, EndpointForm, EndpointPatch),
]


@pytest.mark.parametrize(
    ("fields", "form", "body"),
    [case[1:4] for case in USE_CASES],
    ids=[case[0] for case in USE_CASES],
)
def test_the_form_and_the_api_body_send_the_fields_the_service_takes(fields, form, body):
    form_fields = set(form.base_fields)
    if form is QuotationForm:
        form_fields.add("price_tiers")
    assert form_fields == set(fields), "the web form and the service disagree"
    assert set(body.model_fields) == set(fields), "the API body and the service disagree"


def test_a_new_company_is_a_subset_of_its_profile():
    assert set(CompanyCreateForm.base_fields) <= set(PROFILE_FIELDS)


def test_an_operator_creating_a_product_only_adds_whose_it_is():
    assert set(ProductCreate.model_fields) - set(ProductWrite.model_fields) == {"company_id"}


def test_price_tier_rows_carry_what_a_tier_is():
    assert set(PriceTierForm.base_fields) == {"min_quantity", "unit_price"}


@pytest.mark.parametrize(
    ("service", "fields"),
    [
        (catalog_services.product_create, catalog_services.ProductFields),
        (catalog_services.product_update, catalog_services.ProductFields),
        (sourcing_services.request_create, sourcing_services.RequestFields),
        (sourcing_services.request_update, sourcing_services.RequestFields),
        (sourcing_services.quotation_submit, sourcing_services.QuotationFields),
        (companies_services.company_create, CompanyFields),
        (companies_services.company_update, CompanyFields),
        (trust_services.report_submit, trust_services.ReportFields),
        (screening_services.banned_term_create, screening_services.BannedTermFields),
        (screening_services.banned_term_update, screening_services.BannedTermFields),
        (reviews_services.review_create, reviews_services.ReviewFields),
        (reviews_services.review_reply, reviews_services.ReplyFields),
        (webhooks_services.webhook_endpoint_create, webhooks_services.EndpointFields),
        (webhooks_services.webhook_endpoint_update, webhooks_services.EndpointFields),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_write_services_take_their_fields_as_typed_keyword_arguments(service, fields):
    parameters = inspect.signature(service).parameters.values()
    assert all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in parameters), (
        "positional parameters"
    )
    hints = get_type_hints(service, include_extras=True)
    (var_keyword,) = [p.name for p in parameters if p.kind is p.VAR_KEYWORD]
    assert get_origin(hints[var_keyword]) is Unpack
    assert get_args(hints[var_keyword]) == (fields,)


def test_a_field_the_service_does_not_take_is_refused_by_name(cast):
    with pytest.raises(SourcingError) as refused:
        sourcing_services.request_create(
            actor=cast.owner,
            **request_fields(),
            colour="red",  # type: ignore[typeddict-unknown-key]
        )
    assert "colour" in refused.value.message_dict


def test_a_catalogue_upload_sends_the_fields_the_service_takes():
    """The upload is multipart (files), so its API body is the operation's form, read from
    the schema; the service takes the same names as keyword-only arguments."""
    from tradepost.api.urls import api
    from tradepost.imports.forms import UploadForm
    from tradepost.imports.services import UPLOAD_FIELDS, import_upload

    schema = api.get_openapi_schema()
    body = schema["paths"]["/api/v1/me/imports"]["post"]["requestBody"]["content"]
    form = body["multipart/form-data"]["schema"]
    if "$ref" in form:
        form = schema["components"]["schemas"][form["$ref"].rsplit("/", 1)[-1]]
    assert set(UploadForm.base_fields) == UPLOAD_FIELDS, "the web form and the service disagree"
    assert set(form["properties"]) == UPLOAD_FIELDS, "the API body and the service disagree"
    parameters = inspect.signature(import_upload).parameters
    assert set(parameters) >= UPLOAD_FIELDS
    assert all(parameters[name].kind is inspect.Parameter.KEYWORD_ONLY for name in UPLOAD_FIELDS)
