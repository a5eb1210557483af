"""The verification pages as people read them: the company's page and the operators' queue in
Simplified Chinese, the badge on the public company page, the operator desk's count, and the
decisions in the administration."""

from __future__ import annotations

import pytest
from django.utils import translation

from tests.factories.trust import pdf_upload, submit_verification
from tests.pages import page_url
from tradepost.notify.models import Notification
from tradepost.notify.selectors import notification_text
from tradepost.trust import services
from tradepost.trust.models import VerificationRequest

pytestmark = pytest.mark.django_db


def test_the_company_page_in_simplified_chinese(client, cast):
    client.force_login(cast.owner)
    url = page_url("trust:verification", "zh-hans")
    html = client.get(url).content.decode()
    assert '<html lang="zh-hans">' in html
    assert "您的公司尚未通过认证" in html and "提交认证" in html
    assert 'enctype="multipart/form-data"' in html and 'name="business_licence"' in html
    response = client.post(url, {"business_licence": [pdf_upload("执照.pdf")]}, follow=True)
    html = response.content.decode()
    assert "您的文件已发送" in html and "等待审核" in html and "执照.pdf" in html
    assert "撤回申请" in html


def test_a_refused_upload_is_shown_on_the_form_in_the_visitors_language(client, cast):
    client.force_login(cast.admin)
    response = client.post(
        page_url("trust:verification", "zh-hans"),
        {"export_licence": [pdf_upload("fake.pdf", b"GIF89a not a pdf")]},
    )
    assert response.status_code == 400
    assert "fake.pdf 不是 PDF" in response.content.decode()
    assert not VerificationRequest.objects.exists()
    empty = client.post(page_url("trust:verification", "zh-hans"), {})
    assert empty.status_code == 400 and "请至少附上一份文件" in empty.content.decode()


def test_the_decision_shows_on_the_company_page_with_the_reason_escaped(client, cast):
    request = submit_verification(cast.owner)
    services.verification_reject(
        actor=cast.operator, verification=request, reason="<script>alert(1)</script> 执照模糊"
    )
    client.force_login(cast.member)
    html = client.get(page_url("trust:verification", "zh-hans")).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; 执照模糊" in html
    assert "<script>alert(1)" not in html
    assert "未批准" in html
    assert "提交认证" not in html  # a plain member sends nothing


def test_the_queue_in_simplified_chinese(client, cast):
    request = submit_verification(cast.owner)
    client.force_login(cast.operator)
    html = client.get(page_url("trust:queue", "zh-hans")).content.decode()
    assert "认证审核队列" in html and cast.company.legal_name in html
    assert page_url("trust:document", "zh-hans", document_id=request.documents.get().pk) in html
    assert 'name="checked"' in html and 'name="reason"' in html
    assert f'id="id_checked_{request.pk}_0"' in html  # each request's boxes are its own
    response = client.post(
        page_url("trust:approve", "zh-hans", verification_id=request.pk),
        {"checked": ["legal_name", "registration_number"]},
        follow=True,
    )
    assert "已通过认证" in response.content.decode()
    assert "没有等待审核的申请" in response.content.decode()


def test_an_invalid_decision_is_flashed_and_changes_nothing(client, cast):
    request = submit_verification(cast.owner)
    client.force_login(cast.operator)
    response = client.post(
        page_url("trust:approve", "zh-hans", verification_id=request.pk), {}, follow=True
    )
    assert "请至少勾选一项" in response.content.decode()
    response = client.post(
        page_url("trust:reject", "zh-hans", verification_id=request.pk),
        {"reason": "x" * 1001},
        follow=True,
    )
    assert "1000" in response.content.decode()
    request.refresh_from_db()
    assert request.status == "pending"


def test_the_public_company_page_says_when_and_what_was_checked(client, cast):
    url = page_url("catalog:company_detail", "zh-hans", slug=cast.company.slug)
    assert "认证日期" not in client.get(url).content.decode()
    request = submit_verification(cast.owner)
    services.verification_approve(
        actor=cast.operator, verification=request, checked=["legal_name", "address"]
    )
    html = client.get(url).content.decode()
    assert "认证日期" in html and "核对内容" in html and "地址" in html
    english = client.get(page_url("catalog:company_detail", slug=cast.company.slug))
    assert "Verified on" in english.content.decode()
    assert "Legal name, Address" in english.content.decode()


def test_the_operator_desk_counts_and_links_the_queue(client, cast):
    submit_verification(cast.owner)
    client.force_login(cast.operator)
    html = client.get(page_url("insights:operator_desk", "zh-hans")).content.decode()
    assert page_url("trust:queue", "zh-hans") in html
    assert "份认证申请等待审核" in html


def test_notifications_read_in_the_readers_language(cast):
    request = submit_verification(cast.owner)
    services.verification_reject(actor=cast.operator, verification=request, reason="模糊")
    note = Notification.objects.filter(recipient=cast.owner).get()
    with translation.override("zh-hant"):
        assert notification_text(note) == "Acme Trading 的驗證申請未通過：模糊"
    with translation.override("en"):
        expected = "The verification of Acme Trading was not approved: 模糊"
        assert notification_text(note) == expected


def test_the_administration_reads_and_decides_through_the_services(client, cast):
    request = submit_verification(cast.owner)
    client.force_login(cast.operator)
    base = "/admin/trust/verificationrequest/"
    assert client.get(base).status_code == 200
    assert client.get(f"{base}?status__exact=pending").status_code == 200
    change = client.get(f"{base}{request.pk}/change/")
    assert change.status_code == 200
    assert page_url("trust:document", document_id=request.documents.get().pk) in (
        change.content.decode()
    )
    assert client.get(f"{base}add/").status_code == 403
    ask = client.post(base, {"action": "reject_selected", "_selected_action": [request.pk]})
    assert ask.status_code == 200 and 'name="reason"' in ask.content.decode()
    done = client.post(
        base,
        {
            "action": "reject_selected",
            "_selected_action": [request.pk],
            "apply": "1",
            "reason": "The licence has expired.",
        },
        follow=True,
    )
    assert "1 request decided." in done.content.decode()
    request.refresh_from_db()
    assert request.status == "rejected" and request.decided_by == cast.operator
    again = client.post(
        base,
        {
            "action": "approve_selected",
            "_selected_action": [request.pk],
            "apply": "1",
            "checked": ["address"],
        },
        follow=True,
    )
    assert "no longer waiting" in again.content.decode()
