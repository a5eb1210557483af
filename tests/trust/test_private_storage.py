"""Documents live outside the public media folder, under random names, with no URL: the only
way to them is the access-checked download (docs/adr/0019-verification-documents.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.factories.trust import submit_verification
from tests.pages import page_url
from tradepost.trust.models import VerificationDocument

pytestmark = pytest.mark.django_db


def test_files_are_stored_privately_under_random_names(cast, settings):
    first = submit_verification(cast.owner).documents.get()
    path = Path(first.file.path).resolve()
    assert path.is_file()
    assert Path(settings.TRADEPOST_PRIVATE_ROOT).resolve() in path.parents
    assert Path(settings.MEDIA_ROOT).resolve() not in path.parents
    # YYYY/MM/<32 hex digits>.pdf: nothing of the company, the kind or the name it was sent as
    assert re.fullmatch(r"\d{4}/\d{2}/[0-9a-f]{32}\.pdf", first.file.name)
    assert "licence" not in first.file.name


def test_names_do_not_repeat(cast):
    from tradepost.trust import services

    request = submit_verification(cast.owner)
    services.verification_withdraw(actor=cast.owner, company=cast.company)
    again = submit_verification(cast.owner)
    names = {d.file.name for d in VerificationDocument.objects.all()}
    assert len(names) == 2 and request.pk != again.pk


def test_there_is_no_public_address(cast, client):
    document = submit_verification(cast.owner).documents.get()
    with pytest.raises(ValueError):
        document.file.url
    # Not under /media/ (and a path leaving it is refused by Django's file server).
    assert client.get(f"/media/{document.file.name}").status_code == 404
    assert client.get(f"/media/verification/{document.file.name}").status_code == 404
    client.force_login(cast.member)  # a member of the company, but not a manager
    assert client.get(page_url("trust:document", document_id=document.pk)).status_code == 404


def test_a_file_missing_from_the_disk_is_a_404(cast, client):
    document = submit_verification(cast.owner).documents.get()
    Path(document.file.path).unlink()
    client.force_login(cast.owner)
    assert client.get(page_url("trust:document", document_id=document.pk)).status_code == 404
