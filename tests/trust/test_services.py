"""The trust services: what a company may send, and what an operator's decision does."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories.images import bomb_png_header, png_bytes
from tests.factories.trust import PDF, pdf_upload, png_upload, submit_verification
from tradepost.accounts.errors import AccountError
from tradepost.audit.models import AuditEntry
from tradepost.core.errors import NON_FIELD, ErrorKind
from tradepost.notify.models import Notification, NotificationKind
from tradepost.trust import services
from tradepost.trust.errors import TrustError, TrustErrorCode
from tradepost.trust.models import VerificationDocument, VerificationRequest, VerificationStatus

pytestmark = pytest.mark.django_db


def _submit(cast, **files):
    return services.verification_submit(actor=cast.owner, company=cast.company, files=files)


def _refusal(cast, **files) -> TrustError:
    with pytest.raises(TrustError) as caught:
        _submit(cast, **files)
    assert not VerificationRequest.objects.exists()
    assert not VerificationDocument.objects.exists()
    return caught.value


def test_documents_are_stored_with_their_checked_type_size_and_hash(cast):
    request = _submit(
        cast,
        business_licence=[pdf_upload("营业执照.pdf")],
        certification=[png_upload("ISO 9001.png"), pdf_upload("CE.pdf")],
    )
    assert request.status == VerificationStatus.PENDING
    assert request.submitted_by == cast.owner
    documents = list(request.documents.order_by("id"))
    assert [(d.kind, d.original_name, d.content_type) for d in documents] == [
        ("business_licence", "营业执照.pdf", "application/pdf"),
        ("certification", "ISO 9001.png", "image/png"),
        ("certification", "CE.pdf", "application/pdf"),
    ]
    assert documents[0].size == len(PDF)
    assert len(documents[0].sha256) == 64
    with documents[0].file.open("rb") as stored:
        assert stored.read() == PDF
    entry = AuditEntry.objects.get(action="verification.submit")
    assert entry.actor == cast.owner and entry.changes["documents"] == [None, 3]


@pytest.mark.parametrize(
    ("upload", "says"),
    [
        (SimpleUploadedFile("licence.pdf", b"<html>not a pdf</html>"), "is not a PDF, JPEG or PNG"),
        (SimpleUploadedFile("licence.pdf", b"%PDX-1.4 almost"), "is not a PDF, JPEG or PNG"),
        (SimpleUploadedFile("scan.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 50), "not a valid image"),
        (SimpleUploadedFile("bomb.png", bomb_png_header()), "pixels"),
        (SimpleUploadedFile("empty.pdf", b""), "is empty"),
        (SimpleUploadedFile("huge.pdf", PDF + b"\0" * 1024 * 1024), "larger than 1 MB"),
    ],
    ids=["html-named-pdf", "wrong-magic", "broken-png", "bomb-png", "empty", "oversize"],
)
def test_a_bad_file_refuses_the_whole_request(cast, settings, upload, says):
    settings.TRADEPOST_VERIFICATION_MAX_BYTES = 1024 * 1024
    error = _refusal(cast, business_licence=[pdf_upload()], export_licence=[upload])
    assert error.code == TrustErrorCode.DOCUMENT_REJECTED
    assert list(error.message_dict) == ["export_licence"]
    assert says in error.message


def test_the_type_comes_from_the_content_not_the_name(cast):
    request = _submit(cast, other=[SimpleUploadedFile("scan.exe", png_bytes(), "text/html")])
    document = request.documents.get()
    assert document.content_type == "image/png"
    assert document.file.name.endswith(".png")


def test_one_to_ten_files(cast):
    assert "at least one" in _refusal(cast).message
    assert "at least one" in _refusal(cast, business_licence=[]).message
    eleven = [pdf_upload(f"{n}.pdf") for n in range(11)]
    error = _refusal(cast, business_licence=eleven[:6], other=eleven[6:])
    assert "at most 10" in error.message and NON_FIELD in error.message_dict
    assert _submit(cast, business_licence=eleven[:10]).documents.count() == 10


def test_an_unknown_kind_is_refused(cast):
    error = _refusal(cast, passport=[pdf_upload()])
    assert error.kind is ErrorKind.INVALID and "passport" in error.message_dict


def test_file_names_are_kept_as_text_without_nul_surrogates_or_paths(cast):
    names = ["..\\etc\\pass\x00wd.pdf", "bad\udc80name.pdf", "<img src=x onerror=alert(1)>.pdf"]
    request = _submit(cast, other=[pdf_upload(name) for name in names])
    stored = list(request.documents.values_list("original_name", flat=True))
    assert stored == ["passwd.pdf", "bad?name.pdf", "<img src=x onerror=alert(1)>.pdf"]
    long = "x" * 300 + ".pdf"
    assert _submit_again(cast, long).endswith(".pdf")


def _submit_again(cast, name: str) -> str:
    services.verification_withdraw(actor=cast.owner, company=cast.company)
    return _submit(cast, other=[pdf_upload(name)]).documents.get().original_name[-10:]


def test_one_request_waits_at_a_time_and_can_be_sent_again_after_a_refusal(cast):
    first = submit_verification(cast.owner)
    with pytest.raises(TrustError) as caught:
        submit_verification(cast.admin)
    assert caught.value.code == TrustErrorCode.ALREADY_PENDING
    assert caught.value.kind is ErrorKind.CONFLICT
    services.verification_reject(actor=cast.operator, verification=first, reason="Blurred.")
    second = submit_verification(cast.admin)
    assert second.status == VerificationStatus.PENDING
    assert VerificationRequest.objects.count() == 2


@pytest.mark.parametrize("who", ["member", "outsider", "loner", "operator"])
def test_only_the_owner_and_admins_send_and_withdraw(cast, who):
    with pytest.raises(TrustError) as caught:
        services.verification_submit(
            actor=cast.user(who), company=cast.company, files={"other": [pdf_upload()]}
        )
    assert caught.value.kind is ErrorKind.FORBIDDEN
    submit_verification(cast.owner)
    with pytest.raises(TrustError):
        services.verification_withdraw(actor=cast.user(who), company=cast.company)
    assert VerificationRequest.objects.get().status == VerificationStatus.PENDING


def test_withdraw(cast):
    request = submit_verification(cast.owner)
    withdrawn = services.verification_withdraw(actor=cast.admin, company=cast.company)
    assert withdrawn.pk == request.pk and withdrawn.status == VerificationStatus.WITHDRAWN
    assert withdrawn.decided_at is not None and withdrawn.decided_by is None
    with pytest.raises(TrustError) as caught:
        services.verification_withdraw(actor=cast.admin, company=cast.company)
    assert caught.value.code == TrustErrorCode.NOTHING_PENDING


def test_approval_verifies_the_company_and_records_what_was_checked(cast):
    request = submit_verification(cast.owner)
    approved = services.verification_approve(
        actor=cast.operator, verification=request, checked=["address", "legal_name"]
    )
    assert approved.status == VerificationStatus.APPROVED
    assert approved.checked == ["legal_name", "address"]  # in the list's order
    assert approved.decided_by == cast.operator and approved.decided_at is not None
    cast.company.refresh_from_db()
    assert cast.company.is_verified
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"verification.approve", "company.mark"} <= actions


@pytest.mark.parametrize(
    ("checked", "says"),
    [([], "at least one"), (["passport"], "passport"), ("legal_name", None), (None, "at least")],
)
def test_approval_needs_known_checked_items(cast, checked, says):
    request = submit_verification(cast.owner)
    if says is None:  # a comma or space separated string is read as a list
        services.verification_approve(actor=cast.operator, verification=request, checked=checked)
        return
    with pytest.raises(TrustError) as caught:
        services.verification_approve(actor=cast.operator, verification=request, checked=checked)
    assert list(caught.value.message_dict) == ["checked"] and says in caught.value.message
    request.refresh_from_db()
    assert request.status == VerificationStatus.PENDING


@pytest.mark.parametrize(
    ("reason", "says"),
    [
        ("", "required"),
        ("   ", "required"),
        ("x" * 1001, "at most 1000"),
        ("bad \udc80 text", "cannot be stored"),
        (42, "Enter text"),
    ],
)
def test_a_refusal_needs_a_storable_reason(cast, reason, says):
    request = submit_verification(cast.owner)
    with pytest.raises(TrustError) as caught:
        services.verification_reject(actor=cast.operator, verification=request, reason=reason)
    assert list(caught.value.message_dict) == ["reason"] and says in caught.value.message


def test_a_reason_keeps_markup_as_text_and_drops_nul(cast):
    request = submit_verification(cast.owner)
    rejected = services.verification_reject(
        actor=cast.operator, verification=request, reason="<script>x</script>\x00 blurred\nscan"
    )
    assert rejected.rejection_reason == "<script>x</script> blurred\nscan"
    cast.company.refresh_from_db()
    assert not cast.company.is_verified


def test_a_decided_request_cannot_be_decided_again(cast):
    request = submit_verification(cast.owner)
    services.verification_approve(actor=cast.operator, verification=request, checked=["address"])
    with pytest.raises(TrustError) as caught:
        services.verification_reject(actor=cast.operator, verification=request, reason="No.")
    assert caught.value.code == TrustErrorCode.ALREADY_DECIDED
    assert caught.value.kind is ErrorKind.CONFLICT
    request.refresh_from_db()
    assert request.status == VerificationStatus.APPROVED


@pytest.mark.parametrize("who", ["owner", "admin", "member", "outsider"])
def test_only_operators_decide(cast, who):
    request = submit_verification(cast.owner)
    for decide, argument in (
        (services.verification_approve, {"checked": ["address"]}),
        (services.verification_reject, {"reason": "No."}),
    ):
        with pytest.raises(AccountError) as caught:
            decide(actor=cast.user(who), verification=request, **argument)
        assert caught.value.kind is ErrorKind.FORBIDDEN
    request.refresh_from_db()
    assert request.status == VerificationStatus.PENDING
    assert not AuditEntry.objects.filter(action__startswith="verification.a").exists()


VERIFICATION_MAIL = {  # the approval's subject and the rejection's reason line, by language
    "zh-hans": ("您的公司已在 Tradepost 通过认证", "原因："),
    "zh-hant": ("您的公司已在 Tradepost 通過驗證", "原因："),
    "en": ("Your company is verified on Tradepost", "Reason:"),
}


def test_the_company_is_told_in_its_language(
    cast, mailoutbox, django_capture_on_commit_callbacks, company_language
):
    language = company_language
    approved_subject, reason_line = VERIFICATION_MAIL[language]
    cast.owner.preferred_language = "en" if language != "en" else "zh-hans"
    cast.owner.save()
    request = submit_verification(cast.owner)
    with django_capture_on_commit_callbacks(execute=True):
        services.verification_approve(
            actor=cast.operator, verification=request, checked=["legal_name"]
        )
    # The owner and the admin, not the plain member.
    assert sorted(m.to[0] for m in mailoutbox) == sorted([cast.owner.email, cast.admin.email])
    assert {m.subject for m in mailoutbox} == {approved_subject}
    notes = Notification.objects.filter(kind=NotificationKind.VERIFICATION_APPROVED)
    assert sorted(n.recipient_id for n in notes) == sorted([cast.owner.pk, cast.admin.pk])
    assert notes[0].link.startswith("/en/dashboard/company/verification/")
    mailoutbox.clear()
    second = submit_verification(cast.owner)
    with django_capture_on_commit_callbacks(execute=True):
        services.verification_reject(actor=cast.operator, verification=second, reason="模糊")
    body = mailoutbox[0].body
    assert reason_line in body and "模糊" in body
    prefix = "/" + language + "/"
    assert prefix + "dashboard/company/verification/" in body
    note = Notification.objects.get(
        kind=NotificationKind.VERIFICATION_REJECTED, recipient=cast.owner
    )
    assert note.params == {"subject": cast.company.name_for(language), "reason": "模糊"}
