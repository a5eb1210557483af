"""The report pages as people read them: the Report links on a listing, a company, a buying
request and a conversation; the report form in Simplified Chinese; the operators' queue with
its decisions, the suspended companies and the action by id; the operator desk's link."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories.trust import report
from tests.pages import page_url
from tradepost.catalog.models import ProductStatus
from tradepost.companies.models import Standing
from tradepost.trust.models import Report, ReportStatus

pytestmark = pytest.mark.django_db


def _form_url(kind: str, pk: int, language: str = "en") -> str:
    return f"{page_url('trust:report_create', language)}?target={kind}&target_id={pk}"


def test_the_pages_link_to_the_report_form(cast, reported, client):
    pages = {
        "product": reported.product.get_absolute_url(),
        "company": page_url("catalog:company_detail", slug=cast.company.slug),
        "request": page_url("sourcing:request_detail", pk=reported.request.pk),
    }
    for kind, url in pages.items():
        html = client.get(url).content.decode()
        link = _form_url(kind, reported.target(kind).pk).replace("&", "&amp;")
        assert f'href="{link}" rel="nofollow"' in html, kind
    client.force_login(cast.outsider)
    conversation = page_url("messaging:detail", conversation_id=reported.message.conversation_id)
    html = client.get(conversation).content.decode()
    link = _form_url("message", reported.message.pk).replace("&", "&amp;")
    assert link in html
    # Its own messages are not offered to report.
    first = reported.message.conversation.messages.order_by("id").first()
    assert _form_url("message", first.pk).replace("&", "&amp;") not in html


def test_a_visitor_signs_in_first(reported, client):
    response = client.get(_form_url("product", reported.product.pk))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_reporting_in_simplified_chinese(cast, reported, client):
    client.force_login(cast.loner)
    url = _form_url("product", reported.product.pk, "zh-hans")
    html = client.get(url).content.decode()
    assert "举报" in html and "Vacuum flask 500 ml" in html and "假冒商品" in html
    data = {
        "target": "product",
        "target_id": reported.product.pk,
        "reason": "counterfeit",
        "note": "商标是假的",
    }
    response = client.post(url, data, follow=True)
    assert "感谢您的举报" in response.content.decode()
    assert response.redirect_chain[-1][0] == reported.product.get_absolute_url()
    made = Report.objects.get()
    assert (made.reporter, made.reason, made.note) == (cast.loner, "counterfeit", "商标是假的")
    again = client.post(url, data, follow=True)
    assert "您已举报过此内容" in again.content.decode()
    assert Report.objects.count() == 1


def test_a_refused_report_is_shown_on_the_form(cast, reported, client):
    client.force_login(cast.member)
    url = _form_url("company", cast.company.pk, "zh-hans")
    data = {"target": "company", "target_id": cast.company.pk, "reason": "spam"}
    own = client.post(url, data)
    assert own.status_code == 403 and "您不能举报自己的公司" in own.content.decode()
    client.force_login(cast.outsider)
    bad = client.post(url, {**data, "reason": "ugly", "note": "x" * 1001})
    assert bad.status_code == 400
    assert not Report.objects.exists()


def test_what_one_cannot_see_is_not_found(cast, reported, client):
    reported.product.status = ProductStatus.DRAFT
    reported.product.save()
    client.force_login(cast.outsider)
    assert client.get(_form_url("product", reported.product.pk)).status_code == 404
    assert client.get(_form_url("invoice", 1)).status_code == 404
    assert client.get(_form_url("product", "abc")).status_code == 404
    client.force_login(cast.loner)
    assert client.get(_form_url("message", reported.message.pk)).status_code == 404


def test_the_queue_in_simplified_chinese(cast, reported, client):
    report(cast.outsider, "product", reported.product, note="<script>alert(1)</script> 假货")
    report(cast.loner, "product", reported.product, reason="spam")
    client.force_login(cast.operator)
    html = client.get(page_url("trust:reports", "zh-hans")).content.decode()
    assert "Vacuum flask 500 ml" in html and "2 条举报" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; 假货" in html and "<script>alert(1)" not in html
    assert cast.outsider.email in html
    assert "没有被暂停或封禁的公司" in html
    for page in ("abc", "-1"):  # no page number: the first page
        first = client.get(page_url("trust:reports", "zh-hans"), {"page": page})
        assert first.status_code == 200 and "Vacuum flask 500 ml" in first.content.decode()
    # Past the end: no reports, the true count and the way back (web.pagination, ADR 0014).
    past = client.get(page_url("trust:reports", "zh-hans"), {"page": "99"}).content.decode()
    assert "Vacuum flask 500 ml" not in past and "此页已超出全部 1 个结果的范围。" in past
    desk = client.get(page_url("insights:operator_desk", "zh-hans")).content.decode()
    assert "2 条举报等待运营人员处理" in desk and page_url("trust:reports", "zh-hans") in desk


@pytest.mark.parametrize("who", ["loner", "member", "owner", "outsider"])
def test_the_queue_is_for_operators_only(cast, reported, client, who):
    made = report(cast.outsider if who != "outsider" else cast.loner, "product", reported.product)
    client.force_login(getattr(cast, who))
    assert client.get(page_url("trust:reports")).status_code == 404
    decide = page_url("trust:report_decide", report_id=made.pk)
    assert client.post(decide, {"action": "hide", "reason": "spam"}).status_code == 404
    moderate = page_url("trust:moderate")
    data = {"target": "company", "target_id": cast.company.pk, "action": "ban", "reason": "spam"}
    assert client.post(moderate, data).status_code == 404
    made.refresh_from_db()
    cast.company.refresh_from_db()
    assert made.status == ReportStatus.OPEN and cast.company.standing == Standing.ACTIVE
    assert Client().get(page_url("trust:reports")).status_code == 302


def test_an_operator_decides_then_lifts_from_the_queue(cast, reported, client):
    made = report(cast.outsider, "product", reported.product, reason="fraud")
    client.force_login(cast.operator)
    queue = page_url("trust:reports", "zh-hans")
    decide = page_url("trust:report_decide", "zh-hans", report_id=made.pk)
    # Without a report there is no reason to fall back on: it must be given.
    refused = client.post(
        page_url("trust:moderate", "zh-hans"),
        {"target": "product", "target_id": reported.product.pk, "action": "warn", "reason": ""},
        follow=True,
    )
    assert "此项为必填项" in refused.content.decode()
    response = client.post(
        decide, {"action": "suspend", "reason": "fraud", "message": "骗局"}, follow=True
    )
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == queue and "举报已处理" in html
    assert "Acme Trading" in html and "欺诈或诈骗" in html and "骗局" in html  # the table
    cast.company.refresh_from_db()
    assert cast.company.standing == Standing.SUSPENDED
    twice = client.post(decide, {"action": "dismiss"}, follow=True)
    assert "这些举报已被处理" in twice.content.decode()
    lifted = client.post(
        page_url("trust:moderate", "zh-hans"),
        {"target": "company", "target_id": cast.company.pk, "action": "lift"},
        follow=True,
    )
    assert "完成。已用该公司的语言通知它" in lifted.content.decode()
    cast.company.refresh_from_db()
    assert cast.company.standing == Standing.ACTIVE
    gone = client.post(
        page_url("trust:moderate"), {"target": "product", "target_id": 10**12, "action": "restore"}
    )
    assert gone.status_code == 404


def test_the_admin_lists_reports_read_only(cast, reported, client):
    made = report(cast.outsider, "product", reported.product, note="Fake")
    client.force_login(cast.operator)
    listing = client.get("/admin/trust/report/")
    assert listing.status_code == 200 and "Vacuum flask 500 ml" in listing.content.decode()
    change = client.get(f"/admin/trust/report/{made.pk}/change/")
    assert change.status_code == 200 and 'name="note"' not in change.content.decode()
    assert client.get("/admin/trust/report/add/").status_code == 403
    assert client.post(f"/admin/trust/report/{made.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Report.objects.filter(pk=made.pk).exists()
