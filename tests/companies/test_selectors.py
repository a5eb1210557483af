import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from tests.factories.companies import make_cast
from tradepost.companies.errors import CompanyNotFound
from tradepost.companies.selectors import (
    access_company_for_edit,
    access_company_for_view,
    acting_company,
    acting_company_id,
    can_manage_company,
    membership_for,
)

pytestmark = pytest.mark.django_db


def test_membership_for():
    cast = make_cast()
    assert membership_for(cast.owner).company == cast.company
    assert membership_for(cast.loner) is None
    assert membership_for(AnonymousUser()) is None
    assert membership_for(None) is None


def test_acting_company_is_the_one_company_of_an_active_member():
    cast = make_cast()
    for who in ("owner", "admin", "member"):
        user = getattr(cast, who)
        assert acting_company(user) == cast.company
        assert acting_company_id(user) == cast.company.pk
    for nobody in (cast.loner, AnonymousUser(), None):
        assert acting_company(nobody) is None
        assert acting_company_id(nobody) is None
    cast.member.is_active = False
    cast.member.save(update_fields=["is_active"])
    assert acting_company(cast.member) is None
    assert membership_for(cast.member) is None


@pytest.mark.parametrize(
    ("who", "allowed"),
    [
        ("owner", True),
        ("admin", True),
        ("operator", True),
        ("member", False),
        ("outsider", False),
        ("loner", False),
    ],
)
def test_can_manage_and_access_for_edit(who, allowed):
    cast = make_cast()
    user = cast.user(who)
    assert can_manage_company(user, cast.company) is allowed
    if allowed:
        assert access_company_for_edit(user=user, company_id=cast.company.pk) == cast.company
    else:
        with pytest.raises(CompanyNotFound):
            access_company_for_edit(user=user, company_id=cast.company.pk)


def test_not_found_and_not_yours_look_the_same():
    cast = make_cast()
    with pytest.raises(Http404) as missing:
        access_company_for_edit(user=cast.outsider, company_id=10**9)
    with pytest.raises(Http404) as not_yours:
        access_company_for_edit(user=cast.outsider, company_id=cast.company.pk)
    assert str(missing.value) == str(not_yours.value)


def test_anonymous_and_inactive_users_get_nothing():
    cast = make_cast()
    assert not can_manage_company(AnonymousUser(), cast.company)
    with pytest.raises(CompanyNotFound):
        access_company_for_view(user=AnonymousUser(), company_id=cast.company.pk)
    cast.owner.is_active = False
    cast.owner.save()
    assert not can_manage_company(cast.owner, cast.company)


def test_access_for_view_lets_members_in():
    cast = make_cast()
    assert access_company_for_view(user=cast.member, company_id=cast.company.pk) == cast.company
    with pytest.raises(CompanyNotFound):
        access_company_for_view(user=cast.outsider, company_id=cast.company.pk)
