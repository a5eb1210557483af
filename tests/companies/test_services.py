import pytest
from django.utils import timezone

from tests.factories.accounts import make_user
from tests.factories.companies import add_member, make_company
from tradepost.companies import services
from tradepost.companies.errors import CompanyError, CompanyErrorCode, CompanyPermissionDenied
from tradepost.companies.models import Company, Membership, Role

pytestmark = pytest.mark.django_db

GOOD = {
    "legal_name": "义乌市星辰日用品有限公司",
    "english_name": "Yiwu Star Daily Goods Co., Ltd.",
    "country": "cn",
    "business_types": ["manufacturer", "trading_company"],
    "original_language": "zh-hans",
}


def test_create_makes_the_creator_owner():
    user = make_user()
    company = services.company_create(actor=user, **GOOD)
    assert company.slug == "yiwu-star-daily-goods-co-ltd"
    assert company.country == "CN"
    assert company.business_types == ["manufacturer", "trading_company"]
    membership = Membership.objects.get(user=user)
    assert membership.company == company
    assert membership.role == Role.OWNER


def test_a_person_creates_at_most_one_company():
    user = make_user()
    services.company_create(actor=user, **GOOD)
    with pytest.raises(CompanyError) as excinfo:
        services.company_create(actor=user, **{**GOOD, "english_name": "Second"})
    assert excinfo.value.code == CompanyErrorCode.ALREADY_IN_COMPANY
    assert Company.objects.count() == 1


def test_slug_is_unique():
    first = services.company_create(actor=make_user(), **GOOD)
    second = services.company_create(actor=make_user(), **GOOD)
    third = services.company_create(actor=make_user(), **GOOD)
    assert first.slug == "yiwu-star-daily-goods-co-ltd"
    assert second.slug == "yiwu-star-daily-goods-co-ltd-2"
    assert third.slug == "yiwu-star-daily-goods-co-ltd-3"


def test_slug_for_a_chinese_only_name_is_readable():
    company = services.company_create(
        actor=make_user(), **{"legal_name": "深圳市华强电子有限公司", "country": "CN"}
    )
    assert company.slug.startswith("company-")
    assert company.slug.isascii()


def test_slug_falls_back_to_the_legal_name():
    company = services.company_create(
        actor=make_user(), **{"legal_name": "Rotterdam Imports B.V.", "country": "NL"}
    )
    assert company.slug == "rotterdam-imports-bv"


def test_profile_language_defaults_to_the_creators_language():
    user = make_user(preferred_language="zh-hant")
    company = services.company_create(
        actor=user, **{"legal_name": "台灣精密工業股份有限公司", "country": "TW"}
    )
    assert company.original_language == "zh-hant"


BAD_INPUT = [
    ({"legal_name": "N" * 201}, "legal_name"),
    ({"legal_name": "   "}, "legal_name"),
    ({"english_name": "E" * 201}, "english_name"),
    ({"country": "XX"}, "country"),
    ({"country": "CHN"}, "country"),
    ({"country": ""}, "country"),
    ({"year_established": 1700}, "year_established"),
    ({"year_established": timezone.now().year + 1}, "year_established"),
    ({"year_established": "nineteen"}, "year_established"),
    ({"export_share": 150}, "export_share"),
    ({"export_share": -1}, "export_share"),
    ({"export_share": True}, "export_share"),
    ({"website": "javascript:alert(1)"}, "website"),
    ({"website": "ftp://example.com/"}, "website"),
    ({"website": "https://"}, "website"),
    ({"website": "https://example.com/" + "a" * 300}, "website"),
    ({"business_types": ["pirate"]}, "business_types"),
    ({"business_types": "manufacturer; DROP TABLE"}, "business_types"),
    ({"main_markets": ["mars"]}, "main_markets"),
    ({"employee_range": "lots"}, "employee_range"),
    ({"original_language": "xx"}, "original_language"),
    ({"province": "P" * 101}, "province"),
    ({"city": ["not", "text"]}, "city"),
    ({"main_products": "m" * 501}, "main_products"),
    ({"certifications": "x" * 61}, "certifications"),
    ({"certifications": ", ".join(f"C{n}" for n in range(21))}, "certifications"),
    ({"description": "d" * 70_000}, "description"),
    ({"is_verified": True}, "is_verified"),
]


@pytest.mark.parametrize(("change", "field"), BAD_INPUT)
def test_create_refuses_bad_input_and_saves_nothing(change, field):
    user = make_user()
    with pytest.raises(CompanyError) as excinfo:
        services.company_create(actor=user, **{**GOOD, **change})
    assert excinfo.value.code == CompanyErrorCode.INVALID
    assert field in excinfo.value.message_dict
    assert not Company.objects.exists()
    assert not Membership.objects.exists()


@pytest.mark.parametrize(("change", "field"), BAD_INPUT)
def test_update_refuses_bad_input_and_changes_nothing(change, field):
    owner = make_user()
    company = make_company(owner=owner, legal_name="Before")
    before = Company.objects.filter(pk=company.pk).values().get()
    with pytest.raises(CompanyError) as excinfo:
        services.company_update(actor=owner, company=company, **{"legal_name": "After", **change})
    assert field in excinfo.value.message_dict
    assert Company.objects.filter(pk=company.pk).values().get() == before


def _updated(*changes: dict) -> Company:
    """A new company after its owner saved each of `changes` in turn."""
    owner = make_user()
    company = make_company(owner=owner)
    for data in changes:
        services.company_update(actor=owner, company=company, **data)
    company.refresh_from_db()
    return company


def test_update_normalises_good_input():
    company = _updated(
        {
            "legal_name": "  Acme   Trading  ",
            "year_established": "1998",
            "export_share": 80,
            "website": "https://acme.example/",
            "certifications": "ISO 9001, CE，BSCI、 ce ,, ",
            "main_markets": ["western_europe", "western_europe", "north_america"],
            "employee_range": "51-200",
        }
    )
    assert company.legal_name == "Acme Trading"
    assert company.year_established == 1998
    assert company.export_share == 80
    assert company.website == "https://acme.example/"
    assert company.certifications == ["ISO 9001", "CE", "BSCI"]
    assert company.main_markets == ["western_europe", "north_america"]
    assert company.employee_range == "51-200"
    assert company.slug.startswith("company-")  # the slug does not follow renames


def test_update_accepts_the_bounds():
    company = _updated(
        {"year_established": 1800, "export_share": 0},
        {"year_established": timezone.now().year, "export_share": 100},
    )
    assert company.export_share == 100


def test_description_is_sanitised():
    company = _updated(
        {
            "description": '<p onclick="x()">We make <b>flasks</b></p><script>alert(1)</script>'
            '<a href="javascript:alert(2)">bad</a><img src=x onerror=alert(3)>'
        }
    )
    assert "<script" not in company.description
    assert "onclick" not in company.description
    assert "javascript:" not in company.description
    assert "onerror" not in company.description
    assert "<b>flasks</b>" in company.description


def test_a_member_cannot_update():
    company = make_company(owner=make_user(), legal_name="Before")
    member = add_member(company, role=Role.MEMBER)
    with pytest.raises(CompanyPermissionDenied):
        services.company_update(actor=member, company=company, **{"legal_name": "After"})
    company.refresh_from_db()
    assert company.legal_name == "Before"


def test_owner_hands_over_and_can_then_leave():
    owner = make_user()
    company = make_company(owner=owner)
    admin = add_member(company, role=Role.ADMIN)
    with pytest.raises(CompanyError):
        services.membership_leave(user=owner)
    services.ownership_transfer(actor=owner, company=company, membership_id=admin.membership.pk)
    assert Membership.objects.get(user=admin).role == Role.OWNER
    assert Membership.objects.get(user=owner).role == Role.ADMIN
    services.membership_leave(user=owner)
    assert not Membership.objects.filter(user=owner).exists()


def test_an_admin_cannot_hand_over_ownership():
    owner = make_user()
    company = make_company(owner=owner)
    admin = add_member(company, role=Role.ADMIN)
    member = add_member(company)
    with pytest.raises(CompanyPermissionDenied):
        services.ownership_transfer(
            actor=admin, company=company, membership_id=member.membership.pk
        )
    assert Membership.objects.get(user=owner).role == Role.OWNER
