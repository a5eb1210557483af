"""One way to fetch an object on a user's behalf (issue #12, item 9).

Every `access_<thing>` helper of every app takes `user` and `<thing>_id` as keyword-only
arguments, returns the object to a user who may see it, and answers another company's id, a
missing id and a nonsense id alike: with its app's not-found error (a 404).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import Http404

import tradepost
from tests.built_once import built_once
from tests.factories.accounts import make_operator
from tests.factories.catalog import make_product
from tests.factories.companies import make_trader
from tests.factories.images import image_upload
from tests.factories.imports import upload_catalogue
from tests.factories.reviews import make_review
from tests.factories.screening import ban, held_product
from tests.factories.sourcing import make_quotation, make_request
from tests.factories.trust import report, submit_verification
from tests.factories.webhooks import add_endpoint
from tradepost.alerts.errors import AlertNotFound
from tradepost.alerts.services import saved_search_create
from tradepost.catalog import services as catalog_services
from tradepost.catalog.errors import ProductNotFound
from tradepost.companies.errors import CompanyNotFound
from tradepost.imports.errors import ImportNotFound
from tradepost.membership import services as membership_services
from tradepost.membership.errors import InvoiceNotFound
from tradepost.messaging import services as messaging_services
from tradepost.messaging.errors import ConversationNotFound
from tradepost.reviews.errors import ReviewNotFound
from tradepost.reviews.services import review_hide
from tradepost.screening.errors import BannedTermNotFound
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.errors import AttachmentNotFound, QuotationNotFound, RequestNotFound
from tradepost.trust.errors import ReportNotFound, VerificationNotFound
from tradepost.webhooks.errors import WebhookNotFound
from tradepost.webhooks.services import webhook_endpoint_send_test

SRC = Path(tradepost.__file__).parent
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _helpers() -> dict[str, object]:
    """Every module-level `access_*` function under src/tradepost, by name."""
    found: dict[str, object] = {}
    for path in sorted(SRC.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("access_")
        ]
        if names:
            parts = path.relative_to(SRC).with_suffix("").parts
            module = importlib.import_module(".".join(("tradepost", *parts)))
            for name in names:
                assert name not in found, f"two helpers named {name}"
                found[name] = getattr(module, name)
    return found


HELPERS = _helpers()

#: What each helper raises, and the id arguments besides `user`.
NOT_FOUND = {
    "access_product": ProductNotFound,
    "access_product_image": ProductNotFound,
    "access_company_for_edit": CompanyNotFound,
    "access_company_for_view": CompanyNotFound,
    "access_conversation": ConversationNotFound,
    "access_conversation_attachment": ConversationNotFound,
    "access_request": RequestNotFound,
    "access_request_for_buyer": RequestNotFound,
    "access_quotation": QuotationNotFound,
    "access_quotation_for_buyer": QuotationNotFound,
    "access_attachment": AttachmentNotFound,
    "access_invoice": InvoiceNotFound,
    "access_verification": VerificationNotFound,
    "access_verification_document": VerificationNotFound,
    "access_message": ConversationNotFound,
    "access_report": ReportNotFound,
    "access_review": ReviewNotFound,
    "access_review_for_reply": ReviewNotFound,
    "access_banned_term": BannedTermNotFound,
    "access_held_product": ProductNotFound,
    "access_import": ImportNotFound,
    "access_webhook_endpoint": WebhookNotFound,
    "access_webhook_delivery": WebhookNotFound,
    "access_alert": AlertNotFound,
}


def test_every_helper_is_covered_here():
    assert set(HELPERS) == set(NOT_FOUND)


@pytest.mark.parametrize("name", sorted(NOT_FOUND))
def test_arguments_are_user_and_ids_keyword_only(name):
    parameters = inspect.signature(HELPERS[name]).parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters.values())
    names = list(parameters)
    assert names[0] == "user"
    assert all(n.endswith("_id") for n in names[1:]), names
    # access_<thing>[_for_<purpose>] takes <thing>_id (for a part: <part>_id)
    thing = name.removeprefix("access_").split("_for_")[0]
    assert f"{thing}_id" in names or f"{thing.rsplit('_', 1)[-1]}_id" == names[-1]


@pytest.mark.parametrize("name", sorted(NOT_FOUND))
def test_a_positional_call_is_a_type_error(name):
    helper = HELPERS[name]
    arity = len(inspect.signature(helper).parameters)
    with pytest.raises(TypeError):
        helper(*([1] * arity))


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """Company A (a buyer) and company B (a supplier), each with an owner, and one object of
    each kind; C is a third company that has nothing to do with them. Built once for the
    module (the helpers only read): 230 tests used to build it each."""
    with built_once(django_db_blocker, tmp_path_factory.mktemp("access")):
        yield _build_world()


def _build_world() -> dict:
    owner_a, company_a = make_trader(country="NL")
    owner_b, company_b = make_trader()
    stranger, _company_c = make_trader(country="DE")
    product = make_product(company=company_b)
    image = catalog_services.product_image_add(
        actor=owner_b, product=product, upload=image_upload()
    )
    conversation = messaging_services.inquiry_send(
        actor=owner_a,
        product=product,
        message="Specification attached",
        attachments=[SimpleUploadedFile("spec.pdf", PDF, "application/pdf")],
    )
    file = conversation.messages.get().attachments.get()
    request = make_request(actor=owner_a)
    quotation = make_quotation(request, actor=owner_b)
    attachment = sourcing_services.attachment_add_to_request(
        actor=owner_a,
        buying_request=request,
        upload=SimpleUploadedFile("drawing.pdf", PDF, "application/pdf"),
    )
    # A closed request is no longer public: only its buyer and its suppliers see it.
    sourcing_services.request_close(actor=owner_a, buying_request=request)
    gold = membership_services.selectors.offered_plans().get(code="gold")
    invoice = membership_services.plan_change(
        actor=owner_b, company=company_b, plan_id=gold.pk, action="subscribe"
    ).invoice
    verification = submit_verification(owner_b)
    message = conversation.messages.get()
    reported = report(owner_a, "product", product)
    # A review of company B by company A, hidden by an operator: only the two companies
    # (and operators) read it now; only B's members reply to it.
    operator = make_operator()
    review = make_review(buyer=owner_a, supplier=owner_b)
    review = review_hide(actor=operator, review=review, reason="Off topic.").review
    # Banned terms, and the listings they hold for review, are the operators' (ADR 0023).
    banned = ban("tusk", actor=operator)
    held = held_product(owner_b, company_b)
    catalogue_import = upload_catalogue(owner_b, company_b)
    # A webhook endpoint of company B and a delivery to it: B's owner and admins only.
    endpoint, _secret = add_endpoint(owner_b, "https://erp.example.com/hooks")
    delivery = webhook_endpoint_send_test(actor=owner_b, endpoint=endpoint)
    # A trade alert of company B: any of B's members (ADR 0037).
    alert = saved_search_create(actor=owner_b, kind="product", query="enamel mug")
    return {
        "stranger": stranger,
        # name: (who may see it, its id arguments, the object)
        "access_product": (owner_b, {"product_id": product.pk}, product),
        "access_product_image": (
            owner_b,
            {"product_id": product.pk, "image_id": image.pk},
            image,
        ),
        "access_company_for_edit": (owner_a, {"company_id": company_a.pk}, company_a),
        "access_company_for_view": (owner_a, {"company_id": company_a.pk}, company_a),
        "access_conversation": (owner_b, {"conversation_id": conversation.pk}, conversation),
        "access_conversation_attachment": (
            owner_b,
            {"conversation_id": conversation.pk, "attachment_id": file.pk},
            file,
        ),
        "access_request": (owner_b, {"request_id": request.pk}, request),
        "access_request_for_buyer": (owner_a, {"request_id": request.pk}, request),
        "access_quotation": (owner_b, {"quotation_id": quotation.pk}, quotation),
        "access_quotation_for_buyer": (owner_a, {"quotation_id": quotation.pk}, quotation),
        "access_attachment": (owner_a, {"attachment_id": attachment.pk}, attachment),
        "access_invoice": (owner_b, {"invoice_id": invoice.pk}, invoice),
        "access_verification": (owner_b, {"verification_id": verification.pk}, verification),
        "access_verification_document": (
            owner_b,
            {"document_id": verification.documents.get().pk},
            verification.documents.get(),
        ),
        "access_message": (owner_b, {"message_id": message.pk}, message),
        # Reports are read by operators only: any other user is refused like a stranger.
        "access_report": (operator, {"report_id": reported.pk}, reported),
        "access_review": (owner_a, {"review_id": review.pk}, review),
        "access_review_for_reply": (owner_b, {"review_id": review.pk}, review),
        "access_banned_term": (operator, {"banned_term_id": banned.pk}, banned),
        "access_held_product": (operator, {"product_id": held.pk}, held),
        "access_import": (owner_b, {"import_id": catalogue_import.pk}, catalogue_import),
        "access_webhook_endpoint": (owner_b, {"endpoint_id": endpoint.pk}, endpoint),
        "access_webhook_delivery": (
            owner_b,
            {"endpoint_id": endpoint.pk, "delivery_id": delivery.pk},
            delivery,
        ),
        "access_alert": (owner_b, {"alert_id": alert.pk}, alert),
    }


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(NOT_FOUND))
def test_own_objects_are_returned_and_another_companys_are_not_found(world, name):
    helper, error = HELPERS[name], NOT_FOUND[name]
    assert issubclass(error, Http404)
    user, ids, expected = world[name]
    assert helper(user=user, **ids) == expected
    with pytest.raises(error):
        helper(user=world["stranger"], **ids)


@pytest.mark.django_db
@pytest.mark.parametrize("bad_id", ["abc", "", None, 0, -1, 2**63, 10**9, True, 1.5])
@pytest.mark.parametrize("name", sorted(NOT_FOUND))
def test_missing_and_nonsense_ids_are_not_found_alike(world, name, bad_id):
    user, ids, _expected = world[name]
    last = list(ids)[-1]
    with pytest.raises(NOT_FOUND[name]):
        HELPERS[name](user=user, **{**ids, last: bad_id})
