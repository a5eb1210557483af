"""Verification documents as uploads, and requests and reports made through the trust
services."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories.images import png_bytes
from tradepost.trust import services
from tradepost.trust.models import Report, VerificationRequest

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def pdf_upload(name: str = "licence.pdf", data: bytes = PDF) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, "application/pdf")


def png_upload(name: str = "certificate.png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png_bytes(), "image/png")


def submit_verification(actor: Any, **files: list[Any]) -> VerificationRequest:
    """The actor's company sends documents (by default one business licence PDF)."""
    company = actor.membership.company
    return services.verification_submit(
        actor=actor, company=company, files=files or {"business_licence": [pdf_upload()]}
    )


def report(
    actor: Any, target: str, obj: Any, *, reason: str = "counterfeit", note: str = ""
) -> Report:
    """`actor` reports `obj` (a product, company, buying request or message: `target`)."""
    return services.report_submit(
        actor=actor, target=target, target_id=obj.pk, reason=reason, note=note
    )
