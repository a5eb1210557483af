import pytest
from django.urls import reverse

from tests.factories.accounts import make_user
from tests.factories.companies import add_member, make_cast, make_company
from tests.factories.images import image_upload, png_bytes
from tradepost.companies.models import Company, Membership, Role

pytestmark = pytest.mark.django_db


def test_dashboard_offers_to_create_a_company(client):
    client.force_login(make_user())
    response = client.get(reverse("accounts:dashboard"))
    assert response.status_code == 200
    assert reverse("companies:create").encode() in response.content


def test_dashboard_summarises_the_company(client):
    cast = make_cast()
    client.force_login(cast.owner)
    response = client.get(reverse("accounts:dashboard"))
    assert response.status_code == 200
    assert b"Acme Trading" in response.content
    assert reverse("companies:profile").encode() in response.content
    assert reverse("companies:members").encode() in response.content


def test_create_company_through_the_page(client):
    user = make_user()
    client.force_login(user)
    assert client.get(reverse("companies:index"))["Location"] == reverse("companies:create")
    assert client.get(reverse("companies:create")).status_code == 200
    response = client.post(
        reverse("companies:create"),
        {
            "legal_name": "宁波海天塑料制品有限公司",
            "english_name": "Ningbo Haitian Plastics",
            "country": "CN",
            "business_types": ["manufacturer"],
            "original_language": "zh-hans",
        },
    )
    assert response.status_code == 302
    company = Company.objects.get()
    assert company.slug == "ningbo-haitian-plastics"
    assert Membership.objects.get(user=user).role == Role.OWNER
    # A second visit goes to the profile instead.
    assert client.get(reverse("companies:create"))["Location"] == reverse("companies:profile")


def test_create_company_page_shows_errors_next_to_fields(client):
    client.force_login(make_user())
    response = client.post(
        reverse("companies:create"),
        {"legal_name": "", "country": "ZZ", "original_language": "en"},
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors["legal_name"]
    assert form.errors["country"]
    assert b'id="id_legal_name_errors"' in response.content
    assert not Company.objects.exists()


def test_profile_update_errors_are_shown_and_nothing_saved(client):
    cast = make_cast()
    client.force_login(cast.owner)
    before = Company.objects.filter(pk=cast.company.pk).values().get()
    response = client.post(
        reverse("companies:profile"),
        {
            "legal_name": "Acme Trading",
            "country": "CN",
            "original_language": "en",
            "year_established": "1700",
            "export_share": "150",
            "website": "javascript:alert(1)",
            "certifications": "ISO 9001",
        },
    )
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert set(errors) >= {"year_established", "export_share", "website"}
    assert Company.objects.filter(pk=cast.company.pk).values().get() == before


def test_description_script_is_stored_sanitised_and_rendered_inert(client):
    cast = make_cast()
    client.force_login(cast.owner)
    response = client.post(
        reverse("companies:profile"),
        {
            "legal_name": "Acme Trading",
            "country": "CN",
            "original_language": "en",
            "description": "<p>Quality first</p><script>alert('x')</script>"
            '<img src=x onerror="alert(1)">',
        },
    )
    assert response.status_code == 302
    cast.company.refresh_from_db()
    assert "<script" not in cast.company.description
    assert "Quality first" in cast.company.description

    # The edit form shows the stored text escaped.
    page = client.get(reverse("companies:profile"))
    assert b"<script>alert" not in page.content
    # The public page renders the sanitised HTML.
    public = client.get(reverse("catalog:company_detail", kwargs={"slug": cast.company.slug}))
    assert public.status_code == 200
    assert b"<p>Quality first</p>" in public.content
    assert b"alert(" not in public.content


def test_member_sees_a_clear_refusal_on_the_profile_page(client):
    cast = make_cast()
    client.force_login(cast.member)
    response = client.get(reverse("companies:profile"))
    assert response.status_code == 403
    assert b"Only the owner and the admins" in response.content


def test_logo_upload_replaces_and_removes(client):
    cast = make_cast()
    client.force_login(cast.owner)
    client.post(reverse("companies:logo"), {"logo": image_upload("logo.png", png_bytes(64, 48))})
    cast.company.refresh_from_db()
    first = cast.company.logo.name
    assert first.startswith("logos/") and first.endswith(".jpg")
    storage = cast.company.logo.storage
    assert storage.exists(first)
    client.post(reverse("companies:logo"), {"logo": image_upload("logo.png", png_bytes(80, 80))})
    cast.company.refresh_from_db()
    assert cast.company.logo.name != first
    client.post(reverse("companies:logo"), {"remove": "1"})
    cast.company.refresh_from_db()
    assert not cast.company.logo


@pytest.mark.parametrize(
    "upload",
    [
        ("logo.png", b"not an image at all"),
        ("logo.svg", b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>"),
        ("empty.png", b""),
    ],
)
def test_logo_upload_refuses_non_images(client, upload):
    from django.core.files.uploadedfile import SimpleUploadedFile

    cast = make_cast()
    client.force_login(cast.owner)
    name, content = upload
    response = client.post(
        reverse("companies:logo"), {"logo": SimpleUploadedFile(name, content)}, follow=True
    )
    assert response.status_code == 200
    cast.company.refresh_from_db()
    assert not cast.company.logo


def test_members_page_lists_people_and_invitations(client):
    cast = make_cast()
    client.force_login(cast.owner)
    response = client.get(reverse("companies:members"))
    assert response.status_code == 200
    members = response.context["members"]
    assert [m.role for m in members] == ["owner", "admin", "member"]
    assert cast.member.email.encode() in response.content


def test_members_page_for_a_member_is_read_only(client):
    cast = make_cast()
    client.force_login(cast.member)
    response = client.get(reverse("companies:members"))
    assert response.status_code == 200
    assert response.context["can_manage"] is False
    assert b"/remove/" not in response.content
    assert b"/role/" not in response.content
    assert reverse("companies:invite").encode() not in response.content


def test_members_page_query_count_does_not_grow(client, django_assert_max_num_queries):
    from tradepost.companies import services

    owner = make_user()
    company = make_company(owner=owner)
    for n in range(3):
        add_member(company)
        services.invitation_create(
            actor=owner, company=company, email=f"i{n}@example.com", role=Role.MEMBER
        )
    client.force_login(owner)
    # +1: the display currency's exchange-rate table (cold in a test; read once a minute)
    with django_assert_max_num_queries(13):
        client.get(reverse("companies:members"))
    for n in range(30):
        add_member(company, role=Role.ADMIN if n % 3 else Role.MEMBER)
        services.invitation_create(
            actor=owner, company=company, email=f"j{n}@example.com", role=Role.MEMBER
        )
    # +1: the display currency's exchange-rate table (cold in a test; read once a minute)
    with django_assert_max_num_queries(13):
        response = client.get(reverse("companies:members"))
    assert len(response.context["members"]) == 34


def test_member_leaves(client):
    cast = make_cast()
    client.force_login(cast.member)
    response = client.post(reverse("companies:leave"))
    assert response.status_code == 302
    assert not Membership.objects.filter(user=cast.member).exists()


def test_owner_cannot_leave(client):
    cast = make_cast()
    client.force_login(cast.owner)
    client.post(reverse("companies:leave"))
    assert Membership.objects.get(user=cast.owner).role == Role.OWNER


def test_owner_hands_over_through_the_page(client):
    cast = make_cast()
    client.force_login(cast.owner)
    response = client.post(reverse("companies:member_make_owner", args=[cast.admin.membership.pk]))
    assert response.status_code == 302
    assert Membership.objects.get(user=cast.admin).role == Role.OWNER
    assert Membership.objects.get(user=cast.owner).role == Role.ADMIN


def test_operator_manages_any_company(client):
    cast = make_cast()
    client.force_login(cast.operator)
    query = f"?company={cast.company.pk}"
    assert client.get(reverse("companies:members") + query).status_code == 200
    assert client.get(reverse("companies:profile") + query).status_code == 200


@pytest.mark.parametrize(
    "name", ["companies:create", "companies:profile", "companies:members", "companies:invite"]
)
def test_pages_need_login(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_pages_without_a_company_send_to_create(client):
    client.force_login(make_user())
    for name in ["companies:profile", "companies:members", "companies:invite"]:
        assert client.get(reverse(name))["Location"] == reverse("companies:create")


@pytest.mark.parametrize("language", ["en", "zh-hans", "zh-hant"])
def test_pages_render_in_every_language(client, language):
    cast = make_cast()
    client.force_login(cast.owner)
    for path in ["profile/", "members/", "members/invite/"]:
        response = client.get(f"/{language}/dashboard/company/{path}")
        assert response.status_code == 200, path
