"""Every write an operator makes in the back office goes through a service and is in the audit
log (who, what, when, before → after), which operators can read and nobody can change."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.factories.accounts import PASSWORD, make_operator, make_user
from tests.factories.companies import make_company
from tradepost.accounts.errors import AccountError
from tradepost.accounts.models import User
from tradepost.accounts.services import tokens_revoke_by_operator, users_mark_email_verified
from tradepost.accounts.tokens import token_create
from tradepost.audit.models import AuditEntry
from tradepost.companies.models import Company
from tradepost.companies.services import companies_mark
from tradepost.search.models import IndexOutbox

pytestmark = pytest.mark.django_db

ACTION = "_selected_action"


@pytest.fixture
def operator():
    return make_operator()


@pytest.fixture
def back_office(client, operator):
    assert client.login(email=operator.email, password=PASSWORD)
    return client


def _entries(action: str) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(action=action).order_by("pk"))


def test_verifying_companies_in_the_admin_is_audited_and_reindexed(back_office, operator):
    first, second = make_company(), make_company(is_verified=True)
    response = back_office.post(
        reverse("admin:companies_company_changelist"),
        {"action": "mark_verified", ACTION: [first.pk, second.pk]},
    )
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.is_verified
    (entry,) = _entries("company.mark")  # the second was verified already: nothing to record
    assert (entry.actor, entry.actor_email) == (operator, operator.email)
    assert entry.target_type == "companies.company"
    assert entry.target_id == str(first.pk)
    assert entry.changes == {"is_verified": [False, True]}
    assert IndexOutbox.objects.filter(kind="company", object_id=first.pk).exists()


def test_editing_and_deleting_a_company_in_the_admin_is_audited(back_office, operator):
    company = make_company(city="Ningbo")
    url = reverse("admin:companies_company_change", args=[company.pk])
    form = back_office.get(url).context["adminform"].form
    data = {name: form[name].value() or "" for name in form.fields if name != "logo"}
    data.update({"city": "Yiwu", "is_featured": "on"})
    data = {key: value for key, value in data.items() if value not in (False, None)}
    data.update(
        {
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
            "memberships-MIN_NUM_FORMS": "0",
            "memberships-MAX_NUM_FORMS": "1000",
        }
    )
    response = back_office.post(url, data)
    assert response.status_code == 302, response.content[:2000]
    (entry,) = _entries("company.change")
    assert entry.changes["city"] == ["Ningbo", "Yiwu"]
    assert entry.changes["is_featured"] == [False, True]

    response = back_office.post(
        reverse("admin:companies_company_delete", args=[company.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not Company.objects.filter(pk=company.pk).exists()
    (deleted,) = _entries("company.delete")
    assert deleted.target_id == str(company.pk)
    assert deleted.changes["city"] == ["Yiwu", None]


def test_revoking_tokens_and_verifying_emails_are_audited(operator):
    owner = make_user(verified=False)
    token, _secret = token_create(user=owner, name="erp")
    assert users_mark_email_verified(actor=operator, user_ids=[owner.pk]) == 1
    assert tokens_revoke_by_operator(actor=operator, token_ids=[token.pk]) == 1
    assert tokens_revoke_by_operator(actor=operator, token_ids=[token.pk]) == 0  # already
    (verified,) = _entries("user.verify-email")
    assert verified.target_label == owner.email
    (revoked,) = _entries("token.revoke")
    assert revoked.changes["revoked_at"][0] is None
    assert owner.email in revoked.target_label


def test_only_operators_may_use_the_back_office_services():
    company = make_company()
    somebody = make_user()
    with pytest.raises(AccountError):
        companies_mark(actor=somebody, company_ids=[company.pk], is_verified=True)
    with pytest.raises(AccountError):
        tokens_revoke_by_operator(actor=somebody, token_ids=[])
    company.refresh_from_db()
    assert not company.is_verified
    assert not AuditEntry.objects.exists()


def test_createoperator_is_audited_as_the_command_line():
    out = io.StringIO()
    call_command("createoperator", "--email", "Ops@Example.com", "--password", PASSWORD, stdout=out)
    user = User.objects.get(email="ops@example.com")
    assert user.is_staff and user.is_superuser
    (entry,) = _entries("operator.create")
    assert entry.actor is None and entry.actor_email == ""
    call_command("createoperator", "--email", "ops@example.com", "--noinput", stdout=out)
    assert "is now an operator" in out.getvalue()
    assert len(_entries("operator.grant")) == 1


def test_operators_read_the_log_and_nobody_changes_it(back_office, client, operator):
    make_company()
    companies_mark(
        actor=operator,
        company_ids=list(Company.objects.values_list("pk", flat=True)),
        is_verified=True,
    )
    entry = AuditEntry.objects.get()
    listing = back_office.get(reverse("admin:audit_auditentry_changelist"))
    assert listing.status_code == 200
    assert operator.email in listing.content.decode()
    detail = back_office.get(reverse("admin:audit_auditentry_change", args=[entry.pk]))
    assert detail.status_code == 200
    assert b"is_verified" in detail.content
    back_office.post(reverse("admin:audit_auditentry_delete", args=[entry.pk]), {"post": "yes"})
    assert AuditEntry.objects.filter(pk=entry.pk).exists()
    back_office.logout()
    member = make_user()
    assert client.login(email=member.email, password=PASSWORD)
    assert client.get(reverse("admin:audit_auditentry_changelist")).status_code == 302
