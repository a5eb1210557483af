import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from tests.factories.accounts import PASSWORD, make_operator, make_user
from tests.factories.companies import make_company
from tests.factories.messaging import make_conversation, make_parties
from tradepost.messaging import services
from tradepost.messaging.errors import MessagingError, MessagingErrorCode
from tradepost.messaging.models import Conversation, Message, MessageAttachment

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(out, "PNG")
    return out.getvalue()


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), "blue").save(out, "JPEG")
    return out.getvalue()


def _file(name: str, content: bytes, content_type: str = "application/octet-stream"):
    return SimpleUploadedFile(name, content, content_type=content_type)


def test_pdf_jpeg_and_png_are_kept_with_type_from_content(settings):
    p = make_parties()
    conversation = services.inquiry_send(
        actor=p.buyer,
        product=p.product,
        message="Specs attached",
        attachments=[
            _file("spec.pdf", PDF),
            _file("../../etc/photo.JPG", _jpeg()),
            _file("drawing", _png()),
        ],
    )
    items = list(MessageAttachment.objects.filter(message__conversation=conversation))
    assert [(a.original_name, a.content_type) for a in items] == [
        ("spec.pdf", "application/pdf"),
        ("photo.JPG", "image/jpeg"),
        ("drawing", "image/png"),
    ]
    media = str(settings.MEDIA_ROOT)
    for item in items:
        assert not item.file.path.startswith(media + "/")  # never under the public /media/
        assert item.file.read() in (PDF, _jpeg(), _png())


@pytest.mark.parametrize(
    "files",
    [
        [_file("evil.pdf", b"<html><script>alert(1)</script>")],
        [_file("x.png", b"GIF89a....")],
        [_file("empty.pdf", b"")],
        [_file(f"f{n}.pdf", PDF) for n in range(4)],
        [_file("big.pdf", PDF + b"0" * (5 * 1024 * 1024))],
    ],
    ids=["html-named-pdf", "gif", "empty", "too-many", "too-big"],
)
def test_bad_attachments_refuse_the_whole_message(files):
    p = make_parties()
    conversation = make_conversation(p)
    before = (Conversation.objects.count(), Message.objects.count())
    with pytest.raises(MessagingError) as caught:
        services.message_send(
            actor=p.supplier_owner, conversation=conversation, body="see", attachments=files
        )
    assert caught.value.code == MessagingErrorCode.ATTACHMENT_REJECTED
    with pytest.raises(MessagingError):
        services.inquiry_send(actor=p.buyer, product=p.product, message="x", attachments=files)
    assert (Conversation.objects.count(), Message.objects.count()) == before
    assert not MessageAttachment.objects.exists()


def test_exactly_five_megabytes_is_accepted():
    p = make_parties()
    conversation = make_conversation(p)
    content = PDF + b"0" * (5 * 1024 * 1024 - len(PDF))
    message = services.message_send(
        actor=p.buyer,
        conversation=conversation,
        body="big",
        attachments=[_file("big.pdf", content)],
    )
    assert message.attachments.get().size == 5 * 1024 * 1024


def test_attachment_download_follows_conversation_access(client):
    p = make_parties()
    conversation = make_conversation(p)
    client.login(email=p.supplier_member.email, password=PASSWORD)
    response = client.post(
        f"/en/messages/{conversation.pk}/",
        {"body": "Our catalogue", "attachments": [_file("catalogue.pdf", PDF)]},
    )
    assert response.status_code == 302
    item = MessageAttachment.objects.get()
    url = f"/en/messages/{conversation.pk}/attachments/{item.pk}/"
    assert url in client.get(f"/en/messages/{conversation.pk}/").content.decode()
    download = client.get(url)
    assert download.status_code == 200
    assert download["Content-Type"] == "application/pdf"
    assert "attachment" in download["Content-Disposition"]
    assert b"".join(download.streaming_content) == PDF

    for user, status in ((p.buyer, 200), (make_operator(), 200), (make_user(), 404)):
        client.login(email=user.email, password=PASSWORD)
        assert client.get(url).status_code == status
    other = make_user()
    other_company = make_company(owner=other)
    client.login(email=other.email, password=PASSWORD)
    assert client.get(url).status_code == 404
    # Another conversation's id with this attachment's id answers 404 as well.
    buyer2 = make_user()
    make_company(owner=buyer2)
    theirs = services.inquiry_send(actor=buyer2, company=other_company, message="hi")
    assert client.get(f"/en/messages/{theirs.pk}/attachments/{item.pk}/").status_code == 404
    client.logout()
    assert client.get(url).status_code == 302


def test_inquiry_form_with_bad_attachment_shows_error(client):
    p = make_parties()
    client.login(email=p.buyer.email, password=PASSWORD)
    response = client.post(
        f"/en/messages/inquire/?product={p.product.pk}",
        {"message": "hi", "attachments": [_file("a.exe", b"MZ\x90\x00")]},
    )
    assert response.status_code == 400
    assert "is not a PDF, JPEG or PNG file" in response.content.decode()
    assert not Conversation.objects.exists()
