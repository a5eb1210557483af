import json

import pytest

from tests.factories.accounts import make_user
from tests.factories.companies import make_cast
from tradepost.accounts.tokens import token_create
from tradepost.companies.models import Company

pytestmark = pytest.mark.django_db

PEOPLE = ["outsider", "loner", "member", "admin", "owner", "operator"]


def _auth(user):
    _token, secret = token_create(user=user, name="test")
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def _patch(client, user, body, raw=None):
    headers = _auth(user) if user is not None else {}
    return client.patch(
        "/api/v1/me/company",
        data=raw if raw is not None else json.dumps(body),
        content_type="application/json",
        **headers,
    )


def test_me_returns_user_company_and_role(client):
    cast = make_cast()
    response = client.get("/api/v1/me", **_auth(cast.admin))
    assert response.status_code == 200
    body = response.json()
    assert body["user"]["email"] == cast.admin.email
    assert body["user"]["email_verified"] is True
    assert body["user"]["can_publish"] is True
    assert body["role"] == "admin"
    assert body["company"]["id"] == cast.company.pk
    assert body["company"]["slug"] == cast.company.slug


def test_me_without_a_company(client):
    user = make_user(verified=False)
    body = client.get("/api/v1/me", **_auth(user)).json()
    assert body["company"] is None
    assert body["role"] is None
    assert body["user"]["can_publish"] is False


def test_me_needs_authentication(client):
    response = client.get("/api/v1/me")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"


def test_me_with_the_web_session(client):
    user = make_user()
    client.force_login(user)
    assert client.get("/api/v1/me").json()["user"]["id"] == user.pk


@pytest.mark.parametrize("who", ["anonymous", *PEOPLE])
def test_patch_company_permission_matrix(client, who):
    cast = make_cast()
    before = {c["id"]: c for c in Company.objects.values()}
    user = cast.user(who)
    response = _patch(client, user, {"city": "Ningbo", "export_share": 40})
    if who in ("admin", "owner"):
        assert response.status_code == 200
        assert response.json()["city"] == "Ningbo"
        cast.company.refresh_from_db()
        assert cast.company.city == "Ningbo"
        assert cast.company.export_share == 40
        return
    expected = {"anonymous": 401, "member": 403, "loner": 403, "operator": 403}  # no-company
    if who == "outsider":
        # Their own company, never cast.company.
        assert response.status_code == 200
        other = Company.objects.get(pk=cast.other_company.pk)
        assert other.city == "Ningbo"
        before.pop(cast.other_company.pk)
        after = {c["id"]: c for c in Company.objects.values() if c["id"] in before}
        assert after == before
        return
    assert response.status_code == expected[who]
    assert response["Content-Type"] == "application/problem+json"
    assert {c["id"]: c for c in Company.objects.values()} == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"legal_name": "N" * 201}, "legal_name"),
        ({"legal_name": None}, "legal_name"),
        ({"country": "XX"}, "country"),
        ({"year_established": 1700}, "year_established"),
        ({"export_share": 150}, "export_share"),
        ({"website": "javascript:alert(1)"}, "website"),
        ({"business_types": ["pirate"]}, "business_types"),
        ({"certifications": ["x" * 61]}, "certifications"),
        ({"export_share": "lots"}, "export_share"),
        ({"is_verified": True}, "is_verified"),
    ],
)
def test_patch_company_refuses_bad_input(client, body, field):
    cast = make_cast()
    before = Company.objects.filter(pk=cast.company.pk).values().get()
    response = _patch(client, cast.owner, {"city": "Changed", **body})
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert field in {error["field"] for error in problem["errors"]}
    assert Company.objects.filter(pk=cast.company.pk).values().get() == before


def test_patch_company_refuses_malformed_json(client):
    cast = make_cast()
    response = _patch(client, cast.owner, None, raw="{not json")
    assert response.status_code in (400, 422)


def test_patch_company_sanitises_description(client):
    cast = make_cast()
    response = _patch(client, cast.owner, {"description": "<b>ok</b><script>alert(1)</script>"})
    assert response.status_code == 200
    assert response.json()["description"] == "<b>ok</b>"


def test_revoked_token_is_refused_with_problem_json(client):
    cast = make_cast()
    token, secret = token_create(user=cast.owner, name="old")
    from tradepost.accounts.tokens import token_revoke

    token_revoke(user=cast.owner, token_id=token.pk)
    response = client.patch(
        "/api/v1/me/company",
        data=json.dumps({"city": "X"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    cast.company.refresh_from_db()
    assert cast.company.city == ""
