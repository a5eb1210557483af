from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.accounts.helpers import link_path
from tests.factories.accounts import make_user
from tests.factories.companies import make_cast, make_company
from tradepost.companies import services
from tradepost.companies.errors import CompanyError, CompanyErrorCode
from tradepost.companies.models import Invitation, Membership, Role

pytestmark = pytest.mark.django_db


def _invite(cast, email="new.colleague@example.com", role=Role.MEMBER):
    return services.invitation_create(
        actor=cast.owner, company=cast.company, email=email, role=role
    )


def test_invitation_email_link_lets_the_invitee_join(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    cast = make_cast()
    client.force_login(cast.admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("companies:invite"), {"email": "New.Colleague@example.com", "role": "admin"}
        )
    assert response.status_code == 302
    invitation = Invitation.objects.get()
    assert invitation.email == "new.colleague@example.com"
    assert invitation.role == Role.ADMIN
    assert invitation.invited_by == cast.admin
    assert timedelta(days=6, hours=23) < invitation.expires_at - timezone.now() <= timedelta(days=7)
    message = mailoutbox[0]
    assert message.to == ["new.colleague@example.com"]
    assert "Acme Trading" in message.body
    path = link_path(message)
    # Only a hash of the token is stored.
    secret = path.rstrip("/").rsplit("/", 1)[1]
    assert secret not in invitation.token_hash

    # Anonymous visitors see the invitation and are asked to log in.
    client.logout()
    page = client.get(path)
    assert page.status_code == 200
    assert b"Acme Trading" in page.content
    response = client.post(path)
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]

    invitee = make_user(email="new.colleague@example.com", verified=False)
    client.force_login(invitee)
    response = client.post(path)
    assert response.status_code == 302
    membership = Membership.objects.get(user=invitee)
    assert membership.company == cast.company
    assert membership.role == Role.ADMIN
    invitee.refresh_from_db()
    assert invitee.is_email_verified  # the link reached the address
    invitation.refresh_from_db()
    assert invitation.accepted_at is not None

    # Used once.
    client.force_login(make_user(email="someone@example.com"))
    assert client.get(path).status_code == 404


def test_invitation_email_uses_the_recipients_language(
    mailoutbox, django_capture_on_commit_callbacks
):
    cast = make_cast()
    make_user(email="zh@example.com", preferred_language="zh-hans")
    with django_capture_on_commit_callbacks(execute=True):
        _invite(cast, email="zh@example.com")
    assert mailoutbox[0].extra_headers["Content-Language"] == "zh-hans"
    assert "/zh-hans/dashboard/company/invitations/" in mailoutbox[0].body


def test_expired_invitation_is_refused(client):
    cast = make_cast()
    invitation, secret = _invite(cast)
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    invitee = make_user(email="new.colleague@example.com")
    client.force_login(invitee)
    path = reverse("companies:invitation_accept", args=[secret])
    response = client.post(path)
    assert response.status_code == 400
    assert b"expired" in response.content
    assert not Membership.objects.filter(user=invitee).exists()
    assert client.get(path).status_code == 404


def test_invitation_for_another_address_is_refused(client):
    cast = make_cast()
    _invitation, secret = _invite(cast)
    intruder = make_user(email="intruder@example.com")
    client.force_login(intruder)
    path = reverse("companies:invitation_accept", args=[secret])
    page = client.get(path)
    assert page.status_code == 200
    assert page.context["email_matches"] is False
    response = client.post(path)
    assert response.status_code == 400
    assert not Membership.objects.filter(user=intruder).exists()


def test_invitee_already_in_a_company_is_refused_clearly(client):
    cast = make_cast()
    _invitation, secret = _invite(cast)
    invitee = make_user(email="new.colleague@example.com")
    other = make_company(owner=invitee)
    client.force_login(invitee)
    response = client.post(reverse("companies:invitation_accept", args=[secret]))
    assert response.status_code == 400
    assert b"already belong to a company" in response.content
    assert Membership.objects.get(user=invitee).company == other


def test_invitee_already_a_member_cannot_be_invited():
    cast = make_cast()
    with pytest.raises(CompanyError) as excinfo:
        _invite(cast, email=cast.member.email.upper())
    assert excinfo.value.code == CompanyErrorCode.ALREADY_MEMBER


def test_withdrawn_and_unknown_tokens_are_refused(client):
    cast = make_cast()
    invitation, secret = _invite(cast)
    services.invitation_revoke(actor=cast.owner, company=cast.company, invitation_id=invitation.pk)
    invitee = make_user(email="new.colleague@example.com")
    client.force_login(invitee)
    for token in [secret, "nonsense", "x" * 300]:
        response = client.post(reverse("companies:invitation_accept", args=[token]))
        assert response.status_code == 400
    assert not Membership.objects.filter(user=invitee).exists()


def test_a_new_invitation_replaces_the_pending_one():
    cast = make_cast()
    first, first_secret = _invite(cast)
    _invite(cast, role=Role.ADMIN)
    first.refresh_from_db()
    assert first.revoked_at is not None
    invitee = make_user(email="new.colleague@example.com")
    with pytest.raises(CompanyError):
        services.invitation_accept(user=invitee, token=first_secret)


@pytest.mark.parametrize("role", ["owner", "boss", ""])
def test_invite_with_a_bad_role_is_refused(role):
    cast = make_cast()
    with pytest.raises(CompanyError):
        _invite(cast, role=role)
    assert not Invitation.objects.exists()


@pytest.mark.parametrize("email", ["not-an-email", "", "a" * 250 + "@example.com"])
def test_invite_page_refuses_bad_addresses(client, email, mailoutbox):
    cast = make_cast()
    client.force_login(cast.owner)
    response = client.post(reverse("companies:invite"), {"email": email, "role": "member"})
    assert response.status_code == 400
    assert response.context["form"].errors["email"]
    assert not Invitation.objects.exists()


def test_pending_invitations_are_limited(monkeypatch):
    cast = make_cast()
    monkeypatch.setattr(services, "MAX_PENDING_INVITATIONS", 2)
    _invite(cast, email="a@example.com")
    _invite(cast, email="b@example.com")
    with pytest.raises(CompanyError) as excinfo:
        _invite(cast, email="c@example.com")
    assert excinfo.value.code == CompanyErrorCode.INVITATION_LIMIT
