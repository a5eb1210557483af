import pytest

from tests.factories.companies import make_cast
from tradepost.accounts.tokens import token_create
from tradepost.companies import services
from tradepost.companies.models import Role

pytestmark = pytest.mark.django_db

CHANGELISTS = [
    "/admin/accounts/user/",
    "/admin/accounts/user/?verified=no&is_staff__exact=0&q=example",
    "/admin/accounts/apitoken/",
    "/admin/accounts/apitoken/?status=active&q=tp_",
    "/admin/companies/company/",
    "/admin/companies/company/?is_verified__exact=0&country=CN&q=acme",
    "/admin/companies/membership/?role=admin&q=acme",
    "/admin/companies/invitation/",
    "/admin/companies/invitation/?state=pending",
    "/admin/companies/invitation/?state=expired",
]


@pytest.mark.parametrize("url", CHANGELISTS)
def test_operator_admin_changelists(client, url):
    cast = make_cast()
    token_create(user=cast.owner, name="erp")
    services.invitation_create(
        actor=cast.owner, company=cast.company, email="x@example.com", role=Role.MEMBER
    )
    client.force_login(cast.operator)
    assert client.get(url).status_code == 200


def test_admin_change_pages(client):
    cast = make_cast()
    client.force_login(cast.operator)
    assert client.get(f"/admin/accounts/user/{cast.owner.pk}/change/").status_code == 200
    assert client.get(f"/admin/companies/company/{cast.company.pk}/change/").status_code == 200
    assert client.get("/admin/accounts/user/add/").status_code == 200


def test_admin_add_user(client):
    from tradepost.accounts.models import User

    cast = make_cast()
    client.force_login(cast.operator)
    response = client.post(
        "/admin/accounts/user/add/",
        {
            "email": "added@example.com",
            "usable_password": "true",
            "password1": "admin-made-passphrase-5",
            "password2": "admin-made-passphrase-5",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    assert User.objects.filter(email="added@example.com").exists()


def test_mark_verified_action(client):
    cast = make_cast()
    client.force_login(cast.operator)
    response = client.post(
        "/admin/companies/company/",
        {"action": "mark_verified", "_selected_action": [cast.company.pk]},
    )
    assert response.status_code == 302
    cast.company.refresh_from_db()
    assert cast.company.is_verified


def test_members_cannot_open_the_admin(client):
    cast = make_cast()
    client.force_login(cast.owner)
    response = client.get("/admin/companies/company/")
    assert response.status_code == 302


def test_admin_edit_applies_the_profile_rules(client):
    from tradepost.companies.models import Company

    cast = make_cast()
    client.force_login(cast.operator)
    url = f"/admin/companies/company/{cast.company.pk}/change/"
    data = {
        "slug": cast.company.slug,
        "legal_name": "Acme Trading",
        "english_name": "Acme Trading",
        "original_language": "en",
        "business_types": '["manufacturer"]',
        "country": "CN",
        "main_markets": "[]",
        "certifications": "[]",
        "description": "<p>Fine</p><script>alert(1)</script>",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    cast.company.refresh_from_db()
    assert cast.company.description == "<p>Fine</p>"

    response = client.post(url, {**data, "export_share": "150", "country": "XX"})
    assert response.status_code == 200
    assert Company.objects.get(pk=cast.company.pk).country == "CN"
