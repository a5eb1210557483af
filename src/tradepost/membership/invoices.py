"""An invoice as its reader sees it: the printable page and the PDF show the same data from the
same template part (`membership/_invoice_body.html`), in the viewer's language.

The PDF is drawn by WeasyPrint (`core.pdf`): A4, its stylesheet inline, nothing fetched from
the network, Chinese drawn with the system's Noto Sans CJK. Call these with an invoice from
`selectors.access_invoice` only (the company's members and operators).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string
from django.utils import translation

from tradepost.core.countries import country_name
from tradepost.core.languages import normalise_ui_language
from tradepost.membership.models import Invoice
from tradepost.membership.payments import provider

if TYPE_CHECKING:
    from weasyprint import Document

PDF_TEMPLATE = "membership/invoice_pdf.html"

#: The fonts a PDF asks for first, by interface language: the CJK face of the language's
#: script, then one of the other script and Latin faces (a Chinese name on an English invoice
#: is drawn too; fontconfig falls back glyph by glyph).
PDF_FONTS = {
    "zh-hans": '"Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans", "DejaVu Sans", sans-serif',
    "zh-hant": '"Noto Sans CJK TC", "Noto Sans CJK SC", "Noto Sans", "DejaVu Sans", sans-serif',
    "en": '"Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "Noto Sans CJK TC", sans-serif',
}
#: The `lang` attribute of the PDF's page (chooses the regional glyph forms).
HTML_LANGS = {"zh-hans": "zh-Hans", "zh-hant": "zh-Hant", "en": "en"}


def _party(details: dict[str, Any], language: str) -> dict[str, Any]:
    """An invoice's seller or buyer as printed (the country named in `language`)."""
    code = str(details.get("country") or "")
    return {**details, "country_name": country_name(code, language) if code else ""}


def invoice_context(invoice: Invoice, *, language: str) -> dict[str, Any]:
    """What the invoice's page and its PDF print, in `language`."""
    language = normalise_ui_language(language)
    return {
        "invoice": invoice,
        "plan_name": invoice.subscription.plan.name_for(language),
        "kind": invoice.subscription.get_kind_display(),
        "seller": _party(invoice.seller, language),
        "buyer": _party(invoice.buyer, language),
        "payment": provider(invoice.payment_method).instructions(
            reference=invoice.payment_reference
        ),
    }


def invoice_html(invoice: Invoice, *, language: str) -> str:
    """The PDF's page: the invoice's own HTML document, in `language`."""
    language = normalise_ui_language(language)
    with translation.override(language):
        context = invoice_context(invoice, language=language)
        context.update(
            font_family=PDF_FONTS.get(language, PDF_FONTS["en"]),
            html_lang=HTML_LANGS.get(language, "en"),
        )
        return render_to_string(PDF_TEMPLATE, context)


def invoice_document(invoice: Invoice, *, language: str) -> Document:
    """The invoice laid out in pages (WeasyPrint's document, before it is written). WeasyPrint
    is imported here, when a PDF is drawn: importing it takes a process 0.8 s, which every
    start that loads the URLs (each command's checks, each web worker) would pay."""
    from tradepost.core.pdf import render_pdf

    return render_pdf(invoice_html(invoice, language=language))


def invoice_pdf(invoice: Invoice, *, language: str) -> bytes:
    """The invoice as a PDF file, in `language`."""
    pdf: bytes = invoice_document(invoice, language=language).write_pdf()
    return pdf


def pdf_file_name(invoice: Invoice) -> str:
    """The file name a PDF is saved under: its number (TP-2026-000001.pdf)."""
    return f"{invoice.number}.pdf"
