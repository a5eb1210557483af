"""The objects every bad-input test writes to, built once for the whole suite, and a snapshot of
what the database stores, to show that a refused write saved nothing.

The test user owns a company that is both a supplier (a draft product with a photo and a
translation, a quotation on another company's request) and a buyer (a request with an attachment,
another with a quotation from another supplier, an inquiry to that supplier); it has a colleague, a
pending invitation and an API token. A second user belongs to no company yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from tests.badinput.payloads import PDF, png
from tests.factories.accounts import make_operator, make_user
from tests.factories.catalog import leaf_category, make_product, showcase
from tests.factories.companies import add_member, make_company, make_trader
from tests.factories.imports import BASE_ROW, upload_catalogue
from tests.factories.membership import gold, subscribe
from tests.factories.screening import held_product
from tests.factories.sourcing import make_quotation, make_request
from tests.factories.trust import report, submit_verification
from tests.factories.webhooks import add_endpoint
from tradepost.accounts.models import ApiToken, ThrottleHit, User
from tradepost.accounts.tokens import token_create
from tradepost.alerts.models import SavedSearch
from tradepost.alerts.services import saved_search_create
from tradepost.api.models import IdempotencyKey
from tradepost.catalog import services as catalog_services
from tradepost.catalog.models import Category, HSCode, Product, ProductImage, ProductStatus
from tradepost.companies import services as company_services
from tradepost.companies.models import Company, Invitation, Membership
from tradepost.imports.models import ImportJob
from tradepost.membership.models import Invoice
from tradepost.messaging import services as messaging_services
from tradepost.messaging.models import Conversation, ConversationRead
from tradepost.money.models import ExchangeRate
from tradepost.reviews import services as review_services
from tradepost.reviews.models import Review
from tradepost.screening.models import BannedTerm
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.models import Attachment, BuyingRequest, Quotation
from tradepost.trust.models import Report, VerificationRequest
from tradepost.webhooks.models import WebhookDelivery, WebhookEndpoint
from tradepost.webhooks.services import webhook_endpoint_send_test

#: Tables a refused request may still write to: rate-limit counters, the answers kept for an
#: Idempotency-Key (a refusal is kept too), "read up to" marks (opening a conversation page
#: marks it read), and reference data nobody writes.
UNTRACKED_MODELS = (
    ThrottleHit,
    IdempotencyKey,
    ConversationRead,
    Category,
    HSCode,
    ExchangeRate,
)
#: Columns every authenticated request may touch.
UNTRACKED_FIELDS = frozenset({"last_used_at", "last_login"})


@dataclass(frozen=True)
class World:
    user: User
    company: Company
    newcomer: User  # signed up, no company yet
    api_secret: str
    api_token: ApiToken
    product: Product
    image: ProductImage
    colleague: Membership
    invitation: Invitation
    request: BuyingRequest  # posted by the test user's company, no quotations yet
    attachment: Attachment  # on that request
    quoted_request: BuyingRequest  # posted by the test user's company too
    quotation_received: Quotation  # another supplier's, on that request
    their_request: BuyingRequest  # another buyer's
    quotation_sent: Quotation  # the test user's company's, on their request
    their_product: Product  # another supplier's, published
    conversation: Conversation  # the test user's inquiry about their product
    leaf_category_id: int
    operator: User
    operator_secret: str  # an API token of the operator
    verification: VerificationRequest  # the supplier's, waiting for an operator
    verifying_secret: str  # an API token of that supplier's owner
    invoice: Invoice  # the supplier's Gold invoice, its transfer not confirmed yet
    gold_plan_id: int
    report: Report  # the newcomer's report of their product, waiting for an operator
    award_to_review: Quotation  # awarded by the test user's company, not reviewed yet
    review_received: Review  # another buyer's review of the test user's company
    showcaser: User  # the owner of a Gold supplier (showcase slots)
    showcaser_secret: str  # an API token of that owner
    showcase_product: Product  # that supplier's, published, not in its showcase
    showcased_product: Product  # that supplier's, published, in its showcase
    banned_term: BannedTerm  # "ivory", on the operators' list
    held_product: Product  # the test user's, held for review because of it
    import_job: ImportJob  # a catalogue the test user uploaded, checked, not imported yet
    webhook_endpoint: WebhookEndpoint  # the test user's company's, every event
    webhook_delivery: WebhookDelivery  # a test event to it (never sent: rolled back)
    alert: SavedSearch  # a trade alert of the test user's company, looking for products
    stored: dict[str, list[tuple[Any, ...]]]  # what the database holds, as built


def build_world() -> World:
    user = make_user(full_name="Wang Wei")
    company = make_company(owner=user, legal_name="Ningbo Flask Works Co., Ltd.")
    colleague_user = add_member(company)
    colleague = Membership.objects.get(user=colleague_user)
    newcomer = make_user()
    api_token, api_secret = token_create(user=user, name="bad input")
    invitation, _secret = company_services.invitation_create(
        actor=user, company=company, email="invited@example.com", role="member"
    )
    product = make_product(company=company, status=ProductStatus.DRAFT, title="Vacuum flask")
    image = catalog_services.product_image_add(
        actor=user,
        product=product,
        upload=SimpleUploadedFile("flask.png", png(), "image/png"),
    )
    catalog_services.product_translation_set(
        actor=user, product=product, language="zh-hans", title="保温杯"
    )
    supplier, supplier_company = make_trader()
    their_product = make_product(company=supplier_company, title="Steel bottle")
    request = make_request(actor=user)
    quoted_request = make_request(actor=user, title="Steel bottles, 750 ml")
    quotation_received = make_quotation(quoted_request, actor=supplier)
    attachment = sourcing_services.attachment_add_to_request(
        actor=user,
        buying_request=request,
        upload=SimpleUploadedFile("spec.pdf", PDF, "application/pdf"),
    )
    buyer, _buyer_company = make_trader(country="NL")
    their_request = make_request(actor=buyer)
    quotation_sent = make_quotation(their_request, actor=user)
    conversation = messaging_services.inquiry_send(
        actor=user, product=their_product, quantity="1000", unit="pieces", message="Price?"
    )
    operator = make_operator()
    _operator_token, operator_secret = token_create(user=operator, name="bad input")
    verification = submit_verification(supplier)
    _supplier_token, verifying_secret = token_create(user=supplier, name="bad input")
    invoice = subscribe(supplier_company, gold(), actor=supplier, paid=False).invoice
    reported = report(newcomer, "product", their_product, reason="counterfeit")
    # Reviews: the test user's company awarded a supplier it has not reviewed yet, and was
    # reviewed itself by a buyer that awarded it.
    award_to_review = sourcing_services.quotation_award(
        actor=user,
        quotation=make_quotation(make_request(actor=user, title="Flask lids"), actor=supplier),
    )
    reviewing_buyer, _reviewing_company = make_trader(country="DE")
    won = sourcing_services.quotation_award(
        actor=reviewing_buyer,
        quotation=make_quotation(make_request(actor=reviewing_buyer), actor=user),
    )
    review_received = review_services.review_create(
        actor=reviewing_buyer, quotation=won, rating=4, text="Good flasks, shipped late."
    )
    showcaser, showcaser_company = make_trader(legal_name="Gold Flask Works")
    subscribe(showcaser_company, gold(), actor=showcaser)
    showcase_product = make_product(company=showcaser_company, title="Gold vacuum flask")
    showcased_product = make_product(company=showcaser_company, title="Gold travel mug")
    showcase(showcased_product, actor=showcaser)
    _showcaser_token, showcaser_secret = token_create(user=showcaser, name="bad input")
    # Banned terms: "ivory" on the list, and a listing of the test user's held for it.
    held = held_product(user, company, title="Carved ivory flask")
    banned_term = BannedTerm.objects.get(normalized="ivory")
    endpoint, _webhook_secret = add_endpoint(user, "https://erp.flask-works.example/tradepost")
    return World(
        user=user,
        company=company,
        newcomer=newcomer,
        api_secret=api_secret,
        api_token=api_token,
        product=product,
        image=image,
        colleague=colleague,
        invitation=invitation,
        request=request,
        attachment=attachment,
        quoted_request=quoted_request,
        quotation_received=quotation_received,
        their_request=their_request,
        quotation_sent=quotation_sent,
        their_product=their_product,
        conversation=conversation,
        leaf_category_id=leaf_category().pk,
        operator=operator,
        operator_secret=operator_secret,
        verification=verification,
        verifying_secret=verifying_secret,
        invoice=invoice,
        gold_plan_id=gold().pk,
        report=reported,
        award_to_review=award_to_review,
        review_received=review_received,
        showcaser=showcaser,
        showcaser_secret=showcaser_secret,
        showcase_product=showcase_product,
        showcased_product=showcased_product,
        banned_term=banned_term,
        held_product=held,
        import_job=upload_catalogue(user, company, [{**BASE_ROW, "sku": "VF-BAD-INPUT"}]),
        webhook_endpoint=endpoint,
        webhook_delivery=webhook_endpoint_send_test(actor=user, endpoint=endpoint),
        alert=saved_search_create(actor=user, kind="product", query="vacuum flask"),
        stored=stored_state(),
    )


def _table_queries() -> dict[str, str]:
    queries = {}
    quote = connection.ops.quote_name
    for model in apps.get_models():
        if not model.__module__.startswith("tradepost.") or model in UNTRACKED_MODELS:
            continue
        columns = ", ".join(
            quote(field.column)
            for field in model._meta.concrete_fields
            if field.attname not in UNTRACKED_FIELDS
        )
        table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
        queries[model._meta.label] = f"SELECT {columns} FROM {table} ORDER BY {pk}"
    return queries


def stored_state() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the project's tables (but the untracked ones), column by column."""
    state = {}
    with connection.cursor() as cursor:
        for label, query in _table_queries().items():
            cursor.execute(query)
            state[label] = cursor.fetchall()
    return state


def changed_tables(world: World) -> list[str]:
    """The tracked tables whose rows differ from the world as built."""
    now = stored_state()
    return [label for label, rows in now.items() if rows != world.stored.get(label)]
