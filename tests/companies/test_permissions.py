"""Who may change a company: anonymous, another company's owner, member, admin, owner, operator.

Every write goes through HTTP with `?company=<id>`, so the same URL is tried by everybody; when
access is denied, the company, its logo, its members and its invitations are unchanged.
"""

import pytest
from django.urls import reverse

from tests.factories.companies import make_cast
from tests.factories.images import image_upload, png_bytes
from tradepost.companies.models import Company, Invitation, Membership, Role

pytestmark = pytest.mark.django_db

PEOPLE = ["anonymous", "outsider", "loner", "member", "admin", "owner", "operator"]
MANAGERS = {"admin", "owner", "operator"}
ROLE_CHANGERS = {"owner", "operator"}


def _client_for(client, cast, who):
    user = cast.user(who)
    if user is not None:
        client.force_login(user)
    return client


def _url(name, cast, *args):
    return reverse(name, args=args) + f"?company={cast.company.pk}"


def _snapshot(cast):
    company = Company.objects.filter(pk=cast.company.pk).values().get()
    members = sorted(Membership.objects.filter(company=cast.company).values_list("user_id", "role"))
    invitations = list(
        Invitation.objects.filter(company=cast.company).values_list("email", "revoked_at")
    )
    return company, members, invitations


def _assert_denied(response, who, before, cast):
    if who == "anonymous":
        assert response.status_code == 302
        assert "/accounts/login/" in response["Location"]
    else:
        assert response.status_code in (403, 404), response.status_code
    assert _snapshot(cast) == before


@pytest.mark.parametrize("who", PEOPLE)
def test_company_update(client, who):
    cast = make_cast()
    before = _snapshot(cast)
    response = _client_for(client, cast, who).post(
        _url("companies:profile", cast),
        {"legal_name": "Renamed Ltd", "country": "VN", "original_language": "en"},
    )
    if who in MANAGERS:
        assert response.status_code == 302
        cast.company.refresh_from_db()
        assert cast.company.legal_name == "Renamed Ltd"
        assert cast.company.country == "VN"
    else:
        _assert_denied(response, who, before, cast)


@pytest.mark.parametrize("who", PEOPLE)
def test_company_profile_page(client, who):
    cast = make_cast()
    response = _client_for(client, cast, who).get(_url("companies:profile", cast))
    if who in MANAGERS:
        assert response.status_code == 200
    elif who == "anonymous":
        assert response.status_code == 302
    else:
        assert response.status_code in (403, 404)


@pytest.mark.parametrize("who", PEOPLE)
def test_logo_upload(client, who):
    cast = make_cast()
    before = _snapshot(cast)
    response = _client_for(client, cast, who).post(
        _url("companies:logo", cast), {"logo": image_upload("logo.png", png_bytes(64, 48))}
    )
    if who in MANAGERS:
        assert response.status_code == 302
        cast.company.refresh_from_db()
        assert cast.company.logo.name.startswith("logos/")
    else:
        _assert_denied(response, who, before, cast)


@pytest.mark.parametrize("who", PEOPLE)
def test_invite(client, who, mailoutbox, django_capture_on_commit_callbacks):
    cast = make_cast()
    before = _snapshot(cast)
    with django_capture_on_commit_callbacks(execute=True):
        response = _client_for(client, cast, who).post(
            _url("companies:invite", cast), {"email": "new@example.com", "role": "member"}
        )
    if who in MANAGERS:
        assert response.status_code == 302
        assert Invitation.objects.filter(company=cast.company, email="new@example.com").exists()
        assert len(mailoutbox) == 1
    else:
        _assert_denied(response, who, before, cast)
        assert mailoutbox == []


@pytest.mark.parametrize("who", PEOPLE)
def test_remove_member(client, who):
    cast = make_cast()
    before = _snapshot(cast)
    target = cast.member.membership.pk
    response = _client_for(client, cast, who).post(_url("companies:member_remove", cast, target))
    if who in MANAGERS:
        assert response.status_code == 302
        assert not Membership.objects.filter(pk=target).exists()
    elif who == "member":
        # A member removing themselves through this URL is refused too; they use "leave".
        _assert_denied(response, who, before, cast)
    else:
        _assert_denied(response, who, before, cast)


@pytest.mark.parametrize("who", PEOPLE)
def test_nobody_removes_the_owner(client, who):
    cast = make_cast()
    before = _snapshot(cast)
    response = _client_for(client, cast, who).post(
        _url("companies:member_remove", cast, cast.owner.membership.pk)
    )
    assert response.status_code in (302, 403, 404)
    assert _snapshot(cast) == before


@pytest.mark.parametrize("who", PEOPLE)
def test_role_change(client, who):
    cast = make_cast()
    before = _snapshot(cast)
    target = cast.member.membership.pk
    response = _client_for(client, cast, who).post(
        _url("companies:member_role", cast, target), {"role": "admin"}
    )
    if who in ROLE_CHANGERS:
        assert response.status_code == 302
        assert Membership.objects.get(pk=target).role == Role.ADMIN
    else:
        _assert_denied(response, who, before, cast)


@pytest.mark.parametrize("who", PEOPLE)
def test_invitation_revoke(client, who):
    from tradepost.companies import services

    cast = make_cast()
    invitation, _secret = services.invitation_create(
        actor=cast.owner, company=cast.company, email="x@example.com", role=Role.MEMBER
    )
    before = _snapshot(cast)
    response = _client_for(client, cast, who).post(
        _url("companies:invitation_revoke", cast, invitation.pk)
    )
    invitation.refresh_from_db()
    if who in MANAGERS:
        assert response.status_code == 302
        assert invitation.revoked_at is not None
    else:
        _assert_denied(response, who, before, cast)


def test_another_companys_member_ids_are_not_found(client):
    cast = make_cast()
    # The outsider owns their company and aims at a membership of cast.company.
    client.force_login(cast.outsider)
    target = cast.member.membership.pk
    for name, data in [
        ("companies:member_remove", {}),
        ("companies:member_role", {"role": "admin"}),
        ("companies:member_make_owner", {}),
    ]:
        response = client.post(reverse(name, args=[target]), data)
        assert response.status_code == 404
    assert Membership.objects.get(pk=target).role == Role.MEMBER


@pytest.mark.parametrize("value", ["abc", "-1", "0", "99999999", "1e3", ""])
def test_bad_company_ids_are_not_found(client, value):
    cast = make_cast()
    client.force_login(cast.owner)
    response = client.get(reverse("companies:profile") + f"?company={value}")
    assert response.status_code == 404


def test_admin_cannot_change_roles_or_hand_over(client):
    cast = make_cast()
    client.force_login(cast.admin)
    before = _snapshot(cast)
    client.post(reverse("companies:member_make_owner", args=[cast.member.membership.pk]))
    client.post(
        reverse("companies:member_role", args=[cast.member.membership.pk]), {"role": "admin"}
    )
    assert _snapshot(cast) == before


def test_owner_cannot_make_someone_owner_through_role_change(client):
    cast = make_cast()
    client.force_login(cast.owner)
    before = _snapshot(cast)
    client.post(
        reverse("companies:member_role", args=[cast.member.membership.pk]), {"role": "owner"}
    )
    assert _snapshot(cast) == before
