import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.factories.accounts import PASSWORD, make_user
from tests.factories.companies import make_trader
from tests.factories.images import image_upload
from tests.factories.sourcing import make_quotation, make_request
from tradepost.sourcing import services
from tradepost.sourcing.errors import SourcingError
from tradepost.sourcing.models import Attachment

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _pdf(name="spec.pdf", data=PDF):
    return SimpleUploadedFile(name, data, "application/pdf")


def test_pdf_and_image_are_attached_to_a_request():
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    pdf = services.attachment_add_to_request(actor=buyer, buying_request=request, upload=_pdf())
    image = services.attachment_add_to_request(
        actor=buyer, buying_request=request, upload=image_upload()
    )
    assert pdf.content_type == "application/pdf" and pdf.original_name == "spec.pdf"
    assert image.content_type.startswith("image/")
    assert not pdf.file.name.endswith("spec.pdf")  # stored under a random name


@pytest.mark.parametrize(
    "upload",
    [
        SimpleUploadedFile("x.pdf", b"%PDF-1.4 truncated", "application/pdf"),
        SimpleUploadedFile("x.exe", b"MZ\x90\x00binary", "application/pdf"),
        SimpleUploadedFile("x.html", b"<script>alert(1)</script>", "text/html"),
        SimpleUploadedFile("empty.pdf", b"", "application/pdf"),
    ],
)
def test_bad_files_are_refused(upload):
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    with pytest.raises(SourcingError) as caught:
        services.attachment_add_to_request(actor=buyer, buying_request=request, upload=upload)
    assert "file" in caught.value.message_dict
    assert not Attachment.objects.exists()


def test_size_and_count_limits(settings):
    settings.TRADEPOST_ATTACHMENT_MAX_BYTES = 30
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    with pytest.raises(SourcingError):
        services.attachment_add_to_request(
            actor=buyer, buying_request=request, upload=_pdf(data=PDF + b" " * 100)
        )
    settings.TRADEPOST_ATTACHMENT_MAX_BYTES = 10_000
    for _ in range(services.ATTACHMENTS_MAX_PER_OBJECT):
        services.attachment_add_to_request(actor=buyer, buying_request=request, upload=_pdf())
    with pytest.raises(SourcingError):
        services.attachment_add_to_request(actor=buyer, buying_request=request, upload=_pdf())
    assert Attachment.objects.count() == services.ATTACHMENTS_MAX_PER_OBJECT


def test_only_owners_attach():
    request = make_request()
    stranger, _company = make_trader()
    quotation = make_quotation(request)
    with pytest.raises(SourcingError):
        services.attachment_add_to_request(actor=stranger, buying_request=request, upload=_pdf())
    with pytest.raises(SourcingError):
        services.attachment_add_to_quotation(actor=stranger, quotation=quotation, upload=_pdf())
    assert not Attachment.objects.exists()


def test_quotation_attachment_download_is_limited_to_buyer_and_supplier(client):
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    supplier, _c = make_trader()
    quotation = make_quotation(request, actor=supplier)
    attachment = services.attachment_add_to_quotation(
        actor=supplier, quotation=quotation, upload=_pdf()
    )
    url = reverse("sourcing:attachment", kwargs={"pk": attachment.pk})
    assert client.get(url).status_code == 404  # anonymous
    for user, status in [
        (make_user(), 404),
        (make_trader()[0], 404),
        (buyer, 200),
        (supplier, 200),
    ]:
        client.logout()
        assert client.login(email=user.email, password=PASSWORD)
        response = client.get(url)
        assert response.status_code == status
        if status == 200:
            assert response["Content-Type"] == "application/pdf"
            assert response["X-Content-Type-Options"] == "nosniff"
            assert b"".join(response.streaming_content) == PDF


def test_upload_and_remove_through_the_pages(client):
    buyer, _company = make_trader()
    request = make_request(actor=buyer)
    assert client.login(email=buyer.email, password=PASSWORD)
    response = client.post(
        reverse("sourcing:request_attachment_add", kwargs={"pk": request.pk}), {"file": _pdf()}
    )
    assert response.status_code == 302
    attachment = Attachment.objects.get()
    detail = client.get(reverse("sourcing:request_detail", kwargs={"pk": request.pk}))
    assert "spec.pdf" in detail.text
    stranger, _c = make_trader()
    client.logout()
    assert client.login(email=stranger.email, password=PASSWORD)
    remove_url = reverse("sourcing:attachment_remove", kwargs={"pk": attachment.pk})
    client.post(remove_url)
    assert Attachment.objects.filter(pk=attachment.pk).exists()
    client.logout()
    assert client.login(email=buyer.email, password=PASSWORD)
    client.post(remove_url)
    assert not Attachment.objects.exists()
