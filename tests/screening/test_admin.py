"""Banned terms in the admin: listed and searchable, read only (the operator's page writes),
deactivated and activated in bulk through the services, so each change is audited."""

from __future__ import annotations

import pytest

from tests.factories.screening import ban
from tradepost.audit.models import AuditEntry
from tradepost.screening.models import BannedTerm

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/screening/bannedterm/"


def test_operators_read_and_deactivate_terms_in_the_admin(cast, client):
    ivory = ban("ivory", actor=cast.operator)
    gun = ban("gun", actor=cast.operator)
    client.force_login(cast.operator)
    listing = client.get(CHANGELIST, {"q": "ivo"})
    assert listing.status_code == 200
    assert "ivory" in listing.content.decode() and ">gun<" not in listing.content.decode()
    assert client.get(f"{CHANGELIST}add/").status_code == 403
    page = client.get(f"{CHANGELIST}{ivory.pk}/change/")
    assert page.status_code == 200 and 'name="term"' not in page.content.decode()
    response = client.post(
        CHANGELIST, {"action": "deactivate", "_selected_action": [ivory.pk, gun.pk]}
    )
    assert response.status_code == 302
    assert not BannedTerm.objects.filter(active=True).exists()
    assert AuditEntry.objects.filter(action="banned_term.update").count() == 2
    client.post(CHANGELIST, {"action": "activate", "_selected_action": [gun.pk]})
    assert list(BannedTerm.objects.filter(active=True).values_list("term", flat=True)) == ["gun"]
