"""What each moderation action does (trust.services.report_decide and moderation_apply): hide and
restore a listing, a buying request or a message; warn, suspend, ban a company and lift that.
What the public sees (pages and search), what the company's members may still do, what the
company is told and in which language, and what the audit log records."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from tests.api_client import ApiClient
from tests.factories.accounts import PASSWORD
from tests.factories.catalog import product_fields
from tests.factories.search import index
from tests.factories.sourcing import make_request, quotation_fields
from tests.factories.trust import report
from tests.pages import page_url
from tradepost.accounts.errors import AccountError, AccountErrorCode
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.models import ProductStatus
from tradepost.companies.models import Standing
from tradepost.messaging import services as messaging_services
from tradepost.messaging.errors import MessagingError, MessagingErrorCode
from tradepost.notify.models import Notification, NotificationKind
from tradepost.notify.selectors import notification_text
from tradepost.search.indexer import apply_outbox
from tradepost.search.selectors import search_companies, search_products, search_requests
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.sourcing.models import RequestStatus
from tradepost.trust import services
from tradepost.trust.errors import TrustError, TrustErrorCode
from tradepost.trust.models import ModerationAction, Report, ReportStatus

pytestmark = pytest.mark.django_db


def _found(reported) -> dict[str, bool]:
    """Whether search finds the company's listing, the company and its request."""
    apply_outbox()
    return {
        "product": reported.product.pk
        in {hit.product.pk for hit in search_products(query="vacuum flask", language="en").hits},
        "company": reported.company.pk
        in {hit.company.pk for hit in search_companies(query="acme", language="en").hits},
        "request": reported.request.pk
        in {hit.request.pk for hit in search_requests(query="bamboo", language="en").hits},
    }


def _public(client: Client, reported) -> dict[str, int]:
    return {
        "product": client.get(reported.product.get_absolute_url()).status_code,
        "company": client.get(
            page_url("catalog:company_detail", slug=reported.company.slug)
        ).status_code,
        "request": client.get(
            page_url("sourcing:request_detail", pk=reported.request.pk)
        ).status_code,
    }


def _act(cast, kind: str, obj, action: str, **fields):
    """The cast's operator does `action` to `obj` (a `kind` target) by its id."""
    return services.moderation_apply(
        actor=cast.operator, target=kind, target_id=obj.pk, action=action, **fields
    )


def _notices(kind: str) -> list[Notification]:
    return list(Notification.objects.filter(kind=kind).order_by("recipient_id"))


def test_hiding_a_reported_listing_closes_every_report_on_it(cast, reported, client):
    index()
    assert _found(reported)["product"]
    first = report(cast.outsider, "product", reported.product, reason="counterfeit")
    second = report(cast.loner, "product", reported.product, reason="misleading")
    other = report(cast.loner, "company", reported.company)
    decided = services.report_decide(
        actor=cast.operator, report=second, action="hide", message="Brand logos on the lid."
    )
    assert decided.status == ReportStatus.ACTIONED and decided.action == ModerationAction.HIDE
    reported.product.refresh_from_db()
    assert reported.product.status == ProductStatus.HIDDEN
    assert client.get(reported.product.get_absolute_url()).status_code == 404
    assert not _found(reported)["product"]
    closed = Report.objects.filter(pk__in=[first.pk, second.pk])
    assert {(r.status, r.decided_by_id, r.decision_note) for r in closed} == {
        (ReportStatus.ACTIONED, cast.operator.pk, "Brand logos on the lid.")
    }
    other.refresh_from_db()
    assert other.status == ReportStatus.OPEN  # another target's report waits
    assert list(AuditEntry.objects.order_by("id").values_list("action", "target_id")) == [
        ("product.hide", str(reported.product.pk)),
        ("report.action", str(first.pk)),
        ("report.action", str(second.pk)),
    ]
    # The owner and the admin are told, with the reason the operator chose (the second
    # report's when none is given), not the plain member.
    notices = _notices(NotificationKind.MODERATION_HIDDEN)
    assert [n.recipient_id for n in notices] == sorted([cast.owner.pk, cast.admin.pk])
    assert notices[0].params == {"subject": "Vacuum flask 500 ml", "reason": "Misleading"}
    assert notices[0].link == f"/en/dashboard/products/{reported.product.pk}/update/"


def test_each_reporter_is_told_in_their_language_that_the_report_was_acted_on(cast, reported):
    first = report(cast.outsider, "product", reported.product, reason="counterfeit")
    second = report(cast.loner, "product", reported.product, reason="misleading")
    cast.loner.is_active = False  # a reporter who left is not told
    cast.loner.save(update_fields=["is_active"])
    services.report_decide(actor=cast.operator, report=first, action="hide")
    assert second.pk  # closed with the first, above
    (told,) = _notices(NotificationKind.REPORT_DECIDED)
    assert told.recipient_id == cast.outsider.pk
    assert told.params == {"subject": "Vacuum flask 500 ml", "outcome": "actioned"}
    with translation.override("zh-hans"):
        text = notification_text(told)
    assert "Vacuum flask 500 ml" in text and "举报" in text
    with translation.override("en"):
        # The reporter learns that it was acted on, not how (nor the company's reason).
        assert notification_text(told) == (
            "Thank you: the operators reviewed your report about “Vacuum flask 500 ml” and "
            "acted on it."
        )


def test_a_dismissed_report_tells_the_reporter_and_nobody_else(cast, reported):
    made = report(cast.outsider, "company", reported.company, reason="fraud")
    services.report_decide(actor=cast.operator, report=made, action="dismiss")
    assert not Notification.objects.filter(kind__startswith="moderation").exists()
    (told,) = _notices(NotificationKind.REPORT_DECIDED)
    assert told.recipient_id == cast.outsider.pk and told.params["outcome"] == "dismissed"
    with translation.override("en"):
        assert "found nothing against the rules" in notification_text(told)


def test_a_decided_report_cannot_be_decided_again(cast, reported):
    made = report(cast.outsider, "product", reported.product)
    services.report_decide(actor=cast.operator, report=made, action="dismiss")
    with pytest.raises(TrustError) as refused:
        services.report_decide(actor=cast.operator, report=made, action="hide")
    assert refused.value.code == TrustErrorCode.REPORT_DECIDED
    reported.product.refresh_from_db()
    assert reported.product.status == ProductStatus.PUBLISHED


def test_dismissing_changes_nothing_and_tells_only_the_reporter(cast, reported):
    made = report(cast.outsider, "message", reported.message, reason="fraud")
    services.report_decide(actor=cast.operator, report=made, action="dismiss")
    made.refresh_from_db()
    assert (made.status, made.action) == (ReportStatus.DISMISSED, ModerationAction.DISMISS)
    reported.message.refresh_from_db()
    assert reported.message.hidden_at is None
    assert not Notification.objects.filter(kind__startswith="moderation").exists()
    assert [n.recipient_id for n in _notices(NotificationKind.REPORT_DECIDED)] == [
        cast.outsider.pk  # only the reporter
    ]
    assert list(AuditEntry.objects.values_list("action", flat=True)) == ["report.dismiss"]


def test_restoring_a_listing_returns_it_to_the_suppliers_drafts(cast, reported):
    _act(cast, "product", reported.product, "hide", reason="prohibited")
    done = _act(cast, "product", reported.product, "restore")
    assert done.changed and not done.subject.hidden
    reported.product.refresh_from_db()
    assert reported.product.status == ProductStatus.DRAFT
    catalog_services.product_publish(actor=cast.member, product=reported.product)
    again = _act(cast, "product", reported.product, "restore")
    assert not again.changed  # nothing hidden: nobody is told twice
    assert len(_notices(NotificationKind.MODERATION_RESTORED)) == 2
    assert [e.action for e in AuditEntry.objects.order_by("id")] == [
        "product.hide",
        "product.restore",
    ]


def test_a_hidden_request_leaves_the_board_and_the_search_its_buyer_still_sees_it(
    cast, reported, client
):
    index()
    assert _found(reported)["request"]
    made = report(cast.outsider, "request", reported.request, reason="spam")
    services.report_decide(actor=cast.operator, report=made, action="hide")
    reported.request.refresh_from_db()
    assert reported.request.status == RequestStatus.HIDDEN
    assert not _found(reported)["request"]
    assert _public(client, reported)["request"] == 404
    client.force_login(cast.member)
    page = client.get(page_url("sourcing:request_detail", pk=reported.request.pk))
    assert page.status_code == 200 and "Hidden by moderation" in page.content.decode()
    with pytest.raises(SourcingError) as refused:
        sourcing_services.quotation_submit(
            actor=cast.outsider, buying_request=reported.request, **quotation_fields()
        )
    assert refused.value.code == SourcingErrorCode.REQUEST_NOT_OPEN
    _act(cast, "request", reported.request, "restore")
    reported.request.refresh_from_db()
    assert reported.request.status == RequestStatus.OPEN
    assert _found(reported)["request"]
    assert [e.action for e in AuditEntry.objects.order_by("id")][-1] == "request.restore"


def test_only_an_open_request_is_hidden(cast, reported):
    sourcing_services.request_close(actor=cast.owner, buying_request=reported.request)
    with pytest.raises(TrustError) as refused:
        _act(cast, "request", reported.request, "hide", reason="spam")
    assert refused.value.code == TrustErrorCode.MODERATION_REFUSED
    assert (
        not AuditEntry.objects.exists()
        and not Notification.objects.filter(kind__startswith="moderation").exists()
    )


def test_a_hidden_message_is_withheld_from_both_companies(cast, reported, client):
    made = report(cast.outsider, "message", reported.message, reason="fraud")
    services.report_decide(actor=cast.operator, report=made, action="hide")
    reported.message.refresh_from_db()
    assert reported.message.hidden_at is not None
    url = page_url("messaging:detail", conversation_id=reported.message.conversation_id)
    client.force_login(cast.outsider)
    html = client.get(url).content.decode()
    assert "This message was removed by moderation." in html
    assert "Pay to my private account first." not in html
    messages = (
        ApiClient(cast.outsider)
        .get(f"/api/v1/conversations/{reported.message.conversation_id}/messages")
        .json()["items"]
    )
    hidden = next(item for item in messages if item["id"] == reported.message.pk)
    assert hidden["hidden"] is True and hidden["body"] == "" and hidden["attachments"] == []
    client.force_login(cast.operator)
    assert "Pay to my private account first." in client.get(url).content.decode()
    _act(cast, "message", reported.message, "restore")
    client.force_login(cast.outsider)
    assert "Pay to my private account first." in client.get(url).content.decode()
    assert [e.action for e in AuditEntry.objects.order_by("id")] == [
        "message.hide",
        "report.action",
        "message.restore",
    ]


def test_a_company_is_suspended_or_banned_not_hidden(cast, reported):
    made = report(cast.outsider, "company", reported.company)
    with pytest.raises(TrustError) as refused:
        services.report_decide(actor=cast.operator, report=made, action="hide")
    assert refused.value.code == TrustErrorCode.INVALID
    assert "action" in refused.value.field_errors
    made.refresh_from_db()
    assert made.status == ReportStatus.OPEN


WARNING_MAIL = {  # the subject, the reason and a sentence of the mail, by the company's language
    "zh-hans": ("来自 Tradepost 的警告", "假冒商品", "运营人员就此警告"),
    "zh-hant": ("來自 Tradepost 的警告", "仿冒商品", "營運人員就此警告"),
    "en": ("A warning from Tradepost", "Counterfeit", "warn Acme Trading about this"),
}


def test_a_warning_is_told_in_the_companys_language(
    cast, reported, mailoutbox, django_capture_on_commit_callbacks, company_language
):
    language = company_language
    subject, reason, sentence = WARNING_MAIL[language]
    cast.owner.preferred_language = "zh-hant" if language == "en" else "en"
    cast.owner.save()
    made = report(cast.outsider, "product", reported.product, reason="counterfeit")
    with django_capture_on_commit_callbacks(execute=True):
        services.report_decide(
            actor=cast.operator, report=made, action="warn", message="请删除品牌标志。"
        )
    reported.product.refresh_from_db()
    assert reported.product.status == ProductStatus.PUBLISHED  # a warning hides nothing
    assert sorted(m.to[0] for m in mailoutbox) == sorted([cast.owner.email, cast.admin.email])
    mail = mailoutbox[0]
    assert mail.subject == subject
    assert reason in mail.body and "请删除品牌标志。" in mail.body and sentence in mail.body
    assert f"/{language}/dashboard/products/{reported.product.pk}/update/" in mail.body
    notice = Notification.objects.get(
        kind=NotificationKind.MODERATION_WARNING, recipient=cast.owner
    )
    assert notice.params == {"subject": "Vacuum flask 500 ml", "reason": reason}
    with translation.override("zh-hans"):  # the reader's own language for the sentence
        assert notification_text(notice).startswith("运营人员就“Vacuum flask 500 ml”发出警告")
    (entry,) = AuditEntry.objects.filter(action="company.warn")
    assert entry.target_id == str(cast.company.pk)
    assert entry.changes["warning"][1] == f"{reason}\n\n请删除品牌标志。"


def _member_attempts(cast, reported) -> dict[str, str]:
    """What a member of the company tries, and the code each attempt is refused with."""
    draft = catalog_services.product_create(
        actor=cast.member, company=cast.company, **product_fields()
    )
    their_request = make_request(actor=cast.outsider)
    conversation = reported.message.conversation
    attempts = {
        "publish": lambda: catalog_services.product_publish(actor=cast.member, product=draft),
        "post a request": lambda: make_request(actor=cast.member),
        "quote": lambda: sourcing_services.quotation_submit(
            actor=cast.member, buying_request=their_request, **quotation_fields()
        ),
        "reply": lambda: messaging_services.message_send(
            actor=cast.member, conversation=conversation, body="Hello?"
        ),
        "ask": lambda: messaging_services.inquiry_send(
            actor=cast.member, company=cast.other_company, message="Hello?"
        ),
    }
    refused = {}
    for name, attempt in attempts.items():
        try:
            attempt()
        except (ProductError, SourcingError, MessagingError) as error:
            refused[name] = error.code
    return refused


SUSPENDED_CODES = {
    "publish": ProductErrorCode.COMPANY_SUSPENDED,
    "post a request": SourcingErrorCode.COMPANY_SUSPENDED,
    "quote": SourcingErrorCode.COMPANY_SUSPENDED,
    "reply": MessagingErrorCode.COMPANY_SUSPENDED,
    "ask": MessagingErrorCode.COMPANY_SUSPENDED,
}


@pytest.mark.parametrize("action", ["suspend", "ban"])
def test_a_suspended_or_banned_company_disappears_and_comes_back_when_lifted(
    cast, reported, client, action
):
    index()
    assert _found(reported) == {"product": True, "company": True, "request": True}
    assert _public(client, reported) == {"product": 200, "company": 200, "request": 200}
    made = report(cast.outsider, "product", reported.product, reason="fraud")
    services.report_decide(actor=cast.operator, report=made, action=action, message="Scam.")
    cast.company.refresh_from_db()
    standing = Standing.SUSPENDED if action == "suspend" else Standing.BANNED
    assert cast.company.standing == standing
    assert cast.company.standing_reason == "Fraud or scam\n\nScam."
    reported.product.refresh_from_db()
    assert reported.product.status == ProductStatus.PUBLISHED  # kept as it was
    assert _found(reported) == {"product": False, "company": False, "request": False}
    assert _public(client, reported) == {"product": 404, "company": 404, "request": 404}
    board = client.get(page_url("sourcing:board")).content.decode()
    assert "Bamboo cutting boards" not in board
    directory = client.get(page_url("catalog:company_directory")).content.decode()
    assert "Acme Trading" not in directory
    assert _member_attempts(cast, reported) == SUSPENDED_CODES
    # Members may still sign in (a ban is on the company, not on the people).
    assert Client().login(email=cast.member.email, password=PASSWORD)
    kind = (
        NotificationKind.COMPANY_SUSPENDED
        if action == "suspend"
        else NotificationKind.COMPANY_BANNED
    )
    assert len(_notices(kind)) == 2
    _act(cast, "company", cast.company, "lift")
    cast.company.refresh_from_db()
    assert cast.company.standing == Standing.ACTIVE
    assert _found(reported) == {"product": True, "company": True, "request": True}
    assert _public(client, reported) == {"product": 200, "company": 200, "request": 200}
    assert len(_notices(NotificationKind.COMPANY_REINSTATED)) == 2
    actions = list(AuditEntry.objects.order_by("id").values_list("action", flat=True))
    assert actions == [f"company.{action}", "report.action", "company.reinstate"]


def test_suspending_twice_changes_nothing_the_second_time(cast, reported):
    for _ in range(2):
        done = _act(cast, "company", cast.company, "suspend", reason="spam")
    assert not done.changed
    assert len(_notices(NotificationKind.COMPANY_SUSPENDED)) == 2  # owner and admin, once
    assert AuditEntry.objects.filter(action="company.suspend").count() == 1


@pytest.mark.parametrize("who", ["anonymous", "loner", "member", "owner", "outsider"])
def test_only_operators_moderate(cast, reported, who):
    made = report(cast.outsider if who != "outsider" else cast.loner, "product", reported.product)
    actor = cast.actor(who) if who != "loner" else cast.loner
    for attempt in (
        lambda: services.report_decide(actor=actor, report=made, action="hide"),
        lambda: services.moderation_apply(
            actor=actor, target="company", target_id=cast.company.pk, action="ban", reason="fraud"
        ),
    ):
        with pytest.raises(AccountError) as refused:
            attempt()
        assert refused.value.code == AccountErrorCode.OPERATORS_ONLY
    made.refresh_from_db()
    reported.product.refresh_from_db()
    cast.company.refresh_from_db()
    assert made.status == ReportStatus.OPEN
    assert reported.product.status == ProductStatus.PUBLISHED
    assert cast.company.standing == Standing.ACTIVE
    assert not AuditEntry.objects.exists()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"action": "delete"}, "action"),
        ({"action": "hide", "reason": ""}, "reason"),
        ({"action": "warn", "reason": "rude"}, "reason"),
        ({"action": "suspend", "reason": "spam", "message": "x" * 1001}, "message"),
        ({"action": "dismiss"}, "action"),  # dismissing is for reports
    ],
    ids=lambda v: str(v)[:40],
)
def test_moderation_input_is_refused_naming_the_field(cast, reported, fields, field):
    with pytest.raises(TrustError) as refused:
        services.moderation_apply(
            actor=cast.operator, target="product", target_id=reported.product.pk, **fields
        )
    assert refused.value.code == TrustErrorCode.INVALID
    assert field in refused.value.field_errors
    assert not AuditEntry.objects.exists()
