"""The invoice as a PDF (WeasyPrint): one A4 page holding what the printable page holds, in
the viewer's language, Chinese drawn with a CJK font (no missing glyphs), served only to those
who may read the invoice, and drawn without fetching anything from the network."""

from __future__ import annotations

import re
import statistics
import time

import pytest
from django.test import override_settings
from weasyprint.formatting_structure.boxes import TextBox

from tests.api_client import ApiClient
from tests.factories.membership import CHINESE_BUYER, chinese_buyers_invoice, gold, subscribe
from tests.membership.test_permissions import WHO, client_for
from tests.pages import log_in, page_url
from tests.test_translations import compiled_catalogues  # noqa: F401 (a fixture)
from tradepost.core.pdf import ResourceRefused, StaticFilesOnly, render_pdf
from tradepost.membership.invoices import invoice_document, invoice_html, invoice_pdf
from tradepost.membership.models import Invoice

pytestmark = pytest.mark.django_db

BUYER = CHINESE_BUYER
A4_CSS_PIXELS = (794, 1123)  # 210 x 297 mm at 96 CSS pixels an inch


def document_text(document) -> str:
    """The text WeasyPrint laid out, page after page (what the PDF draws)."""
    return "".join(
        box.text
        for page in document.pages
        for box in page._page_box.descendants()
        if isinstance(box, TextBox)
    )


def fonts_used(document) -> list:
    """The fonts the written PDF embeds (filled in while it is written)."""
    document.write_pdf()
    return list(document.fonts.values())


@pytest.fixture
def chinese_invoice(settings):
    owner, _company, invoice = chinese_buyers_invoice(settings)
    return owner, invoice


def test_the_pdf_is_one_a4_page_with_what_an_accountant_needs(chinese_invoice):
    _owner, invoice = chinese_invoice
    document = invoice_document(invoice, language="en")
    assert len(document.pages) == 1
    page = document.pages[0]
    assert (round(page.width), round(page.height)) == A4_CSS_PIXELS
    text = document_text(document)
    for expected in (
        invoice.number,
        BUYER,
        "浙江省义乌市稠州北路 88 号",
        "91330782MA2EXAMPLE",
        "China",
        "Tradepost Operations Ltd",
        "HK-12345678",
        "Hong Kong",
        "US$2,000.00",  # the plan's currency, Babel's formatting
        invoice.payment_reference,
        "HK00 1234 5678 9012",
        "Invoice date",
        "Due date",
        "Period",
    ):
        assert expected in text, expected
    assert invoice_pdf(invoice, language="en").startswith(b"%PDF-")
    # The same document written without compression, to read its structure.
    pdf = document.write_pdf(uncompressed_pdf=True)
    assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) == 1
    assert re.search(rb"/MediaBox\s*\[\s*0 0 595\.\d+ 841\.\d+", pdf)  # A4 in points


@pytest.mark.usefixtures("compiled_catalogues")
@pytest.mark.parametrize(
    ("language", "label", "cjk_family"),
    [
        ("zh-hans", "发票", "Noto Sans CJK SC"),
        ("zh-hant", "發票", "Noto Sans CJK TC"),
        ("en", "Invoice", "Noto Sans CJK SC"),  # the buyer's Chinese name
    ],
)
def test_chinese_is_drawn_with_a_cjk_font_and_no_missing_glyph(
    chinese_invoice, language, label, cjk_family
):
    _owner, invoice = chinese_invoice
    document = invoice_document(invoice, language=language)
    text = document_text(document)
    assert label in text and BUYER in text
    fonts = fonts_used(document)
    assert cjk_family in {font.family for font in fonts}
    # A character no font had would be drawn as an empty box ("tofu"): none was.
    assert all(not font.missing for font in fonts)
    drawn = "".join(str(char) for font in fonts for char in font.to_unicode.values())
    assert all(char in drawn for char in BUYER)


def test_the_page_is_in_the_viewers_language(chinese_invoice):
    _owner, invoice = chinese_invoice
    html = invoice_html(invoice, language="zh-hant")
    assert '<html lang="zh-Hant">' in html
    assert "中國" in html  # the buyer's country, named in Traditional Chinese


# --- fetching -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/logo.png",
        "https://169.254.169.254/latest/meta-data/",
        "ftp://example.com/x.css",
        "file:///etc/passwd",
        "data:text/css,body{}",
        "http://127.0.0.1:8000/static/../../etc/passwd",
        "http://127.0.0.1:8000/media/logo.png",
    ],
)
def test_the_fetcher_refuses_anything_but_the_sites_static_files(url):
    fetcher = StaticFilesOnly("http://127.0.0.1:8000/")
    with pytest.raises(ResourceRefused):
        fetcher.fetch(url)


def test_the_fetcher_serves_the_sites_own_static_files():
    fetcher = StaticFilesOnly("http://127.0.0.1:8000/")
    answer = fetcher.fetch("http://127.0.0.1:8000/static/tradepost/site.css")
    assert answer.content_type == "text/css" and b".badge" in answer.read()
    with pytest.raises(ResourceRefused):
        fetcher.fetch("http://127.0.0.1:8000/static/tradepost/no-such-file.css")


@override_settings(SITE_URL="http://127.0.0.1:8000")
def test_rendering_never_reaches_the_network(monkeypatch):
    """A page linking to outside addresses renders, and nothing outside is opened."""
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("WeasyPrint tried to open a connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    html = (
        '<link rel="stylesheet" href="http://example.com/evil.css">'
        '<link rel="stylesheet" href="/static/tradepost/site.css">'
        '<img src="https://example.com/pixel.png"><img src="file:///etc/hostname">'
        "<p>Invoice</p>"
    )
    document = render_pdf(html)
    assert "Invoice" in document_text(document)


# --- who may download it --------------------------------------------------------------------

PDF_ANSWERS = {
    # who: (the page's PDF, the API's PDF)
    "anonymous": (302, 401),
    "loner": (404, 404),
    "owner": (200, 200),
    "admin": (200, 200),
    "member": (200, 200),
    "outsider": (404, 404),
    "operator": (200, 200),
}


@pytest.fixture
def world(cast):
    subscribe(cast.company, gold(), actor=cast.owner)
    return cast, Invoice.objects.get(company=cast.company)


@pytest.mark.parametrize("who", WHO)
def test_the_pdf_is_guarded_like_the_invoice(client, world, who):
    cast, invoice = world
    page = client_for(client, cast, who).get(
        page_url("membership:invoice_pdf", invoice_id=invoice.pk)
    )
    api = ApiClient(cast.user(who), base="/api/v1").get(f"/me/invoices/{invoice.pk}/pdf")
    assert (page.status_code, api.status_code) == PDF_ANSWERS[who]
    for answer in (page, api):
        if answer.status_code == 200:
            assert answer["Content-Type"] == "application/pdf"
            assert answer.content.startswith(b"%PDF-")
            assert answer["Content-Disposition"] == f'attachment; filename="{invoice.number}.pdf"'
            assert answer["Cache-Control"] == "private, no-store"
            assert answer["X-Content-Type-Options"] == "nosniff"
        elif who != "anonymous":
            assert not answer.content.startswith(b"%PDF-")


@pytest.mark.parametrize("invoice_id", ["0", "999999", "abc"])
def test_nonsense_ids_are_not_found(client, world, invoice_id):
    cast, _invoice = world
    log_in(client, cast.owner)
    answer = client.get(f"/en/dashboard/membership/invoices/{invoice_id}/pdf/")
    assert answer.status_code == 404
    assert ApiClient(cast.owner, base="/api/v1").get(
        f"/me/invoices/{invoice_id}/pdf"
    ).status_code in (404, 422)


@pytest.mark.usefixtures("compiled_catalogues")
def test_the_invoice_page_links_to_its_pdf_and_the_api_follows_the_language(client, world):
    cast, invoice = world
    log_in(client, cast.owner)
    html = client.get(page_url("membership:invoice", "zh-hans", invoice_id=invoice.pk))
    assert (
        page_url("membership:invoice_pdf", "zh-hans", invoice_id=invoice.pk)
        in html.content.decode()
    )
    assert "下载 PDF" in html.content.decode()
    api = ApiClient(cast.owner, base="/api/v1")
    api.headers["Accept-Language"] = "zh-Hant"
    answer = api.get(f"/me/invoices/{invoice.pk}/pdf")
    assert answer.status_code == 200 and answer.content.startswith(b"%PDF-")


def test_the_schema_declares_the_pdf(client):
    schema = client.get("/api/v1/openapi.json").json()
    operation = schema["paths"]["/api/v1/me/invoices/{invoice_id}/pdf"]["get"]
    assert "application/pdf" in operation["responses"]["200"]["content"]


def test_time_to_draw_one_invoice(chinese_invoice, capsys):
    """Median of 10 (reported by the run; a generous bound keeps it honest)."""
    _owner, invoice = chinese_invoice
    invoice_pdf(invoice, language="zh-hans")  # fonts loaded once per process
    times = []
    for _ in range(10):
        started = time.perf_counter()
        invoice_pdf(invoice, language="zh-hans")
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    with capsys.disabled():
        print(f"\ninvoice PDF (zh-hans): median {median * 1000:.0f} ms of 10")
    assert median < 5
