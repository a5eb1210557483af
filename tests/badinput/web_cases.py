"""Every page that takes a POST, with a valid submission for each, and how to post to a page
and tell a refusal from its answer.

The pages are found by walking the URL resolver: a project view takes POST when it is a class
with a `post` method, or when its code (decorators included) names "POST" or `request.FILES`.
`test_web.py` fails when that finds a page missing from WEB_WRITES, so a new form is added here
with its valid submission.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.forms import PasswordChangeForm, PasswordResetForm
from django.core.files.uploadedfile import SimpleUploadedFile
from django.forms import BaseForm
from django.http import HttpResponse
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone, translation

from tests.badinput.payloads import PDF, catalogue_csv, png
from tests.badinput.world import World
from tests.factories.accounts import PASSWORD
from tradepost.accounts.forms import (
    EmailAuthenticationForm,
    EmailChangeForm,
    SettingsForm,
    SignupForm,
    TokenCreateForm,
)
from tradepost.alerts.forms import AlertCreateForm, AlertEditForm
from tradepost.catalog.forms import (
    ProductForm,
    ProductImageForm,
    ProductPublishForm,
    ProductTranslationForm,
    ShowcaseForm,
)
from tradepost.companies.forms import (
    CompanyCreateForm,
    CompanyProfileForm,
    InviteForm,
    LogoForm,
)
from tradepost.imports.forms import ConfirmForm, RecheckForm, UploadForm
from tradepost.membership.forms import BillingForm
from tradepost.messaging.forms import InquiryForm, ReplyForm
from tradepost.money.forms import DisplayCurrencyForm
from tradepost.reviews.forms import HideForm, ReviewForm
from tradepost.reviews.forms import ReplyForm as ReviewReplyForm
from tradepost.screening.forms import BannedTermBulkForm, BannedTermForm, HeldRejectForm
from tradepost.sourcing.forms import AttachmentForm, BuyingRequestForm, DeclineForm, QuotationForm
from tradepost.trust.forms import (
    ApproveForm,
    DecisionForm,
    ModerationForm,
    RejectForm,
    ReportForm,
    VerificationSubmitForm,
)
from tradepost.webhooks.forms import EndpointForm, RotateSecretForm


def _walk(patterns: list[Any], namespace: str = "") -> Iterator[tuple[str, Callable[..., Any]]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace or ""
            yield from _walk(
                pattern.url_patterns, f"{namespace}:{inner}" if namespace and inner else inner
            )
        elif isinstance(pattern, URLPattern) and pattern.name:
            name = f"{namespace}:{pattern.name}" if namespace else pattern.name
            yield name, pattern.callback


def _takes_post(view: Callable[..., Any]) -> bool:
    view_class = getattr(view, "view_class", None)
    if view_class is not None:
        return hasattr(view_class, "post")
    source = inspect.getsource(inspect.unwrap(view))
    # POST, require_POST, request.POST; not a longer name that starts with it ("POSTED_...").
    return re.search(r"POST(?![A-Za-z_])", source) is not None or "request.FILES" in source


def post_views() -> set[str]:
    """The URL names of the project's views that take a POST."""
    found = set()
    for name, view in _walk(get_resolver().url_patterns):
        module = getattr(getattr(view, "view_class", view), "__module__", "")
        if module.startswith("tradepost.") and _takes_post(view):
            found.add(name)
    return found


# --- the pages and their valid submissions ----------------------------------------------------

OWNER, NEWCOMER, VISITOR, OPERATOR = "owner", "newcomer", "visitor", "operator"
#: The owner of a Gold supplier: the showcase's pages need a plan with slots.
SHOWCASER = "showcaser"
NUMBER_FIELDS = frozenset(
    {"quantity", "target_unit_price", "unit_price", "moq", "lead_time_days", "sample_cost"}
)


@dataclass(frozen=True)
class Page:
    name: str
    data: Callable[[World], dict[str, Any]] = lambda w: {}
    kwargs: Callable[[World], dict[str, Any]] = lambda w: {}
    query: Callable[[World], str] = lambda w: ""
    form: type[forms.BaseForm] | None = None  # the fields the page reads, when a form
    fields: tuple[str, ...] = ()  # ... or these, read from request.POST directly
    actor: str = OWNER
    tags: frozenset[str] = field(default_factory=frozenset)

    @property
    def id(self) -> str:
        return self.name

    def url(self, world: World, language: str = "zh-hans") -> str:
        with translation.override(language):
            url = reverse(self.name, kwargs=self.kwargs(world))
        query = self.query(world)
        return f"{url}?{query}" if query else url

    def field_kinds(self) -> dict[str, str]:
        """text, number or file, for each field the page reads."""
        if self.form is None:
            return dict.fromkeys(self.fields, "text")
        kinds = {}
        for name, form_field in self.form.base_fields.items():
            if isinstance(form_field, forms.FileField):
                kinds[name] = "file"
            elif isinstance(form_field, forms.BooleanField):
                continue
            elif name in NUMBER_FIELDS or isinstance(
                form_field, forms.DecimalField | forms.IntegerField | forms.FloatField
            ):
                kinds[name] = "number"
            else:
                kinds[name] = "text"
        return kinds


def _deadline() -> str:
    return (timezone.localdate() + timedelta(days=14)).isoformat()


def _valid_until() -> str:
    return (timezone.localdate() + timedelta(days=30)).isoformat()


def _product(w: World) -> dict[str, Any]:
    return {
        "title": "Vacuum flask 500 ml",
        "original_language": "en",
        "category_id": w.leaf_category_id,
        "description": "<p>Double wall.</p>",
        "attributes": "Material: 304 steel",
        "keywords": "thermos",
        "moq": "100",
        "moq_unit": "pieces",
        "price_min": "2.5",
        "price_max": "3.5",
        "currency": "USD",
        "incoterms": ["FOB"],
        "port_of_loading": "Ningbo",
        "payment_terms": ["tt"],
        "lead_time_days": "30",
        "supply_capacity": "10000",
        "supply_capacity_unit": "pieces",
        "hs_code": "",
        "origin_country": "CN",
    }


def _company(w: World) -> dict[str, Any]:
    return {
        "legal_name": "Ningbo Flask Works Co., Ltd.",
        "english_name": "Ningbo Flask Works",
        "country": "CN",
        "business_types": ["manufacturer"],
        "original_language": "en",
    }


def _profile(w: World) -> dict[str, Any]:
    return {
        **_company(w),
        "province": "Zhejiang",
        "city": "Ningbo",
        "year_established": "2005",
        "employee_range": "51-200",
        "main_markets": ["western_europe"],
        "main_products": "Flasks",
        "certifications": "ISO 9001, BSCI",
        "export_share": "60",
        "website": "https://example.com",
        "description": "<p>We make flasks.</p>",
    }


def _request(w: World) -> dict[str, Any]:
    return {
        "title": "Stainless steel vacuum flasks",
        "original_language": "en",
        "category_id": w.leaf_category_id,
        "description": "<p>Double wall.</p>",
        "quantity": "5000",
        "unit": "pieces",
        "target_unit_price": "2.40",
        "target_currency": "USD",
        "destination_country": "NL",
        "destination_port": "Rotterdam",
        "preferred_incoterm": "FOB",
        "required_certifications": "CE, LFGB",
        "deadline": _deadline(),
    }


def _quotation(w: World) -> dict[str, Any]:
    return {
        "unit_price": "2.30",
        "currency": "USD",
        # Volume prices: one row of the form's repeated rows (a Django formset).
        "tiers-TOTAL_FORMS": "2",
        "tiers-INITIAL_FORMS": "0",
        "tiers-0-min_quantity": "10000",
        "tiers-0-unit_price": "2.10",
        "tiers-1-min_quantity": "",
        "tiers-1-unit_price": "",
        "moq": "1000",
        "lead_time_days": "30",
        "incoterm": "FOB",
        "named_place": "Ningbo",
        "payment_terms": ["tt"],
        "valid_until": _valid_until(),
        "sample_available": "on",
        "sample_cost": "15",
        "message": "We make these every day.",
    }


def _png_upload(name: str = "photo.png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png(), "image/png")


def _pdf_upload() -> SimpleUploadedFile:
    return SimpleUploadedFile("spec.pdf", PDF, "application/pdf")


def _catalogue_upload() -> SimpleUploadedFile:
    return SimpleUploadedFile("catalogue.csv", catalogue_csv(), "text/csv")


UPLOAD = frozenset({"upload"})

WEB_WRITES = [
    # accounts
    Page(
        "accounts:login",
        lambda w: {"username": w.user.email, "password": PASSWORD},
        form=EmailAuthenticationForm,
        actor=VISITOR,
    ),
    Page("accounts:logout"),
    Page(
        "accounts:signup",
        lambda w: {
            "email": "new.buyer@example.com",
            "full_name": "New Buyer",
            "password": "a-long-Passphrase-42",
            "preferred_language": "en",
        },
        form=SignupForm,
        actor=VISITOR,
    ),
    Page(
        "accounts:settings",
        lambda w: {"full_name": "Wang Wei", "preferred_language": "zh-hans"},
        form=SettingsForm,
    ),
    Page(
        "accounts:password_change",
        lambda w: {
            "old_password": PASSWORD,
            "new_password1": "a-long-Passphrase-42",
            "new_password2": "a-long-Passphrase-42",
        },
        form=PasswordChangeForm,
    ),
    Page(
        "accounts:change_email",
        lambda w: {"new_email": "wang.wei@example.com", "password": PASSWORD},
        form=EmailChangeForm,
    ),
    Page("accounts:change_email_confirm", kwargs=lambda w: {"token": "not-a-token"}),
    Page("accounts:resend_verification"),
    Page("accounts:verify_email", kwargs=lambda w: {"token": "not-a-token"}),
    Page(
        "accounts:password_reset",
        lambda w: {"email": w.user.email},
        form=PasswordResetForm,
        actor=VISITOR,
    ),
    Page(
        "accounts:password_reset_confirm",
        lambda w: {"new_password1": "a-long-Passphrase-42", "new_password2": "x"},
        kwargs=lambda w: {"uidb64": "MQ", "token": "not-a-token"},
        fields=("new_password1", "new_password2"),
        actor=VISITOR,
    ),
    Page("accounts:tokens", lambda w: {"name": "ERP sync"}, form=TokenCreateForm),
    Page("accounts:token_revoke", kwargs=lambda w: {"token_id": w.api_token.pk}),
    # companies
    Page("companies:create", _company, form=CompanyCreateForm, actor=NEWCOMER),
    Page("companies:profile", _profile, form=CompanyProfileForm),
    Page("companies:logo", lambda w: {"logo": _png_upload()}, form=LogoForm, tags=UPLOAD),
    Page(
        "companies:invite",
        lambda w: {"email": "new.colleague@example.com", "role": "member"},
        form=InviteForm,
    ),
    Page("companies:leave"),
    Page("companies:member_remove", kwargs=lambda w: {"membership_id": w.colleague.pk}),
    Page(
        "companies:member_role",
        lambda w: {"role": "admin"},
        kwargs=lambda w: {"membership_id": w.colleague.pk},
        fields=("role",),
    ),
    Page("companies:member_make_owner", kwargs=lambda w: {"membership_id": w.colleague.pk}),
    Page("companies:invitation_revoke", kwargs=lambda w: {"invitation_id": w.invitation.pk}),
    Page("companies:invitation_accept", kwargs=lambda w: {"token": "not-a-token"}),
    # products
    Page("products:create", _product, form=ProductForm),
    Page("products:update", _product, kwargs=lambda w: {"pk": w.product.pk}, form=ProductForm),
    Page("products:publish", kwargs=lambda w: {"pk": w.product.pk}, form=ProductPublishForm),
    Page("products:unpublish", kwargs=lambda w: {"pk": w.product.pk}),
    Page("products:delete", kwargs=lambda w: {"pk": w.product.pk}),
    Page(
        "products:image_add",
        lambda w: {"image": _png_upload()},
        kwargs=lambda w: {"pk": w.product.pk},
        form=ProductImageForm,
        tags=UPLOAD,
    ),
    Page(
        "products:image_reorder",
        lambda w: {"order": str(w.image.pk)},
        kwargs=lambda w: {"pk": w.product.pk},
        fields=("order",),
    ),
    Page("products:image_remove", kwargs=lambda w: {"pk": w.product.pk, "image_id": w.image.pk}),
    Page(
        "products:translation",
        lambda w: {"title": "不锈钢保温杯", "description": "<p>双层</p>"},
        kwargs=lambda w: {"pk": w.product.pk, "language": "zh-hans"},
        form=ProductTranslationForm,
    ),
    Page(
        "products:translation_remove",
        kwargs=lambda w: {"pk": w.product.pk, "language": "zh-hans"},
    ),
    Page(
        "products:showcase_add",
        lambda w: {"product_id": str(w.showcase_product.pk)},
        form=ShowcaseForm,
        actor=SHOWCASER,
    ),
    Page(
        "products:showcase_remove",
        kwargs=lambda w: {"pk": w.showcased_product.pk},
        actor=SHOWCASER,
    ),
    # the catalogue import
    Page(
        "imports:list",
        lambda w: {"catalogue": _catalogue_upload(), "encoding": "", "mode": "valid"},
        form=UploadForm,
        tags=UPLOAD,
    ),
    Page(
        "imports:confirm",
        lambda w: {"mode": "valid"},
        kwargs=lambda w: {"pk": w.import_job.pk},
        form=ConfirmForm,
    ),
    Page(
        "imports:recheck",
        lambda w: {"encoding": "utf-8"},
        kwargs=lambda w: {"pk": w.import_job.pk},
        form=RecheckForm,
    ),
    Page("imports:cancel", kwargs=lambda w: {"pk": w.import_job.pk}),
    # sourcing
    Page("sourcing:create", _request, form=BuyingRequestForm),
    Page(
        "sourcing:update", _request, kwargs=lambda w: {"pk": w.request.pk}, form=BuyingRequestForm
    ),
    Page("sourcing:close", kwargs=lambda w: {"pk": w.request.pk}),
    Page(
        "sourcing:quote",
        _quotation,
        kwargs=lambda w: {"pk": w.their_request.pk},
        form=QuotationForm,
    ),
    Page("sourcing:shortlist", kwargs=lambda w: {"pk": w.quotation_received.pk}),
    Page(
        "sourcing:decline",
        lambda w: {"reason": "Too expensive"},
        kwargs=lambda w: {"pk": w.quotation_received.pk},
        form=DeclineForm,
    ),
    Page("sourcing:award", kwargs=lambda w: {"pk": w.quotation_received.pk}),
    Page(
        "sourcing:ask",
        lambda w: {"message": "Can you print our logo?"},
        kwargs=lambda w: {"pk": w.quotation_received.pk},
        fields=("message",),
    ),
    Page(
        "sourcing:request_attachment_add",
        lambda w: {"file": _pdf_upload()},
        kwargs=lambda w: {"pk": w.request.pk},
        form=AttachmentForm,
        tags=UPLOAD,
    ),
    Page(
        "sourcing:quotation_attachment_add",
        lambda w: {"file": _pdf_upload()},
        kwargs=lambda w: {"pk": w.quotation_sent.pk},
        form=AttachmentForm,
        tags=UPLOAD,
    ),
    Page("sourcing:attachment_remove", kwargs=lambda w: {"pk": w.attachment.pk}),
    # messaging
    Page(
        "messaging:inquiry_create",
        lambda w: {"quantity": "1000", "unit": "pieces", "message": "Price for 1000 pieces?"},
        query=lambda w: f"product={w.their_product.pk}",
        form=InquiryForm,
        tags=UPLOAD,
    ),
    Page(
        "messaging:detail",
        lambda w: {"body": "Thank you."},
        kwargs=lambda w: {"conversation_id": w.conversation.pk},
        form=ReplyForm,
        tags=UPLOAD,
    ),
    Page("messaging:notifications_read_all"),
    Page("messaging:show_buyer", kwargs=lambda w: {"conversation_id": w.conversation.pk}),
    Page(
        "messaging:email_preference",
        lambda w: {"email_messages": "on"},
        fields=("email_messages",),
    ),
    Page("messaging:unsubscribe", kwargs=lambda w: {"token": "not-a-token"}, actor=VISITOR),
    # trust (verification)
    Page(
        "trust:verification",
        lambda w: {"business_licence": _pdf_upload(), "certification": _png_upload("iso.png")},
        form=VerificationSubmitForm,
        tags=UPLOAD,
    ),
    Page("trust:verification_withdraw"),
    Page(
        "trust:approve",
        lambda w: {"checked": ["legal_name", "address"]},
        kwargs=lambda w: {"verification_id": w.verification.pk},
        form=ApproveForm,
        actor=OPERATOR,
    ),
    Page(
        "trust:reject",
        lambda w: {"reason": "The licence has expired."},
        kwargs=lambda w: {"verification_id": w.verification.pk},
        form=RejectForm,
        actor=OPERATOR,
    ),
    # trust (reports and moderation)
    Page(
        "trust:report_create",
        lambda w: {
            "target": "product",
            "target_id": str(w.their_product.pk),
            "reason": "counterfeit",
            "note": "The logo is a famous brand's.",
        },
        form=ReportForm,
    ),
    Page(
        "trust:report_decide",
        lambda w: {"action": "hide", "reason": "counterfeit", "message": "Remove the logos."},
        kwargs=lambda w: {"report_id": w.report.pk},
        form=DecisionForm,
        actor=OPERATOR,
    ),
    Page(
        "trust:moderate",
        lambda w: {
            "target": "product",
            "target_id": str(w.their_product.pk),
            "action": "warn",
            "reason": "misleading",
            "message": "The photos show another product.",
        },
        form=ModerationForm,
        actor=OPERATOR,
    ),
    # reviews
    Page(
        "reviews:create",
        lambda w: {"rating": "4", "text": "Good lids, one carton arrived dented."},
        kwargs=lambda w: {"quotation_id": w.award_to_review.pk},
        form=ReviewForm,
    ),
    Page(
        "reviews:reply",
        lambda w: {"reply": "Thank you: the next order ships on time."},
        kwargs=lambda w: {"review_id": w.review_received.pk},
        form=ReviewReplyForm,
    ),
    Page(
        "reviews:hide",
        lambda w: {"reason": "Insults the supplier's staff."},
        kwargs=lambda w: {"review_id": w.review_received.pk},
        form=HideForm,
        actor=OPERATOR,
    ),
    Page("reviews:restore", kwargs=lambda w: {"review_id": w.review_received.pk}, actor=OPERATOR),
    # banned terms and the listings they hold (operators)
    Page(
        "screening:terms",
        lambda w: {"term": "gun", "language": "any", "note": "Weapons", "active": "on"},
        form=BannedTermForm,
        actor=OPERATOR,
    ),
    Page(
        "screening:terms_bulk",
        lambda w: {"terms": "gun\n象牙\nknife", "language": "any", "note": "Weapons"},
        form=BannedTermBulkForm,
        actor=OPERATOR,
    ),
    Page(
        "screening:term_update",
        lambda w: {"term": "ivory tusk", "language": "en", "note": "CITES", "active": "on"},
        kwargs=lambda w: {"banned_term_id": w.banned_term.pk},
        form=BannedTermForm,
        actor=OPERATOR,
    ),
    Page(
        "screening:term_deactivate",
        kwargs=lambda w: {"banned_term_id": w.banned_term.pk},
        actor=OPERATOR,
    ),
    Page(
        "screening:term_activate",
        kwargs=lambda w: {"banned_term_id": w.banned_term.pk},
        actor=OPERATOR,
    ),
    Page(
        "screening:term_delete",
        kwargs=lambda w: {"banned_term_id": w.banned_term.pk},
        actor=OPERATOR,
    ),
    Page(
        "screening:held_approve",
        kwargs=lambda w: {"product_id": w.held_product.pk},
        actor=OPERATOR,
    ),
    Page(
        "screening:held_reject",
        lambda w: {"reason": "Ivory may not be sold."},
        kwargs=lambda w: {"product_id": w.held_product.pk},
        form=HeldRejectForm,
        actor=OPERATOR,
    ),
    # membership
    Page(
        "membership:change",
        lambda w: {"action": "subscribe"},
        kwargs=lambda w: {"plan_id": w.gold_plan_id},
        fields=("action",),
    ),
    Page("membership:cancel"),
    Page(
        "membership:billing",
        lambda w: {
            "legal_name": "Ningbo Flask Works Co., Ltd.",
            "address": "18 Harbour Road, Ningbo",
            "country": "CN",
            "tax_id": "91330200MA2AB1234X",
            "email": "accounts@flask-works.example",
        },
        form=BillingForm,
    ),
    Page(
        "membership:payment_confirm",
        kwargs=lambda w: {"invoice_id": w.invoice.pk},
        actor=OPERATOR,
    ),
    # webhooks
    Page(
        "webhooks:list",
        lambda w: {
            "url": "https://erp.flask-works.example/orders",
            "description": "ERP",
            "events": ["inquiry.created", "quotation.received"],
        },
        form=EndpointForm,
    ),
    Page(
        "webhooks:detail",
        lambda w: {"url": "https://erp.flask-works.example/v2", "events": ["product.published"]},
        kwargs=lambda w: {"endpoint_id": w.webhook_endpoint.pk},
        form=EndpointForm,
    ),
    Page(
        "webhooks:rotate",
        lambda w: {"keep_previous": "on"},
        kwargs=lambda w: {"endpoint_id": w.webhook_endpoint.pk},
        form=RotateSecretForm,
    ),
    Page("webhooks:disable", kwargs=lambda w: {"endpoint_id": w.webhook_endpoint.pk}),
    Page("webhooks:enable", kwargs=lambda w: {"endpoint_id": w.webhook_endpoint.pk}),
    Page("webhooks:test", kwargs=lambda w: {"endpoint_id": w.webhook_endpoint.pk}),
    Page("webhooks:delete", kwargs=lambda w: {"endpoint_id": w.webhook_endpoint.pk}),
    Page(
        "webhooks:redeliver",
        kwargs=lambda w: {
            "endpoint_id": w.webhook_endpoint.pk,
            "delivery_id": w.webhook_delivery.pk,
        },
    ),
    # trade alerts
    Page(
        "alerts:create",
        lambda w: {"query": "thermos", "kind": "product", "frequency": "weekly"},
        query=lambda w: "q=thermos&tab=products&country=CN",
        form=AlertCreateForm,
    ),
    Page(
        "alerts:update",
        lambda w: {"query": "thermos", "frequency": "instant"},
        kwargs=lambda w: {"alert_id": w.alert.pk},
        form=AlertEditForm,
    ),
    Page("alerts:pause", kwargs=lambda w: {"alert_id": w.alert.pk}),
    Page("alerts:resume", kwargs=lambda w: {"alert_id": w.alert.pk}),
    Page("alerts:delete", kwargs=lambda w: {"alert_id": w.alert.pk}),
    Page("alerts:unsubscribe", kwargs=lambda w: {"token": "not-a-token"}, actor=VISITOR),
    # the display currency (a visitor's choice, kept in a cookie)
    Page(
        "web:display_currency_set",
        lambda w: {"currency": "EUR", "next": "/zh-hans/"},
        form=DisplayCurrencyForm,
        actor=VISITOR,
    ),
]

PAGES = {page.name: page for page in WEB_WRITES}


# --- posting and reading the answer -------------------------------------------------------------

FORM = "application/x-www-form-urlencoded"
SURROGATE_MARK = "surrogate-bytes-here"


def post(
    http: Client, sessions: dict[str, str], page: Page, url: str, body: bytes, content_type: str
) -> HttpResponse:
    http.cookies = SimpleCookie()
    if page.actor in sessions:
        http.cookies[settings.SESSION_COOKIE_NAME] = sessions[page.actor]
    return http.generic("POST", url, body, content_type=content_type)


def encode(data: dict[str, Any]) -> tuple[bytes, str]:
    """The form as a browser sends it: multipart with files, else URL-encoded; a value holding
    SURROGATE_MARK gets the UTF-8 bytes of an unpaired surrogate there (ED A0 80)."""
    if any(isinstance(value, SimpleUploadedFile) for value in data.values()):
        body = encode_multipart(BOUNDARY, data)
        return body.replace(SURROGATE_MARK.encode(), b"\xed\xa0\x80"), MULTIPART_CONTENT
    body = urlencode(data, doseq=True).encode()
    return body.replace(SURROGATE_MARK.encode(), b"%ED%A0%80"), FORM


def refusal_messages(response: HttpResponse) -> list[str] | None:
    """The messages of a refusal (its form errors and error messages); None when the answer
    is not one. A refusal: a 4xx, a redirect with an error message, a form with errors."""
    shown = [
        str(message)
        for message in getattr(response.wsgi_request, "_messages", [])
        if message.level == messages.ERROR
    ]
    shown += [
        str(message)
        for form in bound_forms(response)
        for field_errors in form.errors.values()
        for message in field_errors
    ]
    if response.status_code >= 400 or shown:
        return shown
    return None


def bound_forms(response: HttpResponse) -> list[BaseForm]:
    """The bound forms the answer's templates were rendered with."""
    contexts = response.context or []
    if not isinstance(contexts, list):
        contexts = [contexts]  # one template rendered: a Context, not a ContextList
    values = [value for context in contexts for value in context.flatten().values()]
    found = {id(value): value for value in values if isinstance(value, BaseForm)}
    return [form for form in found.values() if form.is_bound]


def refused_fields(response: HttpResponse) -> set[str]:
    """The fields the page's forms refused."""
    return {name for form in bound_forms(response) for name in form.errors}
